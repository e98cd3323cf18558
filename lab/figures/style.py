"""The lab's one chart style: colours, fonts, title and legend placement, shared by every figure builder.

Fonts are sized to be read from the back of a classroom; backgrounds are transparent, so that a
figure sits on the page's light or dark theme.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import plotly.graph_objects as go
from streamlit.elements.lib.streamlit_plotly_theme import GRAY_90

from lab import i18n

# Streamlit's chart theme (st.plotly_chart, theme="streamlit") sets axis numbers to its grey-70 at 12.75 px:
# 3.6:1 on the lab's #fbfaf7. GRAY_90 is the placeholder that theme swaps, in the browser, for its
# strongest text grey of the active theme (dark text on a light background, light text on a dark one),
# so one figure stays readable in both; plain plotly (theme=None) shows it as #2a3f5f.
# A Streamlit internal, kept on purpose: the public way to know the theme, st.context.theme.type, is documented
# as possibly wrong on a session's first load and while the visitor switches theme (streamlit#11920), and would
# make every figure depend on the session; tests/lab/test_figures.py fails if the placeholder changes.
TEXT_COLOUR = GRAY_90
FONT: dict[str, Any] = dict(size=16, color=TEXT_COLOUR)
AXIS_TEXT: dict[str, Any] = dict(
    tickfont=dict(size=16, color=TEXT_COLOUR), title=dict(font=dict(size=16, color=TEXT_COLOUR))
)
INK_SCALE = "gray"  # 0 = black, 1 = white: light ink on dark, as MNIST
PROBABILITY_SCALE = "Viridis"
DIVERGING_SCALE = "RdBu"
ERROR_COLOUR = "#d62728"
OK_COLOUR = "#2a9d8f"
# Draw's two models, naive Bayes then softmax: the posterior chart's bars and the canvas's live bars. Softmax's
# orange is 3.8:1 on the light and 4.6:1 on the dark background (WCAG 1.4.11 asks 3:1 of a bar)
MODEL_COLOURS = (OK_COLOUR, "#b86e00")
CLASS_COLOURS = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
]
SPAM_COLOUR = "#d62728"
HAM_COLOUR = "#1f77b4"
NEUTRAL_COLOUR = "#9e9e9e"
PRIOR_COLOUR = "#9bb7d4"
# classes differ by marker shape as well as colour (colour must never be the only carrier)
CLASS_SYMBOLS = ("circle", "diamond", "square", "x")
# transparent: the page's own background (light or dark theme) shows through
LAYOUT: dict[str, Any] = dict(font=FONT, plot_bgcolor="rgba(0,0,0,0)", paper_bgcolor="rgba(0,0,0,0)")
# plotly never wraps a title, and a chart in a column at 1024 px with the sidebar open (or on a phone)
# is about 260 px wide: titles longer than this many characters are broken over lines
TITLE_CHARACTERS = 28
TITLE_LINE_PX = 22
HIDDEN_AXIS = dict(showgrid=False, zeroline=False, showticklabels=False, ticks="", showline=False)
TITLE_ROWS = 9  # pixel rows of space above each image of a grid, for its title (14 px at 1.6 screen px per pixel)
# anchored to the bottom of the whole figure (not of the plot), so that plotly makes room for it under the
# axis title instead of drawing it over the title; the theme's 12.75 px legend text is too small for the back row
LEGEND_BELOW = dict(
    orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left", font=dict(size=15, color=TEXT_COLOUR)
)
HORIZONTAL_COLOURBAR = dict(orientation="h", y=-0.02, yanchor="top", thickness=14, len=1.0)


def title_lines(title: str | None) -> tuple[dict | None, int]:
    """A chart title as plotly layout (lines of at most TITLE_CHARACTERS) and the top margin it needs, px."""
    if not title:
        return None, 30
    lines = wrapped(title, TITLE_CHARACTERS)
    return dict(text="<br>".join(lines), font=dict(size=17)), 40 + TITLE_LINE_PX * len(lines)


# a character as wide as two Latin letters, between which a line may break (Chinese, Japanese, full-width marks)
_WIDE = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` Latin letters' width: at spaces, and between wide characters (which
    count two each), since Chinese has no spaces to break at."""
    if not _WIDE.search(text):
        return textwrap.wrap(text, width, break_long_words=False) or [text]
    lines, line, used = [], "", 0
    for piece in re.findall(
        r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+|\s+", text
    ):
        size = 2 * len(piece) if _WIDE.match(piece) else len(piece)
        if used + size > width and line.strip():
            lines.append(line.strip())
            line, used = "", 0
            if piece.isspace():
                continue
        line, used = line + piece, used + size
    return [*lines, line.strip()] if line.strip() else lines or [text]


