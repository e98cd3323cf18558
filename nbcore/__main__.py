"""Command line: ``python -m nbcore evaluate ...``, ``evaluate-handwriting``, ``mixture ...``,
``prepare [--no-download | --check]``,
``class new|list|extend|end|export|evaluate|report``.

The benchmarks against scikit-learn are development tools: ``python -m devtools.benchmarks``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from .classroom.bounds import LONGEST_KEEP_SECONDS, MAX_PERIODS
from .classroom.records import KEEP_AFTER_END_SECONDS, KEEP_SECONDS
from .datasets.mnist import MnistDataError
from .experiments.evaluate import PUBLISHED_SETTINGS
from .experiments.mixture import COMPONENT_GRID, MAX_COMPONENTS, SEEDS, UNLABELED_WEIGHTS
from .models.softmax import PRESETS
from .prepared import mnist

MAX_PSEUDO_COUNT = 1e6  # far above any useful smoothing, far below where n + alpha + beta loses precision
MAX_SEED = 2**32 - 1  # numpy's legacy seed range
KEEP_HOURS = KEEP_SECONDS / 3600
LONGEST_KEEP_HOURS = LONGEST_KEEP_SECONDS / 3600
KEEP_AFTER_END_HOURS = KEEP_AFTER_END_SECONDS // 3600


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
    _add_model_settings(parser)
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
    parser.add_argument("--json", action="store_true", help="print one JSON object")


# how the help names the model a class's drawings are read against (evaluate.fit_published's)
_REFERENCE = "the textbook's settings: pixel >= {threshold}, alpha = {alpha:g}".format(
    **vars(PUBLISHED_SETTINGS["textbook"])
)


def _add_class_evaluate(actions) -> None:
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
        type=_number_in(1, 1797, integer=True),
        default=None,
        help="with --load-digits: only the first N digits (default: all 1,797)",
    )
    _add_weight(evaluate)
    evaluate.add_argument(
        "--components",
        type=_number_in(1, MAX_COMPONENTS, integer=True),
        default=1,
        metavar="K",
        help=f"styles per digit of the class's mixture, 1..{MAX_COMPONENTS}: above 1, a mixture of K naive Bayes "
        "styles per digit (EM, seed 0) is also trained on the class's drawings, leaving out each student in turn, "
        "and read as a fourth model (default 1: the class's model alone, which is that mixture at K = 1)",
    )
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")


def _run_class_evaluate(args) -> int:
    from .experiments.class_drawings import load_digits_class, load_drawings
    from .experiments.class_model import evaluate_class
    from .experiments.class_report import format_evaluation
    from .experiments.evaluate import fit_published

    if args.limit is not None and not args.load_digits:
        raise ValueError("--limit goes with --load-digits; a --frames file is read whole")
    if args.load_digits:
        drawings = load_digits_class(limit=args.limit, progress=_stderr_progress_bar)
    else:
        drawings = load_drawings(args.frames)
    mnist_model = fit_published(mnist.mnist_splits(), "textbook")
    evaluation = evaluate_class(
        drawings.frames, drawings.labels, drawings.students, mnist_model, weight=args.weight, components=args.components
    )
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


def _run_prepare(download: bool, check: bool = False) -> int:
    """``prepare``: progress on stderr, a line per result on stdout; 0 when every result that can be had is kept.
    ``check``: the same lines for results read, never made; 0 when every one is there and whole, else 1."""
    import logging

    from .datasets import default_data_dir
    from .prepared.prepare import prepare

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

    outcomes = prepare(download=download, progress=progress, report=report, check=check)
    if check:
        return _prepare_checked(outcomes)
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


def _prepare_checked(outcomes) -> int:
    """``prepare --check``'s last line (its outcomes stop at the first result not prepared); 0 when all are."""
    from .datasets import default_data_dir

    unprepared = [outcome for outcome in outcomes if outcome.status == "unprepared"]
    if unprepared:
        print(
            f"Not prepared in {default_data_dir()}: {unprepared[0].title}: {unprepared[0].problem}. "
            "python -m nbcore prepare makes it again.",
            file=sys.stderr,
        )
        return 1
    unavailable = [outcome.title for outcome in outcomes if outcome.status == "missing"]
    print(
        f"Checked in {default_data_dir()}: all {len(outcomes)} prepared, nothing computed."
        + (f" Not available: {', '.join(unavailable)} (see above)." if unavailable else "")
    )
    return 0


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


def _add_model_settings(parser) -> None:
    """The naive Bayes settings: --threshold, --prior, --alpha, --beta, --deskew."""
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
        "--deskew",
        action="store_true",
        help="deskew every training and test image first (second moments, nbcore.deskew)",
    )


