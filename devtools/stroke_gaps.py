"""How long people pause between the strokes of one handwritten symbol: what lab/canvas.py's REST_MS is chosen from.

    python -m devtools.stroke_gaps RECORDINGS.pickle [--rest 600 800 1000 1200 1500]

The recordings: write-math.com's, as the hwrt project ships a sample of them for its tests
(``tests/data/unittests-tiny-raw.pickle`` in github.com/MartinThoma/hwrt: 199 symbols, "A" and "B", drawn in a
browser by 45 people, each point with its time in ms). The gap between two strokes is the first point's time of
the next stroke minus the last point's of the stroke before: pointer-up to pointer-down, as the Draw canvas's
pause runs. Printed: strokes per symbol, the gaps' percentiles, and for each ``--rest`` the share of gaps at least
that long (each such gap in a digit costs the server one more run) and the runs a symbol then costs on average.

The file is a pickle of hwrt's ``HandwrittenData`` objects; it is read with an unpickler that makes nothing but
those (their attributes only, no code of hwrt's) and refuses anything else.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter
from pathlib import Path

from devtools.bench_report import markdown_table, percentile


class Recording:
    """An hwrt ``HandwrittenData``'s attributes (raw_data_json: [[{"x", "y", "time"}, ...] per stroke])."""

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


class RecordingsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        if (module, name) == ("hwrt.HandwrittenData", "HandwrittenData"):
            return Recording
        raise pickle.UnpicklingError(f"{module}.{name} is not a recording: refused")


def symbols(path: Path) -> list[list[list[dict]]]:
    """Each recording's strokes, each a list of {"x", "y", "time"} points."""
    with path.open("rb") as file:
        data = RecordingsUnpickler(file).load()
    return [json.loads(vars(entry["handwriting"])["raw_data_json"]) for entry in data["handwriting_datasets"]]


def gaps_ms(strokes: list[list[dict]]) -> list[float]:
    """Pen-up to pen-down between consecutive strokes of one symbol, ms."""
    return [float(b[0]["time"] - a[-1]["time"]) for a, b in zip(strokes, strokes[1:], strict=False) if a and b]


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.stroke_gaps", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("recordings", type=Path, help="hwrt's unittests-tiny-raw.pickle")
    parser.add_argument("--rest", type=float, nargs="+", default=[600, 800, 1000, 1200, 1500], help="pauses, ms")
    args = parser.parse_args()
    recorded = symbols(args.recordings)
    per_symbol = [gaps_ms(strokes) for strokes in recorded]
    gaps = [gap for symbol in per_symbol for gap in symbol]
    counts = Counter(len(strokes) for strokes in recorded)
    print(f"{len(recorded)} symbols; strokes per symbol: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    quantiles = (10, 25, 50, 75, 90, 95, 99)
    print(f"{len(gaps)} gaps within a symbol, ms: " + ", ".join(f"p{q} {percentile(gaps, q):.0f}" for q in quantiles))
    several = [symbol for symbol in per_symbol if symbol]
    rows = [
        [
            f"{rest:.0f}",
            f"{sum(gap >= rest for gap in gaps) / len(gaps):.0%}",
            f"{sum(1 + sum(gap >= rest for gap in symbol) for symbol in several) / len(several):.2f}",
        ]
        for rest in args.rest
    ]
    print(
        "\n"
        + markdown_table(
            ["pause (ms)", "gaps at least as long", "runs per symbol of 2+ strokes"], rows, right=[True, True, True]
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
