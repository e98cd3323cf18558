"""What every script run passes through around the frame: the session's run budget, then its timing line.

A whole run (``shell.run``) enters ``whole_run()``; a run of one fragment alone (a stroke on Draw reruns
only Draw's fragment, skipping ``shell.run``) enters it through ``fragment(page)``. Both first count
the run against the session's budget (``lab/rate_limit.py``: a session flooding reruns is stopped
before any work), and with ``NBCORE_LOG_RERUN_MS=1`` write one line per run on stderr,
``NBCORE_RERUN page=… ms=… outcome=… scope=app|fragment``, which load tests and benchmarks read for the
server's own time per run.
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
            rate_limit.check_fragment_run()
            if not _logging() or getattr(_whole_run, "active", False):
                return function(*args, **kwargs)
            started, outcome = time.perf_counter(), "ok"
            try:
                return function(*args, **kwargs)
            except BaseException as error:
                outcome = type(error).__name__
                raise
            finally:
                _write_line(page, outcome, time.perf_counter() - started, scope="fragment")

        return st.fragment(counted, run_every=run_every)

    return decorate


def _write_line(page: str, outcome: str, seconds: float, scope: str) -> None:
    # one write per line: print() writes the newline separately, and runs of other sessions log at the same time
    sys.stderr.write(f"NBCORE_RERUN page={page} ms={seconds * 1000:.1f} outcome={outcome} scope={scope}\n")
    sys.stderr.flush()
