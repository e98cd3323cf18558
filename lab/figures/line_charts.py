"""Curves: named series over a shared x (training size, smoothing, k), and a running product over the pixels."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from lab import i18n
from lab.figures import notation
from lab.figures.style import CLASS_COLOURS, ERROR_COLOUR, LAYOUT, NEUTRAL_COLOUR, OK_COLOUR, style
from lab.i18n import _, pgettext


def curves(
    x: ArrayLike,
    series: dict[str, ArrayLike],
    x_title: str,
    y_title: str,
    title: str,
    log_x: bool = False,
    marker_x: float | None = None,
    current: dict[str, float] | None = None,
    current_label: str | None = None,
    marked: dict[str, float] | None = None,
    references: dict[str, float] | None = None,
    height: int = 370,
    tick_every_x: bool = False,
    marked_label: str | None = None,
    stars_named: bool = True,
) -> go.Figure:
    """Named series over a shared x (log-scaled if ``log_x``), in the class colours, and three kinds of mark.

    ``marker_x``: a vertical dashed line there; ``current[name]`` puts a star for that series on the line
    (a value measured off the curve, e.g. at α ≠ β when x is α = β; non-finite values get none; on a log
    axis an x ≤ 0 is drawn at the smallest x). ``marked[name]``: a star on that series at its nearest x.
    ``references``: named horizontal dashed lines across the x range. ``tick_every_x``: a tick labelled at each x
    (a short grid such as K = 1, 2, 5, 10, 20, 50), not the axis's own.
    A star's legend entry is its series' name, then ``current_label`` (default "current") or ``marked_label``
    (``{x}``: the x marked; default the x alone, in the reader's form);
    ``stars_named=False`` leaves the name out (a chart of one series, whose stars say what they mark alone).
    """
    if current_label is None:
        current_label = _("current")
    figure = go.Figure()
    xs = np.asarray(x, dtype=np.float64)
    colours = {name: CLASS_COLOURS[index % len(CLASS_COLOURS)] for index, name in enumerate(series)}
    shown_x = marker_x
    if log_x and marker_x is not None and marker_x <= 0:  # no place on a log axis: drawn at the smallest x
        shown_x = float(np.min(xs))

    def star(name: str, at_x: float, y: float, label: str) -> go.Scatter:
        return go.Scatter(
            x=[at_x],
            y=[y],
            mode="markers",
            name=label,
            marker=dict(
                symbol="star", size=17, color=colours.get(name, NEUTRAL_COLOUR), line=dict(color="black", width=1)
            ),
            hovertemplate=f"{label}: %{{y:.4f}}<extra></extra>",
        )

    for name, given in series.items():
        values = np.asarray(given, dtype=np.float64)
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=values,
                mode="lines+markers",
                name=name,
                line=dict(color=colours[name]),
                hovertemplate=f"{name}<br>%{{x:.3g}}: %{{y:.4f}}<extra></extra>",
            )
        )
        if marked and name in marked:
            position = int(np.argmin(np.abs(np.log(xs) - np.log(marked[name])) if log_x else np.abs(xs - marked[name])))
            label = notation.general(xs[position]) if marked_label is None else marked_label.format(x=xs[position])
            figure.add_trace(star(name, xs[position], values[position], f"{name}: {label}" if stars_named else label))
    if shown_x is not None:
        figure.add_vline(x=shown_x, line_dash="dash", line_color="#555")
        for name, value in (current or {}).items():
            if np.isfinite(value):
                label = f"{name}, {current_label}" if stars_named else current_label
                figure.add_trace(star(name, shown_x, value, label))
    for name, level in (references or {}).items():
        figure.add_trace(
            go.Scatter(
                x=[xs.min(), xs.max()],
                y=[level, level],
                mode="lines",
                name=name,
                line=dict(color=NEUTRAL_COLOUR, dash="dash"),
                hovertemplate=f"{name}: {i18n.decimal(level, 4)}<extra></extra>",
            )
        )
    if log_x:
        figure.update_xaxes(type="log", exponentformat="power", dtick=1)
    if tick_every_x:
        figure.update_xaxes(tickvals=xs, ticktext=[notation.general(value) for value in xs])
    figure.update_xaxes(title=x_title)
    figure.update_yaxes(title=y_title)
    return style(figure, height=height, title=title, legend_below=True)


def smoothing_accuracy(curve: dict[str, np.ndarray], marker_x: float | None, **options) -> go.Figure:
    """Train and test accuracy over α = β on a log axis, from a ``smoothing_curve`` dict; ``options`` as ``curves``
    (``current`` and ``marked`` keyed "train" and "test", whatever the reader's language)."""
    names = {"train": pgettext("accuracy on", "train"), "test": pgettext("accuracy on", "test")}
    for option in ("current", "marked"):
        if options.get(option):
            options[option] = {names.get(name, name): value for name, value in options[option].items()}
    return curves(
        curve["alpha"],
        {names["train"]: curve["train_accuracy"], names["test"]: curve["test_accuracy"]},
        _("{quantity} (log scale)").format(quantity="α = β"),
        _("accuracy"),
        _("Accuracy against smoothing"),
        marker_x=marker_x,
        log_x=True,
        **options,
    )


def learning_curves(sizes: np.ndarray, accuracy_by_model: dict[str, np.ndarray]) -> go.Figure:
    """Test accuracy (mean and min-max over seeds) against training-set size, log x axis.

    ``accuracy_by_model[name]`` is (len(sizes), n_seeds).
    """
    figure = go.Figure()
    hover = _("{images} images: accuracy {accuracy}").format(images="%{x:,}", accuracy="%{y:.4f}")
    for (name, accuracy), colour in zip(accuracy_by_model.items(), CLASS_COLOURS):
        low, high = accuracy.min(axis=1), accuracy.max(axis=1)
        figure.add_trace(
            go.Scatter(
                x=np.r_[sizes, sizes[::-1]],
                y=np.r_[high, low[::-1]],
                fill="toself",
                fillcolor=colour,
                opacity=0.2,
                line=dict(width=0),
                hoverinfo="skip",
                showlegend=False,
            )
        )
        figure.add_trace(
            go.Scatter(
                x=sizes,
                y=accuracy.mean(axis=1),
                mode="lines+markers",
                name=name,
                line=dict(color=colour),
                hovertemplate=hover + "<extra>" + name + "</extra>",
            )
        )
    figure.update_xaxes(title=_("training images (log scale)"), type="log")
    figure.update_yaxes(title=_("test accuracy"))
    return style(figure, height=460, title=_("Learning curves (band: range over seeds)"), legend_below=True)


def running_product(log10_product: np.ndarray, limits: dict[str, float], height: int = 360) -> go.Figure:
    """log10 of the running product of pixel probabilities (784,) against the pixel count, with a dashed
    horizontal line for each named limit (log10 of the smallest positive number a float type holds)."""
    pixels = np.arange(1, len(log10_product) + 1)
    figure = go.Figure(
        go.Scatter(
            x=pixels,
            y=log10_product,
            mode="lines",
            name=_("log₁₀ of the product so far"),
            line=dict(color=OK_COLOUR, width=3),
            hovertemplate=_("after {pixels} pixels: {product}").format(pixels="%{x}", product="10^%{y:.1f}")
            + "<extra></extra>",
        )
    )
    for (name, level), dash in zip(limits.items(), ("dash", "dot")):
        figure.add_trace(
            go.Scatter(
                x=[pixels[0], pixels[-1]],
                y=[level, level],
                mode="lines",
                name=name,
                line=dict(color=ERROR_COLOUR, dash=dash),
                hovertemplate=f"{name}: 10^{i18n.decimal(level, 1)}<extra></extra>",
            )
        )
    figure.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=20, b=10),
        legend=dict(orientation="h", y=-0.3),
        xaxis=dict(title=_("pixels multiplied")),
        yaxis=dict(title=_("log₁₀ of the product")),
        **LAYOUT,
    )
    return figure
