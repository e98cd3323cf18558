"""Choosing the class store's back end from a setting: SQLite in the data directory (the default), another
SQLite file, or Redis."""

from __future__ import annotations

import os
from pathlib import Path

from ..datasets import default_data_dir
from .sqlite_store import SqliteStore
from .store import ClassStore

SETTING = "NBCORE_CLASS_STORE"  # unset: SQLite in the data directory; sqlite:///path; redis://host:port/db


def store_setting() -> str:
    """The store setting: ``$NBCORE_CLASS_STORE``, or "" (SQLite in the data directory)."""
    return os.environ.get(SETTING, "").strip()


def open_store(setting: str | None = None, data_dir: Path | None = None) -> ClassStore:
    """The store a setting names: "" (SQLite file ``classes.sqlite3`` in ``data_dir``), ``sqlite:///path``
    or ``redis://host:port/db``. ValueError with a sentence for anything else."""
    setting = store_setting() if setting is None else setting.strip()
    if setting.startswith(("redis://", "rediss://", "unix://")):
        # Imported here, not above: the redis client takes about 0.2 s to import, and most servers use SQLite.
        from .redis_store import RedisStore

        return RedisStore.from_url(setting)
    if setting.startswith("sqlite:///"):
        path = Path(setting[len("sqlite:///") - 1 :])
    elif setting == "":
        path = (data_dir or default_data_dir()) / "classes.sqlite3"
    else:
        raise ValueError(
            f"{SETTING} names no store we know: give sqlite:///absolute/path or redis://host:port/0, "
            "or leave it unset for a file in the data directory"
        )
    return SqliteStore(path)
