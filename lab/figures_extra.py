"""Pure figure builders for the Gaussian NB, Spam filter and XOR pages: arrays in, plotly figures out.

No Streamlit and no model code here; styling follows ``lab.figures``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .figures import CLASS_COLOURS, ERROR_COLOUR, OK_COLOUR, PROBABILITY_SCALE, TEXT_COLOUR, style

SPAM_COLOUR = "#d62728"
HAM_COLOUR = "#1f77b4"
NEUTRAL_COLOUR = "#9e9e9e"
SIGMA_LEVELS = (1.0, 2.0)
# classes differ by marker shape as well as colour (colour must never be the only carrier)
CLASS_SYMBOLS = ("circle", "diamond", "square", "x")


def _translucent(hex_colour: str, opacity: float) -> str:
    red, green, blue = (int(hex_colour[index:index + 2], 16) for index in (1, 3, 5))
    return f"rgba({red},{green},{blue},{opacity})"


# -- Gaussian naive Bayes ---------------------------------------------------------------------------
def decision_regions(xs: np.ndarray, ys: np.ndarray, proba: np.ndarray, points: np.ndarray, labels: np.ndarray,
                     class_names: Sequence[str], means: np.ndarray, variances: np.ndarray,
                     axis_titles: tuple[str, str], title: str, height: int = 560) -> go.Figure:
    """Regions of the most probable class, each class's p = 0.5 contour, the points and Gaussian ellipses.

    xs (nx,), ys (ny,): grid coordinates; proba (ny, nx, k): posteriors on the grid;
    points (n, 2) with labels (n,) in 0..k-1; means, variances (k, 2): each class's
    per-feature Gaussian, drawn as axis-aligned ellipses at 1 and 2 standard deviations.
    """
    n_classes = proba.shape[2]
    colours = CLASS_COLOURS[:n_classes]
    figure = go.Figure()
    scale = [[index / max(n_classes - 1, 1), _translucent(colour, 0.18)] for index, colour in enumerate(colours)]
    figure.add_trace(go.Heatmap(x=xs, y=ys, z=proba.argmax(axis=2), colorscale=scale, zmin=0, zmax=n_classes - 1,
                                showscale=False, name="most probable class", hoverinfo="skip"))
    for label, (name, colour) in enumerate(zip(class_names, colours)):
        figure.add_trace(go.Contour(x=xs, y=ys, z=proba[:, :, label], showscale=False, name=f"p({name} | x) = 0.5",
                                    contours=dict(start=0.5, end=0.5, size=1, coloring="none"),
                                    line=dict(color=colour, width=3), hoverinfo="skip", showlegend=True))
    angles = np.linspace(0, 2 * np.pi, 100)
    for label, (name, colour) in enumerate(zip(class_names, colours)):
        for sigmas in SIGMA_LEVELS:
            spread = sigmas * np.sqrt(variances[label])
            figure.add_trace(go.Scatter(
                x=means[label, 0] + spread[0] * np.cos(angles), y=means[label, 1] + spread[1] * np.sin(angles),
                mode="lines", line=dict(color=colour, dash="dot", width=1.5), name=f"{name}: {sigmas:g}σ",
                legendgroup=f"ellipse{label}", showlegend=sigmas == SIGMA_LEVELS[0], hoverinfo="skip"))
        members = labels == label
        figure.add_trace(go.Scatter(
            x=points[members, 0], y=points[members, 1], mode="markers", name=name,
            marker=dict(color=colour, size=10, symbol=CLASS_SYMBOLS[label % len(CLASS_SYMBOLS)],
                        line=dict(color="white", width=1)),
            hovertemplate=f"{name}<br>{axis_titles[0]} %{{x}}<br>{axis_titles[1]} %{{y}}<extra></extra>"))
    figure.update_xaxes(title=axis_titles[0], range=[xs[0], xs[-1]], showgrid=False)
    figure.update_yaxes(title=axis_titles[1], range=[ys[0], ys[-1]], showgrid=False)
    return style(figure, height=height, title=title, legend_below=True)


def pca_scatter(scores: np.ndarray, labels: np.ndarray, class_names: Sequence[str],
                explained: np.ndarray, title: str, height: int = 460) -> go.Figure:
    """Points (n, 2) on the first two principal components, colour and marker shape by class (labels (n,)).

    Flat on purpose: a plotly 3-D scene swallows every mouse-wheel event over it (its camera
    listener always cancels the page scroll, whatever the chart configuration says), so a page with
    one stops scrolling under the pointer.
    """
    figure = go.Figure()
    for label, name in enumerate(class_names):
        members = labels == label
        figure.add_trace(go.Scatter(
            x=scores[members, 0], y=scores[members, 1], mode="markers", name=name,
            marker=dict(size=10, color=CLASS_COLOURS[label % len(CLASS_COLOURS)],
                        symbol=CLASS_SYMBOLS[label % len(CLASS_SYMBOLS)], line=dict(color="white", width=1)),
            hovertemplate=f"{name}<br>PC1 %{{x:.2f}}, PC2 %{{y:.2f}}<extra></extra>"))
    figure.update_xaxes(title=f"PC1 ({explained[0]:.0%} of the variance)", zeroline=False)
    figure.update_yaxes(title=f"PC2 ({explained[1]:.0%})", zeroline=False)
    return style(figure, height=height, title=title, legend_below=True)


def log_x_curve(x: Sequence[float], series: dict[str, Sequence[float]], x_title: str, y_title: str, title: str,
                marked: dict[str, float] | None = None, references: dict[str, float] | None = None,
                height: int = 380) -> go.Figure:
    """Named series over a log-scaled x; ``marked`` puts a star on a series at one x (which must be in ``x``),
    ``references`` draws named horizontal dashed lines."""
    figure = go.Figure()
    x = np.asarray(x, dtype=np.float64)
    for index, (name, values) in enumerate(series.items()):
        colour = CLASS_COLOURS[index % len(CLASS_COLOURS)]
        values = np.asarray(values, dtype=np.float64)
        figure.add_trace(go.Scatter(x=x, y=values, mode="lines+markers", name=name, line=dict(color=colour),
                                    hovertemplate=f"{name}<br>%{{x:.3g}}: %{{y:.4f}}<extra></extra>"))
        if marked and name in marked:
            position = int(np.argmin(np.abs(np.log(x) - np.log(marked[name]))))
            figure.add_trace(go.Scatter(x=[x[position]], y=[values[position]], mode="markers",
                                        name=f"{name}: {x[position]:g}", showlegend=True,
                                        marker=dict(symbol="star", size=18, color=colour,
                                                    line=dict(color="black", width=1)),
                                        hovertemplate=f"{name}<br>%{{x:.3g}}: %{{y:.4f}}<extra></extra>"))
    for name, level in (references or {}).items():
        figure.add_trace(go.Scatter(x=[x.min(), x.max()], y=[level, level], mode="lines", name=name,
                                    line=dict(color=NEUTRAL_COLOUR, dash="dash"),
                                    hovertemplate=f"{name}: {level:.4f}<extra></extra>"))
    figure.update_xaxes(title=x_title, type="log", exponentformat="power", dtick=1)
    figure.update_yaxes(title=y_title)
    return style(figure, height=height, title=title, legend_below=True)


# -- spam -----------------------------------------------------------------------------------------------
def accuracy_bars(accuracies: dict[str, float], title: str, height: int = 300) -> go.Figure:
    """One horizontal bar per named accuracy, values printed on the bars, x from 0 to 1."""
    names = list(accuracies)
    values = [accuracies[name] for name in names]
    colours = [NEUTRAL_COLOUR if "baseline" in name.lower() else OK_COLOUR for name in names]
    figure = go.Figure(go.Bar(x=values, y=names, orientation="h", marker_color=colours,
                              text=[f"{value:.4f}" for value in values], textposition="inside",
                              hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    figure.update_xaxes(title="test accuracy", range=[0, 1])
    figure.update_yaxes(autorange="reversed")
    return style(figure, height=height, title=title)


def word_contributions(words: Sequence[str], contributions: np.ndarray, known: np.ndarray, base_label: str,
                       base_log_odds: float, title: str, max_words: int = 30, max_label: int = 24) -> go.Figure:
    """Horizontal bars: nats each word adds to the spam log-odds (red towards spam, blue towards ham).

    The base term (prior, and for the Bernoulli model every word counted absent) comes first;
    unknown words are shown grey at 0; of more than ``max_words`` words, the largest in
    absolute value are kept; labels longer than ``max_label`` characters are shortened.
    """
    contributions = np.asarray(contributions, dtype=np.float64)
    order = np.argsort(-np.abs(contributions), kind="stable")[:max_words]
    order = order[np.argsort(-contributions[order], kind="stable")]  # most spammy at the top
    labels = [base_label] + [_shorten(words[index], max_label) + ("" if known[index] else " (unknown)")
                             for index in order]
    values = np.concatenate([[base_log_odds], contributions[order]])
    is_known = [True] + [bool(known[index]) for index in order]
    colours = [SPAM_COLOUR if value > 0 else HAM_COLOUR if ok else NEUTRAL_COLOUR
               for value, ok in zip(values, is_known)]
    rows = list(range(len(values)))  # positions, so equal labels stay separate bars
    figure = go.Figure(go.Bar(x=values, y=rows, orientation="h", marker_color=colours, customdata=labels,
                              hovertemplate="%{customdata}: %{x:+.3f} nats<extra></extra>"))
    figure.update_xaxes(title="← ham · nats · spam →",
                        zeroline=True, zerolinecolor="#555")
    figure.update_yaxes(autorange="reversed", tickvals=rows, ticktext=labels)
    return style(figure, height=max(260, 90 + 26 * len(values)), title=title)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit - 1]}… ({len(text):,} chars)"


def confidence_histogram(edges: np.ndarray, counts: np.ndarray, accuracy: np.ndarray, title: str,
                         x_min: float = 0.0, height: int = 360) -> go.Figure:
    """Messages per confidence bin, correct and wrong side by side (log y), from a reliability binning.

    edges (n_bins + 1,); counts and accuracy (n_bins,) per bin (accuracy NaN where empty);
    bins below ``x_min`` (e.g. 1/n_classes, which the top posterior never goes under) are left out.
    """
    counts = np.asarray(counts)
    correct = np.rint(counts * np.nan_to_num(np.asarray(accuracy, dtype=np.float64))).astype(np.int64)
    shown = edges[:-1] >= x_min - 1e-12
    centres = ((edges[:-1] + edges[1:]) / 2)[shown]
    figure = go.Figure()
    for name, values, colour in (("correct", correct, OK_COLOUR), ("wrong", counts - correct, ERROR_COLOUR)):
        figure.add_trace(go.Bar(x=centres, y=values[shown], name=name, marker_color=colour,
                                hovertemplate=f"{name}<br>confidence ≈ %{{x:.3f}}: %{{y}} messages<extra></extra>"))
    figure.update_layout(barmode="group", bargap=0.15)
    figure.update_xaxes(title="top posterior", range=[x_min, edges[-1]])
    figure.update_yaxes(title="messages (log scale)", type="log")
    return style(figure, height=height, title=title, legend_below=True)


# -- XOR ------------------------------------------------------------------------------------------------
def xor_posteriors(points: np.ndarray, labels: np.ndarray, posteriors: dict[str, np.ndarray],
                   height: int = 380) -> go.Figure:
    """One panel per model: the points (n, 2) coloured by p(y = 1 | x), labelled with it and the true label."""
    names = list(posteriors)
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.12)
    for column, name in enumerate(names, start=1):
        posterior = np.asarray(posteriors[name], dtype=np.float64)
        figure.add_trace(go.Scatter(
            x=points[:, 0], y=points[:, 1], mode="markers+text", name=name, showlegend=False,
            text=[f"y={label}, p={value:.2f}" for label, value in zip(labels, posterior)], textposition="top center",
            marker=dict(size=34, color=posterior, cmin=0, cmax=1, colorscale=PROBABILITY_SCALE,
                        symbol=["circle" if label == 0 else "x" for label in labels],
                        line=dict(color="black", width=1),
                        colorbar=dict(title="p(y=1|x)") if column == len(names) else None,
                        showscale=column == len(names)),
            hovertemplate="x = (%{x}, %{y})<br>p(y=1|x) = %{marker.color:.3f}<extra></extra>"), row=1, col=column)
    figure.update_xaxes(title="x₁", range=[-0.5, 1.5], tickvals=[0, 1])
    figure.update_yaxes(title="x₂", range=[-0.5, 1.6], tickvals=[0, 1])
    style(figure, height=height)
    figure.update_annotations(font=dict(size=16, color=TEXT_COLOUR))  # the panel titles
    return figure