def style(figure: go.Figure, height: int, title: str | None = None, legend_below: bool = False) -> go.Figure:
    """The lab's one chart style: readable axis text, transparent background, title room, legend under the plot.

    Legends go below (not beside) so that they neither cover the plot nor squeeze it on a phone.
    """
    title_layout, top = title_lines(title)
    figure.update_layout(height=height + top - 60, margin=dict(l=10, r=10, t=top, b=10), title=title_layout, **LAYOUT)
    if legend_below:
        figure.update_layout(legend=LEGEND_BELOW)
    figure.update_xaxes(**AXIS_TEXT)
    figure.update_yaxes(**AXIS_TEXT)
    # log axes: numbers at the decades only (plotly draws the 2s and 5s between them at 3/4 size)
    figure.update_xaxes(dtick=1, selector=dict(type="log"))
    figure.update_yaxes(dtick=1, selector=dict(type="log"))
    return figure


def take_title(figure: go.Figure) -> str | None:
    """Remove a plain title (one made by ``title_lines``) and the room above the plot it took; return its text.

    The page shows it as text above the chart instead, where the browser wraps it to the chart's real
    width: plotly never wraps a title, and ``title_lines`` can only guess the width. A title with markup
    other than line breaks (names in their bars' colours) stays in the figure.
    """
    text = figure.layout.title.text
    if not text:
        return None
    lines = text.split("<br>")
    if any("<" in line for line in lines):
        return None
    room = 30 + TITLE_LINE_PX * len(lines)  # what title_lines added to the 10 px a chart without a title keeps
    top = figure.layout.margin.t
    if top is not None and top - room >= 10:
        figure.update_layout(margin_t=top - room)
        if figure.layout.height is not None:
            figure.update_layout(height=figure.layout.height - room)
    figure.update_layout(title=None)
    joined = ""
    for line in (line.strip() for line in lines):  # a break between wide characters was no space (``wrapped``)
        wide_break = bool(joined) and (_WIDE.match(joined[-1]) or _WIDE.match(line[:1]))
        joined += line if not joined or wide_break else " " + line
    return joined


def with_presenter_fonts(figure: go.Figure, font_px: int) -> go.Figure:
    """Every text of ``figure`` at ``font_px`` (a projector's back row): titles, axes, legend, annotations and
    the numbers of the colour bars it shows; the figure grows by as much as its text.

    Only colour bars that are shown are touched: giving a scatter or bar trace a colour-bar font switches its
    marker's colour scale on, and plotly then draws a bar for it.
    """
    figure.update_layout(font_size=font_px, title_font_size=font_px + 2, legend_font_size=font_px)
    if figure.layout.height:  # larger text (legend rows, axis titles) needs as much more room, or the plot shrinks
        figure.update_layout(height=round(figure.layout.height * max(font_px / FONT["size"], 1.0)))
    figure.update_xaxes(tickfont_size=font_px, title_font_size=font_px)
    figure.update_yaxes(tickfont_size=font_px, title_font_size=font_px)
    figure.update_annotations(font_size=font_px)
    for trace in figure.data:
        if "colorbar" in trace and trace.showscale is not False:  # heatmaps, contours: a bar unless switched off
            trace.colorbar.tickfont.size = font_px
        elif "marker" in trace and "showscale" in trace.marker and trace.marker.showscale:  # shown only if asked
            trace.marker.colorbar.tickfont.size = font_px
    return figure


def prepared(figure: go.Figure, font_px: int | None) -> tuple[go.Figure, str | None]:
    """``figure`` made ready to show, in place, and its title: a plain title is taken out (the page shows it in
    bold above the chart, where it wraps to the chart's width) and in presenter mode (``font_px``) every text is
    enlarged. Numbers on its axes and in its hover texts are written as the reader writes them (0,84 in Spanish).
    Once per figure: a cache that keeps a prepared figure keeps its title beside it."""
    title = take_title(figure)
    figure.update_layout(separators=i18n.plotly_separators())
    if font_px:
        with_presenter_fonts(figure, font_px)
    return figure, title
