"""MNIST for every MNIST page: both splits as published and as the models see them, and naive Bayes' features.

"As the models see them" is ``nbcore.inputs.InputForm``: deskewed when the setting is on (read from what
``python -m nbcore prepare`` left in the data folder, else made once per server, about 10 s, behind a progress
bar in the sidebar), then binarized at the threshold for naive Bayes.

The server's start-up hook (``lab/startup.py``) calls ``prefetch`` so that both splits load while Streamlit boots
and the first browser loads the page; the first script run takes that load (``take_prefetched``) instead of
starting another, and shows the loader's progress while it waits. Under AppTest, or when no server started one,
nothing is prefetched: the first run starts the same kind of background job itself and waits for it the same way.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import nbcore
from lab.caching import background, shared
from lab.data import data_dir, without_data_dir
from lab.i18n import N_
from lab.jobs import BackgroundJob, ProgressCallback
from lab.model_settings import THRESHOLDS
from nbcore.datasets.mnist import MnistSplits
from nbcore.inputs import InputForm
from nbcore.prepared.disk import folder_of
from nbcore.prepared.results import DeskewedMnist


@dataclass(frozen=True)
class Features:
    """Naive Bayes' features of both splits for one input form: 0/1 uint8 (n, 784), and packed for fast scoring."""

    form: InputForm
    train: np.ndarray
    test: np.ndarray
    train_packed: nbcore.PackedBinary
    test_packed: nbcore.PackedBinary


# Said after the reason on every page when MNIST is not available: what whoever runs the server can do about it,
# never the folder itself (the Spam filter page says it the same way).
WHAT_TO_SET = (
    "The data folder is the one `NBCORE_DATA_DIR` names (`~/.cache/nbcore` when it is not set); the server's log "
    "names it. Whoever runs the server: set `NBCORE_DATA_DIR` to a folder holding the four MNIST `*-ubyte.gz` files "
    "and restart the server, or run `python -m nbcore prepare` once on the server with a network connection "
    "(it downloads MNIST into the data folder and prepares what the pages need)."
)


class MnistPrefetch(BackgroundJob):
    """The start-up load of both MNIST splits; ``data_dir`` is known once its thread has looked it up."""

    def __init__(self) -> None:
        super().__init__(self._load)
        self.data_dir: str | None = None
        self.data_dir_known = threading.Event()

    def _load(self, progress: ProgressCallback) -> tuple:
        """(train_images, train_labels, test_images, test_labels) from ``$NBCORE_DATA_DIR`` or the default folder."""
        try:
            self.data_dir = str(nbcore.default_data_dir())
        finally:
            self.data_dir_known.set()
        return nbcore.load_mnist_splits(root=self.data_dir, progress=progress)


_pending: list[MnistPrefetch] = []
_pending_lock = threading.Lock()


def prefetch() -> MnistPrefetch:
    """Start loading MNIST from ``$NBCORE_DATA_DIR`` (or the default folder) for the first script run to take."""
    job = MnistPrefetch()
    with _pending_lock:
        _pending.append(job)
    job.start("nbcore-prefetch")
    return job


def take_prefetched(folder: str) -> MnistPrefetch | None:
    """The start-up load of ``folder`` if one was started and not taken yet (each is taken once)."""
    with _pending_lock:
        job = _pending.pop() if _pending else None
    if job is None:
        return None
    job.data_dir_known.wait()  # set within a fraction of a second of the thread's start
    return job if job.data_dir == folder else None


@background(N_("Preparing MNIST"), "nbcore-load", stop_on=(nbcore.MnistDataError, N_("MNIST is not available.")))
def _published(folder: str, progress) -> MnistSplits:
    """Both splits from ``folder``: the load begun at start-up (app.py's lifespan) if it is of this folder, else a
    new one."""
    try:
        prefetched = take_prefetched(folder)
        if prefetched is not None:
            prefetched.wait(progress)
            return MnistSplits(*prefetched.future.result())
        return MnistSplits(*nbcore.load_mnist_splits(root=Path(folder), progress=progress))
    except nbcore.MnistDataError as error:  # shown to every visitor: what to set, not where the server keeps its files
        raise nbcore.MnistDataError(f"{without_data_dir(error, folder)} {WHAT_TO_SET}") from error


@background(N_("Deskewing MNIST"), "nbcore-deskew", in_sidebar=True)
def _deskewed(folder: str, progress) -> MnistSplits:
    """Both splits as the models see them with deskew on (labels as published): kept in ``folder`` by
    ``python -m nbcore prepare``, else made now and kept there."""
    return DeskewedMnist(_published.result(folder)).get(folder_of(folder), progress).value


def splits(deskew: bool = False) -> MnistSplits:
    """Both MNIST splits as the models of this deskew setting learn from and are tested on (``InputForm.splits``;
    as published when ``deskew`` is off), the one way a page or the frame gets MNIST. Loaded (and deskewed) once
    per server, behind a progress bar while that takes a while (deskewing's in the sidebar); a clear stop on errors.
    """
    published = _published(data_dir())
    return _deskewed(data_dir()) if deskew else published


def loaded(deskew: bool = False) -> MnistSplits:
    """``splits(deskew)`` for the cached functions of ``lab/data``, without a progress bar (a page or the frame has
    waited for it behind one; else this waits silently)."""
    return _deskewed.result(data_dir()) if deskew else _published.result(data_dir())


@shared(N_("Binarizing MNIST…"), max_entries=2 * len(THRESHOLDS))
def features(form: InputForm) -> Features:
    """Naive Bayes' features of both splits in ``form``, made once per server and form."""
    train, test = form.split_features(loaded(form.deskew))
    return Features(form, train, test, nbcore.PackedBinary.from_dense(train), nbcore.PackedBinary.from_dense(test))
