"""Fixtures shared by the pages' AppTest modules (``data_dir``: tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def class_store_file(tmp_path_factory):
    """One scratch SQLite class store for a module's tests (NBCORE_CLASS_STORE; the app's cache keys the store by
    the setting), its path."""
    path = tmp_path_factory.mktemp("classes") / "classes.sqlite3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NBCORE_CLASS_STORE", f"sqlite:///{path}")
        yield path
