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


@pytest.fixture
def mixture_fits(monkeypatch) -> list[int]:
    """Every ``BernoulliMixtureNB`` fit started during the test, as its K, in order (the fit itself runs)."""
    from nbcore.models.mixture import BernoulliMixtureNB

    fits: list[int] = []
    original = BernoulliMixtureNB.fit_steps

    def counted(self, X, y):
        fits.append(self.n_components)
        return original(self, X, y)

    monkeypatch.setattr(BernoulliMixtureNB, "fit_steps", counted)
    return fits
