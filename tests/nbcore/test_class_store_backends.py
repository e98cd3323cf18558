"""The class store's back ends themselves: what a second store or a second process on the same storage sees,
the setting that picks SQLite or Redis, and a damaged file or a server gone away told in a sentence."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from devtools.redis_server import RedisServer, redis_binary
from nbcore.classroom import open_store
from nbcore.classroom.records import UNAVAILABLE, StoreUnavailable
from nbcore.classroom.redis_store import RedisStore
from nbcore.classroom.sqlite_store import SqliteStore, StoreFileError
from tests.conftest import REPO, require
from tests.nbcore.class_store_helpers import send, student


def test_a_new_store_on_the_same_storage_sees_everything(make_store):
    """What a restarted server, or another replica, sees."""
    first = make_store()
    new = first.create_class()
    send(first, new.info.code, 1)
    first.answer(new.info.code, student(1), "step-1", "a")
    second = make_store()
    assert second.is_teacher(new.info.code, new.teacher_key)
    assert len(second.drawings(new.info.code)) == 1 and second.tally(new.info.code, "step-1").counted == {"a": 1}


SEND_MANY = """
import sys
import numpy as np
from nbcore.classroom import open_store, student_id
setting, code, who, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store = open_store(setting)
for n in range(count):
    frame = np.full((28, 28), n % 256, np.uint8)
    posterior = np.full(10, 0.1)
    print(store.add_drawing(code, student_id(f"{who * 1000 + n:032x}"), frame, who, posterior, posterior).id)
"""


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(make_store, tmp_path):
    store = make_store()
    code = store.create_class().info.code
    if isinstance(store, RedisStore):
        kwargs = store.client.connection_pool.connection_kwargs
        setting = f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}"
    else:
        setting = f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", SEND_MANY, setting, code, str(who), "60"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in (1, 2)
    ]
    ids = [writer.communicate(timeout=120)[0].split() for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0]
    assert len(set(ids[0]) | set(ids[1])) == 120
    kept = store.drawings(code)
    assert len(kept) == 120 and sorted(d.meant for d in kept) == [1] * 60 + [2] * 60


def test_sqlite_schema_is_versioned_and_damage_is_a_sentence(tmp_path):
    path = tmp_path / "classes.sqlite3"
    SqliteStore(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE name = 'schema_version'")
    with pytest.raises(StoreFileError, match="schema version 99"):
        SqliteStore(path)
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreFileError, match="move the damaged file away"):
        SqliteStore(damaged)


def test_the_setting_picks_the_back_end(tmp_path, redis_url):
    assert isinstance(open_store("", data_dir=tmp_path), SqliteStore)
    assert (tmp_path / "classes.sqlite3").exists()
    assert isinstance(open_store(f"sqlite:///{tmp_path / 'other.sqlite3'}"), SqliteStore)
    assert isinstance(open_store(redis_url), RedisStore)
    with pytest.raises(ValueError, match="names no store"):
        open_store("postgres://nowhere")
    with pytest.raises(ConnectionError, match="No Redis answers"):
        open_store("redis://127.0.0.1:1/0")


def test_a_store_whose_server_went_away_says_so_in_a_sentence(tmp_path):
    require(redis_binary() is not None, "redis-server is missing (apt-get install redis-server)")
    with RedisServer() as server:
        store = RedisStore.from_url(server.url)
        code = store.create_class().info.code
    with pytest.raises(StoreUnavailable) as refused:
        send(store, code, 1)
    assert str(refused.value) == UNAVAILABLE and "127.0.0.1" not in str(refused.value)
    locked = SqliteStore(tmp_path / "classes.sqlite3", busy_timeout_ms=200)
    code = locked.create_class().info.code
    holder = sqlite3.connect(tmp_path / "classes.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holding the file's lock longer than the store waits
    try:
        with pytest.raises(StoreUnavailable):
            send(locked, code, 1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(send(locked, code, 1).frame) == 28  # and it works again once the lock is gone
