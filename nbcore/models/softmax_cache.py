"""Trained softmax weights on disk, keyed by the settings and a checksum of the training data.

One file per (preset, seed, hyperparameters, training data):
``<cache_dir>/softmax-<sha256 of the key>.npz``, ``cache_dir`` defaulting to
``default_data_dir() / "models"``. The file holds ``coef`` float32 (n_classes, n_features),
``intercept`` float32 (n_classes,) (the classes are the sorted labels of the training data,
which the key's checksum pins), ``meta`` (UTF-8 JSON bytes: the key and the original
``fit_seconds``) and the sha256 of each (``nbcore.files.write_checked_arrays``); it is
read with ``allow_pickle=False``. A file that cannot be read, fails a digest, or has the
wrong key, shapes or dtypes counts as corrupt: the model is retrained and the file
rewritten. Files are written to a temporary name and renamed into place. When the
directory is not writable or the disk is full nothing is cached and nothing fails; a
directory, FIFO or device in the file's place is never opened (the model is trained).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from .. import files as nbfiles
from ..datasets import default_data_dir
from ..progress import ProgressCallback
from .softmax import SoftmaxRegression

CACHE_FORMAT = 2  # bump when the file layout or the training code changes what a key means


class CacheFileError(ValueError):
    """A cache file exists but does not hold valid weights for the requested key."""


# (id(images), id(labels)) -> (weak references to both, checksum), for read-only arrays only
_checksums: OrderedDict[tuple[int, int], tuple[weakref.ref, weakref.ref, str]] = OrderedDict()
_checksums_lock = threading.Lock()
REMEMBERED_CHECKSUMS = 16


def _read_only(array) -> bool:
    """Whether ``array`` is a read-only ndarray, as what a server shares is (``lab.caching.read_only``)."""
    return isinstance(array, np.ndarray) and not array.flags.writeable


def training_data_checksum(images, labels) -> str:
    """md5 (hex) of the training data: shapes, dtypes and bytes of images (n, ...) and labels (n,).

    (n, 28, 28) and (n, 784) images give the same checksum. Hashing 60k MNIST images takes ~0.1 s: for
    read-only arrays (what a server shares, and no one changes) it is computed once per pair of arrays and
    remembered.
    """
    remember = _read_only(images) and _read_only(labels)
    if remember:
        with _checksums_lock:
            known = _checksums.get((id(images), id(labels)))
        if known is not None and known[0]() is images and known[1]() is labels:
            return known[2]
    checksum = _checksum(images, labels)
    if remember:
        with _checksums_lock:
            _checksums[(id(images), id(labels))] = (weakref.ref(images), weakref.ref(labels), checksum)
            while len(_checksums) > REMEMBERED_CHECKSUMS:
                _checksums.popitem(last=False)
    return checksum


def _checksum(images, labels) -> str:
    images = np.ascontiguousarray(images)
    labels = np.ascontiguousarray(labels)
    flat_shape = (images.shape[0], -1) if images.ndim > 1 else images.shape
    header = f"{images.dtype.str}{images.reshape(flat_shape).shape}|{labels.dtype.str}{labels.shape}"
    digest = hashlib.md5(header.encode())
    digest.update(memoryview(images).cast("B"))
    digest.update(memoryview(labels).cast("B"))
    return digest.hexdigest()


def cache_key(model: SoftmaxRegression, data_checksum: str) -> dict:
    """Everything the fitted weights depend on: format, preset, seed, every resolved hyperparameter (a value
    given and the preset's same value make one key), training data. ValueError for bad parameters."""
    settings = asdict(model.resolved_settings())
    return {
        "format": CACHE_FORMAT,
        "model": "softmax",
        "preset": model.preset,
        "seed": int(model.seed),
        **settings,
        "data_md5": data_checksum,
    }


def cache_file(cache_dir: Path, key: dict) -> Path:
    """``cache_dir/softmax-<first 20 hex digits of sha256(key)>.npz``."""
    key_hash = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(cache_dir) / f"softmax-{key_hash}.npz"


def _weights_spec(n_classes: int, n_features: int) -> nbfiles.ArraySpec:
    return {
        "coef": (np.float32, (n_classes, n_features)),
        "intercept": (np.float32, (n_classes,)),
        "meta": (np.uint8, (None,)),
    }


def read_weights(path: Path, key: dict, n_classes: int, n_features: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(coef (n_classes, n_features), intercept (n_classes,), fit_seconds) from ``path``.

    FileNotFoundError when there is no file; CacheFileError when it is not valid for ``key``
    (damaged: see ``nbcore.files.read_checked_arrays``); other OSErrors (an odd entry, no
    permission) as ``nbcore.files.FileProblem`` with a fix-it sentence.
    """
    try:
        arrays = nbfiles.read_checked_arrays(path, _weights_spec(n_classes, n_features))
    except nbfiles.DamagedFileError as error:
        raise CacheFileError(str(error)) from error
    try:
        meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
        fit_seconds = float(meta["fit_seconds"])
        stored_key = meta["key"]
    except (ValueError, KeyError, TypeError) as error:
        raise CacheFileError(f"bad metadata ({error})") from error
    if stored_key != key:
        raise CacheFileError("written for other settings or data")
    coef, intercept = arrays["coef"], arrays["intercept"]
    if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
        raise CacheFileError("non-finite weights")
    return coef, intercept, fit_seconds


def write_weights(path: Path, key: dict, model: SoftmaxRegression, fit_seconds: float) -> None:
    """Write the model's weights to ``path`` atomically (``nbcore.files``); FileProblem (an OSError) on failure."""
    meta_text = json.dumps({"key": key, "fit_seconds": fit_seconds}, sort_keys=True)
    nbfiles.write_checked_arrays(
        path,
        {
            "coef": model.coef_,
            "intercept": model.intercept_,
            "meta": np.frombuffer(meta_text.encode("utf-8"), dtype=np.uint8),
        },
    )


def load_or_train_softmax(
    images,
    labels,
    preset: str = "default",
    seed: int = 0,
    cache_dir: Path | None = None,
    progress: ProgressCallback | None = None,
    data_checksum: str | None = None,
    **hyperparameters,
) -> tuple[SoftmaxRegression, dict]:
    """A fitted SoftmaxRegression for this data and these settings, from the disk cache or trained now.

    images: uint8 (n, 28, 28) / (n, 784) or floats in [0, 1]; labels: (n,), two classes or more.
    ``hyperparameters`` override fields of the preset (see ``SoftmaxSettings``); ``progress``
    is only called when training; ``data_checksum``: ``training_data_checksum(images, labels)``
    if already computed (trusted as is). Returns ``(model, info)``, info a dict with:
    ``cache`` "hit" (loaded, not trained), "miss" (no file: trained) or "corrupt" (bad file:
    trained); ``fit_seconds`` of the training that produced the weights (for a hit: the
    original one, read from the file); ``path`` of the cache file; ``saved`` whether the
    weights were written now; ``error`` why the file was corrupt or could not be written, else None.
    """
    model = SoftmaxRegression(preset, seed, **hyperparameters)
    images = np.asarray(images)
    n_features = int(np.prod(images.shape[1:])) if images.ndim > 1 else 0
    classes = np.unique(labels)
    checksum = data_checksum or training_data_checksum(images, labels)
    key = cache_key(model, checksum)
    path = cache_file(Path(cache_dir) if cache_dir is not None else default_data_dir() / "models", key)
    info: dict[str, Any] = {"cache": "miss", "fit_seconds": None, "path": str(path), "saved": False, "error": None}
    leave_in_place = False  # an odd entry or an unreadable file nbcore may not have made
    nbfiles.remove_stale_temporaries(path.parent, ("softmax-*.npz",))
    try:
        coef, intercept, fit_seconds = read_weights(path, key, len(classes), n_features)
    except FileNotFoundError:
        pass
    except CacheFileError as error:
        info.update(cache="corrupt", error=f"{path.name}: {error}")
    except OSError as error:  # an odd entry or no permission: train, and say why the file was not used
        info.update(cache="corrupt", error=str(error))
        leave_in_place = True
    else:
        model.classes_, model.coef_, model.intercept_, model.n_features_in_ = classes, coef, intercept, n_features
        info.update(cache="hit", fit_seconds=fit_seconds)
        return model, info
    started = time.perf_counter()
    model.fit(images, labels, progress=progress)
    info["fit_seconds"] = time.perf_counter() - started
    if leave_in_place:
        return model, info
    try:
        write_weights(path, key, model, info["fit_seconds"])
        info["saved"] = True
    except OSError as error:  # nbcore.files.FileProblem: disk full, read-only folder, ...
        not_saved = f"not cached: {error}"
        info["error"] = f"{info['error']}; {not_saved}" if info["error"] else not_saved
    return model, info
