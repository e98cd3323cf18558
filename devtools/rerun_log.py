"""The servers' ``NBCORE_RERUN`` lines (``NBCORE_LOG_RERUN_MS=1``, lab/runs.py): a whole log's runs
(``parse_runs``), or the lines replicas wrote since the last look, read as they are written (``RerunLog``).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# lab/runs.py's line per script run (a line without scope is a whole run)
RERUN = re.compile(r"^NBCORE_RERUN page=(\S+) ms=([0-9.]+) outcome=(\S+)(?: scope=(\S+))?", re.MULTILINE)
LOG_WAIT_S = 5.0


@dataclass(frozen=True)
class Run:
    """One NBCORE_RERUN line: the page, milliseconds, how it ended, ``app`` (a whole run) or ``fragment``."""

    page: str
    ms: float
    outcome: str
    scope: str


def parse_runs(log_text: str) -> list[Run]:
    """Every script run a server logged, in order."""
    return [Run(m[1], float(m[2]), m[3], m[4] or "app") for m in RERUN.finditer(log_text)]


def whole_run_seconds(runs: list[Run]) -> float:
    """Seconds the server spent in whole-page runs (a page may rerun itself once, e.g. to settle its link)."""
    return sum(run.ms for run in runs if run.scope == "app") / 1000


class RerunLog:
    """The NBCORE_RERUN lines the replicas wrote since the last look: (page, ms, outcome, scope)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        self.offsets = {path: 0 for path in self.paths}

    def read(self) -> list[tuple[str, float, str, str]]:
        found = []
        for path in self.paths:
            text = b""
            with contextlib.suppress(FileNotFoundError), open(path, "rb") as log:
                log.seek(self.offsets[path])
                text = log.read()
            complete = text[: text.rfind(b"\n") + 1]  # a line being written is read next time
            self.offsets[path] += len(complete)
            found += [
                (m[1], float(m[2]), m[3], m[4] or "app") for m in RERUN.finditer(complete.decode(errors="replace"))
            ]
        return found

    def skip(self) -> None:
        self.read()

    def wait(self, count: int = 1) -> list[tuple[str, float, str, str]]:
        """At least ``count`` new lines (the run's line is written before its script_finished is sent)."""
        found, deadline = self.read(), time.monotonic() + LOG_WAIT_S
        while len(found) < count and time.monotonic() < deadline:
            time.sleep(0.01)
            found += self.read()
        if len(found) < count:
            raise RuntimeError(f"expected {count} NBCORE_RERUN lines in {self.paths}, found {found}")
        return found
