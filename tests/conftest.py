"""Shared fixtures: the real MNIST (a scratch copy, never the shared folder itself).

Tests that need MNIST fail when ``CI=true`` and it is missing; elsewhere they skip.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_MNIST = REPO.parent / "shared" / "mnist"
IN_CI = os.environ.get("CI", "").lower() == "true"


E2E = REPO / "tests" / "e2e"


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by -m
def pytest_collection_modifyitems(config, items) -> None:
    """Unit and AppTest tests first, then the browser and server tests of tests/e2e: a broken unit shows in
    minutes, not after the browser tests (pytest collects tests/e2e/ before tests/lab/, tests/nbcore/, ...).
    Stable: each group keeps its order. Every test of tests/e2e is marked ``browser`` and ``slow``."""
    items.sort(key=lambda item: Path(item.path).is_relative_to(E2E))
    for item in items:
        if Path(item.path).is_relative_to(E2E):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


def require(condition: bool, reason: str) -> None:
    """Skip a test that lacks what it needs; in CI, fail instead."""
    if not condition:
        if IN_CI:
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)


def require_sklearn() -> None:
    """scikit-learn (a development dependency, for load_digits()) is installed: else skip, or fail in CI."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        require(False, "scikit-learn is missing")


@pytest.fixture(scope="session")
def mnist_root(tmp_path_factory) -> Path:
    """A data directory holding MNIST: $NBCORE_DATA_DIR, else a scratch copy of ../shared/mnist."""
    configured = os.environ.get("NBCORE_DATA_DIR")
    if configured and any(Path(configured).glob("*ubyte*")) or configured and (Path(configured) / "MNIST").exists():
        return Path(configured)
    require(SHARED_MNIST.is_dir(), f"MNIST is missing (no NBCORE_DATA_DIR and no {SHARED_MNIST})")
    root = tmp_path_factory.mktemp("mnist")
    for source in SHARED_MNIST.glob("*.gz"):
        shutil.copy(source, root / source.name)
    return root


@pytest.fixture(scope="session")
def mnist(mnist_root):
    """The four arrays: dict with train_images, train_labels, test_images, test_labels."""
    from nbcore import load_mnist

    train_images, train_labels = load_mnist(True, root=mnist_root, download=False)
    test_images, test_labels = load_mnist(False, root=mnist_root, download=False)
    return {
        "train_images": train_images,
        "train_labels": train_labels,
        "test_images": test_images,
        "test_labels": test_labels,
    }


@pytest.fixture
def small_mnist(mnist, monkeypatch):
    """``nbcore.prepared.mnist.mnist_splits()`` made a slice of the real MNIST (3,000 / 500) for CLI runs."""
    from nbcore.datasets.mnist import MnistSplits
    from nbcore.prepared import mnist as prepared_mnist

    small = MnistSplits(
        mnist["train_images"][:3000],
        mnist["train_labels"][:3000],
        mnist["test_images"][:500],
        mnist["test_labels"][:500],
    )
    monkeypatch.setattr(prepared_mnist, "mnist_splits", lambda: small)
    return small


@pytest.fixture(scope="module")
def data_dir(mnist_root):
    """NBCORE_DATA_DIR set to the real MNIST's folder for a module (AppTest runs the app in this process):
    a module of AppTest tests marks itself with ``pytestmark = pytest.mark.usefixtures("data_dir")``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NBCORE_DATA_DIR", str(mnist_root))
        yield mnist_root


@pytest.fixture(scope="session")
def prepared_mixtures(mnist_root) -> Path:
    """The Beyond naive results ``prepare`` keeps (the textbook's settings, Deskew off) in mnist_root: read, or
    computed once (about a minute) and kept there for every later run; the folder. CI's streams share mnist_root
    and start together: a lock file lets one of them compute while the others wait, then read."""
    import fcntl

    from nbcore.datasets.mnist import MnistSplits, load_mnist_splits
    from nbcore.prepared.disk import folder_of
    from nbcore.prepared.prepare import mixture_results

    folder = folder_of(mnist_root)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".mixtures.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        splits = MnistSplits(*load_mnist_splits(root=mnist_root, download=False))
        for result in mixture_results(splits):
            result.get(folder)
    return mnist_root


SHARED_SMS = REPO.parent / "shared" / "sms-spam" / "SMSSpamCollection"


def run_nbcore(args: list[str], data_dir: Path, timeout: float = 1200):
    """``python -m nbcore args`` in a fresh process with NBCORE_DATA_DIR=data_dir; the CompletedProcess (text)."""
    import subprocess

    env = {**os.environ, "NBCORE_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "nbcore", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="session")
def prepared_root(mnist_root, tmp_path_factory):
    """A fresh data folder (the four MNIST .gz files and the SMS collection, copied) after one
    ``python -m nbcore prepare --no-download``: ``(folder, that run's CompletedProcess)``."""
    root = tmp_path_factory.mktemp("prepared")
    sources = sorted(Path(mnist_root).glob("*-ubyte.gz")) or sorted((Path(mnist_root) / "MNIST" / "raw").glob("*.gz"))
    require(len(sources) == 4, f"the four MNIST .gz files are not in {mnist_root}")
    sms = Path(mnist_root) / "SMSSpamCollection"
    sms = sms if sms.is_file() else SHARED_SMS
    require(sms.is_file(), f"the SMS Spam Collection is not in {mnist_root} or {SHARED_SMS.parent}")
    for source in [*sources, sms]:
        shutil.copy(source, root / source.name)
    return root, run_nbcore(["prepare", "--no-download"], root)
