"""Command line: ``python -m devtools.benchmarks naive-bayes [--repeats N]``, ``softmax [--repeats N]``,
``mixture [--repeats N] [--no-prepare]``, ``languages [--repeats N]``."""

from __future__ import annotations

import argparse
import sys

from nbcore.datasets.mnist import MnistDataError

MAX_REPEATS = 1000


def repeats_count(text: str) -> int:
    """An argparse ``type``: an integer in 1..MAX_REPEATS, else a usage error saying so."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 1 <= value <= MAX_REPEATS:
        raise argparse.ArgumentTypeError(f"{text} is outside 1..{MAX_REPEATS}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.benchmarks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    naive_bayes = commands.add_parser(
        "naive-bayes", help="time nbcore's BernoulliNB against scikit-learn's, given uint8 and float64 input"
    )
    naive_bayes.add_argument("--repeats", type=repeats_count, default=7, help=f"1..{MAX_REPEATS}")
    softmax = commands.add_parser(
        "softmax", help="our default softmax regression against scikit-learn's LogisticRegression()"
    )
    softmax.add_argument(
        "--repeats", type=repeats_count, default=3, help=f"fits of ours, 1..{MAX_REPEATS}; the median time is reported"
    )
    mixture = commands.add_parser(
        "mixture", help="EM per iteration against its matrix products alone; whole fits; what prepare adds"
    )
    mixture.add_argument("--repeats", type=repeats_count, default=3, help=f"1..{MAX_REPEATS}")
    mixture.add_argument("--no-prepare", action="store_true", help="leave out the prepared results' time and size")
    languages = commands.add_parser(
        "languages", help="the catalogues' coverage; a page's run in each language and the share spent translating"
    )
    languages.add_argument(
        "--repeats", type=repeats_count, default=9, help=f"runs per page and language, 1..{MAX_REPEATS}"
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "naive-bayes":
            from .naive_bayes import run_bench

            run_bench(repeats=args.repeats)
        elif args.command == "mixture":
            from .mixture import run_bench_mixture

            run_bench_mixture(repeats=args.repeats, prepare=not args.no_prepare)
        elif args.command == "languages":
            from .languages import run_bench_languages

            run_bench_languages(repeats=args.repeats)
        else:
            from .softmax import run_bench_softmax

            run_bench_softmax(repeats=args.repeats)
    except (MnistDataError, ValueError, OSError) as error:  # OSError: nbcore.files.FileProblem sentences
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
