"""Fixtures shared by nbcore's test modules."""

from __future__ import annotations

import pytest

import nbcore.datasets.mnist as data
from tests.idx_fixtures import SyntheticMnist, make_synthetic_mnist


@pytest.fixture
def synthetic(monkeypatch) -> SyntheticMnist:
    """A tiny MNIST whose md5 values are the ones nbcore.datasets.mnist checks."""
    fake = make_synthetic_mnist()
    monkeypatch.setattr(data, "MNIST_MD5", fake.md5)
    return fake
