"""lab/caching.py: shared results survive a client's clear_cache and are made once; a background resource runs once.

Any visitor can send ``clear_cache``, and Streamlit then empties every ``st.cache_resource`` of the
server, so what the class shares must live where that message does not reach.
"""

from __future__ import annotations

import ast
import logging
import threading
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.state import SessionState

from lab import caching
from tests.conftest import REPO


@pytest.fixture(autouse=True)
def quiet():
    """Outside a script run Streamlit warns about a missing ScriptRunContext on every call: not news here."""
    logger = logging.getLogger("streamlit")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


def a_visitors_clear_cache() -> None:
    """Streamlit's own handler of a client's ``clear_cache`` message (it empties every st.cache_* of the server)."""
    AppSession._handle_clear_cache_request(types.SimpleNamespace(_session_state=SessionState()))


def test_a_shared_result_is_read_only_and_outlives_clear_cache():
    made = []

    @caching.shared()
    def table(size: int) -> dict[str, np.ndarray]:
        made.append(size)
        return {"values": np.arange(size)}

    first = table(3)
    with pytest.raises(ValueError, match="read-only"):
        first["values"][0] = 7
    a_visitors_clear_cache()
    assert table(3) is first and made == [3]
    caching.forget_shared(table)  # as a restart would
    assert table(3) is not first and made == [3, 3]
    assert caching.is_shared(table) and not caching.is_shared(len)


def test_a_background_resource_runs_once_per_arguments_defaults_filled_in():
    started, release = [], threading.Event()

    @caching.background("Counting", "test-counting")
    def counted(size: int, scale: int = 1, progress=None) -> np.ndarray:
        started.append(threading.current_thread().name)
        progress(0.5, "half way")
        release.wait(5)
        return np.arange(size) * scale

    job = counted.job(*counted.arguments(4))
    assert counted.job(*counted.arguments(4, 1)) is job and counted.job(*counted.arguments(4, scale=1)) is job
    release.set()
    result = counted(4)  # waits for the job (outside a script run the progress bar draws nowhere)
    np.testing.assert_array_equal(result, [0, 1, 2, 3])
    assert counted.result(4, 1) is result and not result.flags.writeable
    a_visitors_clear_cache()
    assert counted(4) is result and started == ["test-counting"]  # not started again after a clear_cache
    assert counted(4, 2) is not result and len(started) == 2
    caching.forget_shared(counted)


def test_work_that_failed_starts_again_on_the_next_call():
    attempts = []

    @caching.background(lambda name: f"Loading {name}", "test-failing")
    def loaded(name: str, progress) -> str:
        attempts.append(name)
        if len(attempts) == 1:
            raise OSError("the disk is away")
        return name.upper()

    with pytest.raises(OSError, match="the disk is away"):
        loaded("mnist")
    assert loaded("mnist") == "MNIST" and attempts == ["mnist", "mnist"]
    caching.forget_shared(loaded)


def test_a_result_asked_for_by_many_sessions_at_once_is_made_once_and_others_are_not_held():
    made, release = [], threading.Event()

    @caching.shared()
    def slow(name: str) -> str:
        made.append(name)
        if name == "slow":
            release.wait(5)
        return name.upper()

    with ThreadPoolExecutor(8) as pool:
        waiting = [pool.submit(slow, "slow") for _ in range(6)]
        assert pool.submit(slow, "quick").result(timeout=5) == "QUICK"  # another key is made meanwhile
        assert not any(future.done() for future in waiting)
        release.set()
        assert [future.result(timeout=5) for future in waiting] == ["SLOW"] * 6
    assert sorted(made) == ["quick", "slow"]


def test_results_are_bounded_least_recently_used_first_and_a_failure_stores_nothing():
    results = caching.Results(max_entries=2)
    assert results.get("a", lambda: 1) == 1 and results.get("b", lambda: 2) == 2
    assert results.get("a", lambda: -1) == 1  # "a" used last: "b" goes first
    assert results.get("c", lambda: 3) == 3 and len(results) == 2
    assert results.get("b", lambda: 20) == 20 and results.get("c", lambda: -1) == 3

    def failing():
        raise OSError("no disk")

    with pytest.raises(OSError):
        results.get("d", failing)
    assert results.get("d", lambda: 4) == 4


def test_nothing_is_kept_in_a_streamlit_cache():
    """st.cache_* is emptied by any visitor's clear_cache, so it is used nowhere (that only lab/data/ declares shared
    results is tests/tools/test_layers.py's)."""
    sources = [*REPO.glob("lab/**/*.py"), *REPO.glob("pages/*.py"), REPO / "app.py"]
    assert len(sources) > 20
    for path in sources:
        relative = path.relative_to(REPO).as_posix()
        tree = ast.parse(path.read_text())
        cache_calls = [
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ("cache_resource", "cache_data")
        ]
        assert not cache_calls, f"{relative} keeps results in st.cache_*: declare them in lab/data/"


RESOURCES: dict = {}  # background resources a test declares, for its AppTest script to call by name
CALL_RESOURCE = "import sys\nsys.modules[{module!r}].RESOURCES[{name!r}]()\nimport streamlit as st\nst.write('after')\n"


def record_elements(monkeypatch, on_progress=lambda: None) -> list[tuple[str, int]]:
    """Every element a run sends, as (delta type, root container: 0 main, 1 sidebar); ``on_progress`` at each bar."""
    from streamlit.delta_generator import DeltaGenerator

    sent, enqueue = [], DeltaGenerator._enqueue

    def recording(self, delta_type, *args, **kwargs):
        sent.append((delta_type, self._active_dg._root_container))
        if delta_type == "progress":
            on_progress()
        return enqueue(self, delta_type, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "_enqueue", recording)
    return sent


def run_script(name: str) -> None:
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_string(CALL_RESOURCE.format(module=__name__, name=name), default_timeout=60)
    app.run()
    assert not app.exception and [item.value for item in app.markdown] == ["after"]


@pytest.mark.slow
def test_a_quick_background_result_draws_no_progress_bar(monkeypatch):
    """Read from disk in a fraction of a second: a bar would only flash above the page and move it."""

    @caching.background("Reading", "test-quick")
    def quick(progress) -> int:
        progress(0.5, "half way")
        threading.Event().wait(0.3)  # a disk read: still running when the run first looks
        return 1

    RESOURCES["quick"] = quick
    sent = record_elements(monkeypatch)
    try:
        run_script("quick")
    finally:
        caching.forget_shared(quick)
    assert "progress" not in [delta_type for delta_type, _ in sent], sent


@pytest.mark.slow
def test_a_slow_background_results_bar_can_go_in_the_sidebar(monkeypatch):
    """Deskew's and softmax's bars go under the sidebar's settings: the page (Draw's canvas) never moves."""
    release = threading.Event()

    @caching.background("Training", "test-slow", in_sidebar=True)
    def slow(progress) -> int:
        progress(0.5, "half way")
        release.wait(60)
        return 2

    RESOURCES["slow"] = slow
    monkeypatch.setattr(caching, "QUIET_WAIT", 0.0)  # the bar at once, rather than after a second
    sent = record_elements(monkeypatch, on_progress=release.set)
    try:
        run_script("slow")
    finally:
        caching.forget_shared(slow)
    bars = [container for delta_type, container in sent if delta_type == "progress"]
    assert bars and set(bars) == {1}, sent  # RootContainer.SIDEBAR
    from lab.data import mnist, models

    assert mnist._deskewed._in_sidebar and models._softmax._in_sidebar
