"""The dashboard under AppTest: the whole app (frame, sidebar, navigation) opened at one page.

Test modules ask for the ``data_dir`` fixture (tests/conftest.py: NBCORE_DATA_DIR points at the real MNIST for
the module) and open pages with ``open_page``; ``rerun`` runs an app again and checks it stayed clean.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import REPO

TIMEOUT = 240  # s, for a first run that loads MNIST and trains softmax


def app_at(page: str, query: dict[str, str] | None = None, **session) -> AppTest:
    """The app with ``page`` as its landing page (AppTest's switch_page skips the entry point), not yet run."""
    script = f"import sys; sys.path.insert(0, {str(REPO)!r})\nfrom lab import shell\nshell.run(default_page={page!r})\n"
    app = AppTest.from_string(script, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        app.query_params[key] = value
    for key, value in session.items():
        app.session_state[key] = value
    return app


def rerun(app: AppTest) -> AppTest:
    """Run ``app``; no exception and no error box."""
    app.run()
    assert not app.exception, [item.value for item in app.exception]
    assert not app.error, [item.value for item in app.error]
    return app


def open_page(page: str, query: dict[str, str] | None = None, **session) -> AppTest:
    return rerun(app_at(page, query, **session))
