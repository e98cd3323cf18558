"""Pure figure builders: arrays in, plotly figures (or pictures for st.image) out; no Streamlit, no model code.

Images are (28, 28) arrays shown with row 0 at the top, equal aspect, no grid.
Fonts are sized to be read from the back of a classroom.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from streamlit.elements.lib.streamlit_plotly_theme import GRAY_90

# Streamlit's chart theme (st.plotly_chart, theme="streamlit") sets axis numbers to its grey-70 at 12.75 px:
# 3.6:1 on the lab's #fbfaf7. GRAY_90 is the placeholder that theme swaps, in the browser, for its
# strongest text grey of the active theme (dark text on a light background, light text on a dark one),
# so one figure stays readable in both; plain plotly (theme=None) shows it as #2a3f5f.
TEXT_COLOUR = GRAY_90
FONT = dict(size=16, color=TEXT_COLOUR)
AXIS_TEXT = dict(tickfont=dict(size=16, color=TEXT_COLOUR), title=dict(font=dict(size=16, color=TEXT_COLOUR)))
INK_SCALE = "gray"  # 0 = black, 1 = white: light ink on dark, as MNIST
PROBABILITY_SCALE = "Viridis"
DIVERGING_SCALE = "RdBu"
ERROR_COLOUR = "#d62728"
OK_COLOUR = "#2a9d8f"
CLASS_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


# transparent: the page's own background (light or dark theme) shows through
LAYOUT = dict(font=FONT, plot_bgcolor="rgba(0,0,0,0)", paper_bgcolor="rgba(0,0,0,0)")
# plotly never wraps a title, and a chart in a column at 1024 px with the sidebar open (or on a phone)
# is about 260 px wide: titles longer than this many characters are broken over lines
TITLE_CHARACTERS = 28
TITLE_LINE_PX = 22
HIDDEN_AXIS = dict(showgrid=False, zeroline=False, showticklabels=False, ticks="", showline=False)
TITLE_ROWS = 9  # pixel rows of space above each image of a grid, for its title (14 px at 1.6 screen px per pixel)
# anchored to the bottom of the whole figure (not of the plot), so that plotly makes room for it under the
# axis title instead of drawing it over the title; the theme's 12.75 px legend text is too small for the back row
LEGEND_BELOW = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left",
                    font=dict(size=15, color=TEXT_COLOUR))
HORIZONTAL_COLOURBAR = dict(orientation="h", y=-0.02, yanchor="top", thickness=14, len=1.0)


def title_lines(title: str | None) -> tuple[dict | None, int]:
    """A chart title as plotly layout (lines of at most TITLE_CHARACTERS) and the top margin it needs, px."""
    if not title:
        return None, 30
    lines = textwrap.wrap(title, TITLE_CHARACTERS, break_long_words=False) or [title]
    return dict(text="<br>".join(lines), font=dict(size=17)), 40 + TITLE_LINE_PX * len(lines)


def style(figure: go.Figure, height: int, title: str | None = None, legend_below: bool = False) -> go.Figure:
    """The lab's one chart style: readable axis text, transparent background, title room, legend under the plot.

    Legends go below (not beside) so that they neither cover the plot nor squeeze it on a phone.
    """
    title_layout, top = title_lines(title)
    figure.update_layout(height=height + top - 60, margin=dict(l=10, r=10, t=top, b=10), title=title_layout,
                         **LAYOUT)
    if legend_below:
        figure.update_layout(legend=LEGEND_BELOW)
    figure.update_xaxes(**AXIS_TEXT)
    figure.update_yaxes(**AXIS_TEXT)
    # log axes: numbers at the decades only (plotly draws the 2s and 5s between them at 3/4 size)
    figure.update_xaxes(dtick=1, selector=dict(type="log"))
    figure.update_yaxes(dtick=1, selector=dict(type="log"))
    return figure


def image_grid(images: np.ndarray, titles: Sequence[str], columns: int,
               value_name: str = "pixel",
               colorscale: str = INK_SCALE, zrange: tuple[float, float] | None = None,
               colorbar_title: str | None = None, height_per_row: int = 150,
               hover_format: str = ".0f", title: str | None = None, index_name: str | None = None) -> go.Figure:
    """(n, h, w) images in a grid, one title above each, one shared colour scale (its bar under the grid).

    Drawn as a single heatmap of the tiled images (NaN between them), which keeps the
    figure fast to build and send; hover shows each image's own row and column, and with
    ``index_name`` (e.g. "digit" when image k is digit k) the image's position in ``images``.
    The colour bar lies under the images, so that on a phone it does not take the width they need.
    """
    images = np.asarray(images, dtype=np.float64)
    count, height, width = images.shape
    rows = max(1, -(-count // columns))
    tile_height, tile_width = height + TITLE_ROWS, width + 2
    mosaic = np.full((rows * tile_height, columns * tile_width - 2), np.nan)
    # (row, column) inside each image, then (with index_name) the image's index
    local = np.full(mosaic.shape + (3 if index_name else 2,), -1, dtype=np.int16)
    grid_rows, grid_cols = np.indices((height, width))
    annotations = []
    for index, (image, text) in enumerate(zip(images, titles)):
        top = (index // columns) * tile_height + TITLE_ROWS
        left = (index % columns) * tile_width
        mosaic[top: top + height, left: left + width] = image
        local[top: top + height, left: left + width] = np.stack(
            [grid_rows, grid_cols] + ([np.full_like(grid_rows, index)] if index_name else []), axis=-1)
        annotations.append(dict(x=left + (width - 1) / 2, y=top - 1, text=text, showarrow=False, yanchor="bottom",
                                font=dict(size=FONT["size"] - 2)))
    finite = images[np.isfinite(images)]
    low, high = zrange if zrange is not None else (float(finite.min(initial=0)), float(finite.max(initial=1)))
    which = f"{index_name} %{{customdata[2]}}, " if index_name else ""
    heatmap = dict(  # a plain trace dict: go.Figure validates it once (a go.Heatmap would be validated twice)
        type="heatmap", z=mosaic, customdata=local, zmin=low, zmax=high, colorscale=colorscale, hoverongaps=False,
        showscale=colorbar_title is not None,
        colorbar=dict(HORIZONTAL_COLOURBAR, title=dict(text=colorbar_title or "", side="top")),
        hovertemplate=f"{which}row %{{customdata[0]}}, column %{{customdata[1]}}<br>{value_name} "
                      f"%{{z:{hover_format}}}<extra></extra>")
    bottom = 90 if colorbar_title is not None else 10
    title_layout, top = title_lines(title) if title else (None, 10)
    return go.Figure(heatmap, layout=dict(
        height=bottom + top + 40 + rows * height_per_row, title=title_layout, annotations=annotations,
        margin=dict(l=10, r=10, t=top, b=bottom),
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
                      zrange=zrange, colorbar_title=value_name, height_per_row=170, hover_format=".4f",
                      index_name="digit")


def single_image(image: np.ndarray, title: str, value_name: str = "pixel", colorscale: str = INK_SCALE,
                 zrange: tuple[float, float] | None = (0, 255), colorbar_title: str | None = None,
                 height: int = 320, hover_format: str = ".0f") -> go.Figure:
    """One (28, 28) image with a title."""
    figure = image_grid(np.asarray(image)[None], [""], columns=1, value_name=value_name, colorscale=colorscale,
                        zrange=zrange, colorbar_title=colorbar_title, hover_format=hover_format, title=title)
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
    return single_image(shown, title, value_name="log₁₀ p", colorscale=PROBABILITY_SCALE, zrange=(floor, 0),
                        colorbar_title="log₁₀ p (blank: p = 0)", height=height, hover_format=".2f")


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, digits: int = 3) -> str:
    """A number as people write it: 1.58e-49 -> "1.58 × 10⁻⁴⁹" (``digits`` significant); 0 -> "0.0"."""
    if value == 0 or not np.isfinite(value):
        return repr(float(value))
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def with_article(digit: int) -> str:
    """ "a 3", "an 8": the article as the digit is spoken (of 0-9, only "eight" starts with a vowel sound)."""
    return f"{'an' if int(digit) == 8 else 'a'} {digit}"


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
    title_layout, top = title_lines(title)
    return go.Figure(bars, layout=dict(
        height=height + top - 60, title=title_layout, margin=dict(l=10, r=10, t=top, b=10),
        xaxis=dict(AXIS_TEXT, title=dict(AXIS_TEXT["title"], text="digit"), type="category"),
        yaxis=dict(AXIS_TEXT, title=dict(AXIS_TEXT["title"], text=value_name),
                   range=[0, max(1e-9, float(np.max(values))) * 1.18]), **LAYOUT))


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
        bargap=0.2, showlegend=False,
        xaxis=dict(AXIS_TEXT, title=dict(AXIS_TEXT["title"], text="digit"), type="category"),
        yaxis=dict(AXIS_TEXT, title=dict(AXIS_TEXT["title"], text="p(y | x)"), range=[0, 1.02]), **LAYOUT))


def curves(x: np.ndarray, series: dict[str, np.ndarray], x_title: str, y_title: str, title: str,
           marker_x: float | None = None, log_x: bool = False, height: int = 360,
           current: dict[str, float] | None = None, current_label: str = "current") -> go.Figure:
    """Line chart of several named series over a shared x, with an optional vertical marker at ``marker_x``.

    ``current[name]`` puts a star for that series at ``marker_x`` (a value measured off the curve, e.g. at
    α ≠ β when x is α = β); non-finite values get no star. On a log axis, x ≤ 0 is drawn at the smallest x.
    """
    figure = go.Figure()
    for index, (name, values) in enumerate(series.items()):
        figure.add_trace(go.Scatter(x=x, y=values, mode="lines+markers", name=name,
                                    line=dict(color=CLASS_COLOURS[index % len(CLASS_COLOURS)])))
    if marker_x is not None:
        shown_x = marker_x if not log_x or marker_x > 0 else float(np.min(x))
        figure.add_vline(x=shown_x, line_dash="dash", line_color="#555")
        for index, (name, value) in enumerate((current or {}).items()):
            if np.isfinite(value):
                figure.add_trace(go.Scatter(
                    x=[shown_x], y=[value], mode="markers", name=f"{name}, {current_label}",
                    marker=dict(symbol="star", size=16, color=CLASS_COLOURS[index % len(CLASS_COLOURS)],
                                line=dict(color="black", width=1)),
                    hovertemplate=f"{name}, {current_label}: %{{y:.4f}}<extra></extra>"))
    figure.update_xaxes(title=x_title, type="log" if log_x else "linear")
    figure.update_yaxes(title=y_title)
    return style(figure, height=height, title=title, legend_below=True)


def confusion_heatmap(matrix: np.ndarray, title: str, zmax: float) -> go.Figure:
    """A (10, 10) confusion matrix: rows true digit, columns predicted, counts in the cells."""
    labels = [str(digit) for digit in range(len(matrix))]
    # counts at 15 px: two digits of "true 4, predicted 9" must be read from the back row
    figure = go.Figure(go.Heatmap(z=matrix, x=labels, y=labels, zmin=0, zmax=zmax, colorscale="Blues",
                                  text=matrix, texttemplate="%{text}", textfont=dict(size=15),
                                  colorbar=dict(HORIZONTAL_COLOURBAR, y=-0.2, title=dict(text="images", side="right")),
                                  hovertemplate="true %{y}, predicted %{x}: %{z} images<extra></extra>"))
    figure.update_xaxes(title="predicted", type="category", side="bottom", showgrid=False)
    figure.update_yaxes(title="true", type="category", autorange="reversed", scaleanchor="x", showgrid=False,
                        constrain="domain")
    figure.update_xaxes(constrain="domain")
    style(figure, height=560, title=title)
    figure.update_layout(margin=dict(b=90))
    return figure


def reliability_diagram(curves_by_model: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]],
                        title: str = "Reliability on the test images", unit: str = "images",
                        x_min: float = 0.0, height: int = 520) -> go.Figure:
    """Accuracy against mean confidence per bin for one or more models, the diagonal being perfect calibration.

    ``curves_by_model[name] = (mean confidence (b,), accuracy (b,), count (b,), ECE)``; empty bins (count 0)
    are left out; marker area grows with the bin's count (the count itself is in the hover, so that
    crowded bins near 1 carry no overlapping labels). The confidence axis runs from ``x_min`` (e.g.
    1/classes, which the top posterior never goes under) to 1.
    """
    figure = go.Figure(go.Scatter(x=[x_min, 1], y=[x_min, 1], mode="lines", name="perfectly calibrated",
                                  line=dict(dash="dash", color="#888"), hoverinfo="skip"))
    largest = max(max(float(np.max(count, initial=0)) for _, _, count, _ in curves_by_model.values()), 1.0)
    symbols = ("circle", "diamond", "square", "triangle-up")
    for index, (name, (confidence, accuracy, count, ece)) in enumerate(curves_by_model.items()):
        filled = np.asarray(count) > 0
        figure.add_trace(go.Scatter(
            x=np.asarray(confidence)[filled], y=np.asarray(accuracy)[filled], mode="lines+markers",
            name=f"{name} (ECE {ece:.3f})", line=dict(color=CLASS_COLOURS[index % len(CLASS_COLOURS)]),
            marker=dict(size=7 + 18 * np.sqrt(np.asarray(count)[filled] / largest),
                        symbol=symbols[index % len(symbols)], line=dict(color="white", width=1)),
            customdata=np.asarray(count)[filled],
            hovertemplate=f"{name}<br>mean confidence %{{x:.3f}}<br>accuracy %{{y:.3f}}<br>%{{customdata:,}} "
                          f"{unit}<extra></extra>"))
    lowest_accuracy = min([x_min] + [float(np.min(np.asarray(accuracy)[np.asarray(count) > 0], initial=1.0))
                                     for _, accuracy, count, _ in curves_by_model.values()])
    margin = 0.02 * (1 - x_min)  # room for the end markers; the ranges stay [x_min, 1], not stretched to fit
    figure.update_xaxes(title="mean confidence (top p)",
                        range=[x_min - margin, 1 + margin])
    figure.update_yaxes(title="accuracy", range=[lowest_accuracy - margin, 1 + margin])
    return style(figure, height=height, title=title, legend_below=True)


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
    return style(figure, height=460, title="Learning curves (band: range over seeds)", legend_below=True)


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
        type="heatmap", z=np.clip(evidence, -limit, limit), zmin=-limit, zmax=limit, colorscale=DIVERGING_SCALE,
        customdata=np.stack([rows, columns, ink], axis=-1),
        colorbar=dict(title=dict(text="nats", side="top"), thickness=14, len=0.9),
        hovertemplate=f"row %{{customdata[0]}}, column %{{customdata[1]}}, ink %{{customdata[2]}}<br>"
                      f"%{{z:.3f}} nats for {favoured} over {other}<extra></extra>")
    outline = dict(type="contour", z=np.asarray(ink, dtype=float), showscale=False, hoverinfo="skip",
                   contours=dict(start=0.5, end=0.5, size=1, coloring="none"), line=dict(color="#222222", width=1.5))
    return go.Figure([heatmap, outline], layout=dict(
        height=height, margin=dict(l=4, r=4, t=4, b=4), showlegend=False,
        xaxis=dict(HIDDEN_AXIS, constrain="domain"),
        yaxis=dict(HIDDEN_AXIS, autorange="reversed", scaleanchor="x", constrain="domain"), **LAYOUT))
