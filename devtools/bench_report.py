"""The benchmarks' figures and tables: percentiles, Markdown tables, targets met, the load average.

Every benchmark and load tool in devtools prints through these, so a p95 or a table means the same in each.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

import numpy as np


def percentile(values: Sequence[float], q: float) -> float:
    """Percentile ``q`` (0-100) of ``values``, linearly interpolated (numpy's default); nan when there are none."""
    if len(values) == 0:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=float), q))


def median_p95(values: Sequence[float]) -> tuple[float, float]:
    """(median, 95th percentile) of ``values``, as ``percentile``; (nan, nan) when there are none."""
    return percentile(values, 50), percentile(values, 95)


def ms(seconds: Sequence[float], digits: int = 1, unit: float = 1.0) -> str:
    """'median / p95' of durations, in milliseconds; ``unit``: seconds per value given (1e-3 for milliseconds)."""
    median, p95 = median_p95(seconds)
    return f"{median * unit * 1000:.{digits}f} / {p95 * unit * 1000:.{digits}f}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[bool] = ()) -> str:
    """A Markdown table; ``right[i]``: column i is right-aligned (numbers). A "|" in a cell (a lesson step's
    title may hold one, as in P(x | y)) is escaped, so it cannot split the cell."""
    if any(len(row) != len(headers) for row in rows):
        raise ValueError(f"every row needs {len(headers)} cells")
    align = ["---:" if i < len(right) and right[i] else "---" for i in range(len(headers))]
    lines = [row_line(headers), "|" + "|".join(align) + "|"]
    lines += [row_line([str(cell).replace("|", "\\|") for cell in row]) for row in rows]
    return "\n".join(lines)


def row_line(cells: Sequence[str]) -> str:
    """One Markdown table row: "| a | b |", an empty cell as "| |"."""
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def verdict(value: float, target: float) -> str:
    """A table's mark for a "no more than ``target``" goal: ✅ met, ❌ missed."""
    return "✅" if value <= target else "❌"


def load() -> float:
    """The 1-minute load average (the machine is shared: each table says what it was)."""
    return os.getloadavg()[0]


def load_averages() -> str:
    """The 1, 5 and 15-minute load averages and the machine's CPUs, as a benchmark prints them when it starts
    and ends: "5.61 / 5.90 / 6.12 (1, 5, 15 min; 2 CPUs)"."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg()) + f" (1, 5, 15 min; {os.cpu_count()} CPUs)"


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


def positive_seconds(text: str) -> float:
    """argparse's type for a duration of more than 0 and at most 600 seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"{value} s: give more than 0 and at most 600")
    return value
