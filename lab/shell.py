"""The frame every page runs in: page list, navigation, shared sidebar, MNIST loaded first."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import streamlit as st

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


def _log_rerun(navigation, outcome: str, seconds: float) -> None:
    """One line per script run on stderr (with NBCORE_LOG_RERUN_MS=1), for load tests to read the server's time."""
    page = (getattr(navigation, "url_path", "") or getattr(navigation, "title", "-")).replace(" ", "_")
    # one write per line: print() writes the newline separately, and runs of other sessions log at the same time
    sys.stderr.write(f"NBCORE_RERUN page={page} ms={seconds * 1000:.1f} outcome={outcome}\n")
    sys.stderr.flush()
