"""MNIST on disk: find it, verify it, extract it, load it through torchvision.

Layouts understood in the data directory ``root``:

* the four canonical ``*-ubyte.gz`` files side by side in ``root`` (as the
  offline copy in ``shared/mnist`` has them);
* torchvision's own ``root/MNIST/raw`` folder, with ``.gz`` and/or extracted files.

Whatever is found is extracted into ``root/MNIST/raw`` (torchvision's layout)
through a temporary name and an atomic rename (``nbcore.files``), and every extracted file is
checked against the official md5 of its uncompressed content before torchvision
reads it. Only when no copy exists is anything downloaded.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import files as nbfiles
from ..progress import ProgressCallback
from . import default_data_dir, how_to_fix

# Uncompressed file name -> official md5 of its content.
MNIST_MD5 = {
    "train-images-idx3-ubyte": "6bbc9ace898e44ae57da46a324031adb",
    "train-labels-idx1-ubyte": "a25bea736e30d166cdddb491f175f624",
    "t10k-images-idx3-ubyte": "2646ac647ad5339dbf082846283269ea",
    "t10k-labels-idx1-ubyte": "27ae3e4e09519cfbb04c329615203637",
}
SPLIT_FILES = {
    True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}

MNIST_FILES = "the four MNIST *-ubyte.gz files"


class MnistDataError(RuntimeError):
    """MNIST could not be found, verified or read; the message says how to fix it."""


def raw_folder(root: Path) -> Path:
    """Where torchvision's ``MNIST`` looks for the extracted files."""
    return Path(root) / "MNIST" / "raw"


def _fix_hint(root: Path) -> str:
    return how_to_fix(MNIST_FILES, root, delete="it")


def _extract_verified(source_gz: Path, target: Path, expected_md5: str) -> None:
    """Decompress ``source_gz`` to ``target`` atomically, only if the content's md5 matches.

    A bad ``.gz`` (truncated, not gzip, wrong content) says "truncated or corrupted"; a full
    disk or a read-only folder says so (the ``.gz`` is fine then, and is never deleted).
    """

    def decompress(out) -> None:
        digest = hashlib.md5()
        try:
            with nbfiles.open_regular(source_gz) as raw, gzip.open(raw, "rb") as compressed:
                for block in iter(lambda: compressed.read(1 << 20), b""):  # write errors pass up: disk full
                    digest.update(block)
                    out.write(block)
        except nbfiles.FileProblem as error:
            raise MnistDataError(str(error)) from error
        except (EOFError, gzip.BadGzipFile, zlib.error) as error:
            raise MnistDataError(
                f"{source_gz} is truncated or corrupted ({error}). {_fix_hint(source_gz.parent)}"
            ) from error
        if digest.hexdigest() != expected_md5:
            raise MnistDataError(
                f"{source_gz} is not the official MNIST file: the md5 of its content is "
                f"{digest.hexdigest()}, expected {expected_md5}. {_fix_hint(source_gz.parent)}"
            )

    try:
        nbfiles.write_atomically(target, decompress)
    except nbfiles.FileProblem as error:
        raise MnistDataError(f"Could not extract {source_gz.name}: {error}") from error


def _is_verified(path: Path, expected_md5: str) -> bool:
    """Whether ``path`` is a regular file with this md5; False when missing; MnistDataError for odd entries."""
    try:
        with nbfiles.open_regular(path) as handle:
            return hashlib.file_digest(handle, "md5").hexdigest() == expected_md5
    except FileNotFoundError:
        return False
    except OSError as error:
        raise MnistDataError(str(error)) from error


def _ensure_file(root: Path, name: str) -> bool:
    """Make ``raw/name`` exist and verified; False when no copy of it is anywhere in ``root``.

    A wrong extracted file is replaced (atomically) from a ``.gz``; without one it is left
    where it is and named in the error: it may be someone's source file, not ours to delete.
    """
    target = raw_folder(root) / name
    expected = MNIST_MD5[name]
    if _is_verified(target, expected):
        return True
    for candidate in (root / f"{name}.gz", raw_folder(root) / f"{name}.gz"):
        if os.path.lexists(candidate):
            _extract_verified(candidate, target, expected)
            return True
    if os.path.lexists(target):
        raise MnistDataError(f"{target} is not the official MNIST file (wrong md5). {_fix_hint(root)}")
    return False


