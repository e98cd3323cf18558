"""Presenter mode: larger type, high contrast and the sidebar folded away, for a lecture-hall projector.

A teacher switches it on in the sidebar or opens a link with ``?presenter=true``; the toggle is bound
to the link like every setting (lab/links.py), so a reload or a copied link stays in it.
"""

from __future__ import annotations

import streamlit as st

from lab import links

STATE_KEY = "presenter"  # the toggle's key, and its name in the link (?presenter=true)

CHART_FONT_PX = 20  # plotly text in presenter mode: axis numbers, titles, legends (>= 16 px asked for)

# The app's own style sheet, mounted once per run as a style-only component in the sidebar (no
# st.html: nothing in the app is rendered as raw HTML). Its script marks the page while presenting.
_CSS = """
/* Narrower side margins than the wide layout's on screens up to a laptop's (the theme has no option
   for them), so that Draw's canvas and explanation fit side by side at 1024 px with the sidebar open. */
@media (max-width: 1280px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
}
/* Columns wrap onto the next row instead of squeezing below a readable width (Streamlit only stacks
   them below 640 px): metric labels, chart titles and images need about 240 px. */
[data-testid="stHorizontalBlock"] { flex-wrap: wrap; }
[data-testid="stColumn"] { min-width: min(240px, 100%); }
/* Draw: the canvas's column never shrinks below the canvas; the explanation beside it wraps below it
   (a phone, 150 % zoom with the sidebar open) rather than squeeze or overlap the canvas. The rules go
   on the flex items, the layout wrappers around the two keyed containers. */
:has(> .st-key-draw_source) { flex: 0 0 300px; min-width: 300px; }
:has(> .st-key-draw_explanation) { flex: 1 1 320px; min-width: 320px; }
/* A file the uploader refuses (too large): Streamlit marks it with a red icon and keeps the reason for
   hover and screen readers. Show the reason under the file's name, in the text's colour... */
[data-testid="stFileChip"]:has([data-testid="stFileChipIconError"]) { flex-wrap: wrap; }
[data-testid="stFileChip"]:has([data-testid="stFileChipIconError"]) > span {
  position: static; width: 100%; height: auto; margin: 0.25rem 0 0; padding: 0 0.25rem;
  overflow: visible; clip: auto; clip-path: none; white-space: normal; font-size: 0.875rem; color: inherit;
}
/* ...and once another file is chosen, take the refused one off the list (the list keeps both). */
[data-testid="stFileChips"] > div > div:not(:last-child):has([data-testid="stFileChipIconError"]) { display: none; }
/* Presenter mode: black on white whatever the theme, larger type. */
body.nb-presenter .stApp, body.nb-presenter [data-testid="stSidebar"], body.nb-presenter [data-testid="stHeader"] {
  background: #ffffff !important;
}
body.nb-presenter .stApp p, body.nb-presenter .stApp li, body.nb-presenter .stApp label,
body.nb-presenter .stApp span, body.nb-presenter .stApp h1, body.nb-presenter .stApp h2,
body.nb-presenter .stApp h3, body.nb-presenter [data-testid="stMetricValue"],
body.nb-presenter [data-testid="stMetricLabel"], body.nb-presenter [data-testid="stCaptionContainer"] {
  color: #000000 !important;
}
/* Body text 1.25 times its size (paragraphs, lists, captions, labels, alerts, chart titles: all are
   Markdown); headings and metrics are large already. em, so that a caption stays smaller than a paragraph. */
body.nb-presenter [data-testid="stMain"] [data-testid="stMarkdownContainer"] { font-size: 1.25em; }
body.nb-presenter [data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] {
  font-size: inherit;
}
body.nb-presenter [data-testid="stMain"] [data-testid="stCaptionContainer"] { font-size: 1.09375rem; }
/* A link to another page in the text wraps like the text: Streamlit cuts it to one line with "…". */
[data-testid="stMain"] [data-testid="stPageLink"] :is(a, span, p) {
  white-space: normal; overflow: visible; text-overflow: clip; height: auto;
}
"""
_JS = """
export default function ({ data }) {
  document.body.classList.toggle("nb-presenter", Boolean(data.presenting));
}
"""
_style = st.components.v2.component("naive_bayes_lab_style", css=_CSS, js=_JS, isolate_styles=False)


def presenter_mode() -> bool:
    """Whether this session presents: the toggle's value, or before the toggle is drawn, the link's."""
    if STATE_KEY in st.session_state:
        return bool(st.session_state[STATE_KEY])
    return str(st.query_params.get(STATE_KEY, "")).lower() == "true"


def sidebar_toggle() -> None:
    """The presenter-mode switch in the sidebar (in the link as ?presenter=true)."""
    st.sidebar.toggle(
        help="Larger type, high contrast and the sidebar folded away, for a projector. "
        "A link with ?presenter=true opens in it.",
        **links.control("Presenter mode", STATE_KEY, False),
    )


def apply_style(presenting: bool) -> None:
    """Mount the app's style sheet (in the sidebar, where it takes no room), marked for presenting or not."""
    with st.sidebar:
        _style(key="lab_style", data={"presenting": presenting}, width="content", height="content")


def chart_font_px() -> int | None:
    """Font size for plotly text in this session, or None for the figure's own."""
    return CHART_FONT_PX if st.session_state.get(STATE_KEY) else None
