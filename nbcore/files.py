"""Reading and writing nbcore's own files safely: checked arrays, atomic writes, odd entries refused.

Every cache and data file nbcore reads or writes goes through this module:

* ``read_checked_arrays`` opens a ``.npz`` file nbcore wrote (never a directory, FIFO or
  device: those are refused before anything is read), checks every array's dtype and shape
  against what the caller expects and its sha256 against the digest stored beside it in the
  same file. Whatever is wrong with the file (a flipped bit in a header or in the data, a
  truncation, a file that is not a zip) ends as ``DamagedFileError``: the caller rebuilds.
* ``write_atomically`` writes through a temporary name in the target's folder and
  ``os.replace``; the temporary is held under an advisory lock while it is written, so that
  ``remove_stale_temporaries`` (called at the next start) removes only those of killed runs.
  Files get the permissions the umask allows (0666 & ~umask), like any file ``open`` makes.
  A full disk raises ``DiskFullError``; a folder that cannot be written ``NotWritableError``.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import io
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np

TEMPORARY_SUFFIX = ".part"  # every temporary this module makes is ``.<target name>.<random>.part``
DIGESTS_MEMBER = "sha256"  # the .npz member holding the JSON {array name: digest}


class FileProblem(OSError):
    """A file or folder nbcore cannot use; the message is a whole sentence that says how to fix it."""


class DamagedFileError(FileProblem):
    """A file nbcore wrote earlier is damaged or not what it should be; rebuild it."""


class OddEntryError(FileProblem):
    """The path is a directory, FIFO, socket or device (or a link to one): refused without opening it."""


class DiskFullError(FileProblem):
    """The disk (or the user's quota) filled up while writing."""


class NotWritableError(FileProblem):
    """The folder is read-only or belongs to someone else."""


# -- reading ------------------------------------------------------------------------------------
def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _odd_entry(path: Path, mode: int) -> OddEntryError:
    return OddEntryError(
        f"{path} is {_kind(mode)}, not a file; nbcore will not open it. Remove it (or move it away) and start again."
    )


def open_regular(path: Path) -> io.BufferedReader:
    """``path`` opened for binary reading, if it is a regular file (a symlink to one is fine).

    FileNotFoundError when missing; OddEntryError for anything else, decided from ``stat``
    before opening and checked again on the open descriptor (opened non-blocking, so a FIFO
    that appears in between cannot hang the caller); FileProblem for other OSErrors.
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise _odd_entry(path, mode)
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, FileProblem):
        raise
    except OSError as error:
        raise FileProblem(
            f"Cannot read {path} ({error.strerror}). Check that the user running "
            "nbcore may read it, or point NBCORE_DATA_DIR at a folder it may read."
        ) from error
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise _odd_entry(path, mode)
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def array_digest(array: np.ndarray) -> str:
    """sha256 (hex) over dtype, shape and bytes: equal digests mean identical arrays."""
    array = np.ascontiguousarray(array)
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(array.reshape(-1).view(np.uint8).data)  # the bytes, without a copy; empty and 0-d arrays too
    return digest.hexdigest()


# name -> (dtype, shape); None in a shape stands for any length along that axis
ArraySpec = Mapping[str, tuple["np.typing.DTypeLike", tuple[int | None, ...]]]


def read_checked_arrays_from(handle: BinaryIO, spec: ArraySpec) -> dict[str, np.ndarray]:
    """The arrays ``spec`` names, from an open ``.npz`` written by ``write_checked_arrays``.

    Raises DamagedFileError (without a fix-it sentence: the caller knows what to rebuild)
    when the file is not such an archive, an array is missing, has another dtype or shape
    than ``spec`` says, or differs from its stored digest.
    """
    try:
        with np.load(handle, allow_pickle=False) as archive:
            digests = json.loads(str(archive[DIGESTS_MEMBER][()]))
            arrays = {name: archive[name] for name in spec}
    except Exception as error:  # a damaged .npy header or zip fails in many ways (tokenize.TokenError, ...)
        raise DamagedFileError(f"unreadable ({type(error).__name__})") from error
    if not isinstance(digests, dict):
        raise DamagedFileError("no digests")
    for name, (dtype, shape) in spec.items():
        array = arrays[name]
        if (
            array.dtype != np.dtype(dtype)
            or len(array.shape) != len(shape)
            or any(want is not None and have != want for have, want in zip(array.shape, shape))
        ):
            raise DamagedFileError(f"{name} is {array.dtype} {array.shape}, expected {np.dtype(dtype)} {shape}")
        if digests.get(name) != array_digest(array):
            raise DamagedFileError(f"{name} differs from its stored digest")
    return arrays


def read_checked_arrays(path: Path, spec: ArraySpec) -> dict[str, np.ndarray]:
    """``read_checked_arrays_from`` on ``path``: FileNotFoundError, OddEntryError, FileProblem, DamagedFileError."""
    with open_regular(path) as handle:
        return read_checked_arrays_from(handle, spec)


def discard_damaged(path: Path) -> bool:
    """Remove a damaged file nbcore made (never a source file); False when it cannot (read-only folder)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        os.unlink(path)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


# -- writing ------------------------------------------------------------------------------------
def current_umask() -> int:
    """The process umask, read without changing it (Linux /proc; else the usual 0o022)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_problem(error: OSError, folder: Path) -> FileProblem:
    """The fix-it sentence for an OSError met while writing into ``folder``."""
    if isinstance(error, FileProblem):
        return error
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFullError(
            f"The disk holding {folder} is full ({error.strerror}). Free some space there, "
            "or point NBCORE_DATA_DIR at a folder on a disk with room, and start again."
        )
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return NotWritableError(
            f"Cannot write to {folder} ({error.strerror}). Make it writable for the user "
            "running nbcore, or point NBCORE_DATA_DIR at a writable folder."
        )
    return FileProblem(
        f"Writing in {folder} failed ({error.strerror or error}). Check the disk and the folder, "
        "or point NBCORE_DATA_DIR at another folder."
    )


def _locked_temporary(path: Path) -> tuple[BinaryIO, Path]:
    """A new temporary beside ``path``, open for writing and locked (the lock marks it as in use)."""
    while True:
        descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent)
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        if os.fstat(descriptor).st_nlink:  # else a clean-up took it between mkstemp and flock: make another
            return os.fdopen(descriptor, "wb"), Path(name)
        os.close(descriptor)


def write_atomically(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write(file)`` on a locked temporary beside ``path``, then rename it to ``path``.

    The file ends with mode 0666 & ~umask. On any failure the temporary is removed and
    ``path`` is untouched; OSErrors of the disk or folder become DiskFullError /
    NotWritableError / FileProblem; other exceptions of ``write`` pass through unchanged.
    """
    path = Path(path)
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        out, temporary = _locked_temporary(path)
        with out:
            os.fchmod(out.fileno(), 0o666 & ~current_umask())
            write(out)
            out.flush()
            os.fsync(out.fileno())
            os.replace(temporary, path)  # before closing, so the lock covers the whole life of the name
            temporary = None
    except OSError as error:
        raise write_problem(error, path.parent) from error
    finally:
        if temporary is not None:
            temporary.unlink(missing_ok=True)


def write_checked_arrays(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` as an uncompressed ``.npz`` with their digests, atomically (``write_atomically``)."""
    digests = json.dumps({name: array_digest(array) for name, array in arrays.items()}, sort_keys=True)
    members = {**arrays, DIGESTS_MEMBER: np.array(digests)}
    write_atomically(path, lambda out: np.savez(out, allow_pickle=False, **members))


def remove_stale_temporaries(folder: Path, targets: Iterable[str]) -> int:
    """Remove the temporaries killed runs left in ``folder`` for these target names (glob patterns).

    Only ``.<target>.<random>.part`` files are candidates (what ``write_atomically`` makes, never
    another program's file), and one whose writer is alive holds its lock and is left alone.
    Returns how many were removed.
    """
    removed = 0
    try:
        candidates = [
            entry
            for target in targets
            for entry in Path(folder).glob(f".{target}.*{TEMPORARY_SUFFIX}")
            if entry.is_file()
        ]
    except OSError:
        return 0
    for candidate in candidates:
        try:
            descriptor = os.open(candidate, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                continue
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            candidate.unlink()
            removed += 1
        except OSError:  # in use by a live writer, or the folder is read-only
            continue
        finally:
            os.close(descriptor)
    return removed
