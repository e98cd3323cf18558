"""A class's drawings as the class's model reads them: checked arrays, from a ``.npz`` file or from scikit-learn's
``load_digits`` sent through the Draw page's upload path."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..files import FileProblem, open_regular
from ..handwriting import load_handwriting, through_upload_path
from ..progress import ProgressCallback

FRAME_SHAPE = (28, 28)
MAX_DRAWINGS = 200_000  # about 160 MB of frames: far above a class, far below what a server can hold
REQUIRED_ARRAYS = ("frames", "labels", "students")


def join_words(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c": how a sentence lists ``items``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


@dataclass(frozen=True)
class ClassDrawings:
    """A class's drawings, checked: ``frames`` uint8 (n, 28, 28), ``labels`` int64 (n,) digits 0-9,
    ``students`` (n,) one anonymous id per drawing (integers or strings)."""

    frames: np.ndarray
    labels: np.ndarray
    students: np.ndarray


def check_drawings(frames, labels, students) -> ClassDrawings:
    """The three arrays as ``ClassDrawings``, else ValueError with a sentence saying what is wrong."""
    frames, labels, students = np.asarray(frames), np.asarray(labels), np.asarray(students)
    if frames.dtype != np.uint8 or frames.ndim != 3 or frames.shape[1:] != FRAME_SHAPE:
        raise ValueError(
            f"frames must be uint8 (n, 28, 28) images framed like MNIST, got {frames.dtype} {frames.shape}"
        )
    if labels.ndim != 1 or labels.dtype.kind not in "iu":
        raise ValueError(
            f"labels must be integers (n,), the digit each drawing means, got {labels.dtype} {labels.shape}"
        )
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"labels must be digits 0 to 9, found {int(labels.min())}..{int(labels.max())}")
    if students.ndim != 1 or students.dtype.kind not in "iuU":
        raise ValueError(
            f"students must be integer or text ids (n,), one per drawing, got {students.dtype} {students.shape}"
        )
    if not len(frames) == len(labels) == len(students):
        raise ValueError(
            f"frames, labels and students must have one entry per drawing: got {len(frames)}, "
            f"{len(labels)} and {len(students)}"
        )
    return ClassDrawings(frames, labels.astype(np.int64), students)


def load_drawings(path) -> ClassDrawings:
    """A class's drawings from a ``.npz`` holding ``frames``, ``labels`` and ``students`` (see ``check_drawings``).

    Never unpickles (object arrays are refused). Raises ValueError with a sentence for a missing, odd,
    damaged or too large file, or arrays of the wrong kind.
    """
    try:
        with open_regular(Path(path)) as handle:
            with zipfile.ZipFile(handle) as archive:
                members = {info.filename.removesuffix(".npy"): info for info in archive.infolist()}
                missing = [name for name in REQUIRED_ARRAYS if name not in members]
                if missing:
                    raise ValueError(
                        f"{path} has no {join_words(missing)} array: it must hold frames, labels and students "
                        "(numpy.savez(path, frames=..., labels=..., students=...))"
                    )
                # declared sizes bound what reading decompresses (zipfile stops at them), so a small file
                # cannot unpack into gigabytes
                limit = MAX_DRAWINGS * (28 * 28 + 2 * 64)
                if sum(members[name].file_size for name in REQUIRED_ARRAYS) > limit:
                    raise ValueError(f"{path} is too large: at most {MAX_DRAWINGS:,} drawings")
                handle.seek(0)
                with np.load(handle, allow_pickle=False) as arrays:
                    loaded = [arrays[name] for name in REQUIRED_ARRAYS]
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except FileProblem as error:
        raise ValueError(str(error)) from None
    except ValueError as error:
        if "allow_pickle" in str(error):
            raise ValueError(f"{path} holds Python objects; only plain numeric or text arrays are read") from None
        if str(error).startswith(str(path)):
            raise
        raise ValueError(f"{path} is not a readable .npz file ({error})") from None
    except Exception as error:  # a damaged zip or .npy header fails in many ways (BadZipFile, EOFError, ...)
        raise ValueError(f"{path} is not a readable .npz file ({type(error).__name__})") from None
    return check_drawings(*loaded)


def load_digits_class(
    n_students: int = 20, limit: int | None = None, progress: ProgressCallback | None = None
) -> ClassDrawings:
    """scikit-learn's ``load_digits()`` as a class of ``n_students`` (contiguous blocks), sent through the Draw
    page's upload path as PNGs (``nbcore.handwriting``), deskew off; the first ``limit`` digits."""
    images, labels = load_handwriting(limit)
    if progress is not None:
        progress(0.0, f"{len(labels):,} load_digits images through the upload path")
    frames = through_upload_path(images, "light on dark").frames
    if progress is not None:
        progress(1.0, "done")
    students = np.arange(len(labels)) * n_students // max(1, len(labels))
    return check_drawings(frames, labels, students)
