"""What the commands write: JSON-safe values for ``--json``, and the progress bar on stderr."""

from __future__ import annotations

import math
import sys


def json_safe(value):
    """``value`` with non-finite floats as null (JSON has no -Infinity), numpy scalars as Python numbers."""
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def stderr_progress_bar(fraction: float, message: str) -> None:
    """Draw ``[#####-----]  50%  message`` on stderr, redrawn in place; newline when done."""
    filled = round(30 * fraction)
    sys.stderr.write(f"\r[{'#' * filled}{'-' * (30 - filled)}] {fraction:4.0%}  {message[:72]:<72}")
    if fraction >= 1:
        sys.stderr.write("\n")
    sys.stderr.flush()
