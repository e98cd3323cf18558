"""Where the keyboard focus goes after a control that Streamlit replaces (WCAG 2.4.3).

A button that a run removes (Reveal becomes the answer and *Answer again*; *Start again* becomes Next) leaves
the browser's focus on the page's <body>: a keyboard user starts again from the top. A callback asks for the
control that took its place (``request``); the page draws the mover (``apply``), whose script focuses it once
the run has ended. Only a CSS selector of the app's own keyed elements goes to the browser, never a visitor's
text.
"""

from __future__ import annotations

import streamlit as st

_REQUEST = "_focus_request"  # session: {"selector": ..., "id": ...} until the next ``apply`` takes it
_COUNT = "_focus_requests"

_JS = """
export default function ({ data }) {
  const request = data.request;
  if (!request || window.__nbFocused === request.id) return;
  window.__nbFocused = request.id;
  const deadline = performance.now() + 15000;
  const attempt = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    const target = document.querySelector(request.selector);
    if (app && app.getAttribute("data-test-script-state") === "notRunning" && target) {
      if (target.tabIndex < 0 && !target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      target.focus();
      return;
    }
    if (performance.now() < deadline) setTimeout(attempt, 50);
  };
  setTimeout(attempt, 50);
}
"""
_mover = st.components.v2.component("naive_bayes_lab_focus", html="<span></span>", js=_JS)


def request(selector: str) -> None:
    """From a widget's callback: once the run it starts has drawn, move the focus to ``selector`` (the app's own
    CSS selector, e.g. ".st-key-lesson_again_prior button"; an element that cannot take focus is made to)."""
    count = int(st.session_state.get(_COUNT, 0)) + 1
    st.session_state[_COUNT] = count
    st.session_state[_REQUEST] = {"selector": selector, "id": count}


def apply(key: str) -> None:
    """Draw the (invisible) mover here, with the request of this run if any: at the end of a page, or of a fragment
    whose controls ask (a fragment's run redraws only the fragment). ``key`` starts with "nb_focus"."""
    _mover(key=key, data={"request": st.session_state.pop(_REQUEST, None)}, width="content", height="content")
