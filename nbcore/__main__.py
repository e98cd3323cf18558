"""Command line: ``python -m nbcore evaluate ...``, ``evaluate-handwriting``, ``prepare``, ``bench``, ``bench-softmax``."""

from __future__ import annotations

import argparse
import json
import sys

from .data import MnistDataError
from .softmax import PRESETS


def _add_evaluate(commands) -> None:
    parser = commands.add_parser("evaluate", help="train on 60k MNIST images, evaluate on the 10k test images")
    parser.add_argument("--model", choices=["bernoulli", "softmax"], default="bernoulli")
    parser.add_argument("--threshold", type=int, default=128, help="binarize: pixel >= T is ink (default 128)")
    parser.add_argument("--prior", choices=["empirical", "uniform"], default="empirical")
    parser.add_argument("--alpha", type=float, default=1.0, help="pseudo-count for 'pixel on' (default 1)")
    parser.add_argument("--beta", type=float, default=None, help="pseudo-count for 'pixel off' (default: alpha)")
    parser.add_argument("--preset", choices=list(PRESETS), default="default",
                        help="softmax: training recipe (default: 'default'); always trained now, never cached")
    parser.add_argument("--seed", type=int, default=0, help="softmax: seed of the minibatch shuffling (default 0)")
    parser.add_argument("--deskew", action="store_true",
                        help="deskew every training and test image first (second moments, nbcore.deskew)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _stderr_progress_bar(fraction: float, message: str) -> None:
    """Draw ``[#####-----]  50%  message`` on stderr, redrawn in place; newline when done."""
    filled = round(30 * fraction)
    sys.stderr.write(f"\r[{'#' * filled}{'-' * (30 - filled)}] {fraction:4.0%}  {message[:72]:<72}")
    if fraction >= 1:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _run_evaluate(args) -> dict:
    from .evaluate import deskewed_splits, evaluate_bernoulli, evaluate_softmax, mnist_splits

    splits = deskewed_splits() if args.deskew else mnist_splits()
    if args.model == "softmax":
        result = evaluate_softmax(splits, preset=args.preset, seed=args.seed, progress=_stderr_progress_bar)
    else:
        result = evaluate_bernoulli(splits, threshold=args.threshold, prior=args.prior, alpha=args.alpha,
                                    beta=args.beta)
    return {**result, "deskew": args.deskew}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nbcore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _add_evaluate(commands)
    commands.add_parser("prepare", help="find, verify, extract and decode MNIST in the data directory "
                                        "($NBCORE_DATA_DIR), downloading only what is missing")
    handwriting = commands.add_parser(
        "evaluate-handwriting", help="scikit-learn's load_digits() as PNG uploads, through the Draw page's path, "
                                     "both polarities; models trained on MNIST (needs scikit-learn)")
    handwriting.add_argument("--limit", type=int, default=None, help="only the first N digits (default: all 1,797)")
    bench = commands.add_parser("bench", help="time nbcore against scikit-learn on the same input")
    bench.add_argument("--repeats", type=int, default=7)
    bench_softmax = commands.add_parser(
        "bench-softmax", help="our default softmax regression against scikit-learn's LogisticRegression()")
    bench_softmax.add_argument("--repeats", type=int, default=3, help="fits of ours; the median time is reported")
    args = parser.parse_args(argv)
    try:
        if args.command == "prepare":
            from .data import default_data_dir, load_mnist_splits

            load_mnist_splits(progress=_stderr_progress_bar)
            print(f"MNIST ready in {default_data_dir()}")
            return 0
        if args.command == "evaluate-handwriting":
            from .evaluate import deskewed_splits, mnist_splits
            from .handwriting import evaluate_handwriting, format_rows

            print(format_rows(evaluate_handwriting(mnist_splits(), deskewed_splits(), limit=args.limit,
                                                   progress=_stderr_progress_bar)))
            return 0
        if args.command == "bench":
            from .bench import run_bench

            run_bench(repeats=args.repeats)
            return 0
        if args.command == "bench-softmax":
            from .bench_softmax import run_bench_softmax

            run_bench_softmax(repeats=args.repeats)
            return 0
        result = _run_evaluate(args)
    except (MnistDataError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            print(f"{key:<{width}}  {value:.4f}" if isinstance(value, float) else f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
