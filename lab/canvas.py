"""The Draw page's canvas: a small components-v2 widget, white ink on black, 280x280 px, that reads the drawing live.

While the pen moves, the component reads the drawing itself (``READING_SCRIPTS``: nbcore's framing and both
models, in JS) on every animation frame with new ink and shows the verdict, both posteriors and the evidence map
under the canvas. It sends the drawing once the pen has rested (``REST_MS`` after a pointer-up with no new stroke),
as a PNG data URL; the page turns that into ink with ``nbcore.preprocess.ink_from_canvas_png`` and the server's
reading is the truth. Clear is the component's own button and costs no run: it blanks the canvas in the page and
hides what the page showed of the last sent drawing (``stale``) until the page has read a new one. The brush width
is the component's own slider too (``Brush``): moved, it changes the next strokes at once and writes the address's
link value with no run; the width goes to the page with the next drawing, which keeps it in the link.
The models come in the ``data`` of a companion element (``send_live_models``, ``lab.live_models``), outside the
canvas's fragment: sent once per settings change, never with a stroke or a Clear.
After each run the page reports its own reading (``report_server_reading``) and the component shows it in place
of its own, saying so only when the two disagree.

Every word the component shows or says (the canvas's accessible name, the verdict, the note) comes from here in the
reader's language (``words``), with the reader's BCP 47 tag for its numbers: the JS holds no sentence of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import streamlit as st
from plotly.colors import get_colorscale

import nbcore
from lab import i18n, live_models
from lab.figures.style import DIVERGING_SCALE, MODEL_COLOURS
from lab.i18n import _
from nbcore.inputs import InputForm
from nbcore.preprocess import CANVAS_BITMAP_SIDE

# canvas side in pixels, ten times MNIST's 28; the server refuses values longer than a PNG of this size can be
SIZE = CANVAS_BITMAP_SIDE
# ms the pen must rest after a pointer-up before the drawing goes to the server (one run); a stroke begun sooner
# cancels the send. Measured (devtools/stroke_gaps.py, docs/benchmarks-load.md): 229 pauses between the strokes of
# one handwritten symbol, 45 people drawing in a browser, have a median of 489 ms and 17 % last 1 s or more (24 % at
# 800 ms, 10 % at 1.2 s). A second to spare keeps most digits of two strokes at one run (1.21 runs a digit, 1.30 at
# 800 ms) while the server's verdict, the evidence caption and the class's Send still come within about a second of
# the last stroke (the verdict itself is on screen at once: the live reading).
REST_MS = 1000
_HERE = Path(__file__).parent
# The component's script: one module, these files joined in this order, each using only what the files before it
# define: first the reading (nbcore's framing, then the input form and both models), which devtools/live_reading.py
# loads alone in a blank page; then the live panel that shows it; last the canvas, the component's entry point.
READING_SCRIPTS = (_HERE / "digit_framing.js", _HERE / "digit_reading.js")
SCRIPTS = (*READING_SCRIPTS, _HERE / "digit_live_panel.js", _HERE / "digit_canvas.js")


def joined(scripts: Sequence[Path]) -> str:
    """The scripts' texts one after another: one module (each file ends with a newline)."""
    return "".join(path.read_text() for path in scripts)


# what the live panel draws with: the posterior chart's model colours and the evidence map's scale
LOOK = {"models": list(MODEL_COLOURS), "evidence": get_colorscale(DIVERGING_SCALE)}

