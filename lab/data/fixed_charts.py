"""Figures that show no data (Draw's charts before a digit): built and prepared once per text size and language,
then shown to every session from that one copy, which nothing changes (``lab/display.py``'s ``fixed_chart``)."""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go

from lab.caching import shared
from lab.figures import style


@shared(max_entries=24)
def prepared(
    build: Callable[..., go.Figure], arguments: tuple, font_px: int | None, language: str
) -> tuple[go.Figure, str | None]:
    """``build(*arguments)`` made ready to show (``style.prepared``) at ``font_px`` (None: the figure's own sizes),
    and its title; ``language``: the reader's, current while the figure is built, so one copy is kept per language."""
    return style.prepared(build(*arguments), font_px)
