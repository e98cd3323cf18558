"""The Draw canvas's rest and its Clear: what lab/canvas.py hands the component and what the component's script reads.

REST_MS lives in lab/canvas.py only and travels in the component's data; the containers the canvas's Clear hides
are named by pages/draw.py. These hold the three together: the data the JS reads is the data Python sends, the
rest is the one constant, and every container named exists in the page.
"""

from __future__ import annotations

import ast
import re

import pytest

from lab import canvas
from tests.conftest import REPO

JS = canvas.joined(canvas.SCRIPTS)  # the component's script: every file lab/canvas.py joins into it


@pytest.fixture
def sent(monkeypatch) -> dict:
    """The keyword arguments digit_canvas gives the component (a stand-in records them)."""
    calls: list[dict] = []
    monkeypatch.setattr(canvas, "_digit_canvas", lambda **kwargs: calls.append(kwargs) or {"drawing": None})
    monkeypatch.setattr(canvas.st, "session_state", {})
    brush = canvas.Brush(24, "draw_brush", 24, (8, 40), "Brush width", "help", locked=False, resets=0)
    canvas.digit_canvas(brush, key="canvas_draw", stale=("draw_metrics", "draw_read"))
    (call,) = calls
    return call


def test_the_canvas_gets_the_rest_and_the_classes_its_clear_hides(sent):
    assert sent["data"]["rest"] == canvas.REST_MS
    assert sent["data"]["stale"] == ["st-key-draw_metrics", "st-key-draw_read"]  # Streamlit's class of a keyed block
    assert sent["data"]["words"]["clear"] == "Clear"


def test_the_js_reads_exactly_the_data_python_sends(sent):
    read = set(re.findall(r"\bdata\.(\w+)", JS))
    assert read == set(sent["data"]), f"the JS reads {sorted(read)}, Python sends {sorted(sent['data'])}"
    brush_read = set(re.findall(r"\bcontrol\.(\w+)", JS)) | set(re.findall(r"\bbrushControl\.(\w+)", JS))
    assert brush_read == set(sent["data"]["brush"]), f"the JS reads the brush's {sorted(brush_read)}"
    words = set(re.findall(r"\bwords\.(\w+)", JS)) | set(re.findall(r'words\[(?:"|\')(\w+)', JS))
    assert words <= set(canvas.words()), (
        f"the JS uses words Python does not give: {sorted(words - set(canvas.words()))}"
    )


def test_the_rest_is_one_constant_not_written_in_the_js():
    assert 0 < canvas.REST_MS <= 2000
    assert not re.search(r"setTimeout\([^)]*\b\d{3,}\b", JS), "a pause written in the JS, beside REST_MS"


def test_every_container_the_clear_hides_is_in_the_draw_page():
    source = (REPO / "pages" / "draw.py").read_text()
    tree = ast.parse(source)
    keyed = {
        keyword.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "container"
        for keyword in node.keywords
        if keyword.arg == "key" and isinstance(keyword.value, ast.Constant)
    }
    names = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "READ_FROM_DRAWING"
    )
    hidden = set(ast.literal_eval(names))
    assert hidden and hidden <= keyed, f"READ_FROM_DRAWING names {sorted(hidden - keyed)}, no container of the page"
    assert "draw_verdict" not in hidden, (
        "the verdict box holds the live region: hiding it would silence the next verdict"
    )
