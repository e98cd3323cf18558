"""``mixture``: naive Bayes with K styles per digit fitted by EM, and with ``--labels`` the unlabeled-data table."""

from __future__ import annotations

from ..experiments.mixture import COMPONENT_GRID, MAX_COMPONENTS, SEEDS, UNLABELED_WEIGHTS
from ..prepared import mnist
from .arguments import MAX_PSEUDO_COUNT, MAX_SEED, add_model_settings, number_in
from .output import stderr_progress_bar


def add_mixture(commands) -> None:
    parser = commands.add_parser(
        "mixture",
        help="naive Bayes with K styles per digit, fitted by EM: test accuracy and held-out log p(x|y) per K and "
        "seed; with --labels, a few labelled digits and the rest unlabeled at each --unlabeled-weight",
    )
    add_model_settings(parser)
    parser.add_argument(
        "--components",
        type=number_in(1, MAX_COMPONENTS, integer=True),
        nargs="+",
        default=None,
        help=f"styles per digit K, 1..{MAX_COMPONENTS} (default: {' '.join(map(str, COMPONENT_GRID))})",
    )
    parser.add_argument(
        "--seeds",
        type=number_in(0, MAX_SEED, integer=True),
        nargs="+",
        default=list(SEEDS),
        help="EM's random starts (default: 0 1 2)",
    )
    parser.add_argument(
        "--labels",
        type=number_in(1, 6000, integer=True),
        nargs="+",
        default=None,
        help="labelled training images per digit; every other training image is unlabeled (the unlabeled-data table)",
    )
    parser.add_argument(
        "--unlabeled-weight",
        type=number_in(0, MAX_PSEUDO_COUNT),
        nargs="+",
        default=list(UNLABELED_WEIGHTS),
        help="λ: how much an unlabeled image counts, 0 = the labelled images alone "
        f"(default: {' '.join(f'{weight:g}' for weight in UNLABELED_WEIGHTS)})",
    )
    parser.add_argument(
        "--unlabeled-components",
        type=number_in(1, MAX_COMPONENTS, integer=True),
        default=1,
        help="styles per digit in the unlabeled-data table (default 1)",
    )
    parser.set_defaults(run=run_mixture)


def _mixture_tables(args) -> str:
    """The components table, and the unlabeled-data table when --labels is given, as text."""
    from ..experiments import mixture as experiment

    splits = mnist.deskewed_splits(stderr_progress_bar) if args.deskew else mnist.mnist_splits()
    beta = args.alpha if args.beta is None else args.beta
    settings = experiment.MixtureSettings(args.threshold, args.alpha, beta, args.prior, args.deskew)
    settings.model(1, 0)._check_params()  # a bad value is one sentence before minutes of fitting
    tables = []
    if args.components is not None or args.labels is None:
        components = COMPONENT_GRID if args.components is None else args.components
        scores = experiment.components_table(settings, splits, components, args.seeds, stderr_progress_bar)
        tables.append(experiment.format_components_table(scores))
    if args.labels is not None:
        rows = experiment.unlabeled_table(
            settings,
            splits,
            args.labels,
            args.unlabeled_weight,
            args.seeds,
            args.unlabeled_components,
            stderr_progress_bar,
        )
        tables.append(experiment.format_unlabeled_table(rows))
    stderr_progress_bar(1.0, "done")
    return "\n\n".join(tables)


def run_mixture(args) -> int:
    print(_mixture_tables(args))
    return 0
