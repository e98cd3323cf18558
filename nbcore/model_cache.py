"""Trained softmax weights on disk, keyed by the settings and a checksum of the training data.

One file per (preset, seed, hyperparameters, training data):
``<cache_dir>/softmax-<sha256 of the key>.npz``, ``cache_dir`` defaulting to
``default_data_dir() / "models"``. The file holds ``coef`` float32 (10, n_features),
``intercept`` float32 (10,), ``meta`` (JSON text: the key and the original
``fit_seconds``) and ``payload_md5`` over those three; it is read with
``allow_pickle=False``. A file that cannot be read, fails the checksum, or has
the wrong key, shapes or dtypes counts as corrupt: the model is retrained and
the file rewritten. Files are written to a temporary name and renamed into
place (``os.replace``). When the directory is not writable nothing is cached
and nothing fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from .data import ProgressCallback, default_data_dir
from .softmax import SoftmaxRegression

CACHE_FORMAT = 1  # bump when the file layout or the training code changes what a key means


class CacheFileError(ValueError):
    """A cache file exists but does not hold valid weights for the requested key."""


def training_data_checksum(images, labels) -> str:
    """md5 (hex) of the training data: shapes, dtypes and bytes of images (n, ...) and labels (n,).

    (n, 28, 28) and (n, 784) images give the same checksum. Hashing 60k MNIST images takes ~0.1 s;
    compute it once and pass it to ``load_or_train_softmax(data_checksum=...)`` to skip that.
    """
    images = np.ascontiguousarray(images)
    labels = np.ascontiguousarray(labels)
    flat_shape = (images.shape[0], -1) if images.ndim > 1 else images.shape
    header = f"{images.dtype.str}{images.reshape(flat_shape).shape}|{labels.dtype.str}{labels.shape}"
    digest = hashlib.md5(header.encode())
    digest.update(memoryview(images).cast("B"))
    digest.update(memoryview(labels).cast("B"))
    return digest.hexdigest()


def cache_key(model: SoftmaxRegression, data_checksum: str) -> dict:
    """Everything the fitted weights depend on: format, model parameters, training data."""
    return {"format": CACHE_FORMAT, "model": "softmax", **model.get_params(), "data_md5": data_checksum}


def cache_file(cache_dir: Path, key: dict) -> Path:
    """``cache_dir/softmax-<first 20 hex digits of sha256(key)>.npz``."""
    key_hash = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(cache_dir) / f"softmax-{key_hash}.npz"


def _payload_md5(coef: np.ndarray, intercept: np.ndarray, meta_text: str) -> str:
    digest = hashlib.md5()
    for part in (coef.dtype.str, str(coef.shape), coef.tobytes(), intercept.dtype.str, str(intercept.shape),
                 intercept.tobytes(), meta_text):
        digest.update(part.encode() if isinstance(part, str) else part)
    return digest.hexdigest()


def read_weights(path: Path, key: dict, n_features: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(coef (10, n_features), intercept (10,), fit_seconds) from ``path``.

    FileNotFoundError when there is no file; CacheFileError when it is not valid for ``key``.
    """
    try:
        archive = np.load(path, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise CacheFileError("not an .npz archive")
        with archive:
            coef, intercept = archive["coef"], archive["intercept"]
            meta_text, stored_md5 = str(archive["meta"][()]), str(archive["payload_md5"][()])
    except (FileNotFoundError, CacheFileError):
        raise
    except Exception as error:  # a damaged archive or .npy header fails in many ways (e.g. tokenize.TokenError)
        raise CacheFileError(f"unreadable ({type(error).__name__}: {error})") from error
    if _payload_md5(coef, intercept, meta_text) != stored_md5:
        raise CacheFileError("payload checksum mismatch")
    try:
        meta = json.loads(meta_text)
        fit_seconds = float(meta["fit_seconds"])
    except (ValueError, KeyError, TypeError) as error:
        raise CacheFileError(f"bad metadata ({error})") from error
    if meta.get("key") != key:
        raise CacheFileError("written for other settings or data")
    n_classes = SoftmaxRegression.n_classes
    if coef.shape != (n_classes, n_features) or intercept.shape != (n_classes,):
        raise CacheFileError(f"wrong shapes {coef.shape}, {intercept.shape}")
    if coef.dtype != np.float32 or intercept.dtype != np.float32:
        raise CacheFileError(f"wrong dtypes {coef.dtype}, {intercept.dtype}")
    if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
        raise CacheFileError("non-finite weights")
    return coef, intercept, fit_seconds


def write_weights(path: Path, key: dict, model: SoftmaxRegression, fit_seconds: float) -> None:
    """Write the model's weights to ``path`` atomically (temporary file + os.replace); OSError on failure."""
    meta_text = json.dumps({"key": key, "fit_seconds": fit_seconds}, sort_keys=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, coef=model.coef_, intercept=model.intercept_, meta=np.array(meta_text),
                     payload_md5=np.array(_payload_md5(model.coef_, model.intercept_, meta_text)))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary_name, path)
    finally:
        Path(temporary_name).unlink(missing_ok=True)


def load_or_train_softmax(images, labels, preset: str = "default", seed: int = 0, cache_dir: Path | None = None,
                          progress: ProgressCallback | None = None, data_checksum: str | None = None,
                          **hyperparameters) -> tuple[SoftmaxRegression, dict]:
    """A fitted SoftmaxRegression for this data and these settings, from the disk cache or trained now.

    images: uint8 (n, 28, 28) / (n, 784) or floats in [0, 1]; labels: (n,) in 0..9.
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
    checksum = data_checksum or training_data_checksum(images, labels)
    key = cache_key(model, checksum)
    path = cache_file(Path(cache_dir) if cache_dir is not None else default_data_dir() / "models", key)
    info = {"cache": "miss", "fit_seconds": None, "path": str(path), "saved": False, "error": None}
    try:
        coef, intercept, fit_seconds = read_weights(path, key, n_features)
    except FileNotFoundError:
        pass
    except CacheFileError as error:
        info.update(cache="corrupt", error=f"{path.name}: {error}")
    else:
        model.coef_, model.intercept_, model.n_features_in_ = coef, intercept, n_features
        info.update(cache="hit", fit_seconds=fit_seconds)
        return model, info
    started = time.perf_counter()
    model.fit(images, labels, progress=progress)
    info["fit_seconds"] = time.perf_counter() - started
    try:
        write_weights(path, key, model, info["fit_seconds"])
        info["saved"] = True
    except OSError as error:
        not_saved = f"not cached: cannot write {path} ({error.strerror or error})"
        info["error"] = f"{info['error']}; {not_saved}" if info["error"] else not_saved
    return model, info
