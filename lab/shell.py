"""The frame every page runs in: page list, navigation, shared sidebar, MNIST loaded first."""

from __future__ import annotations

import functools
import os
import sys
import time
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lab import state

ROOT = Path(__file__).resolve().parents[1]

# section -> (page file relative to the repository, title, icon)
PAGES = {
    "Naive Bayes on MNIST": [
        ("pages/home.py", "Home", "🏠"),
        ("pages/heatmaps.py", "Heatmaps", "🌡️"),
        ("pages/draw.py", "Draw", "✏️"),
        ("pages/smoothing.py", "Smoothing", "🎚️"),
        ("pages/samples.py", "Samples", "🎲"),
        ("pages/inpainting.py", "Inpainting", "🧩"),
        ("pages/compare.py", "Compare", "⚖️"),
        ("pages/deskew.py", "Deskew", "📐"),
    ],
    "Beyond MNIST": [
        ("pages/gaussian.py", "Gaussian NB", "🔔"),
        ("pages/spam.py", "Spam filter", "📨"),
        ("pages/xor.py", "XOR exercise", "🔀"),
    ],
}


def run(default_page: str = "pages/home.py") -> None:
    """Draw the navigation and the sidebar settings, make sure MNIST is loaded, run the chosen page.

    ``default_page`` is what the bare URL shows (tests use it to open one page directly).
    """
    started, navigation, outcome = time.perf_counter(), None, "ok"
    try:
        st.set_page_config(page_title="Naive Bayes Lab", page_icon="🔢", layout="wide")
        navigation = st.navigation({
            section: [st.Page(str(ROOT / path), title=title, icon=icon, default=path == default_page)
                      for path, title, icon in pages]
            for section, pages in PAGES.items()
        })
        state.sidebar_settings()
        state.mnist()
        navigation.run()
    except BaseException as error:  # st.stop() and an interrupted rerun arrive as exceptions too
        outcome = type(error).__name__
        raise
    finally:
        if os.environ.get("NBCORE_LOG_RERUN_MS") == "1":
            _log_rerun(navigation, outcome, time.perf_counter() - started)


def fragment(page: str):
    """``st.fragment`` for the part of ``page`` that reruns on its own (a stroke on Draw reruns only that part).

    Such a rerun skips ``run``, so it is logged here (NBCORE_LOG_RERUN_MS=1), as ``page``.
    """
    def decorate(function):
        @functools.wraps(function)
        def logged(*args, **kwargs):
            context = get_script_run_ctx()
            if os.environ.get("NBCORE_LOG_RERUN_MS") != "1" or context is None or not context.fragment_ids_this_run:
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
