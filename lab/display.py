"""How a page puts a figure on screen: one place for the chart configuration and the presentation style.

Figure builders (``lab/figures/``) stay pure; this module applies what depends on the session
(presenter mode) and on the room (no toolbar to cover titles or add tab stops, no wheel capture,
titles wrapped by the browser to the chart's real width).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import plotly.graph_objects as go
import pyarrow as pa
import streamlit as st

from lab import i18n, presentation
from lab.data import fixed_charts
from lab.figures import describe, style

# no mode bar (it covered chart titles and legends on phones and added 8 tab stops per chart),
# no wheel zoom (a page scrolled over a chart must keep scrolling)
CHART_CONFIG = {"displayModeBar": False, "scrollZoom": False, "responsive": True}
# Markdown's punctuation, and Streamlit's ":" (icons, colours) and "$" (LaTeX): shown as themselves
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~:$])")


def fixed_chart(build: Callable[..., go.Figure], *arguments, **shown) -> None:
    """Show ``build(*arguments)``, a figure that shows no data, from the one copy the server keeps per text size and
    language (``lab/data/fixed_charts.py``); ``shown``: ``chart``'s own arguments (``key``, ``alt``, ...)."""
    figure, title = fixed_charts.prepared(build, arguments, presentation.chart_font_px(), i18n.current().code)
    chart(figure, restyle=False, prepared_title=title, **shown)


def chart(
    figure: go.Figure,
    *,
    key: str | None = None,
    container=None,
    width: str = "stretch",
    alt: str | None = None,
    prepared_title: str | None = None,
    restyle: bool = True,
    table: tuple[str, dict[str, list[str]]] | None = None,
) -> None:
    """Show a plotly figure in ``container`` (default: the current one) with the lab's chart configuration.

    A plain title is shown in bold above the chart, where it wraps to the chart's width. In presenter
    mode every text of the figure is set to ``presentation.CHART_FONT_PX``. ``restyle=False``: a shared
    figure already ``style.prepared`` for this session's text size, with its title given as ``prepared_title``.
    The chart's accessible name is ``alt`` (what it shows) followed by its numbers in words
    (``describe.text_alternative``); ``table``: (label, columns) shown under it in an expander, for a reader who
    needs every number (a screen reader, the keyboard: the expander is a tab stop).
    """
    target = container if container is not None else st
    if restyle:
        figure, title = style.prepared(figure, presentation.chart_font_px())
    else:
        title = prepared_title
    described = describe.text_alternative(figure, title)
    if title:
        target = target.container()
        target.markdown(f"**{escape_markdown(title)}**")
    target.plotly_chart(
        figure, key=key, width=width, config=CHART_CONFIG, alt=f"{alt}. {described}" if alt else described
    )
    if table is not None:
        label, columns = table
        # an Arrow table as it is: a dict would go through a pandas DataFrame on every run (Draw's stroke runs)
        target.expander(label, icon=":material/table:").table(pa.table(columns), hide_index=True)


def escape_markdown(text: str) -> str:
    """``text`` as Markdown that shows it literally (a title may hold "|", "*", "_" or a visitor's words)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
