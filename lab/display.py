"""How a page puts a figure on screen: one place for the chart configuration and the presentation style.

Figure builders (``lab/figures/``) stay pure; this module applies what depends on the session
(presenter mode) and on the room (no toolbar to cover titles or add tab stops, no wheel capture).
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from lab import presentation

# no mode bar (it covered chart titles and legends on phones and added 8 tab stops per chart),
# no wheel zoom (a page scrolled over a chart must keep scrolling)
CHART_CONFIG = {"displayModeBar": False, "scrollZoom": False, "responsive": True}


def styled(figure: go.Figure, font_px: int | None) -> go.Figure:
    """``figure`` with every text at ``font_px`` (presenter mode), changed in place; as it is for None.

    Setting the same sizes again changes nothing, so a figure a cache made for this size can be shown as it is.
    """
    if font_px:
        figure.update_layout(font_size=font_px, title_font_size=font_px + 2, legend_font_size=font_px)
        figure.update_xaxes(tickfont_size=font_px, title_font_size=font_px)
        figure.update_yaxes(tickfont_size=font_px, title_font_size=font_px)
        figure.update_annotations(font_size=font_px)
        for trace in figure.data:  # colour bars' numbers too
            if "colorbar" in trace:
                trace.colorbar.tickfont.size = font_px
            elif "marker" in trace and "colorbar" in trace.marker:
                trace.marker.colorbar.tickfont.size = font_px
    return figure


def chart(
    figure: go.Figure,
    *,
    key: str | None = None,
    container=None,
    width: str = "stretch",
    alt: str | None = None,
    restyle: bool = True,
) -> None:
    """Show a plotly figure in ``container`` (default: the current one) with the lab's chart configuration.

    In presenter mode every text of the figure is set to ``presentation.CHART_FONT_PX``.
    """
    if restyle:  # False: a shared figure already ``styled`` for this session's size (lab/state.py's caches)
        styled(figure, presentation.chart_font_px())
    target = container if container is not None else st
    target.plotly_chart(figure, key=key, width=width, config=CHART_CONFIG, alt=alt)
