"""Fixtures shared by nbcore's test modules: a synthetic MNIST, and class stores on both back ends (SQLite and a real
redis-server started here)."""

from __future__ import annotations

import pytest

import nbcore.datasets.mnist as data
from devtools.redis_server import RedisServer, redis_binary
from nbcore.classroom.redis_store import RedisStore
from nbcore.classroom.sqlite_store import SqliteStore
from tests.conftest import require
from tests.idx_fixtures import SyntheticMnist, make_synthetic_mnist


@pytest.fixture
def synthetic(monkeypatch) -> SyntheticMnist:
    """A tiny MNIST whose md5 values are the ones nbcore.datasets.mnist checks."""
    fake = make_synthetic_mnist()
    monkeypatch.setattr(data, "MNIST_MD5", fake.md5)
    return fake


@pytest.fixture(scope="module")
def redis_url():
    """The URL of a redis-server started for this test module."""
    require(redis_binary() is not None, "redis-server is missing (apt-get install redis-server)")
    with RedisServer() as server:
        yield server.url


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request, tmp_path):
    """A function making stores over one back end's storage (a file, or a flushed Redis database)."""
    if request.param == "sqlite":
        return lambda **kwargs: SqliteStore(tmp_path / "classes.sqlite3", **kwargs)
    url = request.getfixturevalue("redis_url")
    first = RedisStore.from_url(url)
    first.client.flushdb()
    return lambda **kwargs: RedisStore.from_url(url, **kwargs)
