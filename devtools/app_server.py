"""A ``streamlit run app.py`` for tests and tools: on a free loopback port, in its own process group (stopped as a
group), its output captured to a log file; the data folder it reads (a scratch copy of MNIST, or one given).

Nothing here depends on pytest or a browser.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_scratch_data_dir(
    target: Path, mnist_source: Path | None = None, sms_source: Path | None = SHARED / "sms-spam" / "SMSSpamCollection"
) -> Path:
    """A fresh NBCORE_DATA_DIR: the four MNIST *-ubyte.gz files (+ the SMS Spam Collection if found).

    ``mnist_source`` defaults to $NBCORE_DATA_DIR, else ../shared/mnist. Only copies, never writes
    into the sources.
    """
    source = Path(mnist_source or os.environ.get("NBCORE_DATA_DIR") or SHARED / "mnist")
    gz_files = sorted(source.glob("*-ubyte.gz"))
    if len(gz_files) != 4:
        raise FileNotFoundError(f"expected the four MNIST *-ubyte.gz files in {source}")
    target.mkdir(parents=True, exist_ok=True)
    for gz in gz_files:
        shutil.copy(gz, target / gz.name)
    for sms in (source / "SMSSpamCollection", sms_source):
        if sms is not None and Path(sms).is_file():
            shutil.copy(sms, target / "SMSSpamCollection")
            break
    return target


# -- the tools' data flags ----------------------------------------------------------------------
def add_data_arguments(parser: argparse.ArgumentParser, mnist_source: bool = True, data_dir_note: str = "") -> None:
    """The scripts' data flags: ``--data-dir DIR`` and, with ``mnist_source``, ``--mnist-source DIR`` instead.

    See ``script_data_dir``: a given data directory is used as it is, anything else is a scratch copy.
    """
    group = parser.add_mutually_exclusive_group()
    if mnist_source:
        group.add_argument(
            "--mnist-source",
            type=Path,
            help="folder with the four MNIST *-ubyte.gz files, copied to a scratch data directory "
            "(default: $NBCORE_DATA_DIR, else ../shared/mnist; SMSSpamCollection from there "
            "or ../shared/sms-spam)",
        )
    group.add_argument(
        "--data-dir",
        type=Path,
        help=f"use this NBCORE_DATA_DIR as it is{data_dir_note} (default: a scratch copy of the MNIST "
        "files, removed at the end)",
    )


@contextlib.contextmanager
def script_data_dir(
    data_dir: Path | None, mnist_source: Path | None, prefix: str
) -> Iterator[tuple[Path, Path | None]]:
    """The scripts' data directory: ``data_dir`` as given, else a fresh scratch copy, removed when the block ends.

    Yields ``(data_dir, scratch)``, ``scratch`` being the temporary folder (None for a given ``data_dir``).
    No MNIST to copy: the reason on stderr and exit code 2 (SystemExit), no traceback.
    """
    scratch = None
    if not data_dir:
        scratch = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        if scratch:
            try:
                data_dir = make_scratch_data_dir(scratch / "data", mnist_source)
            except FileNotFoundError as error:
                print(error, file=sys.stderr)
                raise SystemExit(2) from None
        assert data_dir is not None  # given, or the scratch copy just made
        yield data_dir, scratch
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


# -- the server ------------------------------------------------------------------------------
def spawn_logged(command: list[str], log_path: Path, **popen) -> subprocess.Popen:
    """Start ``command`` with stdout and stderr to ``log_path``, no stdin, as the leader of its own process
    group (so that stopping it can signal the group: a server and everything it started)."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, **popen
        )


class ServerError(RuntimeError):
    pass


class StreamlitServer:
    """``python -m streamlit run app.py`` on 127.0.0.1 with NBCORE_DATA_DIR set; use as a context manager."""

    def __init__(
        self,
        data_dir: Path | str,
        log_path: Path | str,
        port: int | None = None,
        app: str = "app.py",
        extra_env: dict[str, str] | None = None,
        ready_timeout: float = 60.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.ready_timeout = ready_timeout  # seconds serve() and ``with`` wait for the health check
        self.log_path = Path(log_path)
        self.port = port or free_port()
        self.app = app
        self.extra_env = extra_env or {}
        self.process: subprocess.Popen | None = None
        self.started_at: float | None = None  # time.perf_counter() just before Popen

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        """The server's process id, also its process group's (start() first)."""
        if self.process is None:
            raise ServerError("the server is not started")
        return self.process.pid

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            self.app,
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            # other people edit this working tree while tests run: never rerun on their saves
            "--server.fileWatcherType",
            "none",
            "--server.runOnSave",
            "false",
        ]

    def start(self) -> StreamlitServer:
        env = {**os.environ, "NBCORE_DATA_DIR": str(self.data_dir), "PYTHONUNBUFFERED": "1", **self.extra_env}
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.started_at = time.perf_counter()
        self.process = spawn_logged(self.command(), self.log_path, cwd=REPO, env=env)
        return self

    def wait_ready(self, timeout: float = 60.0) -> float:
        """Block until /_stcore/health answers ok; return seconds since start()."""
        assert self.process is not None and self.started_at is not None, "start() first"
        deadline = time.monotonic() + timeout
        health = f"{self.url}/_stcore/health"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(
                    f"streamlit exited with code {self.process.returncode} before serving; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(health, timeout=2) as response:
                    if response.status == 200 and response.read().strip() == b"ok":
                        return time.perf_counter() - self.started_at
            except OSError:
                pass
            time.sleep(0.05)
        raise ServerError(
            f"streamlit did not answer {health} within {timeout:.0f} s; log {self.log_path}:\n{self.log_tail()}"
        )

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM the server's process group, SIGKILL it if it lingers."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(grace)
        else:  # the leader is gone; children of the group may not be
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def serve(self) -> StreamlitServer:
        """start(), then wait_ready(ready_timeout); stopped again if it never answers."""
        self.start()
        try:
            self.wait_ready(self.ready_timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def __enter__(self) -> StreamlitServer:
        return self.serve()

    def __exit__(self, *exc) -> None:
        self.stop()
