"""``evaluate`` (a model trained on the 60k MNIST images, scored on the 10k test images) and
``evaluate-handwriting`` (scikit-learn's load_digits() through the Draw page's upload path)."""

from __future__ import annotations

import json

from ..models.softmax import PRESETS
from ..prepared import mnist
from .arguments import MAX_SEED, add_model_settings, number_in
from .output import json_safe, stderr_progress_bar


def add_evaluate(commands) -> None:
    parser = commands.add_parser("evaluate", help="train on 60k MNIST images, evaluate on the 10k test images")
    parser.add_argument("--model", choices=["bernoulli", "softmax"], default="bernoulli")
    add_model_settings(parser)
    parser.add_argument(
        "--preset",
        choices=list(PRESETS),
        default="default",
        help="softmax: training recipe (default: 'default'); always trained now, never cached",
    )
    parser.add_argument(
        "--seed",
        type=number_in(0, MAX_SEED, integer=True),
        default=0,
        help="softmax: seed of the minibatch shuffling, 0..2**32-1 (default 0)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run_evaluate)


def _evaluated(args) -> dict:
    from ..experiments.evaluate import evaluate_bernoulli, evaluate_softmax

    splits = mnist.deskewed_splits(stderr_progress_bar) if args.deskew else mnist.mnist_splits()
    if args.model == "softmax":
        return evaluate_softmax(
            splits, preset=args.preset, seed=args.seed, progress=stderr_progress_bar, deskew=args.deskew
        )
    return evaluate_bernoulli(
        splits, threshold=args.threshold, prior=args.prior, alpha=args.alpha, beta=args.beta, deskew=args.deskew
    )


def run_evaluate(args) -> int:
    """The scores as ``name  value`` lines (floats to 4 decimals), or one JSON object with ``--json``."""
    result = _evaluated(args)
    if args.json:
        print(json.dumps(json_safe(result), allow_nan=False))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            print(f"{key:<{width}}  {value:.4f}" if isinstance(value, float) else f"{key:<{width}}  {value}")
    return 0


def add_handwriting(commands) -> None:
    handwriting = commands.add_parser(
        "evaluate-handwriting",
        help="scikit-learn's load_digits() as PNG uploads, through the Draw page's path, "
        "both polarities; models trained on MNIST (needs scikit-learn)",
    )
    handwriting.add_argument("--limit", type=int, default=None, help="only the first N digits (default: all 1,797)")
    handwriting.set_defaults(run=run_handwriting)


def run_handwriting(args) -> int:
    """The load_digits() table, a blank line, then the control: MNIST's test digits in load_digits' 8x8 format."""
    from ..handwriting import (
        classifiers_by_deskew,
        evaluate_handwriting,
        evaluate_mnist_as_load_digits,
        format_control_rows,
        format_rows,
    )

    plain = mnist.mnist_splits()
    classifiers = classifiers_by_deskew(plain, mnist.deskewed_splits())
    print(format_rows(evaluate_handwriting(classifiers, limit=args.limit, progress=stderr_progress_bar)))
    print()
    control = evaluate_mnist_as_load_digits(
        plain.test_images, plain.test_labels, classifiers[True], limit=args.limit, progress=stderr_progress_bar
    )
    print(format_control_rows(control))
    return 0
