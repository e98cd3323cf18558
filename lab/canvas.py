"""The Draw page's canvas: a small components-v2 widget, white ink on black, 280x280 px.

It sends the drawing the moment a stroke ends (pointer-up), as a PNG data URL; the
page turns that into ink with ``nbcore.preprocess.ink_from_canvas_png``.
"""

from pathlib import Path

import streamlit as st

from nbcore.preprocess import CANVAS_BITMAP_SIDE

# canvas side in pixels, ten times MNIST's 28; the server refuses values longer than a PNG of this size can be
SIZE = CANVAS_BITMAP_SIDE

_digit_canvas = st.components.v2.component(
    "naive_bayes_lab_digit_canvas",
    html=f'<canvas class="digit-canvas" width="{SIZE}" height="{SIZE}" role="img" '
    f'aria-label="Drawing canvas: draw one digit with the mouse, a pen or a finger"></canvas>',
    css="canvas.digit-canvas { display: block; touch-action: none; cursor: crosshair; border-radius: 0.5rem; }",
    js=Path(__file__).with_name("digit_canvas.js").read_text(),
)


def digit_canvas(brush_width: int, key: str, restore: str | None = None) -> str | None:
    """Show the canvas; the drawing as a PNG data URL, or None while nothing is drawn.

    ``restore`` (a data URL from an earlier call) is painted when the canvas first appears,
    so that a drawing survives a visit to another page. A new ``key`` gives a blank canvas.
    """
    result = _digit_canvas(
        key=key,
        data={"brush": brush_width, "restore": restore},
        default={"drawing": None},
        on_drawing_change=lambda: None,
        width="content",
        height="content",
    )
    return result.get("drawing")
