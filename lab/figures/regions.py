"""Points in a plane: Gaussian decision regions on iris, a PCA scatter, the four XOR points."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lab import i18n
from lab.figures import notation
from lab.figures.style import CLASS_COLOURS, CLASS_SYMBOLS, PROBABILITY_SCALE, TEXT_COLOUR, style
from lab.i18n import _

SIGMA_LEVELS = (1.0, 2.0)
CONTOUR_POINTS = 70  # at most this many grid points a side for the p = 0.5 lines


def _translucent(hex_colour: str, opacity: float) -> str:
    red, green, blue = (int(hex_colour[index : index + 2], 16) for index in (1, 3, 5))
    return f"rgba({red},{green},{blue},{opacity})"


def decision_regions(
    xs: np.ndarray,
    ys: np.ndarray,
    proba: np.ndarray,
    points: np.ndarray,
    labels: np.ndarray,
    class_names: Sequence[str],
    means: np.ndarray,
    variances: np.ndarray,
    axis_titles: tuple[str, str],
    title: str,
    height: int = 560,
) -> go.Figure:
    """Regions of the most probable class, each class's p = 0.5 contour, the points and Gaussian ellipses.

    xs (nx,), ys (ny,): grid coordinates; proba (ny, nx, k): posteriors on the grid;
    points (n, 2) with labels (n,) in 0..k-1; means, variances (k, 2): each class's
    per-feature Gaussian, drawn as axis-aligned ellipses at 1 and 2 standard deviations.
    """
    n_classes = proba.shape[2]
    colours = CLASS_COLOURS[:n_classes]
    figure = go.Figure()
    scale = [[index / max(n_classes - 1, 1), _translucent(colour, 0.18)] for index, colour in enumerate(colours)]
    figure.add_trace(
        go.Heatmap(
            x=xs,
            y=ys,
            z=proba.argmax(axis=2),
            colorscale=scale,
            zmin=0,
            zmax=n_classes - 1,
            showscale=False,
            name=_("most probable class"),
            hoverinfo="skip",
        )
    )
    # the p = 0.5 lines from a coarser grid: a posterior this smooth gives the same lines, and tracing three of them
    # on 200 × 200 points took the browser about 0.35 s of the page's drawing
    step = -(-max(len(xs), len(ys)) // CONTOUR_POINTS)
    for label, (name, colour) in enumerate(zip(class_names, colours)):
        figure.add_trace(
            go.Contour(
                x=xs[::step],
                y=ys[::step],
                z=proba[::step, ::step, label],
                showscale=False,
                name=f"p({name} | x) = 0.5",
                contours=dict(start=0.5, end=0.5, size=1, coloring="none"),
                line=dict(color=colour, width=3),
                hoverinfo="skip",
                showlegend=True,
            )
        )
    angles = np.linspace(0, 2 * np.pi, 100)
    for label, (name, colour) in enumerate(zip(class_names, colours)):
        for sigmas in SIGMA_LEVELS:
            spread = sigmas * np.sqrt(variances[label])
            figure.add_trace(
                go.Scatter(
                    x=means[label, 0] + spread[0] * np.cos(angles),
                    y=means[label, 1] + spread[1] * np.sin(angles),
                    mode="lines",
                    line=dict(color=colour, dash="dot", width=1.5),
                    name=f"{name}: {notation.general(sigmas)}σ",
                    legendgroup=f"ellipse{label}",
                    showlegend=sigmas == SIGMA_LEVELS[0],
                    hoverinfo="skip",
                )
            )
        members = labels == label
        figure.add_trace(
            go.Scatter(
                x=points[members, 0],
                y=points[members, 1],
                mode="markers",
                name=name,
                marker=dict(
                    color=colour,
                    size=10,
                    symbol=CLASS_SYMBOLS[label % len(CLASS_SYMBOLS)],
                    line=dict(color="white", width=1),
                ),
                hovertemplate=f"{name}<br>{axis_titles[0]} %{{x}}<br>{axis_titles[1]} %{{y}}<extra></extra>",
            )
        )
    figure.update_xaxes(title=axis_titles[0], range=[xs[0], xs[-1]], showgrid=False)
    figure.update_yaxes(title=axis_titles[1], range=[ys[0], ys[-1]], showgrid=False)
    return style(figure, height=height, title=title, legend_below=True)


def pca_scatter(
    scores: np.ndarray,
    labels: np.ndarray,
    class_names: Sequence[str],
    explained: np.ndarray,
    title: str,
    height: int = 460,
) -> go.Figure:
    """Points (n, 2) on the first two principal components, colour and marker shape by class (labels (n,)).

    Flat on purpose: a plotly 3-D scene swallows every mouse-wheel event over it (its camera
    listener always cancels the page scroll, whatever the chart configuration says), so a page with
    one stops scrolling under the pointer.
    """
    figure = go.Figure()
    hover = _("PC1 {first}, PC2 {second}").format(first="%{x:.2f}", second="%{y:.2f}")
    for label, name in enumerate(class_names):
        members = labels == label
        figure.add_trace(
            go.Scatter(
                x=scores[members, 0],
                y=scores[members, 1],
                mode="markers",
                name=name,
                marker=dict(
                    size=10,
                    color=CLASS_COLOURS[label % len(CLASS_COLOURS)],
                    symbol=CLASS_SYMBOLS[label % len(CLASS_SYMBOLS)],
                    line=dict(color="white", width=1),
                ),
                hovertemplate=f"{name}<br>{hover}<extra></extra>",
            )
        )
    figure.update_xaxes(
        title=_("PC1 ({share} of the variance)").format(share=i18n.percent(explained[0])), zeroline=False
    )
    figure.update_yaxes(title=_("PC2 ({share})").format(share=i18n.percent(explained[1])), zeroline=False)
    return style(figure, height=height, title=title, legend_below=True)


def xor_posteriors(
    points: np.ndarray, labels: np.ndarray, posteriors: dict[str, np.ndarray], height: int = 380
) -> go.Figure:
    """One panel per model: the points (n, 2) coloured by p(y = 1 | x), labelled with it and the true label.

    On a phone each panel is about 150 px wide: labels take two short lines, and there is no colour bar
    to take a third of the width (the labels give each p).
    """
    names = list(posteriors)
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.12)
    for column, name in enumerate(names, start=1):
        posterior = np.asarray(posteriors[name], dtype=np.float64)
        figure.add_trace(
            go.Scatter(
                x=points[:, 0],
                y=points[:, 1],
                mode="markers+text",
                name=name,
                showlegend=False,
                text=[f"y={label}<br>p={i18n.decimal(value, 2)}" for label, value in zip(labels, posterior)],
                textposition="top center",
                marker=dict(
                    size=34,
                    color=posterior,
                    cmin=0,
                    cmax=1,
                    colorscale=PROBABILITY_SCALE,
                    symbol=["circle" if label == 0 else "x" for label in labels],
                    line=dict(color="black", width=1),
                    showscale=False,  # each point is labelled with its p: a colour bar would repeat it
                ),
                hovertemplate="x = (%{x}, %{y})<br>p(y=1|x) = %{marker.color:.3f}<extra></extra>",
            ),
            row=1,
            col=column,
        )
    figure.update_xaxes(title="x₁", range=[-0.5, 1.5], tickvals=[0, 1])
    figure.update_yaxes(range=[-0.5, 1.75], tickvals=[0, 1])
    figure.update_yaxes(title="x₂", col=1)  # once: beside a second panel it ran into the first one's labels
    style(figure, height=height)
    figure.update_annotations(font=dict(size=16, color=TEXT_COLOUR))  # the panel titles
    return figure
