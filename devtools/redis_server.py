"""A real ``redis-server`` (Debian's package) on a free loopback port, for tests, benchmarks and serve_class.py.

Nothing is saved to disk (``--save ""``, no append-only file): a class store for one lesson or one test.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from devtools.app_server import free_port, spawn_logged

START_TIMEOUT_S = 10


def redis_binary() -> str | None:
    """Path of redis-server (PATH, else Debian's /usr/bin/redis-server), or None."""
    return shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK) else None
    )


class RedisServer:
    """``redis-server`` on 127.0.0.1:<free port>, started on enter and stopped (with its folder) on exit."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.folder: Path | None = None

    def __enter__(self) -> RedisServer:
        binary = redis_binary()
        if binary is None:
            raise FileNotFoundError("redis-server is not installed (Debian: apt-get install redis-server)")
        self.folder = Path(tempfile.mkdtemp(prefix="nblab-redis-"))
        command = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self.folder), "--protected-mode", "yes"]
        self.process = spawn_logged(command, self.folder / "redis.log")
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server stopped at start: {(self.folder / 'redis.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        self.__exit__()
        raise RuntimeError(f"redis-server did not answer on port {self.port} within {START_TIMEOUT_S} s")

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
