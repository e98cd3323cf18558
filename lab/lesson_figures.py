"""Pure figure builders for the guided lesson: arrays in, plotly figures out; styling follows ``lab.figures``."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figures import ERROR_COLOUR, LAYOUT, OK_COLOUR

PRIOR_COLOUR = "#9bb7d4"


def prior_against_frequency(prior: np.ndarray, frequency: np.ndarray, most_wrong: int,
                            height: int = 340) -> go.Figure:
    """Grouped bars per digit: the model's prior p(y) (10,) and the test images' class frequency (10,).

    The digit where they differ most gets a red outline and its gap, in percentage points, above it.
    """
    digits = [str(digit) for digit in range(len(prior))]
    outline = [ERROR_COLOUR if digit == most_wrong else "rgba(0,0,0,0)" for digit in range(len(prior))]
    bars = [go.Bar(x=digits, y=np.asarray(values, dtype=float), name=name, marker_color=colour,
                   marker_line_color=outline, marker_line_width=3,
                   hovertemplate=f"{name}<br>digit %{{x}}: %{{y:.4f}}<extra></extra>")
            for name, values, colour in (("prior p(y)", prior, PRIOR_COLOUR),
                                         ("share of the test images", frequency, OK_COLOUR))]
    top = float(max(np.max(prior), np.max(frequency)))
    gap = float(prior[most_wrong] - frequency[most_wrong])
    return go.Figure(bars, layout=dict(
        height=height, barmode="group", bargap=0.2, margin=dict(l=10, r=10, t=40, b=10),
        legend=dict(orientation="h", y=-0.25),
        # the text in the theme's colour (a red one was unreadable on the dark theme); the red outline marks the digit
        annotations=[dict(x=str(most_wrong), y=top * 1.08, showarrow=False, text=f"{gap * 100:+.2f} points")],
        xaxis=dict(title="digit", type="category"), yaxis=dict(title="probability", range=[0, top * 1.18]),
        **LAYOUT))


def running_product(log10_product: np.ndarray, limits: dict[str, float], height: int = 360) -> go.Figure:
    """log10 of the running product of pixel probabilities (784,) against the pixel count, with a dashed
    horizontal line for each named limit (log10 of the smallest positive number a float type holds)."""
    pixels = np.arange(1, len(log10_product) + 1)
    figure = go.Figure(go.Scatter(x=pixels, y=log10_product, mode="lines", name="log₁₀ of the product so far",
                                  line=dict(color=OK_COLOUR, width=3),
                                  hovertemplate="after %{x} pixels: 10^%{y:.1f}<extra></extra>"))
    for (name, level), dash in zip(limits.items(), ("dash", "dot")):
        figure.add_trace(go.Scatter(x=[pixels[0], pixels[-1]], y=[level, level], mode="lines", name=name,
                                    line=dict(color=ERROR_COLOUR, dash=dash),
                                    hovertemplate=f"{name}: 10^{level:.1f}<extra></extra>"))
    figure.update_layout(height=height, margin=dict(l=10, r=10, t=20, b=10), legend=dict(orientation="h", y=-0.3),
                         xaxis=dict(title="pixels multiplied"), yaxis=dict(title="log₁₀ of the product"), **LAYOUT)
    return figure
