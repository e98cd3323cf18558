"""lab/digit_reading.js in a blank Chromium page, and drawings to read: the parity test's and benchmark's tools.

``open_reader(browser)`` gives a page where ``window.reading`` is the module (its exports) and ``window.models``
holds decoded models per name. Drawings are made in that page on a 280 x 280 canvas with the canvas component's
brush (white, round caps): ``DRAW_JS`` strokes polylines (canvas coordinates), and ``digit_strokes`` turns an
MNIST digit into such polylines (its Zhang-Suen skeleton, each pixel joined to its 8-neighbours, x10), so that
MNIST's test digits can be drawn back as a student would draw them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nbcore.preprocess import CANVAS_BITMAP_SIDE
from nbcore.strokes import skeleton

READING_JS = Path(__file__).resolve().parents[1] / "lab" / "digit_reading.js"
SCALE = CANVAS_BITMAP_SIDE // 28  # canvas px per MNIST pixel

# the module's exports on window.reading; models decoded once per name
_LOADER = """
window.reading = {inkFromPixels, modelInput, asSeen, scoreBayes, scoreSoftmax, decodeModels, readDrawing, mnistFrame};
window.models = {};
window.readingReady = true;
"""

# ([strokes, brush]) -> the canvas (280 x 280) with these polylines drawn as lab/digit_canvas.js paints
DRAW_JS = """([strokes, brush]) => {
    let canvas = document.getElementById('pad');
    if (!canvas) {
        canvas = document.createElement('canvas');
        canvas.id = 'pad'; canvas.width = canvas.height = SIDE;
        document.body.appendChild(canvas);
    }
    const context = canvas.getContext('2d', {willReadFrequently: true});
    context.fillStyle = '#000';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.strokeStyle = context.fillStyle = '#fff';
    context.lineCap = context.lineJoin = 'round';
    context.lineWidth = brush;
    for (const points of strokes) {
        context.beginPath();
        if (points.length === 1) {
            context.arc(points[0][0], points[0][1], brush / 2, 0, 2 * Math.PI);
            context.fill();
        } else {
            context.moveTo(...points[0]);
            points.slice(1).forEach((point) => context.lineTo(...point));
            context.stroke();
        }
    }
    return canvas;
}""".replace("SIDE", str(CANVAS_BITMAP_SIDE))


def open_reader(browser):
    """A blank page in ``browser`` with lab/digit_reading.js loaded as ``window.reading``."""
    page = browser.new_page()
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(content=READING_JS.read_text() + _LOADER, type="module")
    page.wait_for_function("() => window.readingReady === true")
    return page


def digit_strokes(
    image: np.ndarray, scale: float = SCALE, offset: tuple[float, float] = (0.0, 0.0)
) -> list[list[tuple[float, float]]]:
    """uint8 (28, 28) digit -> polylines on the 280 px canvas along its skeleton (pixels >= 128).

    Each skeleton pixel is joined to its right, lower and two lower diagonal neighbours by a segment; a pixel
    without neighbours is a dot. Coordinates are pixel centres x ``scale`` (canvas px per MNIST pixel), + ``offset``
    (x, y) in canvas px.
    """
    bones = skeleton(np.asarray(image) >= 128)

    def centre(row: int, col: int) -> tuple[float, float]:
        return ((col + 0.5) * scale + offset[0], (row + 0.5) * scale + offset[1])

    lines: list[list[tuple[float, float]]] = []
    rows, cols = np.nonzero(bones)
    for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
        joined = False
        for d_row, d_col in ((0, 1), (1, -1), (1, 0), (1, 1)):
            r, c = row + d_row, col + d_col
            if 0 <= r < 28 and 0 <= c < 28 and bones[r, c]:
                lines.append([centre(row, col), centre(r, c)])
                joined = True
        if not joined and not bones[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2].sum() > 1:
            lines.append([centre(row, col)])
    return lines
