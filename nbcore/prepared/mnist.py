"""MNIST for the command line and the benchmarks: both splits as published and deskewed, once per process."""

from __future__ import annotations

from functools import lru_cache

from ..datasets.mnist import MnistSplits, load_mnist_splits
from ..progress import ProgressCallback
from .results import DeskewedMnist


@lru_cache(maxsize=1)
def mnist_splits() -> MnistSplits:
    """Both splits from the default data directory, loaded once per process."""
    return MnistSplits(*load_mnist_splits())


def deskewed_splits(progress: ProgressCallback | None = None) -> MnistSplits:
    """``mnist_splits()`` as the models see them with deskew on (``nbcore.inputs``), once per process: read from
    what ``python -m nbcore prepare`` kept in the data directory, else made now (about 10 s) and kept there;
    ``progress(fraction, message)`` while deskewing."""
    if not _DESKEWED:
        _DESKEWED.append(DeskewedMnist(mnist_splits()).get(progress=progress).value)
    return _DESKEWED[0]


_DESKEWED: list[MnistSplits] = []  # deskewed_splits()'s, made once per process
