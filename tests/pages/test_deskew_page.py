"""Deskew in the dashboard: the sidebar setting, the Deskew page, and Draw's stroke width and plain-resize view."""

from __future__ import annotations

import base64
import io
import re

import pytest
from PIL import Image, ImageDraw
from streamlit.testing.v1 import AppTest

from tests.apptest import open_page

pytestmark = pytest.mark.usefixtures("data_dir")


def caption_with(app: AppTest, text: str) -> str:
    found = [item.value for item in app.caption if text in item.value]
    assert found, f"no caption with {text!r}"
    return found[0]


@pytest.mark.slow
def test_deskew_page_shows_both_models_before_and_after():
    app = open_page("pages/deskew.py")
    table = app.table[0].value
    bayes_before, bayes_after = (float(value) for value in table.iloc[:2, 1])
    softmax_before, softmax_after = (float(value) for value in table.iloc[:2, 2])
    assert bayes_before == pytest.approx(0.8427, abs=1e-4)  # the textbook result, deskew off
    assert bayes_after > bayes_before + 0.02 and softmax_after > softmax_before + 0.015
    assert float(table.iloc[2, 1]) == pytest.approx(100 * (bayes_after - bayes_before), abs=0.01)
    assert len(app.get("plotly_chart")) == 1


def test_deskew_setting_changes_the_models_everywhere_and_textbook_resets_it():
    app = open_page("pages/home.py")
    accuracy = [item for item in app.metric if item.label == "Test accuracy (10,000 images)"]
    assert accuracy and accuracy[0].value == "0.8427"
    app.radio(key="deskew").set_value(True)
    app.run()
    assert not app.exception
    accuracy = [item for item in app.metric if item.label == "Test accuracy (10,000 images)"]
    assert float(accuracy[0].value) > 0.87  # deskewed: measured 0.8821
    [textbook] = [button for button in app.button if button.label == "Textbook"]
    textbook.click()
    app.run()
    assert app.radio(key="deskew").value is False


def canvas_url(width: int) -> str:
    """A canvas PNG data URL: a thick white '1' on black, 280x280."""
    image = Image.new("RGBA", (280, 280), (0, 0, 0, 255))
    ImageDraw.Draw(image).line([(150, 40), (130, 240)], fill=(255, 255, 255, 255), width=width)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.slow
def test_draw_shows_the_stroke_width_deskews_the_input_and_offers_plain_resizing():
    from nbcore.preprocess import ink_from_canvas_png, model_input

    made_from = model_input(ink_from_canvas_png(canvas_url(60)))
    assert made_from.stroke_action == "thinned"
    app = open_page("pages/draw.py", draw_frame=made_from.frame, draw_input=made_from)
    assert app.session_state["draw_brush"] == 24
    caption = caption_with(app, "of 784 pixels")
    before, after = (
        float(value) for value in re.search(r"Stroke width (\d+\.\d) px, thinned to (\d+\.\d) px", caption).groups()
    )
    assert (
        before > after
        and "MNIST's: median 2.6 px, 80 % between 1.9 and 4.0 px" in caption
        and "deskewed" not in caption
    )
    upright_pixels = app.get("image")[0]

    app.radio(key="deskew").set_value(True)
    app.run()
    assert not app.exception and "deskewed" in caption_with(app, "of 784 pixels")

    app.toggle(key="draw_plain_view").set_value(True)
    app.run()
    assert not app.exception
    plain = caption_with(app, "squeezed to 28×28")
    assert re.search(r"naive Bayes would say \d and softmax \d", plain)
    assert app.get("image")[0].proto != upright_pixels.proto
