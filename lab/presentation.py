"""Presenter mode: larger type, high contrast and the sidebar folded away, for a lecture-hall projector.

A teacher switches it on in the sidebar or opens a link with ``?presenter=1``; while it is on, the
link in the address bar keeps ``presenter=1``, so a reload or a copied link stays in it.
"""

from __future__ import annotations

import streamlit as st

QUERY_KEY = "presenter"
STATE_KEY = "presenter_mode"
_ON, _OFF = ("1", "on", "true", "yes"), ("0", "off", "false", "no")

CHART_FONT_PX = 20  # plotly text in presenter mode: axis numbers, titles, legends (>= 16 px asked for)

# Every session: narrower side margins than Streamlit's wide layout on screens up to a laptop's (the
# theme has no option for them), so that the Draw page's canvas and explanation fit side by side at
# 1024 px with the sidebar open.
_LAYOUT_CSS = """
<style>
  @media (max-width: 1280px) {
    [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
  }
</style>
"""

# High contrast for a projector: black on white whatever the theme, larger type, no wasted top margin.
_PRESENTER_CSS = """
<style>
  .stApp, [data-testid="stSidebar"], [data-testid="stHeader"] { background: #ffffff !important; }
  .stApp, .stApp p, .stApp li, .stApp label, .stApp span, .stApp h1, .stApp h2, .stApp h3,
  [data-testid="stMetricValue"], [data-testid="stMetricLabel"], [data-testid="stCaptionContainer"] {
    color: #000000 !important;
  }
  .stApp { font-size: 1.2rem; }
  [data-testid="stMainBlockContainer"] h1 { font-size: 2rem; padding-top: 0; }
</style>
"""


def presenter_mode() -> bool:
    """Whether this session presents: the sidebar toggle's value, taken from the link on the first run."""
    if STATE_KEY not in st.session_state:
        requested = str(st.query_params.get(QUERY_KEY, "")).strip().lower()
        st.session_state[STATE_KEY] = requested in _ON
        if requested and requested not in _ON + _OFF:
            st.session_state.presenter_link_ignored = True
    on = bool(st.session_state[STATE_KEY])
    if on and st.query_params.get(QUERY_KEY) != "1":  # keep it in the link on every page
        st.query_params[QUERY_KEY] = "1"
    return on


def _sync_link() -> None:
    if st.session_state[STATE_KEY]:
        st.query_params[QUERY_KEY] = "1"
    elif QUERY_KEY in st.query_params:
        del st.query_params[QUERY_KEY]


def sidebar_toggle() -> None:
    """The presenter-mode switch at the foot of the sidebar (and a note when the link's value made no sense)."""
    with st.sidebar:
        st.toggle("Presenter mode", key=STATE_KEY, on_change=_sync_link,
                  help="Larger type, high contrast and the sidebar folded away, for a projector. "
                       "A link with ?presenter=1 opens in it.")
        if st.session_state.pop("presenter_link_ignored", False):
            st.caption("The link's presenter value was not understood, so presenter mode is off "
                       "(use presenter=1).")


def apply_style(presenting: bool) -> None:
    """The page's style sheet: the layout, plus high contrast when presenting (figures get ``chart_font_px``)."""
    st.html(_LAYOUT_CSS + (_PRESENTER_CSS if presenting else ""))


def chart_font_px() -> int | None:
    """Font size for plotly text in this session, or None for the figure's own."""
    return CHART_FONT_PX if st.session_state.get(STATE_KEY) else None
