"""lab/runs.py: each run is counted, then timed on one log line (NBCORE_LOG_RERUN_MS=1) with its page and outcome."""

from __future__ import annotations

import logging
import re

import pytest
from streamlit.testing.v1 import AppTest

from lab import runs
from tests.conftest import REPO

LINE = re.compile(r"NBCORE_RERUN page=(\S+) ms=[0-9.]+ outcome=(\S+) scope=(\S+)\n")


@pytest.fixture
def logged(monkeypatch, capsys):
    """Turn the run log on; return a function giving the (page, outcome, scope) lines written so far."""
    monkeypatch.setenv("NBCORE_LOG_RERUN_MS", "1")
    logging.getLogger("streamlit").setLevel(logging.ERROR)  # no ScriptRunContext here: Streamlit says so on each call
    return lambda: LINE.findall(capsys.readouterr().err)


def test_a_whole_run_writes_one_line_named_after_its_page(logged):
    with runs.whole_run() as run:
        run.page = "draw"
    assert logged() == [("draw", "ok", "app")]


def test_a_run_that_stops_is_logged_with_how_it_ended(logged):
    with pytest.raises(KeyboardInterrupt), runs.whole_run():
        raise KeyboardInterrupt
    assert logged() == [("-", "KeyboardInterrupt", "app")]


FRAGMENT_PAGE = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
import streamlit as st
from lab import runs

@runs.fragment(page="part")
def part():
    st.button("Inside the fragment", key="inside")

with runs.whole_run() as run:
    run.page = "whole"
    part()
"""


@pytest.mark.slow
def test_a_fragment_drawn_in_a_whole_run_is_not_timed_twice(logged):
    """(A fragment's run alone, which AppTest cannot send, is checked in Chromium: tests/e2e/test_e2e.py.)"""
    app = AppTest.from_string(FRAGMENT_PAGE).run()
    assert not app.exception and app.button(key="inside") and logged() == [("whole", "ok", "app")]


def test_nothing_is_written_unless_asked(monkeypatch, capsys):
    monkeypatch.delenv("NBCORE_LOG_RERUN_MS", raising=False)
    with runs.whole_run():
        pass
    assert "NBCORE_RERUN" not in capsys.readouterr().err


def _concurrency_of(work, threads: int = 6) -> int:
    """How many of ``threads`` threads were inside ``work(inside, leave)`` at once, at most."""
    import threading

    lock, inside, most = threading.Lock(), [0], [0]
    released = threading.Event()

    def enter() -> None:
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])

    def leave() -> None:
        released.wait(5)
        with lock:
            inside[0] -= 1

    started = [threading.Thread(target=work, args=(enter, leave)) for _ in range(threads)]
    for thread in started:
        thread.start()
    threading.Event().wait(0.3)  # every thread has asked for its turn by now
    released.set()
    for thread in started:
        thread.join(10)
    assert not any(thread.is_alive() for thread in started)
    return most[0]


def test_at_most_runs_at_once_runs_draw_at_a_time_and_a_fragment_shares_its_runs_turn():
    def whole_run_with_a_fragment(enter, leave) -> None:
        with runs.whole_run():
            with runs._turn():  # a fragment's function inside the whole run: no second turn (no deadlock)
                enter()
                leave()

    assert runs.RUNS_AT_ONCE == 2
    assert _concurrency_of(whole_run_with_a_fragment) == runs.RUNS_AT_ONCE


def test_a_run_that_waits_gives_its_turn_to_others():
    def waits_for_a_job(enter, leave) -> None:
        with runs.whole_run(), runs.waiting():
            enter()
            leave()

    assert _concurrency_of(waits_for_a_job) == 6
