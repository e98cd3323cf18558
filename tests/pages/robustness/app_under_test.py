"""A classroom on one server, where shared state stays shared and unchanged and odd and hostile input has a clear
outcome: the robustness tests' app and what they read of it.

Everything runs the real app under AppTest (``shell.run(default_page=...)``), in this process,
so the shared results seen here (``lab/data/``, ``lab/data/class_store.py``) are the ones the pages use; conftest.py
cuts the network and gives each test module a data folder of its own. What each module checks:

* test_shared_state.py: every array a ``lab.data`` cache returns is read-only; two sessions with
  different settings see different numbers, and the shared counts do not change.
* test_controls.py: every sidebar control and every page slider at both ends of its range, on every page.
* test_files.py: a softmax disk-cache file corrupted while the app runs; a data folder deleted while the
  app runs; a server started on a missing data folder.
* test_uploads.py: uploads on the Draw page: a truncated PNG, decompression bombs, a text file; the
  canvas with one dot and with the whole canvas painted.
* test_defaults.py: defaults fit for a shared server: .streamlit/config.toml, no raw HTML, no visitor
  input in a path.
"""

from __future__ import annotations

import json
import math

import pytest
from streamlit.testing.v1 import AppTest

from lab import shell
from tests.conftest import REPO

TIMEOUT = 300
PAGES = [path for section in shell.PAGES.values() for path, _, _ in section]


# -- helpers ---------------------------------------------------------------------------------
def app_for(page: str, **session) -> AppTest:
    script = f"import sys; sys.path.insert(0, {str(REPO)!r})\nfrom lab import shell\nshell.run(default_page={page!r})\n"
    app = AppTest.from_string(script, default_timeout=TIMEOUT)
    for key, value in session.items():
        app.session_state[key] = value
    return app


def run_clean(app: AppTest, where: str = "") -> AppTest:
    """Run (or rerun) and require: no exception, no st.error, every chart strict JSON."""
    app.run()
    assert not app.exception, f"{where}: {[item.value for item in app.exception]}"
    assert not app.error, f"{where}: {[item.value for item in app.error]}"
    for chart in app.get("plotly_chart"):  # the browser's JSON.parse rejects NaN and Infinity
        json.loads(chart.proto.spec, parse_constant=lambda token: pytest.fail(f"{where}: chart holds {token}"))
    return app


def metric(app: AppTest, label: str):
    found = [item for item in app.metric if item.label == label]
    assert found, f"no metric {label!r} among {[item.label for item in app.metric]}"
    return found[0]


def settings_session(threshold, alpha, beta, prior, deskew=False) -> dict:
    return {
        "threshold": threshold,
        "alpha": alpha,
        "beta": beta,
        "prior": prior,
        "deskew": deskew,
    }


def assert_defined_prediction(app: AppTest) -> tuple[str, float]:
    """Both models show a digit and a probability in (0, 1]."""
    shown = None
    for label in ("Naive Bayes prediction", "Softmax prediction"):
        item = metric(app, label)
        assert item.value in {str(digit) for digit in range(10)}, (label, item.value)
        probability = float(item.proto.delta.removeprefix("p = "))
        assert math.isfinite(probability) and 0 < probability <= 1, (label, item.proto.delta)
        shown = shown or (item.value, probability)
    return shown


# the sidebar's settings at their ends, combined: every page (the controls' test) and the canvas run at each
EXTREMES = {
    "T=1, alpha=beta=0, uniform": settings_session(1, 0.0, 0.0, "uniform"),
    "T=192, alpha=beta=100, empirical": settings_session(192, 100.0, 100.0, "empirical"),
    "T=192, alpha=0, beta=100, uniform": settings_session(192, 0.0, 100.0, "uniform"),
    "T=1, alpha=100, beta=0, empirical, deskew": settings_session(1, 100.0, 0.0, "empirical", deskew=True),
}
