"""A fresh class store for a benchmark: an SQLite file or a real redis-server (devtools/redis_server.py).

Used by devtools/class_store_calls.py and, under replicas, devtools/bench_harness.py's ``store_replicas``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from nbcore.classroom import open_store

if TYPE_CHECKING:
    from devtools.redis_server import RedisServer

STORES = ("sqlite", "sqlite-held", "redis")


@contextlib.contextmanager
def fresh_store(kind: str, folder: Path, name: str) -> Iterator[tuple[str, RedisServer | None]]:
    """A fresh store of ``kind``: its setting, and the redis-server process (None for SQLite).

    "sqlite-held": the same SQLite file with one more connection held open by this process all along, so
    that no connection the store closes is the file's last (the last one checkpoints the write-ahead log
    into the database and syncs it to disk): what the store would do if it kept a connection open.
    """
    if kind.startswith("sqlite"):
        setting = f"sqlite:///{folder / (name + '.sqlite3')}"
        if kind == "sqlite":
            yield setting, None
            return
        open_store(setting)  # the schema, in WAL mode
        held = sqlite3.connect(setting.removeprefix("sqlite://"))
        try:
            held.execute("SELECT count(*) FROM meta").fetchone()
            yield setting, None
        finally:
            held.close()
        return
    from devtools.redis_server import RedisServer

    with RedisServer() as server:
        yield server.url, server
