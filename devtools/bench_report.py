"""The benchmarks' figures and tables: medians and 95th percentiles, Markdown tables, the load average.

Used by devtools/class_store_bench.py and devtools/pace_bench.py (which print their tables for
docs/benchmarks-class-store.md).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

import numpy as np


def median_p95(values: Sequence[float]) -> tuple[float, float]:
    """(median, 95th percentile, linear interpolation) of ``values``; (nan, nan) when there are none."""
    if len(values) == 0:
        return float("nan"), float("nan")
    array = np.asarray(values, dtype=float)
    return float(np.median(array)), float(np.percentile(array, 95))


def ms(seconds: Sequence[float], digits: int = 1, unit: float = 1.0) -> str:
    """'median / p95' of durations, in milliseconds; ``unit``: seconds per value given (1e-3 for milliseconds)."""
    median, p95 = median_p95(seconds)
    return f"{median * unit * 1000:.{digits}f} / {p95 * unit * 1000:.{digits}f}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[bool] = ()) -> str:
    """A Markdown table; ``right[i]``: column i is right-aligned (numbers)."""
    if any(len(row) != len(headers) for row in rows):
        raise ValueError(f"every row needs {len(headers)} cells")
    align = ["---:" if i < len(right) and right[i] else "---" for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def load() -> float:
    """The 1-minute load average (the machine is shared: each table says what it was)."""
    return os.getloadavg()[0]


def say(text: str) -> None:
    print(text, flush=True)


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]], limits: str) -> None:
    """A titled Markdown table (first column text, the others numbers) and a sentence on what limits it."""
    say(f"\n### {title}\n")
    say(markdown_table(headers, rows, right=[False] + [True] * (len(headers) - 1)))
    say(f"\nWhat limits these figures: {limits}\n")


def positive_int(text: str) -> int:
    """argparse's type for a count of one or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: give 1 or more")
    return value
