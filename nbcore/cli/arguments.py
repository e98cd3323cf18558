"""What the commands' options accept: argparse types with their limits, and the naive Bayes settings several
commands share."""

from __future__ import annotations

import argparse
import math

MAX_PSEUDO_COUNT = 1e6  # far above any useful smoothing, far below where n + alpha + beta loses precision
MAX_SEED = 2**32 - 1  # numpy's legacy seed range


def number_in(low: float, high: float, integer: bool = False):
    """An argparse ``type``: a finite number (an integer if asked) in [low, high], else a usage error saying so."""

    def parse(text: str):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if integer else 'a number'}") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"{text} is outside {low:g}..{high:g}")
        return value

    return parse


def add_model_settings(parser) -> None:
    """The naive Bayes settings: --threshold, --prior, --alpha, --beta, --deskew."""
    parser.add_argument(
        "--threshold",
        type=number_in(0, 256, integer=True),
        default=128,
        help="binarize: pixel >= T is ink, 0..256 (default 128)",
    )
    parser.add_argument("--prior", choices=["empirical", "uniform"], default="empirical")
    parser.add_argument(
        "--alpha",
        type=number_in(0, MAX_PSEUDO_COUNT),
        default=1.0,
        help="pseudo-count for 'pixel on', 0..1e6 (default 1)",
    )
    parser.add_argument(
        "--beta",
        type=number_in(0, MAX_PSEUDO_COUNT),
        default=None,
        help="pseudo-count for 'pixel off', 0..1e6 (default: alpha)",
    )
    parser.add_argument(
        "--deskew",
        action="store_true",
        help="deskew every training and test image first (second moments, nbcore.deskew)",
    )