def ensure_mnist(
    root: str | Path | None = None, download: bool = True, progress: ProgressCallback | None = None
) -> Path:
    """Make the four verified MNIST files available under ``root/MNIST/raw``; return ``root``.

    Downloads through torchvision only when a file has no local copy at all.
    Raises MnistDataError with a fix-it message on any failure.
    """
    root = Path(root) if root is not None else default_data_dir()
    # what killed runs left behind
    nbfiles.remove_stale_temporaries(raw_folder(root), MNIST_MD5)
    nbfiles.remove_stale_temporaries(decoded_cache_path(root, True).parent, ("train.npz", "t10k.npz"))
    names = list(MNIST_MD5)
    for done, name in enumerate(names):
        if progress:
            progress(done / len(names), f"Checking {name}")
        if _ensure_file(root, name):
            continue
        if not download:
            raise MnistDataError(f"{name} is missing from {root}. {how_to_fix(MNIST_FILES, root)}")
        if progress:
            progress(done / len(names), f"Downloading {name}")
        _download_with_torchvision(root, name)
        try:
            found = _ensure_file(root, name)
        except MnistDataError:  # never keep a bad download: the next attempt must fetch it again
            (raw_folder(root) / f"{name}.gz").unlink(missing_ok=True)
            raise
        if not found:
            raise MnistDataError(f"Downloading {name} into {root} did not produce the file.")
    if progress:
        progress(1.0, "All four files verified")
    return root


