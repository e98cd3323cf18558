"""Digit images: MNIST-sized (28, 28) arrays as heatmap grids, signed maps, or crisp pictures for st.image.

Images are shown with row 0 at the top, equal aspect, no grid. Hover texts and colour bars are in the reader's
language (titles and value names come translated from the caller).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab.figures.style import (
    DIVERGING_SCALE,
    ERROR_COLOUR,
    FONT,
    HIDDEN_AXIS,
    HORIZONTAL_COLOURBAR,
    INK_SCALE,
    LAYOUT,
    OK_COLOUR,
    PROBABILITY_SCALE,
    TITLE_ROWS,
    title_lines,
)
from lab.i18n import _


def image_grid(
    images: np.ndarray,
    titles: Sequence[str],
    columns: int,
    value_name: str | None = None,
    colorscale: str = INK_SCALE,
    zrange: tuple[float, float] | None = None,
    colorbar_title: str | None = None,
    height_per_row: int = 150,
    hover_format: str = ".0f",
    title: str | None = None,
    index_name: str | None = None,
) -> go.Figure:
    """(n, h, w) images in a grid, one title above each, one shared colour scale (its bar under the grid).

    Drawn as a single heatmap of the tiled images (NaN between them), which keeps the
    figure fast to build and send; hover shows each image's own row and column, and with
    ``index_name`` (e.g. "digit" when image k is digit k) the image's position in ``images``.
    The colour bar lies under the images, so that on a phone it does not take the width they need.
    ``value_name`` (what hover calls a value) defaults to "pixel" in the reader's language.
    """
    value_name = _("pixel") if value_name is None else value_name
    images = np.asarray(images, dtype=np.float64)
    count, height, width = images.shape
    rows = max(1, -(-count // columns))
    title_rows = TITLE_ROWS if any(titles) else 0  # no room kept above images that have no titles
    tile_height, tile_width = height + title_rows, width + 2
    mosaic = np.full((rows * tile_height, columns * tile_width - 2), np.nan)
    # (row, column) inside each image, then (with index_name) the image's index
    local = np.full(mosaic.shape + (3 if index_name else 2,), -1, dtype=np.int16)
    grid_rows, grid_cols = np.indices((height, width))
    annotations = []
    for index, (image, text) in enumerate(zip(images, titles)):
        top = (index // columns) * tile_height + title_rows
        left = (index % columns) * tile_width
        mosaic[top : top + height, left : left + width] = image
        local[top : top + height, left : left + width] = np.stack(
            [grid_rows, grid_cols] + ([np.full_like(grid_rows, index)] if index_name else []), axis=-1
        )
        if text:
            annotations.append(
                dict(
                    x=left + (width - 1) / 2,
                    y=top - 1,
                    text=text,
                    showarrow=False,
                    yanchor="bottom",
                    font=dict(size=FONT["size"] - 2),
                )
            )
    finite = images[np.isfinite(images)]
    low, high = zrange if zrange is not None else (float(finite.min(initial=0)), float(finite.max(initial=1)))
    cell = dict(row="%{customdata[0]}", column="%{customdata[1]}")
    where = (
        _("{image} {index}, row {row}, column {column}").format(image=index_name, index="%{customdata[2]}", **cell)
        if index_name
        else _("row {row}, column {column}").format(**cell)
    )
    heatmap = dict(  # a plain trace dict: go.Figure validates it once (a go.Heatmap would be validated twice)
        type="heatmap",
        z=mosaic,
        customdata=local,
        zmin=low,
        zmax=high,
        colorscale=colorscale,
        hoverongaps=False,
        showscale=colorbar_title is not None,
        colorbar=dict(HORIZONTAL_COLOURBAR, title=dict(text=colorbar_title or "", side="top")),
        hovertemplate=f"{where}<br>{value_name} %{{z:{hover_format}}}<extra></extra>",
    )
    bottom = 90 if colorbar_title is not None else 10
    title_layout, top = title_lines(title) if title else (None, 10)
    return go.Figure(
        heatmap,
        layout=dict(
            height=bottom + top + 40 + rows * height_per_row,
            title=title_layout,
            annotations=annotations,
            margin=dict(l=10, r=10, t=top, b=bottom),
            xaxis=dict(HIDDEN_AXIS, constrain="domain"),
            yaxis=dict(HIDDEN_AXIS, autorange="reversed", scaleanchor="x", constrain="domain"),
            **LAYOUT,
        ),
    )


def class_heatmaps(
    values: np.ndarray,
    value_name: str,
    colorscale: str = PROBABILITY_SCALE,
    zrange: tuple[float, float] | None = None,
    titles: Sequence[str] | None = None,
) -> go.Figure:
    """Ten (28, 28) per-class images in 2 rows of 5, one colour scale with a colour bar."""
    titles = titles or [f"y = {label}" for label in range(len(values))]
    return image_grid(
        values,
        titles,
        columns=5,
        value_name=value_name,
        colorscale=colorscale,
        zrange=zrange,
        colorbar_title=value_name,
        height_per_row=170,
        hover_format=".4f",
        index_name=_("digit"),
    )


def single_image(
    image: np.ndarray,
    title: str,
    value_name: str | None = None,
    colorscale: str = INK_SCALE,
    zrange: tuple[float, float] | None = (0, 255),
    colorbar_title: str | None = None,
    height: int = 320,
    hover_format: str = ".0f",
) -> go.Figure:
    """One (28, 28) image with a title (``value_name``: as ``image_grid``'s)."""
    figure = image_grid(
        np.asarray(image)[None],
        [""],
        columns=1,
        value_name=value_name,
        colorscale=colorscale,
        zrange=zrange,
        colorbar_title=colorbar_title,
        hover_format=hover_format,
        title=title,
    )
    figure.layout.height = height + figure.layout.margin.t - 60
    return figure


def log_probability_image(log_prob: np.ndarray, title: str, floor: float = -4.5, height: int = 420) -> go.Figure:
    """A (28, 28) image of natural-log probabilities shown as log₁₀ on a fixed scale [floor, 0].

    A fixed scale makes smoothing visible: pixels a digit never inked sit near log₁₀(α / n) and move
    with α, where a linear 0..1 scale shows them all as the same dark border. Probability exactly 0
    (log = −∞, no smoothing) is left blank; values below ``floor`` take the floor colour.
    """
    decimal = np.asarray(log_prob, dtype=np.float64) / np.log(10)
    shown = np.where(np.isneginf(decimal), np.nan, np.maximum(decimal, floor))
    return single_image(
        shown,
        title,
        value_name="log₁₀ p",
        colorscale=PROBABILITY_SCALE,
        zrange=(floor, 0),
        colorbar_title=_("log₁₀ p (blank: p = 0)"),
        height=height,
        hover_format=".2f",
    )


def difference_map(values: np.ndarray, title: str, value_name: str, height: int = 420) -> go.Figure:
    """A (28, 28) signed map on a diverging scale centred on 0 (red < 0 < blue)."""
    finite = np.abs(values[np.isfinite(values)])
    limit = max(float(finite.max(initial=0.0)), 1e-9)
    return single_image(
        np.clip(values, -limit, limit),
        title,
        value_name=value_name,
        colorscale=DIVERGING_SCALE,
        zrange=(-limit, limit),
        colorbar_title=value_name,
        height=height,
        hover_format=".3f",
    )


def evidence_map(evidence: np.ndarray, ink: np.ndarray, favoured: int, other: int, height: int = 330) -> go.Figure:
    """Per-pixel evidence (28, 28) in nats for ``favoured`` over ``other``, the input's ink (28, 28, 0/1) outlined.

    Blue pixels speak for ``favoured``, red ones for ``other``; the outline shows which pixels are ink,
    so the map reads as the drawing itself, coloured by what each pixel argued.
    """
    finite = np.abs(evidence[np.isfinite(evidence)])
    limit = max(float(finite.max(initial=0.0)), 1e-9)
    rows, columns = np.indices(evidence.shape)
    # plain trace dicts, validated once by go.Figure: this map is rebuilt on every stroke
    heatmap = dict(
        type="heatmap",
        z=np.clip(evidence, -limit, limit),
        zmin=-limit,
        zmax=limit,
        colorscale=DIVERGING_SCALE,
        customdata=np.stack([rows, columns, ink], axis=-1),
        colorbar=dict(title=dict(text=_("nats"), side="top"), thickness=14, len=0.9),
        hovertemplate=_("row {row}, column {column}, ink {ink}").format(
            row="%{customdata[0]}", column="%{customdata[1]}", ink="%{customdata[2]}"
        )
        + "<br>"
        + _("{value} nats for {favoured} over {other}").format(value="%{z:.3f}", favoured=favoured, other=other)
        + "<extra></extra>",
    )
    outline = dict(
        type="contour",
        z=np.asarray(ink, dtype=float),
        showscale=False,
        hoverinfo="skip",
        contours=dict(start=0.5, end=0.5, size=1, coloring="none"),
        line=dict(color="#222222", width=1.5),
    )
    return go.Figure(
        [heatmap, outline],
        layout=dict(
            height=height,
            margin=dict(l=4, r=4, t=4, b=4),
            showlegend=False,
            xaxis=dict(HIDDEN_AXIS, constrain="domain"),
            yaxis=dict(HIDDEN_AXIS, autorange="reversed", scaleanchor="x", constrain="domain"),
            **LAYOUT,
        ),
    )


def blank_evidence_map(height: int = 330) -> go.Figure:
    """``evidence_map``'s frame before there is a digit: 28 × 28 pixels of no evidence on a scale of ±1 nat, no hover."""
    blank = np.zeros((28, 28))
    figure = evidence_map(blank, blank, 0, 0, height=height)
    figure.update_traces(hoverinfo="skip", hovertemplate=None)
    figure.update_traces(zmin=-1.0, zmax=1.0, selector={"type": "heatmap"})  # not the ±1e-9 of no evidence
    return figure


def pixel_picture(image: np.ndarray, scale: int) -> np.ndarray:
    """A (h, w) image in 0..255 as uint8 (h * scale, w * scale), every pixel a crisp square, for st.image.

    For images redrawn on every stroke: a picture costs the browser far less than a plotly chart.
    """
    pixels = np.clip(np.asarray(image, dtype=float), 0, 255).round().astype(np.uint8)
    return np.repeat(np.repeat(pixels, scale, axis=0), scale, axis=1)


def prediction_tiles(
    images: np.ndarray, predicted: np.ndarray, true: np.ndarray, scale: int = 4, frame: int = 3
) -> tuple[list[np.ndarray], list[str]]:
    """Test images as st.image pictures: RGB uint8 squares of side 28 * scale + 2 * frame, "predicted / true" captions.

    Errors get a red frame and a cross in the caption, right answers a green frame. Home uses pictures,
    not a plotly chart, so that the landing page draws without loading plotly in the browser.
    """
    wrong = np.asarray(predicted) != np.asarray(true)
    tiles = []
    for image, miss in zip(images, wrong):
        grey = pixel_picture(image, scale)
        tile = np.empty((grey.shape[0] + 2 * frame, grey.shape[1] + 2 * frame, 3), dtype=np.uint8)
        tile[:] = _rgb(ERROR_COLOUR if miss else OK_COLOUR)
        tile[frame:-frame, frame:-frame] = grey[..., None]
        tiles.append(tile)
    captions = [f"{'✗ ' if miss else ''}{p} / {t}" for p, t, miss in zip(predicted, true, wrong)]
    return tiles, captions


def _rgb(colour: str) -> np.ndarray:
    """ "#d62728" -> uint8 [214, 39, 40]."""
    return np.array([int(colour[start : start + 2], 16) for start in (1, 3, 5)], dtype=np.uint8)


TILE_SCALE = 4  # screen pixels per MNIST pixel in a gallery tile on the page (as Home's test images)
PNG_TILE_SCALE = 3  # the same in the PNG export
TILE_FRAME = 3  # px of coloured frame: red where naive Bayes misread the drawing, green where it did not


def drawing_tiles(
    frames: np.ndarray,
    meant: np.ndarray,
    bayes: np.ndarray,
    softmax: np.ndarray,
    scale: int = TILE_SCALE,
    frame: int = TILE_FRAME,
) -> tuple[list[np.ndarray], list[str]]:
    """Drawings as st.image pictures, RGB uint8 squares of side 28 * scale + 2 * frame, and their captions.

    ``frames`` (n, 28, 28) 0-255; ``meant``, ``bayes``, ``softmax`` (n,) digits. A red frame and a
    cross mark where naive Bayes read another digit than the one meant; captions "meant 3 · NB 5 · SM 3".
    """
    tiles, unused_captions = prediction_tiles(frames, bayes, meant, scale=scale, frame=frame)
    captions = [
        ("✗ " if b != m else "") + _("meant {meant} · NB {bayes} · SM {softmax}").format(meant=m, bayes=b, softmax=s)
        for m, b, s in zip(meant, bayes, softmax)
    ]
    return tiles, captions


def drawing_descriptions(meant: np.ndarray, bayes: np.ndarray, softmax: np.ndarray) -> list[str]:
    """What a screen reader says instead of each drawing tile (the frame's colour and the ✗ are for the eye):
    "A drawn 3: naive Bayes read 5 (wrong), softmax 3 (right)"."""

    def reading(read: int, digit: int) -> str:
        return (_("{digit} (right)") if read == digit else _("{digit} (wrong)")).format(digit=read)

    return [
        _("A drawn {meant}: naive Bayes read {bayes}, softmax {softmax}").format(
            meant=m, bayes=reading(b, m), softmax=reading(s, m)
        )
        for m, b, s in zip(meant, bayes, softmax)
    ]