def _add_mixture(commands) -> None:
    parser = commands.add_parser(
        "mixture",
        help="naive Bayes with K styles per digit, fitted by EM: test accuracy and held-out log p(x|y) per K and "
        "seed; with --labels, a few labelled digits and the rest unlabeled at each --unlabeled-weight",
    )
    _add_model_settings(parser)
    parser.add_argument(
        "--components",
        type=_number_in(1, MAX_COMPONENTS, integer=True),
        nargs="+",
        default=None,
        help=f"styles per digit K, 1..{MAX_COMPONENTS} (default: {' '.join(map(str, COMPONENT_GRID))})",
    )
    parser.add_argument(
        "--seeds",
        type=_number_in(0, MAX_SEED, integer=True),
        nargs="+",
        default=list(SEEDS),
        help="EM's random starts (default: 0 1 2)",
    )
    parser.add_argument(
        "--labels",
        type=_number_in(1, 6000, integer=True),
        nargs="+",
        default=None,
        help="labelled training images per digit; every other training image is unlabeled (the unlabeled-data table)",
    )
    parser.add_argument(
        "--unlabeled-weight",
        type=_number_in(0, MAX_PSEUDO_COUNT),
        nargs="+",
        default=list(UNLABELED_WEIGHTS),
        help="λ: how much an unlabeled image counts, 0 = the labelled images alone "
        f"(default: {' '.join(f'{weight:g}' for weight in UNLABELED_WEIGHTS)})",
    )
    parser.add_argument(
        "--unlabeled-components",
        type=_number_in(1, MAX_COMPONENTS, integer=True),
        default=1,
        help="styles per digit in the unlabeled-data table (default 1)",
    )


def _run_mixture(args) -> str:
    """The components table, and the unlabeled-data table when --labels is given, as text."""
    from .experiments import mixture as experiment

    splits = mnist.deskewed_splits(_stderr_progress_bar) if args.deskew else mnist.mnist_splits()
    beta = args.alpha if args.beta is None else args.beta
    settings = experiment.MixtureSettings(args.threshold, args.alpha, beta, args.prior, args.deskew)
    settings.model(1, 0)._check_params()  # a bad value is one sentence before minutes of fitting
    tables = []
    if args.components is not None or args.labels is None:
        components = COMPONENT_GRID if args.components is None else args.components
        scores = experiment.components_table(settings, splits, components, args.seeds, _stderr_progress_bar)
        tables.append(experiment.format_components_table(scores))
    if args.labels is not None:
        rows = experiment.unlabeled_table(
            settings,
            splits,
            args.labels,
            args.unlabeled_weight,
            args.seeds,
            args.unlabeled_components,
            _stderr_progress_bar,
        )
        tables.append(experiment.format_unlabeled_table(rows))
    _stderr_progress_bar(1.0, "done")
    return "\n\n".join(tables)


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
        help="classes in the class store ($NBCORE_CLASS_STORE, or the data directory), and the class's own model. "
        "Run on the server: whoever can read the store can read every class, so these commands ask for no "
        "teacher key",
    )
    actions = group.add_subparsers(dest="class_command", required=True)
    new = actions.add_parser(
        "new", help="create a class before the lesson: its code, the students' links and the teacher's links"
    )
    new.add_argument("--code", help="the code to use (4 to 12 letters A-Z or digits; default: 8 random ones)")
    new.add_argument(
        "--url",
        type=_server_address,
        help="the address students' devices reach the lab at (http://host:port, or with a path behind a proxy), "
        "to print the links in full",
    )
    new.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: code, student_path, student_lesson_path, teacher_path, teacher_lesson_path, "
        "expires_at (seconds since the epoch), expires_at_iso, and with --url the same links in full (*_url)",
    )
    listing = actions.add_parser("list", help="every class held: open or ended, period, drawings, students, times")
    listing.add_argument("--json", action="store_true", help="print one JSON array, a class per object")
    extend = actions.add_parser("extend", help="keep a class open longer (an ended class is reopened)")
    extend.add_argument("code", help="the class code")
    extend.add_argument(
        "--hours",
        type=_number_in(0.01, LONGEST_KEEP_HOURS),
        default=KEEP_HOURS,
        help=f"how many hours longer, up to {LONGEST_KEEP_HOURS:g} (default {KEEP_HOURS:g})",
    )
    end = actions.add_parser(
        "end",
        help=f"end a class now: read-only, kept {KEEP_AFTER_END_HOURS} hours for its export, then deleted",
    )
    end.add_argument("code", help="the class code")
    export = actions.add_parser(
        "export",
        help="write a period's drawings (class-CODE-pN-drawings.npz: frames, labels, students, what "
        "'class evaluate --frames' reads) and answers (class-CODE-pN-answers.csv: per student and question, "
        "with time and before/after the reveal); open and ended classes alike",
    )
    export.add_argument("code", help="the class code")
    export.add_argument(
        "--period", type=_number_in(1, MAX_PERIODS, integer=True), default=None, help="default: the current one"
    )
    export.add_argument("--out", default=".", help="the folder to write them in (default: here)")
    _add_class_evaluate(actions)
    report = actions.add_parser(
        "report",
        help="what a class has sent in its current period: drawings per digit, answers per question, and the three "
        f"models' accuracies read leave-one-student-out ({_REFERENCE})",
    )
    report.add_argument("code", help="the class code")
    _add_weight(report)
    report.add_argument("--json", action="store_true", help="print one JSON object")


