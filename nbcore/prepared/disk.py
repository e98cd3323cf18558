"""The prepared results' files: one checked ``.npz`` per result in ``<data folder>/prepared/``, read when it holds
the result for its key, else computed and written.

One file per result: ``prepared/<name>-<first 20 hex digits of sha256(key)>.npz``, written by
``nbcore.files.write_checked_arrays`` (atomically, a sha256 per array) and read with ``allow_pickle=False``.
It holds the result's arrays and ``meta`` (UTF-8 JSON: the key). The key names everything the result depends
on: ``FORMAT``, the result's parameters, and the md5 of the data it was computed from. A file that cannot be
read, fails a digest, holds another key, shape or dtype, or holds NaN or +inf is damaged: the result is computed
again and the file rewritten (``Outcome`` says why). A directory, FIFO or device in the file's place is never
opened; a folder that cannot be written keeps nothing and fails nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from .. import files as nbfiles
from ..datasets import default_data_dir

FORMAT = 1  # bump when a file's layout or the code that computes a result changes what a key means
FOLDER = "prepared"
LOG = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome:
    """What happened to one prepared result: ``status`` "loaded" (from its file), "built" (no file: computed and
    written), "rebuilt" (a damaged file: computed and rewritten), "computed" (not written: the folder or
    disk refused, or an odd entry is in the file's place), "missing" (data that could not be had) or, from
    ``prepare --check`` (which computes nothing), "unprepared" (no file, or a damaged one);
    ``seconds`` it took; ``problem`` why a file was not used or written, or what to do."""

    title: str
    path: Path
    status: str
    seconds: float
    problem: str | None = None

    def message(self) -> str:
        """One line for a person: what it is, what happened, how long it took, and any problem."""
        verbs = {
            "loaded": "already prepared, loaded",
            "built": "computed and saved",
            "rebuilt": "was damaged, computed again and saved",
            "computed": "computed, not saved",
            "missing": "not available",
            "unprepared": "not prepared",
        }
        if self.status in ("missing", "unprepared"):
            return f"{self.title}: {verbs[self.status]}: {self.problem}"
        line = f"{self.title}: {verbs[self.status]} in {self.seconds:.1f} s ({self.path.name})"
        return f"{line}: {self.problem}" if self.problem else line


@dataclass(frozen=True)
class Stored(Generic[T]):
    """A result and what happened to its file."""

    value: T
    outcome: Outcome


def folder_of(data_dir: Path | str | None = None) -> Path:
    """Where the results of ``data_dir`` (default: ``default_data_dir()``) are kept."""
    return Path(data_dir if data_dir is not None else default_data_dir()) / FOLDER


def result_path(folder: Path, name: str, key: Mapping) -> Path:
    """``folder/<name>-<first 20 hex digits of sha256(key as sorted JSON)>.npz``."""
    key_hash = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(folder) / f"{name}-{key_hash}.npz"


def _read(path: Path, key: Mapping, spec: nbfiles.ArraySpec) -> dict[str, np.ndarray]:
    """The arrays of ``path`` if it holds exactly ``key``'s result; FileNotFoundError, DamagedFileError, FileProblem."""
    arrays = nbfiles.read_checked_arrays(path, {**spec, "meta": (np.uint8, (None,))})
    try:
        stored_key = json.loads(arrays.pop("meta").tobytes().decode("utf-8"))["key"]
    except (ValueError, KeyError, TypeError) as error:
        raise nbfiles.DamagedFileError(f"bad metadata ({type(error).__name__})") from error
    if stored_key != json.loads(json.dumps(key)):  # compared as JSON gives it back: tuples as lists
        raise nbfiles.DamagedFileError("written for other settings or data")
    for name, array in arrays.items():
        if array.dtype.kind == "f" and not np.all(np.isfinite(array) | np.isneginf(array)):
            raise nbfiles.DamagedFileError(f"{name} holds NaN or +inf")
    return arrays


def read_stored(
    title: str, name: str, key: Mapping, spec: nbfiles.ArraySpec, folder: Path | None = None
) -> Stored[dict[str, np.ndarray] | None]:
    """The arrays of one result read from its file, never computed, written or removed (``prepare --check``):
    None and the outcome "unprepared", its problem saying why, when the file does not hold ``key``'s result."""
    folder = folder_of() if folder is None else Path(folder)
    path = result_path(folder, name, key)
    started = time.perf_counter()
    try:
        arrays = _read(path, key, spec)
    except FileNotFoundError:
        problem = f"{path} is missing"
    except nbfiles.DamagedFileError as error:
        problem = f"{path} is damaged ({error})"
    except OSError as error:  # an odd entry or no permission (FileProblem: its sentence names the path)
        problem = str(error)
    else:
        return Stored(arrays, Outcome(title, path, "loaded", time.perf_counter() - started))
    return Stored(None, Outcome(title, path, "unprepared", time.perf_counter() - started, problem))


def load_or_build(
    title: str,
    name: str,
    key: Mapping,
    spec: nbfiles.ArraySpec,
    build: Callable[[], Mapping[str, np.ndarray]],
    folder: Path | None = None,
) -> Stored[dict[str, np.ndarray]]:
    """The arrays of one result: read from its file when it holds them for ``key``, else ``build()`` and write them.

    ``spec`` names the arrays (dtype, shape; None for any length) as ``nbcore.files.read_checked_arrays``
    does; ``build`` must return arrays of that spec. ``title`` names the result in messages. NaN and +inf
    are damage (-inf is a valid log-likelihood).
    """
    folder = folder_of() if folder is None else Path(folder)
    path = result_path(folder, name, key)
    started = time.perf_counter()
    nbfiles.remove_stale_temporaries(folder, (f"{name}-*.npz",))
    problem, status, leave_in_place = None, "built", False
    try:
        arrays = _read(path, key, spec)
    except FileNotFoundError:
        pass
    except nbfiles.DamagedFileError as error:
        problem, status = str(error), "rebuilt"
        LOG.warning("%s: %s is damaged (%s); computing it again", title, path, error)
    except OSError as error:  # an odd entry or no permission: compute, leave the entry alone, say why
        problem, status, leave_in_place = str(error), "computed", True
        LOG.warning("%s: %s", title, error)
    else:
        return Stored(arrays, Outcome(title, path, "loaded", time.perf_counter() - started))
    arrays = {name: np.asarray(array) for name, array in build().items()}
    if not leave_in_place:
        meta = json.dumps({"key": key}, sort_keys=True).encode("utf-8")
        try:
            nbfiles.write_checked_arrays(path, {**arrays, "meta": np.frombuffer(meta, dtype=np.uint8)})
        except OSError as error:  # nbcore.files.FileProblem: disk full, read-only folder, ...
            not_saved = f"not saved: {error}"
            problem, status = (f"{problem}; {not_saved}" if problem else not_saved), "computed"
            LOG.warning("%s: %s", title, not_saved)
    return Stored(arrays, Outcome(title, path, status, time.perf_counter() - started, problem))
