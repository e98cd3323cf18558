"""Data sets: where they live on disk, how they are verified and loaded (MNIST, the SMS collection, iris)."""

from __future__ import annotations

import os
from pathlib import Path


def default_data_dir() -> Path:
    """``$NBCORE_DATA_DIR`` if set, else a per-user cache directory."""
    configured = os.environ.get("NBCORE_DATA_DIR")
    if configured:
        return Path(configured).expanduser()
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "nbcore"


def how_to_fix(files: str, root: Path, plural: bool = True, delete: str = "") -> str:
    """The fix-it sentence of a data error: where to put ``files`` (e.g. "the four MNIST *-ubyte.gz files").

    ``plural``: ``files`` names several files; ``delete``: what was found and must go first ("it", "them").
    """
    put = f"Delete {delete} and put" if delete else "Put"
    them = "them" if plural else "it"
    return (
        f"{put} {files} in {root} (or let the app download {them}), "
        f"or point NBCORE_DATA_DIR at a folder that has {them}."
    )
