"""A data folder after ``python -m nbcore prepare``: running it, and servers that each start from what it left
(what a server wrote into the folder is said and removed once it stops)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from devtools.app_server import REPO
from devtools.bench_harness import BenchServer


class PreparedFolder:
    """What ``prepare`` left in a data folder, so that every server starts from that and nothing more."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files, self.dirs = self._scan()

    def _scan(self) -> tuple[dict[str, tuple[int, int]], set[str]]:
        files, dirs = {}, set()
        for path in self.root.rglob("*"):
            relative = path.relative_to(self.root).as_posix()
            if path.is_dir() and not path.is_symlink():
                dirs.add(relative)
            else:
                stat = path.lstat()
                files[relative] = (stat.st_size, stat.st_mtime_ns)
        return files, dirs

    def restore(self) -> tuple[list[str], list[str]]:
        """Remove what was written since (files, then folders left empty); (removed, changed) relative paths,
        ``changed`` being files ``prepare`` made that were rewritten since: kept as they are now (there is no copy
        to go back to), and said once."""
        files, dirs = self._scan()
        removed = sorted(set(files) - set(self.files))
        changed = sorted(path for path in set(files) & set(self.files) if files[path] != self.files[path])
        self.files.update({path: files[path] for path in changed})
        for relative in removed:
            (self.root / relative).unlink()
        for relative in sorted(dirs - self.dirs, key=lambda path: path.count("/"), reverse=True):
            try:
                (self.root / relative).rmdir()
            except OSError:  # not empty: a file in it was there before (cannot happen for a new folder)
                pass
        return removed, changed


def run_prepare(data_dir: Path) -> float:
    """``python -m nbcore prepare`` on ``data_dir``, its output passed through; seconds it took."""
    started = time.perf_counter()
    env = {**os.environ, "NBCORE_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    completed = subprocess.run([sys.executable, "-m", "nbcore", "prepare"], cwd=REPO, env=env)
    if completed.returncode != 0:
        raise SystemExit(f"prepare failed with exit code {completed.returncode}")
    return time.perf_counter() - started


def brief(paths: list[str], limit: int = 6) -> str:
    """A short list of paths for a line of text."""
    return ", ".join(paths[:limit]) + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


@dataclass
class Bench:
    """Where the servers run and log, and the data folder's state after ``prepare`` (None: used as it is)."""

    data_dir: Path
    log_dir: Path
    viewport: dict
    prepared: PreparedFolder | None = None
    written: dict[str, list[str]] = field(default_factory=dict)  # server name -> what it left in the data folder

    @contextlib.contextmanager
    def server(self, name: str, port: int | None = None, app: str = "app.py") -> Iterator[BenchServer]:
        """A fresh server logging to ``name``.log, entered once idle; once stopped, what it wrote into a scratch
        data folder is said and removed: the next server starts from what ``prepare`` left."""
        try:
            with BenchServer(self.data_dir, self.log_dir / f"{name}.log", port=port, app=app) as server:
                yield server
        finally:
            self.restore_data(name)

    def restore_data(self, server: str) -> None:
        """Remove what ``server`` (stopped) wrote into the data folder since ``prepare``, and say what it was."""
        if self.prepared is None:
            return
        removed, changed = self.prepared.restore()
        paths = removed + [f"{path} (rewritten)" for path in changed]
        if paths:
            self.written[server] = paths
            print(f"  server {server} wrote into the data folder: {brief(paths)}", flush=True)