def _server_address(text: str) -> str:
    """An argparse ``type``: ``http(s)://host[:port][/path]`` without query, fragment or credentials, no
    trailing slash; else a usage error saying so."""
    from urllib.parse import urlsplit

    rule = "give http://host:port (or https://..., with a path if the lab is served under one)"
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number or out of range
    except ValueError:
        raise argparse.ArgumentTypeError(f"that is not an address: {rule}") from None
    if (
        len(text) > 200
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.query
        or parts.fragment
        or not all(c.isalnum() or c in "-._~/" for c in parts.path)
    ):
        raise argparse.ArgumentTypeError(f"that is not an address students can open: {rule}")
    return text.rstrip("/")


def _class_report(code: str, weight: float) -> dict:
    """What class ``code`` (open or ended) holds in its current period, as plain values; ValueError with a sentence
    when there is no such class.

    ``evaluation`` is None when the class has no drawings (MNIST is then not needed).
    """
    from collections import Counter

    import numpy as np

    from .classroom import open_store
    from .classroom.export import as_arrays

    store = open_store()
    info = _held_class(store, code)
    valid = info.code
    arrays = as_arrays(store.drawings(valid))
    counted = Counter((row.question, row.choice) for row in store.answers(valid) if not row.after_reveal)
    answers: dict[str, dict[str, int]] = {}
    for (question, choice), count in sorted(counted.items(), key=lambda item: (item[0][0], -item[1], item[0][1])):
        answers.setdefault(question, {})[choice] = count
    evaluation = None
    if len(arrays.meant):
        from .experiments.class_model import evaluate_class
        from .experiments.evaluate import fit_published

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


def _format_class_report(report: dict) -> str:
    """The report as text: drawings per digit, answers per question (each answer quoted, as JSON escapes it:
    students typed nothing here, but the store takes any text), then the evaluation."""
    from datetime import datetime

    from .experiments.class_report import format_evaluation

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


def _run_class(args) -> int:
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

    from .classroom import Refused, open_store

    store = open_store()
    try:
        if args.class_command == "new":
            return _class_new(store, args)
        if args.class_command == "list":
            return _class_list(store, args.json)
        if args.class_command == "export":
            return _class_export(store, _held_class(store, args.code), args.period, args.out)
        return _class_extend_or_end(store, args)
    except Refused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return 2


def _valid_class_code(code: str) -> str:
    from .classroom import CODE_RULE, class_code

    valid = class_code(code)
    if valid is None:
        raise ValueError(f"that is not a class code: a class code is {CODE_RULE}")
    return valid


def _held_class(store, code: str):
    """The ClassInfo of ``code`` (open or ended); ValueError with a sentence when there is none."""
    info = store.class_info(_valid_class_code(code))
    if info is None:
        raise ValueError(f"there is no class {_valid_class_code(code)}: it was never made, or it was deleted")
    return info


def _local_time(seconds: float) -> str:
    """``2026-11-27 14:05`` in the server's local time."""
    from datetime import datetime

    return datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")


def _iso_time(seconds: float) -> str:
    """ISO 8601 with the server's UTC offset, to the second."""
    from datetime import datetime

    return datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")


def _class_new(store, args) -> int:
    from urllib.parse import urlencode, urlsplit

    made = store.create_class(args.code)
    code, key = made.info.code, made.teacher_key
    paths = {
        "student_path": "/draw?" + urlencode({"class": code}),
        "student_lesson_path": "/lesson?" + urlencode({"class": code}),
        "teacher_path": "/teach?" + urlencode({"class": code, "key": key}),
        "teacher_lesson_path": "/lesson?" + urlencode({"class": code, "key": key}),
    }
    base = args.url or "<server address>"
    if args.url and (urlsplit(args.url).hostname or "").lower() in LOOPBACK_NAMES | {"0.0.0.0"}:
        print(
            f"warning: students' devices cannot open {args.url}: it names this machine only; give the address "
            "their devices reach it at (its address on the room's network, such as http://192.168.1.20:8501)",
            file=sys.stderr,
        )
    if args.json:
        links = {name.replace("_path", "_url"): args.url + path for name, path in paths.items()} if args.url else {}
        expiry = {"expires_at": made.info.expires_at, "expires_at_iso": _iso_time(made.info.expires_at)}
        print(json.dumps({"code": code, **paths, **links, **expiry}))
        return 0
    print(
        f"class {code}: open until {_local_time(made.info.expires_at)} local time ({_iso_time(made.info.expires_at)}) "
        f"if nobody uses it; every drawing or answer keeps it open {KEEP_HOURS:g} hours from then"
    )
    print("students (Draw):    " + base + paths["student_path"])
    print("students (lesson):  " + base + paths["student_lesson_path"])
    print("teacher's page:     " + base + paths["teacher_path"] + "   (keep the teacher links private)")
    print("teacher (lesson):   " + base + paths["teacher_lesson_path"])
    return 0


LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}


def _class_summary(store, info) -> dict:
    """One class as plain values: code, state, period, drawings and students of the current period, times."""
    now = store.clock()
    drawings = store.drawings(info.code)
    students = set(store.presence(info.code))
    students |= {d.student for d in drawings} | {a.student for a in store.answers(info.code)}
    return {
        "code": info.code,
        "state": "open" if info.is_open(now) else "ended",
        "period": info.period,
        "drawings": len(drawings),
        "students": len(students),
        "created_at": info.created_at,
        "expires_at": info.expires_at,
        "ended_at": info.ended(now),
        "deleted_at": info.deleted_at(now),
    }


def _class_list(store, as_json: bool) -> int:
    classes = [_class_summary(store, info) for info in store.list_classes()]
    if as_json:
        print(json.dumps(classes))
        return 0
    if not classes:
        print("No classes: python -m nbcore class new makes one.")
        return 0
    header = f"{'code':<12}  {'state':<5}  {'period':>6}  {'drawings':>8}  {'students':>8}  ends / ended (local time)"
    print(header)
    for row in classes:
        if row["ended_at"] is None:
            when = f"ends {_local_time(row['expires_at'])} if nobody uses it"
        else:
            when = f"ended {_local_time(row['ended_at'])}, deleted {_local_time(row['deleted_at'])}"
        print(
            f"{row['code']:<12}  {row['state']:<5}  {row['period']:>6}  {row['drawings']:>8}  {row['students']:>8}  "
            + when
        )
    return 0


def _class_extend_or_end(store, args) -> int:
    from .classroom import OPERATOR

    code = _held_class(store, args.code).code
    if args.class_command == "extend":
        info = store.extend(code, OPERATOR, args.hours * 3600)
        print(f"class {code}: open until {_local_time(info.expires_at)} local time ({_iso_time(info.expires_at)})")
        return 0
    info = store.end(code, OPERATOR)
    ended, deleted = info.ended(store.clock()), info.deleted_at(store.clock())
    print(
        f"class {code}: ended at {_local_time(ended)} local time; kept read-only until {_local_time(deleted)}, then "
        f"deleted. Export it: python -m nbcore class export {code}; reopen it: python -m nbcore class extend {code}"
    )
    return 0


def _class_export(store, info, period: int | None, out: str) -> int:
    """Write the period's drawings (.npz) and answers (.csv) of class ``info`` in ``out``; their paths on stdout."""
    from pathlib import Path

    from .classroom.export import answers_csv, drawings_npz
    from .files import write_atomically

    code = info.code
    chosen = info.period if period is None else period
    if chosen > info.period:
        raise ValueError(f"class {code} has periods 1 to {info.period}")
    folder = Path(out)
    files = {
        f"class-{code}-p{chosen}-drawings.npz": drawings_npz(store.drawings(code, period=chosen)),
        f"class-{code}-p{chosen}-answers.csv": answers_csv(store.answers(code, period=chosen)),
    }
    for name, content in files.items():

        def write(handle, content: bytes = content) -> None:
            handle.write(content)

        write_atomically(folder / name, write)
        print(folder / name)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nbcore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _add_evaluate(commands)
    _add_class(commands)
    _add_mixture(commands)
    prepare = commands.add_parser(
        "prepare",
        help="make everything the dashboard needs in the data directory ($NBCORE_DATA_DIR), so that no page "
        "trains in front of a class: MNIST found, verified and decoded, the SMS collection, deskewed MNIST, "
        "softmax weights, learning and smoothing curves, Gaussian naive Bayes; what is there and whole is "
        "kept, what is damaged is made again",
    )
    how = prepare.add_mutually_exclusive_group()
    how.add_argument(
        "--no-download", action="store_true", help="use only what is in the data directory, download nothing"
    )
    how.add_argument(
        "--check",
        action="store_true",
        help="check that everything is prepared and whole, computing, downloading and writing nothing (no "
        "torchvision needed); exit 1 at the first result missing or damaged",
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
            return _run_prepare(download=not args.no_download, check=args.check)
        if args.command == "mixture":
            print(_run_mixture(args))
            return 0
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
