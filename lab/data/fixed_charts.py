"""Figures that show no data (Draw's charts before a digit): built and prepared once per text size, then shown to
every session from that one copy, which nothing changes (``display.chart(..., restyle=False)``)."""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go

from lab import display, presentation
from lab.caching import shared


def prepared(build: Callable[..., go.Figure], *arguments) -> tuple[go.Figure, str | None]:
    """``build(*arguments)`` prepared for this session's text size, and its title (``display.prepared``)."""
    return _prepared(build, arguments, presentation.chart_font_px())


@shared(max_entries=8)
def _prepared(build: Callable[..., go.Figure], arguments: tuple, font_px: int | None) -> tuple[go.Figure, str | None]:
    return display.prepared(build(*arguments), font_px)
