"""Pure figure builders: arrays in, plotly figures (or pictures for st.image) out; no Streamlit, no model code.

Images are (28, 28) arrays shown with row 0 at the top, equal aspect, no grid.
Fonts are sized to be read from the back of a classroom.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

FONT = dict(size=16)
INK_SCALE = "gray"  # 0 = black, 1 = white: light ink on dark, as MNIST
PROBABILITY_SCALE = "Viridis"
DIVERGING_SCALE = "RdBu"
ERROR_COLOUR = "#d62728"
OK_COLOUR = "#2a9d8f"
CLASS_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


LAYOUT = dict(font=FONT, plot_bgcolor="rgba(0,0,0,0)")
HIDDEN_AXIS = dict(showgrid=False, zeroline=False, showticklabels=False, ticks="", showline=False)
TITLE_ROWS = 5  # pixel rows of space above each image of a grid, for its title


def _style(figure: go.Figure, height: int, title: str | None = None) -> go.Figure:
    figure.update_layout(height=height, margin=dict(l=10, r=10, t=60 if title else 30, b=10),
                         title=title, **LAYOUT)
    return figure


def image_grid(images: np.ndarray, titles: Sequence[str], columns: int,
               value_name: str = "pixel",
               colorscale: str = INK_SCALE, zrange: tuple[float, float] | None = None,
               colorbar_title: str | None = None, height_per_row: int = 150,
               hover_format: str = ".0f", title: str | None = None) -> go.Figure:
    """(n, h, w) images in a grid, one title above each, one shared colour scale.

    Drawn as a single heatmap of the tiled images (NaN between them), which keeps the
    figure fast to build and send; hover shows each image's own row and column.
    """
    images = np.asarray(images, dtype=np.float64)
    count, height, width = images.shape
    rows = max(1, -(-count // columns))
    tile_height, tile_width = height + TITLE_ROWS, width + 2
    mosaic = np.full((rows * tile_height, columns * tile_width - 2), np.nan)
    local = np.full(mosaic.shape + (2,), -1, dtype=np.int16)  # (row, column) inside each image
    grid_rows, grid_cols = np.indices((height, width))
    annotations = []
    for index, (image, text) in enumerate(zip(images, titles)):
        top = (index // columns) * tile_height + TITLE_ROWS
        left = (index % columns) * tile_width
        mosaic[top: top + height, left: left + width] = image
        local[top: top + height, left: left + width] = np.stack([grid_rows, grid_cols], axis=-1)
        annotations.append(dict(x=left + (width - 1) / 2, y=top - 1, text=text, showarrow=False, yanchor="bottom",
                                font=dict(size=FONT["size"] - 2)))
    finite = images[np.isfinite(images)]
    low, high = zrange if zrange is not None else (float(finite.min(initial=0)), float(finite.max(initial=1)))
    heatmap = dict(  # a plain trace dict: go.Figure validates it once (a go.Heatmap would be validated twice)
        type="heatmap", z=mosaic, customdata=local, zmin=low, zmax=high, colorscale=colorscale, hoverongaps=False,
        showscale=colorbar_title is not None, colorbar=dict(title=dict(text=colorbar_title or "")),
        hovertemplate=f"row %{{customdata[0]}}, column %{{customdata[1]}}<br>{value_name} "
                      f"%{{z:{hover_format}}}<extra></extra>")
    return go.Figure(heatmap, layout=dict(
        height=60 + rows * height_per_row + (40 if title else 0), title=title, annotations=annotations,
        margin=dict(l=10, r=10, t=60 if title else 10, b=10),
        xaxis=dict(HIDDEN_AXIS, constrain="domain"),
        yaxis=dict(HIDDEN_AXIS, autorange="reversed", scaleanchor="x", constrain="domain"), **LAYOUT))


def prediction_tiles(images: np.ndarray, predicted: np.ndarray, true: np.ndarray, scale: int = 4,
                     frame: int = 3) -> tuple[list[np.ndarray], list[str]]:
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
    """"#d62728" -> uint8 [214, 39, 40]."""
    return np.array([int(colour[start:start + 2], 16) for start in (1, 3, 5)], dtype=np.uint8)


def class_heatmaps(values: np.ndarray, value_name: str, colorscale: str = PROBABILITY_SCALE,
                   zrange: tuple[float, float] | None = None, titles: Sequence[str] | None = None) -> go.Figure:
    """Ten (28, 28) per-class images in 2 rows of 5, one colour scale with a colour bar."""
    titles = titles or [f"y = {label}" for label in range(len(values))]
    return image_grid(values, titles, columns=5, value_name=value_name, colorscale=colorscale,
                      zrange=zrange, colorbar_title=value_name, height_per_row=220, hover_format=".4f")


def single_image(image: np.ndarray, title: str, value_name: str = "pixel", colorscale: str = INK_SCALE,
                 zrange: tuple[float, float] | None = (0, 255), colorbar_title: str | None = None,
                 height: int = 320, hover_format: str = ".0f") -> go.Figure:
    """One (28, 28) image with a title."""
    figure = image_grid(np.asarray(image)[None], [""], columns=1, value_name=value_name, colorscale=colorscale,
                        zrange=zrange, colorbar_title=colorbar_title, hover_format=hover_format, title=title)
    figure.layout.height = height
    return figure


def pixel_picture(image: np.ndarray, scale: int) -> np.ndarray:
    """A (h, w) image in 0..255 as uint8 (h * scale, w * scale), every pixel a crisp square, for st.image.

    For images redrawn on every stroke: a picture costs the browser far less than a plotly chart.
    """
    pixels = np.clip(np.asarray(image, dtype=float), 0, 255).round().astype(np.uint8)
    return np.repeat(np.repeat(pixels, scale, axis=0), scale, axis=1)


def difference_map(values: np.ndarray, title: str, value_name: str, height: int = 420) -> go.Figure:
    """A (28, 28) signed map on a diverging scale centred on 0 (red < 0 < blue)."""
    finite = np.abs(values[np.isfinite(values)])
    limit = max(float(finite.max(initial=0.0)), 1e-9)
    return single_image(np.clip(values, -limit, limit), title, value_name=value_name, colorscale=DIVERGING_SCALE,
                        zrange=(-limit, limit), colorbar_title=value_name, height=height, hover_format=".3f")


def class_bars(values: np.ndarray, title: str, value_name: str, highlight: int | None = None,
               value_format: str = ".3f", height: int = 320) -> go.Figure:
    """A bar per digit 0-9 (e.g. a posterior or a prior), the highlighted one in a strong colour."""
    values = np.asarray(values)
    colours = [OK_COLOUR if label == highlight else "#9bb7d4" for label in range(len(values))]
    bars = go.Bar(x=[str(label) for label in range(len(values))], y=values, marker_color=colours,
                  text=[f"{value:{value_format}}" for value in values], textposition="outside",
                  hovertemplate=f"digit %{{x}}<br>{value_name} %{{y:{value_format}}}<extra></extra>")
    return go.Figure(bars, layout=dict(
        height=height, title=title, margin=dict(l=10, r=10, t=60, b=10),
        xaxis=dict(title="digit", type="category"),
        yaxis=dict(title=value_name, range=[0, max(1e-9, float(np.max(values))) * 1.18]), **LAYOUT))


def posterior_comparison(posteriors: dict[str, np.ndarray], height: int = 340) -> go.Figure:
    """Two models' p(y | x), each (10,), as grouped bars per digit (exact values on hover).

    The title names the models in their bar colours; a legend would cost the browser about
    70 ms more per redraw, and this chart is redrawn on every stroke.
    """
    colours = (OK_COLOUR, "#e9a23b")
    # plain trace dicts, validated once by go.Figure (go.Bar objects are validated again when the figure copies
    # them: 1.9 -> 1.1 ms per call, and this chart is rebuilt on every stroke)
    bars = [dict(type="bar", x=[str(label) for label in range(len(posterior))], y=np.asarray(posterior, dtype=float),
                 name=name, marker_color=colour,
                 hovertemplate=f"{name}<br>digit %{{x}}<br>p(y | x) %{{y:.4f}}<extra></extra>")
            for colour, (name, posterior) in zip(colours, posteriors.items())]
    names = " vs ".join(f'<span style="color:{colour}">{name}</span>' for colour, name in zip(colours, posteriors))
    # built in one go: plotly validates on every update_* call, which cost 8 ms more here (per stroke)
    return go.Figure(bars, layout=dict(
        height=height, title=f"p(y | x): {names}", margin=dict(l=10, r=10, t=60, b=10), barmode="group",
        bargap=0.2, showlegend=False, xaxis=dict(title="digit", type="category"),
        yaxis=dict(title="p(y | x)", range=[0, 1.02]), **LAYOUT))


def curves(x: np.ndarray, series: dict[str, np.ndarray], x_title: str, y_title: str, title: str,
           marker_x: float | None = None, log_x: bool = False, height: int = 360) -> go.Figure:
    """Line chart of several named series over a shared x, with an optional vertical marker."""
    figure = go.Figure()
    for name, values in series.items():
        figure.add_trace(go.Scatter(x=x, y=values, mode="lines+markers", name=name))
    if marker_x is not None:
        figure.add_vline(x=marker_x if not log_x or marker_x > 0 else float(np.min(x)), line_dash="dash",
                         line_color="#555")
    figure.update_xaxes(title=x_title, type="log" if log_x else "linear")
    figure.update_yaxes(title=y_title)
    figure.update_layout(legend=dict(orientation="h", y=-0.25))
    return _style(figure, height=height, title=title)


def confusion_heatmap(matrix: np.ndarray, title: str, zmax: float) -> go.Figure:
    """A (10, 10) confusion matrix: rows true digit, columns predicted, counts in the cells."""
    labels = [str(digit) for digit in range(len(matrix))]
    figure = go.Figure(go.Heatmap(z=matrix, x=labels, y=labels, zmin=0, zmax=zmax, colorscale="Blues",
                                  text=matrix, texttemplate="%{text}", colorbar=dict(title="images"),
                                  hovertemplate="true %{y}, predicted %{x}: %{z} images<extra></extra>"))
    figure.update_xaxes(title="predicted", type="category", side="bottom", showgrid=False)
    figure.update_yaxes(title="true", type="category", autorange="reversed", scaleanchor="x", showgrid=False)
    return _style(figure, height=480, title=title)


def reliability_diagram(curves_by_model: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]]) -> go.Figure:
    """Accuracy against confidence per bin for several models, the diagonal being perfect calibration.

    ``curves_by_model[name] = (mean confidence (b,), accuracy (b,), count (b,), ECE)``; empty bins are NaN.
    """
    figure = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated",
                                  line=dict(dash="dash", color="#888")))
    for (name, (confidence, accuracy, count, ece)), colour in zip(curves_by_model.items(), CLASS_COLOURS):
        filled = np.asarray(count) > 0
        figure.add_trace(go.Scatter(
            x=np.asarray(confidence)[filled], y=np.asarray(accuracy)[filled], mode="lines+markers",
            name=f"{name} (ECE {ece:.3f})", line=dict(color=colour),
            marker=dict(size=6 + 18 * np.sqrt(np.asarray(count)[filled] / max(np.max(count), 1))),
            customdata=np.asarray(count)[filled],
            hovertemplate="confidence %{x:.3f}<br>accuracy %{y:.3f}<br>%{customdata} images<extra></extra>"))
    figure.update_xaxes(title="confidence (top predicted probability)", range=[0, 1.02])
    figure.update_yaxes(title="accuracy", range=[0, 1.02], scaleanchor="x")
    figure.update_layout(legend=dict(orientation="h", y=-0.2))
    return _style(figure, height=520, title="Reliability on the 10,000 test images (marker size: images per bin)")


def learning_curves(sizes: np.ndarray, accuracy_by_model: dict[str, np.ndarray]) -> go.Figure:
    """Test accuracy (mean and min-max over seeds) against training-set size, log x axis.

    ``accuracy_by_model[name]`` is (len(sizes), n_seeds).
    """
    figure = go.Figure()
    for (name, accuracy), colour in zip(accuracy_by_model.items(), CLASS_COLOURS):
        low, high = accuracy.min(axis=1), accuracy.max(axis=1)
        figure.add_trace(go.Scatter(x=np.r_[sizes, sizes[::-1]], y=np.r_[high, low[::-1]], fill="toself",
                                    fillcolor=colour, opacity=0.2, line=dict(width=0), hoverinfo="skip",
                                    showlegend=False))
        figure.add_trace(go.Scatter(x=sizes, y=accuracy.mean(axis=1), mode="lines+markers", name=name,
                                    line=dict(color=colour),
                                    hovertemplate="%{x:,} images: accuracy %{y:.4f}<extra>" + name + "</extra>"))
    figure.update_xaxes(title="training images (log scale)", type="log")
    figure.update_yaxes(title="test accuracy")
    figure.update_layout(legend=dict(orientation="h", y=-0.25))
    return _style(figure, height=440, title="Learning curves: mean and range over seeds")
