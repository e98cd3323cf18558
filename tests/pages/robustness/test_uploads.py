"""A classroom on one server, odd and hostile pictures on the Draw page: a truncated PNG, decompression bombs, a text
file, a picture whose ink and paper are guessed wrong; the canvas with one dot and with the whole canvas painted.
Each gets a clear message or a defined prediction (app_under_test.py).
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from PIL import Image, ImageDraw

import nbcore.preprocess
from nbcore.preprocess import ink_from_canvas, mnist_frame
from tests.pages.robustness.app_under_test import EXTREMES, app_for, assert_defined_prediction, metric, run_clean


def colour_range(spec) -> list[float]:
    """Every colour-scale bound (cmin/cmax/zmin/zmax) anywhere in a plotly figure dict."""
    if isinstance(spec, dict):
        return [float(value) for key, value in spec.items() if key in ("cmin", "cmax", "zmin", "zmax")] + [
            bound for value in spec.values() for bound in colour_range(value)
        ]
    if isinstance(spec, list):
        return [bound for value in spec for bound in colour_range(value)]
    return []


# -- uploads and the canvas on the Draw page ---------------------------------------------------
def png(image: Image.Image, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", **options)
    return buffer.getvalue()


def paper_digit() -> bytes:
    image = Image.new("L", (300, 300), 255)
    ImageDraw.Draw(image).line([(70, 60), (230, 60), (130, 250)], fill=0, width=22)
    return png(image)


UPLOADS = {
    # name: (file name, bytes, mime type, words the message must hold)
    "truncated PNG": ("seven.png", paper_digit()[:700], "image/png", "damaged or truncated"),
    "bomb under Pillow's limit": (
        "big.png",
        png(Image.new("1", (7000, 7000)), optimize=True),
        "image/png",
        "too large",
    ),
    "bomb over Pillow's limit": (
        "huge.png",
        png(Image.new("1", (20000, 20000)), optimize=True),
        "image/png",
        "too large",
    ),
    "text file": ("notes.txt", b"not a picture, just some text\n" * 20, "text/plain", "not an image"),
}


@pytest.mark.slow
def test_an_upload_is_decoded_once_and_its_outcome_kept_across_reruns(monkeypatch):
    app = run_clean(app_for("pages/draw.py"), "draw")
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    run_clean(app, "draw, upload mode")
    app.file_uploader(key="draw_upload").set_value(("notes.txt", UPLOADS["text file"][1], "text/plain"))
    app.run()
    app.file_uploader(key="draw_upload").set_value(("seven.png", paper_digit(), "image/png"))
    run_clean(app, "draw, a good upload")

    def decode_again(data):
        raise AssertionError("the same upload was decoded again on a rerun")

    monkeypatch.setattr(nbcore.preprocess, "read_upload", decode_again)  # the page imports it on every run
    app.select_slider(key="threshold").set_value(1)
    run_clean(app, "draw, the same upload after a settings change")
    assert metric(app, "Naive Bayes prediction").value == "7"
    assert any("≥ 1:" in item.value for item in app.caption), "the new threshold was not applied"


@pytest.mark.slow
def test_a_wrong_guess_of_ink_and_paper_is_one_toggle_away():
    """A thick dark square ring (ink on 75 % of the picture and all of its border) is read as light ink on
    a dark background, so the hole becomes the digit; "Swap ink and paper" reads the ring, and back."""
    ring = np.zeros((40, 40), np.uint8)  # black ink
    ring[10:30, 10:30] = 255  # white paper inside
    app = run_clean(app_for("pages/draw.py"), "draw")
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    run_clean(app, "draw, upload mode")
    app.file_uploader(key="draw_upload").set_value(("ring.png", png(Image.fromarray(ring)), "image/png"))
    run_clean(app, "draw, the ring as guessed")

    def read_as() -> tuple[str, np.ndarray]:
        sentence = next(item.value for item in app.caption if item.value.startswith("Read as"))
        return sentence, app.session_state["upload_outcome"][0].frame

    sentence, frame = read_as()
    assert sentence == "Read as light ink on a dark background." and frame[14, 14] == 255  # the hole, filled
    app.toggle(key="draw_swap_ink").set_value(True)
    run_clean(app, "draw, ink and paper swapped")
    sentence, frame = read_as()
    assert sentence == "Read as dark ink on light paper." and frame[14, 14] == 0 and frame[14, 5] > 127  # the ring
    app.toggle(key="draw_swap_ink").set_value(False)
    run_clean(app, "draw, swapped back")
    assert read_as()[1][14, 14] == 255


@pytest.mark.slow
@pytest.mark.parametrize("case", list(UPLOADS))
def test_hostile_upload_gets_a_message_and_no_prediction(case):
    name, data, mime, words = UPLOADS[case]
    assert len(data) < 100_000, "the bombs are small files"
    app = run_clean(app_for("pages/draw.py"), "draw")
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    run_clean(app, "draw, upload mode")
    app.file_uploader(key="draw_upload").set_value((name, data, mime))
    app.run()
    assert not app.exception, [item.value for item in app.exception]
    messages = [item.value for item in [*app.error, *app.warning]]
    assert any(words in message for message in messages), f"{case}: {messages}"
    assert not [item for item in app.metric if item.label == "Naive Bayes prediction"]
    assert "draw_swap_ink" not in [toggle.key for toggle in app.toggle]  # nothing was read: nothing to swap
    # and the page goes on working: a real picture afterwards is classified
    app.file_uploader(key="draw_upload").set_value(("seven.png", paper_digit(), "image/png"))
    run_clean(app, f"draw, a good upload after the {case}")
    assert metric(app, "Naive Bayes prediction").value == "7"


def canvas(paint) -> np.ndarray:
    """A 280x280 RGBA black canvas (as the Draw page's canvas sends it) with ``paint(draw)`` applied in white."""
    image = Image.new("RGBA", (280, 280), (0, 0, 0, 255))
    paint(ImageDraw.Draw(image))
    return np.asarray(image)


CANVASES = {
    "one dot": canvas(lambda draw: draw.ellipse([130, 130, 150, 150], fill=(255, 255, 255, 255))),
    "one pixel": canvas(lambda draw: draw.point([(3, 277)], fill=(255, 255, 255, 255))),
    "whole canvas painted": canvas(lambda draw: draw.rectangle([0, 0, 279, 279], fill=(255, 255, 255, 255))),
}


@pytest.mark.slow
@pytest.mark.parametrize("extreme", ["textbook", *EXTREMES])
@pytest.mark.parametrize("case", list(CANVASES))
def test_canvas_with_one_dot_or_all_paint_gives_a_defined_prediction(case, extreme):
    frame = mnist_frame(ink_from_canvas(CANVASES[case]))
    assert frame is not None and frame.shape == (28, 28)  # some ink: framed like any digit
    session = EXTREMES.get(extreme, {})
    app = run_clean(app_for("pages/draw.py", draw_frame=frame, **session), f"draw, {case}, {extreme}")
    assert_defined_prediction(app)
    [caption] = [item.value for item in app.caption if "runner-up" in item.value]
    assert not re.search(r"\b(nan|inf)\b", caption), caption  # a sum, or a clear ±∞
    [evidence_map] = [
        spec
        for spec in (json.loads(chart.proto.spec) for chart in app.get("plotly_chart"))
        if any(trace.get("type") == "heatmap" for trace in spec["data"])
    ]
    scale = colour_range(evidence_map)
    assert scale and max(abs(value) for value in scale) < 1e6, f"the evidence colour scale spans {scale}"
