"""Figures that show no data (Draw's charts before a digit): built and prepared once per text size and language,
then shown to every session from that one copy, which nothing changes (``display.chart(..., restyle=False)``)."""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go

from lab import display, i18n, presentation
from lab.caching import shared


def prepared(build: Callable[..., go.Figure], *arguments) -> tuple[go.Figure, str | None]:
    """``build(*arguments)`` prepared for this session's text size and language, and its title (``display.prepared``)."""
    return _prepared(build, arguments, presentation.chart_font_px(), i18n.current().code)


@shared(max_entries=24)
def _prepared(
    build: Callable[..., go.Figure], arguments: tuple, font_px: int | None, language: str
) -> tuple[go.Figure, str | None]:  # ``language``: the one the figure is built in (current while it is built)
    return display.prepared(build(*arguments), font_px)