_digit_canvas = st.components.v2.component(
    "naive_bayes_lab_digit_canvas",
    # the canvas's accessible name comes with the data, in the reader's language (lab/digit_canvas.js sets it)
    html=f'<canvas class="digit-canvas" width="{SIZE}" height="{SIZE}" role="img"></canvas>'
    '<div class="canvas-tools"><button type="button" class="canvas-clear"></button>'
    '<label class="canvas-brush"><span class="brush-label"></span>'
    '<input type="range" class="brush-width" step="1" aria-describedby="brush-help">'
    '<output class="brush-value" aria-hidden="true"></output></label>'
    '<span id="brush-help" hidden></span></div>'
    '<div class="live-reading" hidden>'
    '<p class="live-verdict" aria-hidden="true"></p>'
    '<div class="live-figures" aria-hidden="true">'
    '<canvas class="live-evidence" width="28" height="28"></canvas>'
    '<canvas class="live-bars" width="196" height="60"></canvas></div>'
    '<p class="live-note" role="status"></p></div>',
    css=f"canvas.digit-canvas {{ display: block; touch-action: none; cursor: crosshair; border-radius: 0.5rem; }}"
    # Clear: like the page's secondary buttons, in the theme's colours
    f".canvas-tools {{ display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.5rem; max-width: {SIZE}px;"
    " margin: 0.5rem 0 0.25rem; }"
    ".canvas-brush { display: flex; align-items: center; gap: 0.375rem; font-size: 0.875rem; }"
    ".canvas-brush input { width: 4.5rem; min-height: 2.5rem; margin: 0; accent-color: currentColor; }"
    ".canvas-brush input:focus-visible { outline: 2px solid currentColor; outline-offset: 2px; }"
    ".canvas-brush input:disabled { opacity: 0.6; }"
    ".brush-value { min-width: 1.5rem; font-variant-numeric: tabular-nums; }"
    "button.canvas-clear { margin: 0; padding: 0.25rem 0.75rem; min-height: 2.5rem; font: inherit;"
    " color: inherit; background: transparent; border: 1px solid rgba(128, 128, 128, 0.4);"
    " border-radius: 0.5rem; cursor: pointer; }"
    "button.canvas-clear:hover { border-color: currentColor; }"
    "button.canvas-clear:focus-visible { outline: 2px solid currentColor; outline-offset: 2px; }"
    f".live-reading {{ width: {SIZE}px; font-size: 0.85rem; line-height: 1.3; }}"
    ".live-reading p { margin: 0.25rem 0; }"
    ".live-verdict { min-height: 2.6em; }"  # two lines, so that nothing under it moves as the reading changes
    ".live-figures { display: flex; gap: 8px; align-items: flex-end; }"
    ".live-evidence { width: 60px; height: 60px; image-rendering: pixelated; border-radius: 0.25rem; }"
    ".live-bars { width: 196px; height: 60px; }"
    ".live-note:empty { display: none; }",
    # one module: the reading (its exports are the canvas's helpers), then the panel and the canvas that use it
    js=joined(SCRIPTS),
)

# The models for the live reading, handed to the canvas (window.naiveBayesLabModels and a window event): an element
# of their own, outside the canvas's fragment, so that neither a stroke nor Clear (a new canvas) sends them again.
# Shows nothing.
_live_models = st.components.v2.component(
    "naive_bayes_lab_live_models",
    html="",
    js="export default function ({ data }) { window.naiveBayesLabModels = data;"
    " window.dispatchEvent(new CustomEvent('naive-bayes-lab-models', { detail: data })); }",
)

# the page's own reading, handed to the canvas component (a window event) after each run; shows nothing
_server_reading = st.components.v2.component(
    "naive_bayes_lab_server_reading",
    html="",
    js="export default function ({ data }) {"
    " window.dispatchEvent(new CustomEvent('naive-bayes-lab-server-reading', { detail: data })); }",
)


@dataclass(frozen=True)
class Brush:
    """The canvas's brush width control: what the page knows of it at this run."""

    width: int  # px on the SIZE canvas: the link's value, or the default
    name: str  # its name in the link (lab/links.py's COMPONENT_HELD)
    default: int
    bounds: tuple[int, int]  # px, lowest and highest
    label: str  # as shown, "(locked)" included
    help: str
    locked: bool
    resets: int  # lab/links.py's resets(): the canvas takes ``width`` again when this changes, else keeps its own


class CanvasState(NamedTuple):
    """What the canvas sent last: ``drawing``, a PNG data URL (None while nothing was sent, "" when cleared since the
    page's drawing was handed back), and ``brush``, the width it says that drawing was made with (None when unsaid;
    whatever a visitor sends: lab/links.py's component_value checks it)."""

    drawing: str | None
    brush: object


