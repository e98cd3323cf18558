"""The benchmarks' harness: what every bench in devtools starts, drives and times the same way.

* the run: ``bench_span`` (the load average said at the start and the end, and the seconds taken),
  ``require_programs`` (nginx, redis-server), the shared options (``add_log_dir``, ``add_cpu_arguments``);
* the browser: ``launched_chromium`` (Debian's Chromium through Playwright, closed at the end);
* the servers: ``BenchServer`` (one ``streamlit run`` logging its runs, entered once idle) and
  ``store_replicas`` (replicas behind nginx on a fresh class store);
* the timing: ``groups_cpu_seconds`` (CPU of process groups) and ``wait_idle``.

Percentiles and tables are bench_report.py's; the protocol client is streamlit_client.py.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from devtools import chromium, procfs
from devtools.app_server import REPO, StreamlitServer
from devtools.bench_report import load, load_averages, say
from devtools.class_stores import fresh_store
from devtools.redis_server import RedisServer, redis_binary
from devtools.replicas import ClassServer, nginx_binary
from devtools.rerun_log import Run, parse_runs


# -- the run ------------------------------------------------------------------------------------------
@contextlib.contextmanager
def bench_span() -> Iterator[None]:
    """Say the load average when the block starts, and when it ends with the seconds it took."""
    started = time.monotonic()
    say(f"load average at the start: {load_averages()}")
    yield
    say(f"load average at the end: {load_averages()}; {time.monotonic() - started:.0f} s")


def require_programs(nginx: bool = False, redis: bool = False) -> None:
    """Exit code 2 with the reason on stderr when a program the bench starts is not installed."""
    needs = [(nginx, nginx_binary, "nginx"), (redis, redis_binary, "redis-server")]
    for needed, found, package in needs:
        if needed and found() is None:
            print(f"{package} is not installed (apt-get install {package})", file=sys.stderr)
            raise SystemExit(2)


def add_log_dir(parser: argparse.ArgumentParser, name: str, help: str | None = None) -> None:
    """``--log-dir DIR``, by default test-artifacts/``name`` in the repository."""
    parser.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / name, help=help)


def cpu_list(text: str) -> str:
    """argparse's type for a CPU list as taskset takes it: numbers separated by commas ("1", "0,1")."""
    if not re.fullmatch(r"\d+(,\d+)*", text):
        raise argparse.ArgumentTypeError(f"{text}: give CPU numbers separated by commas, e.g. 1 or 0,1")
    return text


def add_cpu_arguments(parser: argparse.ArgumentParser, server_help: str, client_help: str) -> None:
    """``--server-cpus`` and ``--client-cpus``: the servers on some CPUs (taskset), this process on others."""
    parser.add_argument("--server-cpus", type=cpu_list, help=server_help)
    parser.add_argument("--client-cpus", type=cpu_list, help=client_help)


def pin_clients(cpus: str | None) -> None:
    """This process (and the threads it starts after) on ``cpus``; nothing without a list."""
    if cpus:
        os.sched_setaffinity(0, {int(cpu) for cpu in cpus.split(",")})


def taskset_prefix(cpus: str | None) -> list[str]:
    """The argv put before a server's command to keep it on ``cpus`` ([] without a list)."""
    return ["taskset", "-c", cpus] if cpus else []


# -- the browser --------------------------------------------------------------------------------------
@contextlib.contextmanager
def launched_chromium() -> Iterator:
    """Debian's Chromium through Playwright for the block (``chromium.exit_unless_browser()`` first)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = chromium.launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


# -- the timing ---------------------------------------------------------------------------------------
def groups_cpu_seconds(pgids: Sequence[int]) -> float:
    """utime + stime of every process in the process groups ``pgids`` so far, seconds."""
    return sum(procfs.group_cpu_seconds(pgid) for pgid in pgids)


def wait_idle(pgid: int, below: float = 0.05, window: float = 1.0, timeout: float = 60.0) -> None:
    """Until process group ``pgid`` used under ``below`` of a core over ``window`` s (or ``timeout`` s passed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = procfs.group_cpu_seconds(pgid)
        time.sleep(window)
        if procfs.group_cpu_seconds(pgid) - before < below * window:
            return


# -- the servers --------------------------------------------------------------------------------------
class BenchServer(StreamlitServer):
    """A ``streamlit run`` logging its runs (NBCORE_LOG_RERUN_MS=1) to ``log_path``; entered once its health check
    answers and it has gone idle (its start-up work done, as a teacher's server started before the class)."""

    def __init__(self, data_dir: Path, log_path: Path, port: int | None = None, app: str = "app.py") -> None:
        super().__init__(
            data_dir, log_path, port=port, app=app, extra_env={"NBCORE_LOG_RERUN_MS": "1"}, ready_timeout=180.0
        )

    def __enter__(self) -> BenchServer:
        super().__enter__()
        try:
            wait_idle(self.pid)  # started as the leader of its own process group
        except BaseException:
            self.stop()
            raise
        return self

    def runs(self) -> list[Run]:
        """Every script run the server logged so far, in order."""
        return parse_runs(self.log_text())


@dataclass
class StoreReplicas:
    """Replicas behind nginx on a fresh class store: the store's setting, the servers, redis-server (None: SQLite)."""

    setting: str
    served: ClassServer
    redis_server: RedisServer | None

    @property
    def servers(self) -> list[StreamlitServer]:
        return list(self.served.servers)

    @property
    def url(self) -> str:
        return self.served.url

    @property
    def pgids(self) -> list[int]:
        """The replicas' process groups (each started as its group's leader)."""
        return [server.process.pid for server in self.servers if server.process]

    @property
    def store_pgid(self) -> int | None:
        """redis-server's process group; None for SQLite (the store works inside the replicas)."""
        process = self.redis_server.process if self.redis_server is not None else None
        return process.pid if process is not None else None


@contextlib.contextmanager
def store_replicas(
    kind: str,
    replicas: int,
    folder: Path,
    data_dir: Path,
    log_dir: Path,
    name: str,
    extra_env: dict[str, str] | None = None,
    server_prefix: list[str] | None = None,
) -> Iterator[StoreReplicas]:
    """``replicas`` app servers behind nginx (devtools/replicas.py) on a fresh store of ``kind`` in ``folder``,
    logging their runs into ``log_dir``/``name``; said as it starts, and any traceback in their logs at the end."""
    from nbcore.classroom.backends import SETTING

    with fresh_store(kind, folder, name) as (setting, redis_server):
        logs = log_dir / name
        logs.mkdir(parents=True, exist_ok=True)
        env = {SETTING: setting, "NBCORE_LOG_RERUN_MS": "1", **(extra_env or {})}
        say(f"[{name}] starting {replicas} replica(s) behind nginx (load average {load():.1f}) ...")
        with ClassServer(replicas, data_dir, log_dir=logs, extra_env=env, server_prefix=server_prefix) as served:
            yield StoreReplicas(setting, served, redis_server)
            problems = [server.log_path for server in served.servers if "Traceback" in server.log_text()]
            if problems:
                say(f"[{name}] tracebacks in {', '.join(map(str, problems))}")
