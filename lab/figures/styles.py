"""The styles of one digit in a mixture of naive Bayes: each style's picture P(xᵢ = 1 | y, k), with its weight.

Pure builders, as every module of ``lab/figures``: arrays in, a plotly figure out (through ``digits.image_grid``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lab import i18n
from lab.figures import digits
from lab.figures.style import INK_SCALE
from lab.i18n import ngettext


def weight_label(weight: float) -> str:
    """A style's weight p(k | y) as its picture's title: "38%", and "<1%" for a style EM left nearly empty (a weight
    that would round to "0%" is still a weight); in the reader's form ("38 %")."""
    label = i18n.percent(weight)
    return "<" + i18n.percent(0.01) if label == i18n.percent(0.0) else label


def style_order(weights: np.ndarray) -> np.ndarray:
    """The styles' positions, heaviest first (ties in their own order): int64 (K,)."""
    return np.argsort(-np.asarray(weights, dtype=np.float64), kind="stable")


def style_maps(
    feature_prob: np.ndarray, weights: np.ndarray, digit: int, columns: int = 5, height_per_row: int = 150
) -> go.Figure:
    """The K styles of ``digit`` as pictures, heaviest first, each titled with its weight p(k | y).

    ``feature_prob``: P(xᵢ = 1 | y = digit, k), float (K, 784) or (K, 28, 28); ``weights``: p(k | y = digit),
    float (K,) summing to 1. One grey scale 0..1 (ink light on dark, as the digits themselves), its bar under the
    grid.
    """
    weights = np.asarray(weights, dtype=np.float64)
    pictures = np.asarray(feature_prob, dtype=np.float64).reshape(len(weights), 28, 28)
    order = style_order(weights)
    count = len(weights)
    return digits.image_grid(
        pictures[order],
        [weight_label(weights[k]) for k in order],
        columns=min(columns, count),
        value_name="P(xᵢ = 1 | y, k)",
        colorscale=INK_SCALE,
        zrange=(0, 1),
        colorbar_title="P(xᵢ = 1 | y, k)",
        height_per_row=height_per_row,
        hover_format=".3f",
        title=ngettext(
            "The {count} style of {digit}, heaviest first (weight p(k | {digit}) above each)",
            "The {count} styles of {digit}, heaviest first (weight p(k | {digit}) above each)",
            count,
        ).format(count=i18n.integer(count), digit=digit),
    )
