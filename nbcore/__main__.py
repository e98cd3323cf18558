"""Command line: ``python -m nbcore evaluate ...``, ``evaluate-handwriting``, ``prepare [--no-download]``,
``class new|evaluate|report``.

The benchmarks against scikit-learn are development tools: ``python -m benchmarks``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from .datasets import mnist
from .datasets.mnist import MnistDataError
from .models.softmax import PRESETS

MAX_PSEUDO_COUNT = 1e6  # far above any useful smoothing, far below where n + alpha + beta loses precision
MAX_SEED = 2**32 - 1  # numpy's legacy seed range


def _number_in(low: float, high: float, integer: bool = False):
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


def _json_safe(value):
    """``value`` with non-finite floats as null (JSON has no -Infinity), numpy scalars as Python numbers."""
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _add_evaluate(commands) -> None:
    parser = commands.add_parser("evaluate", help="train on 60k MNIST images, evaluate on the 10k test images")
    parser.add_argument("--model", choices=["bernoulli", "softmax"], default="bernoulli")
    parser.add_argument(
        "--threshold",
        type=_number_in(0, 256, integer=True),
        default=128,
        help="binarize: pixel >= T is ink, 0..256 (default 128)",
    )
    parser.add_argument("--prior", choices=["empirical", "uniform"], default="empirical")
    parser.add_argument(
        "--alpha",
        type=_number_in(0, MAX_PSEUDO_COUNT),
        default=1.0,
        help="pseudo-count for 'pixel on', 0..1e6 (default 1)",
    )
    parser.add_argument(
        "--beta",
        type=_number_in(0, MAX_PSEUDO_COUNT),
        default=None,
        help="pseudo-count for 'pixel off', 0..1e6 (default: alpha)",
    )
    parser.add_argument(
        "--preset",
        choices=list(PRESETS),
        default="default",
        help="softmax: training recipe (default: 'default'); always trained now, never cached",
    )
    parser.add_argument(
        "--seed",
        type=_number_in(0, MAX_SEED, integer=True),
        default=0,
        help="softmax: seed of the minibatch shuffling, 0..2**32-1 (default 0)",
    )
    parser.add_argument(
        "--deskew",
        action="store_true",
        help="deskew every training and test image first (second moments, nbcore.deskew)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _add_class_evaluate(actions) -> None:
    """``class evaluate``: what a class's drawings teach naive Bayes, leave one student out."""
    evaluate = actions.add_parser(
        "evaluate",
        help="MNIST's model, the class's model and MNIST + the class, each student's drawings read by "
        "models that never saw that student (pixel >= 128, alpha = 1)",
    )
    source = evaluate.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--frames",
        metavar="FILE.npz",
        help="drawings as arrays: frames uint8 (n, 28, 28) framed like MNIST, labels (n,) the digits meant, "
        "students (n,) an anonymous id per student",
    )
    source.add_argument(
        "--load-digits",
        action="store_true",
        help="scikit-learn's load_digits() as 20 students (contiguous blocks) through the Draw page's upload "
        "path (needs scikit-learn)",
    )
    evaluate.add_argument(
        "--limit",
        type=_number_in(1, 1797, integer=True),
        default=None,
        help="with --load-digits: only the first N digits (default: all 1,797)",
    )
    _add_weight(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")


def _run_class_evaluate(args) -> int:
    from .experiments.class_model import evaluate_class, format_evaluation, load_digits_class, load_drawings
    from .features import binarize
    from .models.naive_bayes import BernoulliNB

    if args.limit is not None and not args.load_digits:
        raise ValueError("--limit goes with --load-digits; a --frames file is read whole")
    if args.load_digits:
        drawings = load_digits_class(limit=args.limit, progress=_stderr_progress_bar)
    else:
        drawings = load_drawings(args.frames)
    splits = mnist.mnist_splits()
    mnist_model = BernoulliNB(alpha=1.0).fit(binarize(splits.train_images, 128), splits.train_labels)
    evaluation = evaluate_class(drawings.frames, drawings.labels, drawings.students, mnist_model, weight=args.weight)
    if args.json:
        print(json.dumps(_json_safe(evaluation.as_dict()), allow_nan=False))
    else:
        print(format_evaluation(evaluation))
    return 0


def _stderr_progress_bar(fraction: float, message: str) -> None:
    """Draw ``[#####-----]  50%  message`` on stderr, redrawn in place; newline when done."""
    filled = round(30 * fraction)
    sys.stderr.write(f"\r[{'#' * filled}{'-' * (30 - filled)}] {fraction:4.0%}  {message[:72]:<72}")
    if fraction >= 1:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _run_prepare(download: bool) -> int:
    """``prepare``: progress on stderr, a line per result on stdout; 0 when every result that can be had is kept."""
    import logging

    from .artifacts import prepare
    from .datasets import default_data_dir

    logging.getLogger("nbcore").addHandler(logging.NullHandler())  # each outcome's line says it already
    in_place = sys.stderr.isatty()  # a bar redrawn in place; in a log, one line as each step starts
    started_steps: set[str] = set()

    def progress(fraction: float, message: str) -> None:
        if in_place:
            _stderr_progress_bar(fraction, message)
            return
        step = message.split(":", 1)[0]
        if step.startswith("[") and step not in started_steps:
            started_steps.add(step)
            print(f"{step}…", file=sys.stderr, flush=True)

    def report(outcome) -> None:
        if in_place:
            sys.stderr.write("\r" + " " * 110 + "\r")  # the bar's line, cleared for the outcome's
            sys.stderr.flush()
        print(outcome.message(), flush=True)

    outcomes = prepare(download=download, progress=progress, report=report)
    made = sum(outcome.status in ("built", "rebuilt") for outcome in outcomes)
    not_kept = [outcome.title for outcome in outcomes if outcome.status == "computed"]
    # a data set that cannot be had (the SMS collection) leaves its page saying so; the others are all there
    unavailable = [outcome.title for outcome in outcomes if outcome.status == "missing"]
    print(
        f"Prepared in {default_data_dir()}: {made} of {len(outcomes)} made now, the others already there."
        + (f" Not available: {', '.join(unavailable)} (see above)." if unavailable else "")
        + (f" Not kept: {', '.join(not_kept)} (see above)." if not_kept else "")
    )
    return 1 if not_kept else 0


def _run_evaluate(args) -> dict:
    from .experiments.evaluate import evaluate_bernoulli, evaluate_softmax

    splits = mnist.deskewed_splits(_stderr_progress_bar) if args.deskew else mnist.mnist_splits()
    if args.model == "softmax":
        return evaluate_softmax(
            splits, preset=args.preset, seed=args.seed, progress=_stderr_progress_bar, deskew=args.deskew
        )
    return evaluate_bernoulli(
        splits, threshold=args.threshold, prior=args.prior, alpha=args.alpha, beta=args.beta, deskew=args.deskew
    )


def _add_weight(parser) -> None:
    from .experiments.class_model import DEFAULT_WEIGHT

    parser.add_argument(
        "--weight",
        type=_number_in(0, MAX_PSEUDO_COUNT),
        default=DEFAULT_WEIGHT,
        help=f"how many MNIST digits one class drawing counts as in MNIST + the class, 0..1e6 (default {DEFAULT_WEIGHT:g})",
    )


def _add_class(commands) -> None:
    group = commands.add_parser(
        "class",
        help="classes in the class store ($NBCORE_CLASS_STORE, or the data directory), and the class's own model",
    )
    actions = group.add_subparsers(dest="class_command", required=True)
    new = actions.add_parser("new", help="create a class before the lesson: its code, student link and teacher link")
    new.add_argument("--code", help="the code to use (4 to 12 letters A-Z or digits; default: 8 random ones)")
    new.add_argument("--json", action="store_true", help="print one JSON object: code, student_path, teacher_path")
    _add_class_evaluate(actions)
    report = actions.add_parser(
        "report",
        help="what a class has sent: drawings per digit, answers per question, and the three models' accuracies "
        "read leave-one-student-out (pixel >= 128, alpha = 1). Reads the store directly, so it asks for no "
        "teacher key: run it on the server, where whoever can read the store can read every class anyway",
    )
    report.add_argument("code", help="the class code")
    _add_weight(report)
    report.add_argument("--json", action="store_true", help="print one JSON object")


def _class_report(code: str, weight: float) -> dict:
    """What the open class ``code`` holds, as plain values; ValueError with a sentence when there is no such class.

    ``evaluation`` is None when the class has no drawings (MNIST is then not needed).
    """
    from collections import Counter

    import numpy as np

    from .classroom import CODE_RULE, class_code, open_store
    from .classroom.export import as_arrays

    valid = class_code(code)
    if valid is None:
        raise ValueError(f"that is not a class code: a class code is {CODE_RULE}")
    store = open_store()
    info = store.class_info(valid)
    if info is None:
        raise ValueError(f"there is no open class {valid}: it was never made, it has ended, or it was closed")
    arrays = as_arrays(store.drawings(valid))
    counted = Counter((row.question, row.choice) for row in store.answers(valid) if not row.after_reveal)
    answers: dict[str, dict[str, int]] = {}
    for (question, choice), count in sorted(counted.items(), key=lambda item: (item[0][0], -item[1], item[0][1])):
        answers.setdefault(question, {})[choice] = count
    evaluation = None
    if len(arrays.meant):
        from .experiments.class_model import evaluate_class
        from .features import binarize
        from .models.naive_bayes import BernoulliNB

        splits = mnist.mnist_splits()
        mnist_model = BernoulliNB(alpha=1.0).fit(binarize(splits.train_images, 128), splits.train_labels)
        evaluation = evaluate_class(
            arrays.frames, arrays.meant, arrays.students, mnist_model, weight=weight, curve=False
        )
    return {
        "code": valid,
        "expires_at": info.expires_at,
        "drawings": int(len(arrays.meant)),
        "students": int(len(np.unique(arrays.students))),
        "drawings_per_digit": np.bincount(arrays.meant, minlength=10).tolist(),
        "answers": answers,
        "evaluation": evaluation,
    }


def _format_class_report(report: dict) -> str:
    """The report as text: drawings per digit, answers per question (each answer quoted, as JSON escapes it:
    students typed nothing here, but the store takes any text), then the evaluation."""
    from datetime import datetime

    from .experiments.class_model import format_evaluation

    until = datetime.fromtimestamp(report["expires_at"]).strftime("%Y-%m-%d %H:%M")
    lines = [
        f"class {report['code']}: {report['drawings']:,} drawing{'s' if report['drawings'] != 1 else ''} from "
        f"{report['students']:,} student{'s' if report['students'] != 1 else ''}, open until {until} (local time)",
        "",
        "drawings per digit",
        "digit    " + "".join(f"{digit:>6}" for digit in range(10)),
        "drawings " + "".join(f"{count:>6}" for count in report["drawings_per_digit"]),
        "",
    ]
    if report["answers"]:
        lines.append("answers per question (one per student)")
        for question, choices in report["answers"].items():
            given = ", ".join(f"{json.dumps(choice, ensure_ascii=False)} {count}" for choice, count in choices.items())
            lines.append(f"{question}: {sum(choices.values())} answered: {given}")
    else:
        lines.append("No answers to the lesson's questions yet.")
    lines.append("")
    if report["evaluation"] is None:
        lines.append("No drawings yet: the class's model learns from the drawings students send.")
    else:
        lines.append(format_evaluation(report["evaluation"]))
    return "\n".join(lines)


def _run_class(args) -> int:
    from urllib.parse import urlencode

    if args.class_command == "evaluate":
        return _run_class_evaluate(args)
    if args.class_command == "report":
        report = _class_report(args.code, args.weight)
        if args.json:
            evaluation = report["evaluation"]
            print(
                json.dumps(_json_safe({**report, "evaluation": evaluation and evaluation.as_dict()}), allow_nan=False)
            )
        else:
            print(_format_class_report(report))
        return 0

    from .classroom import KEEP_SECONDS, Refused, open_store

    if args.class_command == "new":
        try:
            made = open_store().create_class(args.code)
        except Refused as refused:
            print(f"error: {refused}", file=sys.stderr)
            return 2
        code = made.info.code
        result = {
            "code": code,
            "student_path": "/draw?" + urlencode({"class": code}),
            "teacher_path": "/gallery?" + urlencode({"class": code, "key": made.teacher_key}),
        }
        if args.json:
            print(json.dumps(result))
        else:
            print(f"class {code}: open until {KEEP_SECONDS // 3600} hours after its last activity")
            print(f"students: <server address>{result['student_path']}")
            print(f"teacher:  <server address>{result['teacher_path']}   (keep it private: it moderates the class)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nbcore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _add_evaluate(commands)
    _add_class(commands)
    prepare = commands.add_parser(
        "prepare",
        help="make everything the dashboard needs in the data directory ($NBCORE_DATA_DIR), so that no page "
        "trains in front of a class: MNIST found, verified and decoded, the SMS collection, deskewed MNIST, "
        "softmax weights, learning and smoothing curves, Gaussian naive Bayes; what is there and whole is "
        "kept, what is damaged is made again",
    )
    prepare.add_argument(
        "--no-download", action="store_true", help="use only what is in the data directory, download nothing"
    )
    handwriting = commands.add_parser(
        "evaluate-handwriting",
        help="scikit-learn's load_digits() as PNG uploads, through the Draw page's path, "
        "both polarities; models trained on MNIST (needs scikit-learn)",
    )
    handwriting.add_argument("--limit", type=int, default=None, help="only the first N digits (default: all 1,797)")
    args = parser.parse_args(argv)
    try:
        if args.command == "class":
            return _run_class(args)
        if args.command == "prepare":
            return _run_prepare(download=not args.no_download)
        if args.command == "evaluate-handwriting":
            from .handwriting import (
                classifiers_by_deskew,
                evaluate_handwriting,
                evaluate_mnist_as_load_digits,
                format_control_rows,
                format_rows,
            )

            plain = mnist.mnist_splits()
            classifiers = classifiers_by_deskew(plain, mnist.deskewed_splits())
            print(format_rows(evaluate_handwriting(classifiers, limit=args.limit, progress=_stderr_progress_bar)))
            print()
            control = evaluate_mnist_as_load_digits(
                plain.test_images, plain.test_labels, classifiers[True], limit=args.limit, progress=_stderr_progress_bar
            )
            print(format_control_rows(control))
            return 0
        result = _run_evaluate(args)
    except (
        MnistDataError,
        ValueError,
        OSError,
        ConnectionError,
    ) as error:  # OSError: nbcore.files.FileProblem sentences
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_json_safe(result), allow_nan=False))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            print(f"{key:<{width}}  {value:.4f}" if isinstance(value, float) else f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
