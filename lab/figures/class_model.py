"""The class's model beside MNIST's: its pixel probabilities, and its accuracy as the class draws more.

Pure builders: arrays in, a plotly figure out (the numbers come from ``nbcore.experiments.class_model``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab.figures import digits, line_charts
from lab.figures.style import PROBABILITY_SCALE
from lab.i18n import N_, _

# the series' names (keys of ``accuracy``), said in the reader's language on the chart
CLASS_NAME, MNIST_NAME = N_("the class's model"), N_("MNIST's model")
PROBABILITY = "P(xᵢ = 1 | y)"  # a formula: the same in every language


def probability_pairs(
    class_prob: np.ndarray,
    mnist_prob: np.ndarray,
    drawings_per_digit: Sequence[int] | None = None,
    columns: int = 5,
    height_per_row: int | None = None,
) -> go.Figure:
    """P(xᵢ = 1 | y) of the class's model above MNIST's: a row of class tiles, then the same digits' MNIST tiles.

    ``class_prob`` and ``mnist_prob``: float (10, 784) or (10, 28, 28) in 0..1, one colour scale for both.
    ``drawings_per_digit`` (10,): a digit the class has not drawn is titled "class d: none" (its tile is the
    smoothing's flat prior). ``columns``: digits per row, 5 (phones, narrow columns) or 10 (wide screens);
    ``height_per_row`` defaults to what keeps the tiles square at those widths.
    """
    if columns not in (1, 2, 5, 10):
        raise ValueError(f"columns must divide the ten digits (1, 2, 5 or 10), got {columns}")
    class_prob = np.asarray(class_prob, dtype=np.float64).reshape(10, 28, 28)
    mnist_prob = np.asarray(mnist_prob, dtype=np.float64).reshape(10, 28, 28)
    tiles, titles = [], []
    for first in range(0, 10, columns):
        block = range(first, first + columns)
        tiles += [class_prob[digit] for digit in block] + [mnist_prob[digit] for digit in block]
        for digit in block:
            none = drawings_per_digit is not None and int(drawings_per_digit[digit]) == 0
            titles.append(
                _("class {digit}: none").format(digit=digit) if none else _("class {digit}").format(digit=digit)
            )
        titles += [f"MNIST {digit}" for digit in block]
    return digits.image_grid(
        np.stack(tiles),
        titles,
        columns=columns,
        value_name=PROBABILITY,
        colorscale=PROBABILITY_SCALE,
        zrange=(0, 1),
        colorbar_title=PROBABILITY,
        height_per_row=height_per_row or (90 if columns == 10 else 170),
        hover_format=".3f",
        title=_("{probability}: the class's model above MNIST's").format(probability=PROBABILITY),
    )


def accuracy_against_drawings(
    sizes: Sequence[int] | np.ndarray,
    accuracy: dict[str, Sequence[float] | np.ndarray],
    mnist_accuracy: float,
    overtake: int | None,
    height: int = 400,
) -> go.Figure:
    """Accuracy against the class's drawings per digit (log x), MNIST's model as a dashed flat line.

    ``sizes`` (k,) drawings per digit; ``accuracy`` {series name: (k,)}, the class's model first (named
    CLASS_NAME to be starred); ``overtake`` the size from which the class's model reads better than MNIST's
    (a dashed vertical line and a star there), None if it does not. The names are said in the reader's language.
    """
    size_axis = np.asarray(sizes, dtype=np.float64)
    current = None
    if overtake is not None and CLASS_NAME in accuracy:
        position = int(np.argmin(np.abs(size_axis - overtake)))
        current = {_(CLASS_NAME): float(np.asarray(accuracy[CLASS_NAME], dtype=np.float64)[position])}
    figure = line_charts.curves(
        size_axis,
        {_(name): values for name, values in accuracy.items()},
        _("class drawings per digit (log scale)"),
        _("accuracy (students held out)"),
        _("Accuracy as the class draws more"),
        log_x=True,
        marker_x=None if overtake is None else float(overtake),
        current=current,
        current_label=_("better than MNIST's from here"),
        references={_(MNIST_NAME): float(mnist_accuracy)},
        height=height,
    )
    # counts of drawings read better as 1, 2, 5, 10 ... than as powers of ten
    ticks = [tick for tick in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if size_axis.min() <= tick <= size_axis.max()]
    figure.update_xaxes(tickvals=ticks, ticktext=[str(tick) for tick in ticks])
    figure.update_yaxes(tickformat=".0%", range=[0, 1.02])  # the whole scale: one drawing is not an overtake
    return figure
