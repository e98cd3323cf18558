"""How right and how sure a model is: confusion matrices, reliability diagrams, confidence histograms."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lab import i18n
from lab.figures.style import CLASS_COLOURS, ERROR_COLOUR, HORIZONTAL_COLOURBAR, OK_COLOUR, style
from lab.i18n import N_, _

# the confidence histogram's two kinds of bar, and how they are named in its legend and hover
ANSWERS = (N_("correct"), N_("wrong"))


def count_ticks(largest: float, most: int = 6) -> dict:
    """Colour-bar ticks for counts up to ``largest``: whole numbers only, at most about ``most`` of them.

    Plotly's own ticks for a scale from 0 to 1 are 0, 0.5 and 1, and no drawing is half a drawing.
    """
    step = 1
    while largest / step > most - 1:
        for factor in (2, 2.5, 2):  # 1, 2, 5, 10, 20, 50, ...
            step = int(step * factor)
            if largest / step <= most - 1:
                break
    return dict(tick0=0, dtick=step, tickformat="d")


def confusion_heatmap(matrix: np.ndarray, title: str, zmax: float, unit: str | None = None) -> go.Figure:
    """A (10, 10) confusion matrix: rows true digit, columns predicted, counts of ``unit`` (default "images", in the
    reader's language) in the cells.

    The colour bar lies along the foot of the whole figure (not at a fraction of the plot's height
    under it), so that it keeps clear of the x-axis title at any height.
    """
    labels = [str(digit) for digit in range(len(matrix))]
    unit = _("images") if unit is None else unit
    # counts at 15 px: two digits of "true 4, predicted 9" must be read from the back row
    figure = go.Figure(
        go.Heatmap(
            z=matrix,
            x=labels,
            y=labels,
            zmin=0,
            zmax=zmax,
            colorscale="Blues",
            text=matrix,
            texttemplate="%{text}",
            textfont=dict(size=15),
            colorbar=dict(
                HORIZONTAL_COLOURBAR,
                yref="container",
                y=0,
                yanchor="bottom",
                ypad=10,
                title=dict(text=unit, side="right"),
                **count_ticks(zmax),
            ),
            hovertemplate=_("true {true}, predicted {predicted}: {count} {unit}").format(
                true="%{y}", predicted="%{x}", count="%{z}", unit=unit
            )
            + "<extra></extra>",
        )
    )
    figure.update_xaxes(title_text=_("predicted"), type="category", side="bottom", showgrid=False)
    figure.update_yaxes(
        title_text=_("true"), type="category", autorange="reversed", scaleanchor="x", showgrid=False, constrain="domain"
    )
    figure.update_xaxes(constrain="domain")
    style(figure, height=560, title=title)
    # under the plot: the digits (about 25 px), the axis title (25 px), then the bar and its numbers (50 px)
    figure.update_layout(margin=dict(b=110))
    return figure


def meant_confusion(matrix: np.ndarray, model_name: str) -> go.Figure:
    """The (10, 10) counts of digit meant (rows) against ``model_name``'s reading (columns); empty cells left blank."""
    counts = np.asarray(matrix)
    figure = confusion_heatmap(
        counts,
        title=_("Meant vs {model}").format(model=model_name),
        zmax=max(int(np.max(counts)), 1),
        unit=_("drawings"),
    )
    figure.update_traces(
        text=np.where(counts > 0, counts.astype(str), ""),
        hovertemplate=_("meant {meant}, {model} read {read}: {count} drawings").format(
            meant="%{y}", model=model_name, read="%{x}", count="%{z}"
        )
        + "<extra></extra>",
    )
    # title_text, not title: a whole new title would drop the lab's axis-title font and colour
    figure.update_xaxes(title_text=_("{model} read").format(model=model_name))
    figure.update_yaxes(title_text=_("meant"))
    figure.update_layout(height=420)
    return figure


def reliability_diagram(
    curves_by_model: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]],
    title: str | None = None,
    unit: str | None = None,
    x_min: float = 0.0,
    height: int = 520,
) -> go.Figure:
    """Accuracy against mean confidence per bin for one or more models, the diagonal being perfect calibration.

    ``curves_by_model[name] = (mean confidence (b,), accuracy (b,), count (b,), ECE)``; empty bins (count 0)
    are left out; marker area grows with the bin's count (the count itself is in the hover, so that
    crowded bins near 1 carry no overlapping labels). The confidence axis runs from ``x_min`` (e.g.
    1/classes, which the top posterior never goes under) to 1. ``title`` and ``unit`` default to "Reliability on the
    test images" and "images", in the reader's language.
    """
    title = _("Reliability on the test images") if title is None else title
    unit = _("images") if unit is None else unit
    figure = go.Figure(
        go.Scatter(
            x=[x_min, 1],
            y=[x_min, 1],
            mode="lines",
            name=_("perfectly calibrated"),
            line=dict(dash="dash", color="#888"),
            hoverinfo="skip",
        )
    )
    largest = max(max(float(np.max(count, initial=0)) for _, _, count, _ in curves_by_model.values()), 1.0)
    symbols = ("circle", "diamond", "square", "triangle-up")
    hover = "<br>".join(
        (
            _("mean confidence {confidence}").format(confidence="%{x:.3f}"),
            _("accuracy {accuracy}").format(accuracy="%{y:.3f}"),
            f"%{{customdata:,}} {unit}<extra></extra>",
        )
    )
    for index, (name, (confidence, accuracy, count, ece)) in enumerate(curves_by_model.items()):
        filled = np.asarray(count) > 0
        figure.add_trace(
            go.Scatter(
                x=np.asarray(confidence)[filled],
                y=np.asarray(accuracy)[filled],
                mode="lines+markers",
                name=_("{model} (ECE {ece})").format(model=name, ece=i18n.decimal(ece, 3)),
                line=dict(color=CLASS_COLOURS[index % len(CLASS_COLOURS)]),
                marker=dict(
                    size=7 + 18 * np.sqrt(np.asarray(count)[filled] / largest),
                    symbol=symbols[index % len(symbols)],
                    line=dict(color="white", width=1),
                ),
                customdata=np.asarray(count)[filled],
                hovertemplate=f"{name}<br>{hover}",
            )
        )
    lowest_accuracy = min(
        [x_min]
        + [
            float(np.min(np.asarray(accuracy)[np.asarray(count) > 0], initial=1.0))
            for _, accuracy, count, _ in curves_by_model.values()
        ]
    )
    margin = 0.02 * (1 - x_min)  # room for the end markers; the ranges stay [x_min, 1], not stretched to fit
    figure.update_xaxes(title=_("mean confidence (top p)"), range=[x_min - margin, 1 + margin])
    figure.update_yaxes(title=_("accuracy"), range=[lowest_accuracy - margin, 1 + margin])
    return style(figure, height=height, title=title, legend_below=True)