def drawing_tag(drawing: str) -> str:
    """A short name for one canvas PNG data URL (its length and last characters, which hold the image's CRC)."""
    return f"{len(drawing)}:{drawing[-32:]}"


def words() -> dict[str, str]:
    """What the canvas component shows and says, in the reader's language; lab/digit_canvas.js fills the
    placeholders ({bayes}: a digit, {bayes_p}: a probability it writes with the reader's tag)."""
    return {
        "canvas": _("Drawing canvas: draw one digit with the mouse, a pen or a finger"),
        "clear": _("Clear"),
        "prompt": _("As you draw, both models read your digit here."),
        "live": _("Live: naive Bayes {bayes} (p = {bayes_p}), softmax {softmax} (p = {softmax_p})"),
        "server": _("Server: naive Bayes {bayes} (p = {bayes_p}), softmax {softmax} (p = {softmax_p})"),
        "differs": _(
            "Showing the server's reading; your browser read naive Bayes {bayes}, softmax {softmax} while you drew."
        ),
    }


def digit_canvas(brush: Brush, key: str, restore: str | None = None, stale: tuple[str, ...] = ()) -> CanvasState:
    """Show the canvas and its brush control; the drawing last sent (a PNG data URL) and its brush width, None while
    nothing was sent, or "" when the canvas was cleared after the page last had a drawing from it (``restore``,
    handed back: the page should forget it).

    ``restore`` (a data URL from an earlier call) is painted when the canvas first appears,
    so that a drawing survives a visit to another page (unless it was cleared since, in this tab).
    ``stale``: the keys of the page's containers that show what the page read from the drawing; the canvas hides
    them from its Clear until the page reports (``report_server_reading``) a drawing sent after it.
    The canvas reads the drawing itself once ``send_live_models`` has run on the page.
    """
    # Restoring is only for a canvas that is not on screen yet: while it is (its state is kept from the last run),
    # the same data from stroke to stroke lets Streamlit send a reference instead of the element again.
    shown = isinstance(st.session_state.get(key), Mapping)
    result = _digit_canvas(
        key=key,
        data={
            "brush": {
                "width": brush.width,
                "name": brush.name,
                "default": brush.default,
                "lowest": brush.bounds[0],
                "highest": brush.bounds[1],
                "label": brush.label,
                "help": brush.help,
                "locked": brush.locked,
                "resets": brush.resets,
            },
            "rest": REST_MS,
            "stale": [f"st-key-{name}" for name in stale],  # the CSS class Streamlit gives a keyed container
            "restore": None if shown else restore,
            "look": LOOK,
            "words": words(),
            "tag": i18n.current().tag,
        },
        default={"drawing": None},
        on_drawing_change=lambda: None,
        width="content",
        height="content",
    )
    sent = result.get("drawing")
    if isinstance(sent, Mapping):  # a drawing: {"png": data URL, "brush": px}
        return CanvasState(sent.get("png"), sent.get("brush"))
    return CanvasState(sent, None)  # None, or "" for a cleared canvas (or what a visitor sent: the page checks it)


def send_live_models(model: nbcore.BernoulliNB, softmax: nbcore.SoftmaxRegression, form: InputForm) -> None:
    """Give the canvas the models and input form its live reading uses (call outside the canvas's fragment, where
    the settings are read: then they travel once per settings change)."""
    _live_models(
        key="draw_live_models", data=live_models.payload(model, softmax, form), width="content", height="content"
    )


def report_server_reading(drawing: str, bayes: np.ndarray, softmax: np.ndarray) -> None:
    """Tell the canvas what the page read from ``drawing`` (its PNG): both posteriors, (10,) each."""
    _server_reading(
        key="draw_server_reading",
        data={
            "tag": drawing_tag(drawing),
            "bayes": [float(p) for p in bayes],
            "softmax": [float(p) for p in softmax],
        },
        width="content",
        height="content",
    )
