"""``prepare [--no-download | --check]``: make (or check) everything the dashboard needs in the data directory."""

from __future__ import annotations

import sys

from .output import stderr_progress_bar


def add_prepare(commands) -> None:
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
    prepare.set_defaults(run=run_prepare)


def run_prepare(args) -> int:
    """``prepare``: progress on stderr, a line per result on stdout; 0 when every result that can be had is kept.
    ``--check``: the same lines for results read, never made; 0 when every one is there and whole, else 1."""
    import logging

    from ..datasets import default_data_dir
    from ..prepared.prepare import prepare

    download, check = not args.no_download, args.check
    logging.getLogger("nbcore").addHandler(logging.NullHandler())  # each outcome's line says it already
    in_place = sys.stderr.isatty()  # a bar redrawn in place; in a log, one line as each step starts
    started_steps: set[str] = set()

    def progress(fraction: float, message: str) -> None:
        if in_place:
            stderr_progress_bar(fraction, message)
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
    from ..datasets import default_data_dir

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
