"""A polite live region: a sentence that screen readers announce when it changes, without moving the focus.

Streamlit replaces an element that changes kind (Draw's prompt becomes two metrics), and an element that is
removed is never announced. This one stays in the page under its key; its script writes a new sentence only
when the sentence differs, so that each new verdict is announced once. It is visually hidden: the page shows the
same words in its own elements.
"""

from __future__ import annotations

import streamlit as st

_JS = """
export default function ({ data, parentElement }) {
  const region = parentElement.querySelector(".nb-live-region");
  const text = data.text || "";
  if (region.textContent !== text) region.textContent = text;
}
"""
_CSS = """
.nb-live-region {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0;
  overflow: hidden; clip-path: inset(50%); white-space: nowrap;
}
"""
_component = st.components.v2.component(
    "naive_bayes_lab_live_region",
    html='<p class="nb-live-region" role="status" aria-live="polite" aria-atomic="true"></p>',
    css=_CSS,
    js=_JS,
)


def announce(text: str, key: str) -> None:
    """Keep the live region ``key`` in the page, saying ``text`` ("" for nothing); announced when ``text`` changes.

    Call it at the same place on every run, so that it stays the same element.
    """
    _component(key=key, data={"text": text}, width="content", height="content")
