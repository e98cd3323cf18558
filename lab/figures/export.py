"""The class gallery as one PNG to download, drawn with Pillow from the frames themselves.

plotly's own PNG export needs the kaleido package (not among the requirements), which drives a Chrome or
Chromium browser on the server and took seconds per figure here.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from lab.figures.digits import PNG_TILE_SCALE, TILE_FRAME, drawing_tiles

_INK = (20, 20, 20)
_PAGE = (255, 255, 255)
_CELL = 34  # px per confusion-matrix cell
_MARGIN = 16


def _fonts(*sizes: int) -> dict[int, ImageFont.FreeTypeFont | ImageFont.ImageFont]:
    """Pillow's bundled font at these sizes (loaded once per picture: a load takes milliseconds)."""
    return {size: ImageFont.load_default(size=size) for size in sizes}


def _confusion_picture(matrix: np.ndarray, title: str) -> Image.Image:
    """A (10, 10) count matrix as a table of cells shaded by count, with digit labels and a title."""
    k = len(matrix)
    picture = Image.new("RGB", ((k + 1) * _CELL + _MARGIN, (k + 1) * _CELL + 44), _PAGE)
    draw = ImageDraw.Draw(picture)
    font = _fonts(12, 13, 14, 16)
    draw.text((0, 0), title, fill=_INK, font=font[16])
    draw.text((0, 22), "rows: meant · columns: read as", fill=_INK, font=font[12])
    top = 40
    peak = max(int(np.max(matrix)), 1)
    for digit in range(k):
        centre = _CELL * (digit + 1) + _CELL // 2
        draw.text((centre, top + _CELL // 2), str(digit), fill=_INK, font=font[14], anchor="mm")
        draw.text((_CELL // 2, top + centre), str(digit), fill=_INK, font=font[14], anchor="mm")
    for row in range(k):
        for column in range(k):
            count = int(matrix[row, column])
            shade = count / peak
            colour = tuple(int(round(255 - shade * (255 - value))) for value in (8, 81, 156))  # white to dark blue
            left, upper = _CELL * (column + 1), top + _CELL * (row + 1)
            draw.rectangle((left, upper, left + _CELL - 1, upper + _CELL - 1), fill=colour, outline=(200, 200, 200))
            if count:
                draw.text(
                    (left + _CELL // 2, upper + _CELL // 2),
                    str(count),
                    font=font[13],
                    anchor="mm",
                    fill=_PAGE if shade > 0.5 else _INK,
                )
    return picture


def gallery_png(
    frames: np.ndarray,
    meant: np.ndarray,
    bayes: np.ndarray,
    softmax: np.ndarray,
    title: str,
    confusions: dict[str, np.ndarray],
    columns: int = 10,
) -> bytes:
    """The gallery as one PNG: ``title``, the drawings in a grid with their captions, then the confusion tables.

    ``frames`` (n, 28, 28) 0-255; ``meant``, ``bayes``, ``softmax`` (n,) digits; ``confusions`` maps a
    title to a (10, 10) count matrix (rows meant, columns read as).
    """
    tiles, _ = drawing_tiles(frames, meant, bayes, softmax, scale=PNG_TILE_SCALE)
    # plain ASCII (the bundled font has no cross mark): the red frame marks naive Bayes' misreadings
    captions = [f"meant {m}: NB {b}, SM {s}" for m, b, s in zip(meant, bayes, softmax)]
    tile_side = 28 * PNG_TILE_SCALE + 2 * TILE_FRAME
    cell_width, cell_height = tile_side + 40, tile_side + 22
    tables = [_confusion_picture(matrix, name) for name, matrix in confusions.items()]
    rows = -(-len(tiles) // columns)
    width = max(columns * cell_width, sum(table.width for table in tables)) + 2 * _MARGIN
    grid_top = _MARGIN + 54
    tables_top = grid_top + rows * cell_height + _MARGIN
    height = tables_top + max((table.height for table in tables), default=0) + _MARGIN
    sheet = Image.new("RGB", (width, height), _PAGE)
    draw = ImageDraw.Draw(sheet)
    font = _fonts(11, 13, 20)
    draw.text((_MARGIN, _MARGIN), title, fill=_INK, font=font[20])
    draw.text(
        (_MARGIN, _MARGIN + 26),
        "Red frame: naive Bayes (NB) read another digit than the one meant; SM: softmax regression.",
        fill=_INK,
        font=font[13],
    )
    for index, (tile, caption) in enumerate(zip(tiles, captions)):
        left = _MARGIN + (index % columns) * cell_width
        upper = grid_top + (index // columns) * cell_height
        sheet.paste(Image.fromarray(tile), (left + (cell_width - tile_side) // 2, upper))
        draw.text((left + cell_width // 2, upper + tile_side + 2), caption, fill=_INK, font=font[11], anchor="ma")
    left = _MARGIN
    for table in tables:
        sheet.paste(table, (left, tables_top))
        left += table.width
    output = io.BytesIO()
    sheet.save(output, format="PNG")
    return output.getvalue()


def png_bytes(picture: np.ndarray) -> bytes:
    """A uint8 greyscale (h, w) or RGB (h, w, 3) picture as PNG bytes, encoded once (``st.image`` shows them as they are)."""
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(picture)).save(out, format="PNG")
    return out.getvalue()
