"""The class's model beside MNIST's: its pixel probabilities, and its accuracy as the class draws more.

Pure builders: arrays in, a plotly figure out (the numbers come from ``nbcore.experiments.class_model``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab.figures import charts, digits
from lab.figures.style import PROBABILITY_SCALE

CLASS_NAME, MNIST_NAME = "the class's model", "MNIST's model"


def probability_pairs(
    class_prob: np.ndarray,
    mnist_prob: np.ndarray,
    drawings_per_digit: Sequence[int] | None = None,
    columns: int = 4,
) -> go.Figure:
    """P(xᵢ = 1 | y) of the class's model beside MNIST's, digit by digit: "class" then "MNIST" for 0, 1, ... 9.

    ``class_prob`` and ``mnist_prob``: float (10, 784) or (10, 28, 28) in 0..1, one colour scale for both.
    ``drawings_per_digit`` (10,): the class's drawings of each digit, written in its tiles' titles.
    ``columns``: tiles per row, even so that each digit's pair stays on one row (4 on a phone, 10 wide).
    """
    if columns < 2 or columns % 2:
        raise ValueError(f"columns must be an even number >= 2, got {columns}")
    class_prob = np.asarray(class_prob, dtype=np.float64).reshape(10, 28, 28)
    mnist_prob = np.asarray(mnist_prob, dtype=np.float64).reshape(10, 28, 28)
    tiles = np.stack([class_prob, mnist_prob], axis=1).reshape(20, 28, 28)
    titles = []
    for digit in range(10):
        drawn = "" if drawings_per_digit is None else f" ({int(drawings_per_digit[digit])})"
        titles += [f"{digit}: class{drawn}", f"{digit}: MNIST"]
    return digits.image_grid(
        tiles,
        titles,
        columns=columns,
        value_name="P(xᵢ = 1 | y)",
        colorscale=PROBABILITY_SCALE,
        zrange=(0, 1),
        colorbar_title="P(xᵢ = 1 | y)",
        height_per_row=170,
        hover_format=".3f",
        title="P(xᵢ = 1 | y): the class's drawings beside MNIST's"
        + ("" if drawings_per_digit is None else " (class drawings in brackets)"),
    )


def accuracy_against_drawings(
    sizes: Sequence[int],
    accuracy: dict[str, Sequence[float]],
    mnist_accuracy: float,
    overtake: int | None,
    height: int = 400,
) -> go.Figure:
    """Accuracy against the class's drawings per digit (log x), MNIST's model as a dashed flat line.

    ``sizes`` (k,) drawings per digit; ``accuracy`` {series name: (k,)}, the class's model first (named
    CLASS_NAME to be starred); ``overtake`` the size from which the class's model reads better than MNIST's
    (a dashed vertical line and a star there), None if it does not.
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    current = None
    if overtake is not None and CLASS_NAME in accuracy:
        position = int(np.argmin(np.abs(sizes - overtake)))
        current = {CLASS_NAME: float(np.asarray(accuracy[CLASS_NAME], dtype=np.float64)[position])}
    figure = charts.curves(
        sizes,
        dict(accuracy),
        "class drawings per digit (log scale)",
        "accuracy (students held out)",
        "Accuracy as the class draws more",
        log_x=True,
        marker_x=None if overtake is None else float(overtake),
        current=current,
        current_label="better than MNIST's from here",
        references={MNIST_NAME: float(mnist_accuracy)},
        height=height,
    )
    # counts of drawings read better as 1, 2, 5, 10 ... than as powers of ten
    ticks = [tick for tick in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if sizes.min() <= tick <= sizes.max()]
    figure.update_xaxes(tickvals=ticks, ticktext=[str(tick) for tick in ticks])
    figure.update_yaxes(tickformat=".0%")
    return figure
