"""The first stroke of a visit does no more than the later ones: nothing made or loaded for the first time then.

The server decodes a canvas and builds Draw's figures once at start-up (``lab.startup.warm_first_stroke``);
Draw shows both charts, empty, before the first digit, so that a stroke updates them, and a hidden metric; the
browser loads the code of the elements a stroke adds while the page is idle (``lab.preload``).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from lab import preload
from tests.apptest import open_page
from tests.conftest import REPO

pytestmark = pytest.mark.usefixtures("data_dir")

# In a fresh process: start-up as ``streamlit run`` does it (the lifespan hook; MNIST is not loaded, nothing
# here needs it), then what a stroke does: a digit decoded from a canvas PNG, both charts and the picture
# for it. Prints what was imported, what plotly validated and whether Pillow loaded its plugins for the first
# time then.
FIRST_STROKE = r"""
import asyncio, base64, io, json, sys, threading
sys.path.insert(0, {repo!r})
import numpy as np
from PIL import Image, ImageDraw
from lab import startup

from lab.data import mnist as shared_mnist

shared_mnist.prefetch = lambda: None

async def start():
    async with startup.lifespan(None):
        pass

asyncio.run(start())
for thread in threading.enumerate():  # the start-up's read of prepared results, over before anyone draws
    if thread.name == "nbcore-prepared":
        thread.join()
from plotly.validator_cache import ValidatorCache
from lab.figures import bar_charts, digits
from nbcore.preprocess import ink_from_canvas_png, model_input
from nbcore.strokes import stroke_width

canvas = Image.new("RGBA", (280, 280), (0, 0, 0, 255))
ImageDraw.Draw(canvas).ellipse([(80, 40), (200, 240)], outline=(255, 255, 255, 255), width=24)  # a "0"
png = io.BytesIO()
canvas.save(png, format="PNG")
data_url = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
modules, validators, plugins = set(sys.modules), len(ValidatorCache._cache), Image._initialized
frame = model_input(ink_from_canvas_png(data_url)).frame
ink = (frame >= 128).astype(np.uint8)
stroke_width(frame)
digits.evidence_map(np.where(ink > 0, 1.5, -0.25), ink, 0, 6)
bar_charts.posterior_comparison({{"naive Bayes": np.eye(10)[0], "softmax": np.full(10, 0.1)}})
digits.pixel_picture(ink * 255, scale=5)
print(json.dumps({{
    "new_modules": sorted(set(sys.modules) - modules),
    "new_validators": len(ValidatorCache._cache) - validators,
    "plugins": [plugins, Image._initialized],
}}))
"""


@pytest.mark.slow
def test_start_up_does_what_the_first_stroke_would_do_first(tmp_path):
    env = {**os.environ, "NBCORE_DATA_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [sys.executable, "-c", FIRST_STROKE.format(repo=str(REPO))],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    made = json.loads(completed.stdout.strip().splitlines()[-1])
    assert made["new_modules"] == [], "imported on the first stroke, not at start-up"
    assert made["new_validators"] == 0
    # Pillow had loaded its plugins (Image.preinit: 1, enough for a PNG) before the stroke's decode, which added none
    assert made["plugins"][0] == made["plugins"][1] != 0


def plotly_keys(app) -> list[str]:
    """The key each chart was given (its element id ends with it), in page order."""
    return [chart.proto.id.rsplit("-", 1)[-1] for chart in app.get("plotly_chart")]


@pytest.mark.slow
def test_draw_shows_both_charts_before_the_first_digit_and_a_digit_updates_them(mnist):
    before = open_page("pages/draw.py")
    after = open_page("pages/draw.py", draw_frame=mnist["test_images"][0])
    # the same charts, in the same order, where a stroke puts them: the browser has made both plots already
    assert plotly_keys(before) == plotly_keys(after) == ["draw_evidence", "draw_posteriors"]
    # and a metric, hidden (lab.preload's CSS), so that the prediction is not the page's first metric
    assert [metric.label for metric in before.metric] == ["Prediction"]
    assert [metric.label for metric in after.metric] == ["Naive Bayes prediction", "Softmax prediction"]
    blank_map, blank_bars = (json.loads(chart.proto.spec)["data"] for chart in before.get("plotly_chart"))
    assert (blank_map[0]["zmin"], blank_map[0]["zmax"]) == (-1.0, 1.0)  # a readable scale on the empty map
    heights = [np.frombuffer(base64.b64decode(bar["y"]["bdata"]), bar["y"]["dtype"]) for bar in blank_bars]
    assert len(heights) == 2 and not any(height.any() for height in heights)  # no bars before a digit


def test_the_code_of_every_element_a_stroke_adds_is_found_to_preload():
    modules = preload.element_modules()
    assert [module.split("/")[-1].split(".")[0] for module in modules] == list(preload.ELEMENTS)
    assert all((preload.STATIC_JS / module.removeprefix("static/js/")).is_file() for module in modules)
