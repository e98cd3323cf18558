"""The frame every page runs in: page list, navigation, shared sidebar, MNIST loaded first."""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from pathlib import Path

import streamlit as st

from lab import links, presentation, rate_limit, settings, state

ROOT = Path(__file__).resolve().parents[1]
# the browser tab's icon, served by this server: the Material icon Streamlit would fetch from Google's font
# server is missing offline (Material Symbols' "calculate", Apache 2.0, drawn from the font Streamlit bundles)
FAVICON = Path(__file__).resolve().parent / "favicon.png"
# set while ``run`` draws a whole page in this script thread: a fragment called outside it reruns on its own
_whole_run = threading.local()

# section -> (page file relative to the repository, title, Material icon: bundled with Streamlit, so
# it shows on lab PCs without an emoji font)
PAGES = {
    "Teaching": [
        ("pages/lesson.py", "Guided lesson", ":material/school:"),
        ("pages/gallery.py", "Class gallery", ":material/groups:"),
    ],
    "Naive Bayes on MNIST": [
        ("pages/home.py", "Home", ":material/home:"),
        ("pages/heatmaps.py", "Heatmaps", ":material/grid_on:"),
        ("pages/draw.py", "Draw", ":material/draw:"),
        ("pages/smoothing.py", "Smoothing", ":material/tune:"),
        ("pages/samples.py", "Samples", ":material/casino:"),
        ("pages/inpainting.py", "Inpainting", ":material/extension:"),
        ("pages/compare.py", "Compare", ":material/balance:"),
        ("pages/deskew.py", "Deskew", ":material/rotate_right:"),
    ],
    "Beyond MNIST": [
        ("pages/gaussian.py", "Gaussian NB", ":material/bar_chart:"),
        ("pages/spam.py", "Spam filter", ":material/mail:"),
        ("pages/xor.py", "XOR exercise", ":material/call_split:"),
    ],
}

# Pages with no MNIST naive Bayes of their own: the model settings would be controls that change nothing
# there (and Gaussian NB has a class prior of its own). Their values stay in the session for the others.
WITHOUT_MODEL_SETTINGS = ("pages/gaussian.py", "pages/spam.py", "pages/xor.py")
_WITHOUT_MODEL_SETTINGS = {
    title for pages in PAGES.values() for path, title, _ in pages if path in WITHOUT_MODEL_SETTINGS
}


def run(default_page: str = "pages/home.py") -> None:
    """Draw the navigation and the sidebar settings, make sure MNIST is loaded, run the chosen page.

    ``default_page`` is what the bare URL shows (tests use it to open one page directly).
    """
    started, navigation, outcome = time.perf_counter(), None, "ok"
    _whole_run.active = True
    try:
        rate_limit.check_run()  # first: a session flooding reruns is stopped before any work (#18)
        links.begin_run()
        presenting = presentation.presenter_mode()
        st.set_page_config(
            page_title="Naive Bayes Lab",
            page_icon=str(FAVICON),
            layout="wide",
            initial_sidebar_state="collapsed" if presenting else "auto",
        )
        navigation = st.navigation(
            {
                section: [
                    st.Page(str(ROOT / path), title=title, icon=icon, default=path == default_page)
                    for path, title, icon in pages
                ]
                for section, pages in PAGES.items()
            },
            expanded=True,
        )  # every page listed: collapsed, the navigation hides all but ten behind "View more"
        if navigation.title not in _WITHOUT_MODEL_SETTINGS and settings.sidebar().deskew:
            state.deskewed_mnist()  # every page's models need the deskewed images: made here, with a progress bar
        presentation.sidebar_toggle()
        presentation.apply_style(presenting)
        state.mnist()
        navigation.run()
        links.sidebar_tools(tuple(settings.KEYS.values()) + (presentation.STATE_KEY,))
        links.end_run()
    except BaseException as error:  # st.stop() and an interrupted rerun arrive as exceptions too
        outcome = type(error).__name__
        raise
    finally:
        _whole_run.active = False
        if os.environ.get("NBCORE_LOG_RERUN_MS") == "1":
            _log_rerun(navigation, outcome, time.perf_counter() - started)


def page_link(path: str, label: str) -> None:
    """A link to the page file ``path`` (as in ``PAGES``) with its icon."""
    icon = next(icon for pages in PAGES.values() for page, _, icon in pages if page == path)
    st.page_link(str(ROOT / path), label=label, icon=icon)


def fragment(page: str):
    """``st.fragment`` for the part of ``page`` that reruns on its own (a stroke on Draw reruns only that part).

    Such a rerun skips ``run``, so it is logged here (NBCORE_LOG_RERUN_MS=1), as ``page``.
    """

    def decorate(function):
        @functools.wraps(function)
        def logged(*args, **kwargs):
            rate_limit.check_fragment_run()  # a stroke reruns only the fragment, past run()'s check
            if os.environ.get("NBCORE_LOG_RERUN_MS") != "1" or getattr(_whole_run, "active", False):
                return function(*args, **kwargs)
            started, outcome = time.perf_counter(), "ok"
            try:
                return function(*args, **kwargs)
            except BaseException as error:
                outcome = type(error).__name__
                raise
            finally:
                _write_rerun_line(page, outcome, time.perf_counter() - started, scope="fragment")

        return st.fragment(logged)

    return decorate


def _log_rerun(navigation, outcome: str, seconds: float) -> None:
    page = (getattr(navigation, "url_path", "") or getattr(navigation, "title", "-")).replace(" ", "_")
    _write_rerun_line(page, outcome, seconds, scope="app")


def _write_rerun_line(page: str, outcome: str, seconds: float, scope: str) -> None:
    """One line per script run on stderr (with NBCORE_LOG_RERUN_MS=1), for load tests to read the server's time."""
    # one write per line: print() writes the newline separately, and runs of other sessions log at the same time
    sys.stderr.write(f"NBCORE_RERUN page={page} ms={seconds * 1000:.1f} outcome={outcome} scope={scope}\n")
    sys.stderr.flush()
