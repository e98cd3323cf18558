"""The progress callback every long-running nbcore step accepts."""

from __future__ import annotations

from collections.abc import Callable

# progress(fraction in [0, 1], message) -> None
ProgressCallback = Callable[[float, str], None]
