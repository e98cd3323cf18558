"""What every script run passes through around the frame: the session's run budget, its turn, its timing line.

A whole run (``shell.run``) enters ``whole_run()``; a run of one fragment alone (a stroke on Draw reruns
only Draw's fragment, skipping ``shell.run``) enters it through ``fragment(page)``. Both first count
the run against the session's budget (``lab/rate_limit.py``: a session flooding reruns is stopped
before any work), and with ``NBCORE_LOG_RERUN_MS=1`` write one line per run on stderr,
``NBCORE_RERUN page=… ms=… outcome=… scope=app|fragment``, which load tests and benchmarks read for the
server's own time per run.

Turns: at most ``RUNS_AT_ONCE`` runs of this process draw at a time; the others wait for a turn, asleep.
Python runs one thread at a time, so thirty script threads at once only take turns at the interpreter lock:
each switch costs time, and the event loop, which sends what the runs drew, gets a thirtieth of the
interpreter. A run gives its turn back while it waits without computing (``waiting()``): past its run budget
(``lab/rate_limit.py``), for a background job, for a shared result another session is making (``lab/caching.py``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import streamlit as st

from lab import rate_limit

# set while a whole run is drawn in this script thread: a fragment's function called inside it is part of that run
_whole_run = threading.local()
# Two, not one: a run that computes for seconds (a new threshold's features) leaves a turn to everyone else. One
# turn served about 120 students within a 300 ms p95, two about 105 (devtools/load_protocol, docs/benchmarks-load.md).
RUNS_AT_ONCE = 2
_turns = threading.BoundedSemaphore(RUNS_AT_ONCE)
_holding = threading.local()  # .turn: this script thread holds a turn


@contextlib.contextmanager
def _turn() -> Iterator[None]:
    """Hold one of the process's turns for the enclosed drawing (a fragment inside a whole run shares its turn)."""
    if getattr(_holding, "turn", False):
        yield
        return
    _turns.acquire()
    _holding.turn = True
    try:
        yield
    finally:
        _holding.turn = False
        _turns.release()


@contextlib.contextmanager
def waiting() -> Iterator[None]:
    """Give this run's turn to another while the enclosed code waits without computing; take it back after."""
    if not getattr(_holding, "turn", False):
        yield
        return
    _holding.turn = False
    _turns.release()
    try:
        yield
    finally:
        _turns.acquire()
        _holding.turn = True


@dataclass
class Run:
    """The run being timed; ``page`` names it in the log line once the navigation knows it."""

    page: str = "-"


def _logging() -> bool:
    return os.environ.get("NBCORE_LOG_RERUN_MS") == "1"


@contextlib.contextmanager
def whole_run() -> Iterator[Run]:
    """Count a whole run against the session's budget (over it: a notice and ``st.stop()``), and time it."""
    run, started, outcome = Run(), time.perf_counter(), "ok"
    _whole_run.active = True
    try:
        rate_limit.check_run()
        with _turn():
            yield run
    except BaseException as error:  # st.stop() and an interrupted rerun arrive as exceptions too
        outcome = type(error).__name__
        raise
    finally:
        _whole_run.active = False
        if _logging():
            _write_line(run.page, outcome, time.perf_counter() - started, scope="app")


def fragment(page: str, run_every: float | None = None):
    """``st.fragment`` for the part of ``page`` that reruns on its own (also every ``run_every`` seconds if given),
    counted against the session's run budget and timed as a run of its own: a script cannot rerun it for free."""

    def decorate(function):
        @functools.wraps(function)
        def counted(*args, **kwargs):
            if getattr(_whole_run, "active", False):  # part of the whole run: counted, timed and in its turn there
                return function(*args, **kwargs)
            rate_limit.check_fragment_run()
            started, outcome = time.perf_counter(), "ok"
            try:
                with _turn():
                    result = function(*args, **kwargs)
                rate_limit.settle_fragment_run()  # out of its turn: it may sleep, all it drew on screen
                return result
            except BaseException as error:
                outcome = type(error).__name__
                raise
            finally:
                if _logging():
                    _write_line(page, outcome, time.perf_counter() - started, scope="fragment")

        return st.fragment(counted, run_every=run_every)

    return decorate


def _write_line(page: str, outcome: str, seconds: float, scope: str) -> None:
    # one write per line: print() writes the newline separately, and runs of other sessions log at the same time
    sys.stderr.write(f"NBCORE_RERUN page={page} ms={seconds * 1000:.1f} outcome={outcome} scope={scope}\n")
    sys.stderr.flush()
