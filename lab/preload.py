"""The browser loads the code of Draw's stroke elements while the page is idle, not on the first stroke.

Streamlit's front end loads an element's code (a metric, an image, a plotly chart) the first time a page
shows one. Before the first stroke Draw shows no metric and no image, so that stroke waited for the browser
to fetch and run their code (a chain of JavaScript modules). A small components-v2 element, mounted by the
frame in the sidebar and hidden, imports those modules once the page is idle; the front end later finds
them loaded. Nothing is shown and no HTML is rendered.

Loaded code is not all: the browser's first metric on a page also takes its time to mount (its styles are
made then), so Draw draws one, hidden, before the first stroke (``hidden_metric``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit as st

# Streamlit's bundle names each element's code <Element>.<hash>.js in static/static/js
STATIC_JS = Path(st.__file__).parent / "static" / "static" / "js"
ELEMENTS = ("Metric", "ImageList", "PlotlyChart")

_JS = """
export default function ({ data }) {
  const load = () => {
    for (const path of data.modules) import(new URL(path, document.baseURI).href).catch(() => {});
  };
  if ("requestIdleCallback" in window) requestIdleCallback(load, { timeout: 3000 });
  else setTimeout(load, 1000);
}
"""
PRELOAD_KEY = "lab_preload"
# a container with this key is never shown (nor is the preload element: no gap in the sidebar); what is drawn in
# it is still mounted by the browser
HIDDEN_KEY = "preload_hidden"
_CSS = f".st-key-{HIDDEN_KEY}, .st-key-{PRELOAD_KEY} {{ display: none !important; }}"
_preload = st.components.v2.component("naive_bayes_lab_preload", css=_CSS, js=_JS, isolate_styles=False)


@cache
def element_modules() -> tuple[str, ...]:
    """``static/js/<file>`` of each of ``ELEMENTS``'s code, relative to the app's address; an element whose
    file is not found exactly once (another Streamlit release) is left out: it then loads when first shown."""
    modules = []
    for element in ELEMENTS:
        found = sorted(STATIC_JS.glob(f"{element}.*.js"))
        if len(found) == 1:
            modules.append(f"static/js/{found[0].name}")
    return tuple(modules)


def hidden_metric(label: str, delta: str) -> None:
    """An ``st.metric`` no one sees, drawn like Draw's (``delta_color`` and ``delta_arrow`` off): the browser
    mounts its first metric of the page now, not on the first stroke."""
    with st.container(key=HIDDEN_KEY):
        st.metric(label, "–", delta, delta_color="off", delta_arrow="off")


def preload_elements() -> None:
    """Mount the element that imports ``element_modules()`` once the page is idle (in the sidebar, hidden)."""
    with st.sidebar:
        _preload(key=PRELOAD_KEY, data={"modules": list(element_modules())}, width="content", height="content")