def confidence_histogram(
    edges: np.ndarray, counts: np.ndarray, accuracy: np.ndarray, title: str, x_min: float = 0.0, height: int = 360
) -> go.Figure:
    """Messages per confidence bin, correct and wrong side by side (log y), from a reliability binning.

    edges (n_bins + 1,); counts and accuracy (n_bins,) per bin (accuracy NaN where empty);
    bins below ``x_min`` (e.g. 1/n_classes, which the top posterior never goes under) are left out.
    """
    counts = np.asarray(counts)
    correct = np.rint(counts * np.nan_to_num(np.asarray(accuracy, dtype=np.float64))).astype(np.int64)
    shown = edges[:-1] >= x_min - 1e-12
    centres = ((edges[:-1] + edges[1:]) / 2)[shown]
    figure = go.Figure()
    hover = _("confidence ≈ {confidence}: {count} messages").format(confidence="%{x:.3f}", count="%{y}")
    for answer, values, colour in zip(ANSWERS, (correct, counts - correct), (OK_COLOUR, ERROR_COLOUR)):
        name = _(answer)
        figure.add_trace(
            go.Bar(
                x=centres,
                y=values[shown],
                name=name,
                marker_color=colour,
                hovertemplate=f"{name}<br>{hover}<extra></extra>",
            )
        )
    figure.update_layout(barmode="group", bargap=0.15)
    figure.update_xaxes(title=_("top posterior"), range=[x_min, edges[-1]])
    figure.update_yaxes(title=_("messages (log scale)"), type="log")
    return style(figure, height=height, title=title, legend_below=True)
