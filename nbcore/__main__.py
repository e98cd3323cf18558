"""Command line: ``python -m nbcore evaluate ...``, ``evaluate-handwriting``, ``mixture ...``,
``prepare [--no-download | --check]``,
``class new|list|extend|end|export|evaluate|report``.

The benchmarks against scikit-learn are development tools: ``python -m devtools.benchmarks``.
"""

from __future__ import annotations

import argparse
import sys

from .cli import classes, evaluate, mixture, prepare
from .datasets.mnist import MnistDataError


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code (2 with an ``error:`` line on stderr for a problem it can name)."""
    parser = argparse.ArgumentParser(prog="python -m nbcore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    evaluate.add_evaluate(commands)
    classes.add_class(commands)
    mixture.add_mixture(commands)
    prepare.add_prepare(commands)
    evaluate.add_handwriting(commands)
    args = parser.parse_args(argv)
    try:
        return args.run(args)  # each command's parser names its handler (set_defaults)
    except (
        MnistDataError,
        ValueError,
        OSError,
        ConnectionError,
    ) as error:  # OSError: nbcore.files.FileProblem sentences
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