def _download_with_torchvision(root: Path, name: str) -> None:
    """Fetch ``name.gz`` into ``root/MNIST/raw`` from torchvision's mirrors (prints a progress bar)."""
    try:
        from torchvision.datasets import MNIST
        from torchvision.datasets.utils import download_url
    except ImportError as error:  # the serve image has no torchvision
        raise MnistDataError(
            f"{name} is not in {root}, and downloading it needs torchvision, which is not installed here. "
            f"{how_to_fix(MNIST_FILES, root)}"
        ) from error

    folder = raw_folder(root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise MnistDataError(
            f"Cannot create {folder} ({error.strerror}). Set NBCORE_DATA_DIR to a writable directory."
        ) from error
    errors = []
    for mirror in MNIST.mirrors:
        try:
            download_url(f"{mirror}{name}.gz", root=str(folder), filename=f"{name}.gz")
            return
        except Exception as error:  # network failures come in many types
            (folder / f"{name}.gz").unlink(missing_ok=True)
            errors.append(f"{mirror}: {error}")
    raise MnistDataError(
        f"{name} is not in {root} and could not be downloaded ({'; '.join(errors)}). "
        f"Without a network connection, copy the four MNIST *-ubyte.gz files into {root} "
        "or set NBCORE_DATA_DIR to a folder that has them."
    )


def decoded_cache_path(root: Path, train: bool) -> Path:
    """Where nbcore keeps the arrays torchvision decoded, so that a restart need not import torchvision."""
    return Path(root) / "MNIST" / "nbcore" / f"{'train' if train else 't10k'}.npz"


def _source_md5(train: bool) -> np.ndarray:
    return np.array([MNIST_MD5[name] for name in SPLIT_FILES[train]])


def _decoded_spec(train: bool) -> nbfiles.ArraySpec:
    """The decoded cache's arrays: uint8 images (n, 28, 28), uint8 labels (n,), the source files' md5s."""
    source = _source_md5(train)
    return {
        "images": (np.uint8, (None, 28, 28)),
        "labels": (np.uint8, (None,)),
        "source_md5": (source.dtype, source.shape),
    }


def _decoded_arrays(path: Path, train: bool) -> tuple[np.ndarray, np.ndarray]:
    """The cached arrays, if the file holds exactly what ``_write_decoded`` wrote for these source files.

    FileNotFoundError when there is none, DamagedFileError when it holds anything else, FileProblem (an
    OSError) for an odd entry.
    """
    arrays = nbfiles.read_checked_arrays(path, _decoded_spec(train))
    images, labels = arrays["images"], arrays["labels"]
    if labels.shape != images.shape[:1] or not np.array_equal(arrays["source_md5"], _source_md5(train)):
        raise nbfiles.DamagedFileError("decoded from other files")
    return images, labels


def _read_decoded(path: Path, train: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """The cached arrays; None when there is no cache or it is damaged (removed then, if the folder allows:
    the caller decodes again and rewrites it); MnistDataError when ``path`` is an odd entry."""
    try:
        return _decoded_arrays(path, train)
    except FileNotFoundError:
        return None
    except nbfiles.DamagedFileError:
        nbfiles.discard_damaged(path)
        return None
    except OSError as error:
        raise MnistDataError(str(error)) from error


def read_prepared_splits(root: str | Path | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Both splits as ``prepare`` left them in ``root``, with nothing extracted, decoded, downloaded or written
    (no torchvision): the four extracted files md5-checked and the decoded arrays read and checked.

    Returns (train_images, train_labels, test_images, test_labels) as ``load_mnist_splits`` does; MnistDataError
    naming the first file that is missing or damaged.
    """
    root = Path(root) if root is not None else default_data_dir()
    for name, expected in MNIST_MD5.items():
        path = raw_folder(root) / name
        if not _is_verified(path, expected):
            missing = not os.path.lexists(path)
            raise MnistDataError(f"{path} is {'missing' if missing else 'not the official MNIST file (wrong md5)'}")
    arrays: list[np.ndarray] = []
    for train in (True, False):
        path = decoded_cache_path(root, train)
        try:
            arrays.extend(_decoded_arrays(path, train))
        except FileNotFoundError:
            raise MnistDataError(f"{path} is missing") from None
        except nbfiles.DamagedFileError as error:
            raise MnistDataError(f"{path} is damaged ({error})") from error
        except OSError as error:
            raise MnistDataError(str(error)) from error
    train_images, train_labels, test_images, test_labels = arrays
    return train_images, train_labels, test_images, test_labels


def _write_decoded(path: Path, train: bool, images: np.ndarray, labels: np.ndarray) -> str | None:
    """Best effort: None when written, else why not (a read-only or full disk means decoding at every start)."""
    try:
        nbfiles.write_checked_arrays(path, {"images": images, "labels": labels, "source_md5": _source_md5(train)})
    except OSError as error:
        return str(error)
    return None


def load_mnist(
    train: bool, root: str | Path | None = None, download: bool = True, progress: ProgressCallback | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Load one split with ``torchvision.datasets.MNIST``.

    Returns ``(images, labels)``: uint8 arrays of shape (n, 28, 28) and (n,),
    n = 60,000 for ``train=True`` and 10,000 otherwise. The source files are md5-checked on
    every call; the decoded arrays are kept in ``MNIST/nbcore/*.npz`` (each array checked
    against its stored sha256, see ``nbcore.files``) so that later calls skip importing
    torchvision, which takes seconds; a damaged cache is decoded again and rewritten.
    """
    images, labels = _load((train,), root, download, progress)
    return images, labels


def load_mnist_splits(
    root: str | Path | None = None, download: bool = True, progress: ProgressCallback | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Both splits, the four source files md5-checked once: (train_images, train_labels, test_images, test_labels)."""
    train_images, train_labels, test_images, test_labels = _load((True, False), root, download, progress)
    return train_images, train_labels, test_images, test_labels


CHECKING_SHARE = 0.2  # of the progress bar: finding and verifying the files; decoding takes the rest


def _within(progress: ProgressCallback | None, start: float, end: float) -> ProgressCallback | None:
    """``progress`` with its fractions mapped from [0, 1] into [start, end]."""
    if progress is None:
        return None
    return lambda fraction, message: progress(start + (end - start) * fraction, message)


def _load(
    splits: tuple[bool, ...], root: str | Path | None, download: bool, progress: ProgressCallback | None
) -> tuple[np.ndarray, ...]:
    """Verify the files, then decode each split in turn: (images, labels) per entry of ``splits``, flattened."""
    root = ensure_mnist(root, download=download, progress=_within(progress, 0.0, CHECKING_SHARE))
    share = (1 - CHECKING_SHARE) / len(splits)  # of the bar, per split decoded
    arrays: list[np.ndarray] = []
    for done, train in enumerate(splits):
        start = CHECKING_SHARE + share * done
        arrays.extend(_decode_split(root, train, _within(progress, start, start + share)))
    if progress:
        progress(1.0, "MNIST ready")
    return tuple(arrays)


def _decode_split(root: Path, train: bool, progress: ProgressCallback | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One split's arrays from verified files: the decoded cache, else torchvision (which refills the cache)."""
    cached = _read_decoded(decoded_cache_path(root, train), train)
    if cached is not None:
        return cached
    if progress:
        progress(0.0, f"Decoding the {'training' if train else 'test'} images with torchvision (first start only)")
    try:
        from torchvision.datasets import MNIST
    except ImportError as error:  # the serve image has no torchvision: its data arrives decoded (docs/deploy.md)
        raise MnistDataError(
            f"{decoded_cache_path(root, train)} is missing or damaged, and decoding MNIST again needs torchvision, "
            "which is not installed here: run `python -m nbcore prepare` where it is (the container image's "
            "prepare target), then bring the prepared folder here."
        ) from error
    try:
        dataset = MNIST(str(root), train=train, download=False)
    except Exception as error:  # torchvision raises AssertionError/RuntimeError/ValueError on bad headers
        files = ", ".join(str(raw_folder(root) / name) for name in SPLIT_FILES[train])
        reason = str(error) or type(error).__name__
        raise MnistDataError(
            f"torchvision could not read {files} ({reason}): they are not valid MNIST IDX files. "
            f"{how_to_fix(MNIST_FILES, root, delete='them')}"
        ) from error
    images = dataset.data.numpy().astype(np.uint8, copy=False)
    labels = dataset.targets.numpy().astype(np.uint8)
    _write_decoded(decoded_cache_path(root, train), train, images, labels)
    return images, labels


@dataclass(frozen=True)
class MnistSplits:
    """uint8 images (n, 28, 28) and uint8 labels (n,) of both splits; ``deskewed``: every image sheared upright
    (``nbcore.inputs.InputForm.splits`` made them so), else as published."""

    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    deskewed: bool = False
