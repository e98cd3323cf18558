"""``class evaluate`` and ``class report``: what a class's drawings teach naive Bayes, leave one student out,
and what a class has sent in its current period."""

from __future__ import annotations

import json

from ..experiments.evaluate import PUBLISHED_SETTINGS
from ..experiments.mixture import MAX_COMPONENTS
from ..prepared import mnist
from .arguments import MAX_PSEUDO_COUNT, number_in
from .class_admin import held_class
from .output import json_safe, stderr_progress_bar

# how the help names the model a class's drawings are read against (evaluate.fit_published's)
_REFERENCE = "the textbook's settings: pixel >= {threshold}, alpha = {alpha:g}".format(
    **vars(PUBLISHED_SETTINGS["textbook"])
)


def _add_weight(parser) -> None:
    from ..experiments.class_model import DEFAULT_WEIGHT

    parser.add_argument(
        "--weight",
        type=number_in(0, MAX_PSEUDO_COUNT),
        default=DEFAULT_WEIGHT,
        help=f"how many MNIST digits one class drawing counts as in MNIST + the class, 0..1e6 (default {DEFAULT_WEIGHT:g})",
    )


def add_class_evaluate(actions) -> None:
    """``class evaluate``: what a class's drawings teach naive Bayes, leave one student out."""
    evaluate = actions.add_parser(
        "evaluate",
        help="MNIST's model, the class's model and MNIST + the class, each student's drawings read by "
        f"models that never saw that student ({_REFERENCE})",
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
        type=number_in(1, 1797, integer=True),
        default=None,
        help="with --load-digits: only the first N digits (default: all 1,797)",
    )
    _add_weight(evaluate)
    evaluate.add_argument(
        "--components",
        type=number_in(1, MAX_COMPONENTS, integer=True),
        default=1,
        metavar="K",
        help=f"styles per digit of the class's mixture, 1..{MAX_COMPONENTS}: above 1, a mixture of K naive Bayes "
        "styles per digit (EM, seed 0) is also trained on the class's drawings, leaving out each student in turn, "
        "and read as a fourth model (default 1: the class's model alone, which is that mixture at K = 1)",
    )
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.set_defaults(run=run_class_evaluate)


def run_class_evaluate(args) -> int:
    from ..experiments.class_drawings import load_digits_class, load_drawings
    from ..experiments.class_model import evaluate_class
    from ..experiments.class_report import format_evaluation
    from ..experiments.evaluate import fit_published

    if args.limit is not None and not args.load_digits:
        raise ValueError("--limit goes with --load-digits; a --frames file is read whole")
    if args.load_digits:
        drawings = load_digits_class(limit=args.limit, progress=stderr_progress_bar)
    else:
        drawings = load_drawings(args.frames)
    mnist_model = fit_published(mnist.mnist_splits(), "textbook")
    evaluation = evaluate_class(
        drawings.frames, drawings.labels, drawings.students, mnist_model, weight=args.weight, components=args.components
    )
    if args.json:
        print(json.dumps(json_safe(evaluation.as_dict()), allow_nan=False))
    else:
        print(format_evaluation(evaluation))
    return 0


def add_class_report(actions) -> None:
    report = actions.add_parser(
        "report",
        help="what a class has sent in its current period: drawings per digit, answers per question, and the three "
        f"models' accuracies read leave-one-student-out ({_REFERENCE})",
    )
    report.add_argument("code", help="the class code")
    _add_weight(report)
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.set_defaults(run=run_class_report)


def run_class_report(args) -> int:
    report = class_report(args.code, args.weight)
    if args.json:
        evaluation = report["evaluation"]
        print(json.dumps(json_safe({**report, "evaluation": evaluation and evaluation.as_dict()}), allow_nan=False))
    else:
        print(format_class_report(report))
    return 0


def class_report(code: str, weight: float) -> dict:
    """What class ``code`` (open or ended) holds in its current period, as plain values; ValueError with a sentence
    when there is no such class.

    ``evaluation`` is None when the class has no drawings (MNIST is then not needed).
    """
    from collections import Counter

    import numpy as np

    from ..classroom import open_store
    from ..classroom.export import as_arrays

    store = open_store()
    info = held_class(store, code)
    valid = info.code
    arrays = as_arrays(store.drawings(valid))
    counted = Counter((row.question, row.choice) for row in store.answers(valid) if not row.after_reveal)
    answers: dict[str, dict[str, int]] = {}
    for (question, choice), count in sorted(counted.items(), key=lambda item: (item[0][0], -item[1], item[0][1])):
        answers.setdefault(question, {})[choice] = count
    evaluation = None
    if len(arrays.meant):
        from ..experiments.class_model import evaluate_class
        from ..experiments.evaluate import fit_published

        mnist_model = fit_published(mnist.mnist_splits(), "textbook")
        evaluation = evaluate_class(
            arrays.frames, arrays.meant, arrays.students, mnist_model, weight=weight, curve=False
        )
    return {
        "code": valid,
        "expires_at": info.expires_at,
        "ended_at": info.ended(store.clock()),
        "drawings": int(len(arrays.meant)),
        "students": int(len(np.unique(arrays.students))),
        "drawings_per_digit": np.bincount(arrays.meant, minlength=10).tolist(),
        "answers": answers,
        "evaluation": evaluation,
    }


def format_class_report(report: dict) -> str:
    """The report as text: drawings per digit, answers per question (each answer quoted, as JSON escapes it:
    students typed nothing here, but the store takes any text), then the evaluation."""
    from datetime import datetime

    from ..experiments.class_report import format_evaluation

    if report["ended_at"] is None:
        when = "open until " + datetime.fromtimestamp(report["expires_at"]).strftime("%Y-%m-%d %H:%M")
    else:
        when = "ended at " + datetime.fromtimestamp(report["ended_at"]).strftime("%Y-%m-%d %H:%M")
    lines = [
        f"class {report['code']}: {report['drawings']:,} drawing{'s' if report['drawings'] != 1 else ''} from "
        f"{report['students']:,} student{'s' if report['students'] != 1 else ''}, {when} (local time)",
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
