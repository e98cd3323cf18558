"""Beyond naive: the mixture of naive Bayes styles on MNIST, and what unlabeled digits do to it.

Two experiments, each fitting ``BernoulliMixtureNB`` on the 60,000 training images in an ``InputForm`` and
measuring on the 10,000 test images:

* ``components_table``: styles per digit K against test accuracy and the held-out mean log p(x | y);
* ``unlabeled_table``: a few labelled images per digit, with the rest of the training set unlabeled at
  weight λ (λ = 0: the labelled images alone), against test accuracy; each fit's EM objective per iteration.

``python -m nbcore mixture`` prints both; ``nbcore.prepared.results`` keeps the page's share of them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..datasets.mnist import MnistSplits
from ..inputs import InputForm
from ..models.mixture import UNLABELED, BernoulliMixtureNB
from ..progress import ProgressCallback

COMPONENT_GRID = (1, 2, 5, 10, 20, 50)  # the K of the page's curve and of prepare
MAX_COMPONENTS = 50  # the largest K the page offers
LABELS_PER_DIGIT = (1, 10, 100)  # the unlabeled-data panel's choices
UNLABELED_WEIGHTS = (0.0, 0.01, 0.1, 1.0)  # λ: 0 is the labelled images alone
SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class MixtureSettings:
    """The naive Bayes settings a mixture is fitted with (as ``NaiveBayesSettings``) and its styles per digit."""

    threshold: int
    alpha: float
    beta: float
    prior: str
    deskew: bool = False

    @property
    def form(self) -> InputForm:
        return InputForm(int(self.threshold), bool(self.deskew))

    def model(self, n_components: int, seed: int, **params) -> BernoulliMixtureNB:
        """An unfitted mixture with these settings."""
        return BernoulliMixtureNB(
            n_components=n_components,
            alpha=self.alpha,
            beta=self.beta,
            prior=self.prior,
            random_state=seed,
            **params,
        )


@dataclass(frozen=True)
class MixtureScore:
    """One fitted mixture on MNIST: test accuracy, held-out mean log p(x | y) in nats, EM's record."""

    n_components: int
    seed: int
    test_accuracy: float
    mean_test_loglik: float
    n_iter: int
    converged: bool
    fit_seconds: float


def score_mixture(model: BernoulliMixtureNB, test_features, test_labels: np.ndarray) -> tuple[float, float]:
    """(test accuracy, mean log p(x | y) over the test images in nats) of a fitted mixture."""
    return float(model.score(test_features, test_labels)), float(model.score_samples(test_features, test_labels).mean())


def fit_and_score(
    settings: MixtureSettings, splits: MnistSplits, n_components: int, seed: int, features=None
) -> tuple[BernoulliMixtureNB, MixtureScore]:
    """Fit a mixture of ``n_components`` styles on the training images in ``settings``' form and score it.

    ``features``: (train, test) 0/1 features of ``splits`` in that form, when already made.
    """
    train, test = features if features is not None else settings.form.split_features(splits)
    started = time.perf_counter()
    model = settings.model(n_components, seed).fit(train, splits.train_labels)
    seconds = time.perf_counter() - started
    accuracy, loglik = score_mixture(model, test, splits.test_labels)
    return model, MixtureScore(n_components, seed, accuracy, loglik, model.n_iter_, model.converged_, seconds)


def components_table(
    settings: MixtureSettings,
    splits: MnistSplits,
    components: Sequence[int] = COMPONENT_GRID,
    seeds: Sequence[int] = SEEDS,
    progress: ProgressCallback | None = None,
) -> list[MixtureScore]:
    """Test accuracy and held-out log-likelihood for every K of ``components`` and seed, in that order."""
    features = settings.form.split_features(splits)
    cases = [(k, seed) for k in components for seed in seeds]
    rows = []
    for number, (n_components, seed) in enumerate(cases):
        if progress is not None:
            progress(number / len(cases), f"K = {n_components}, seed {seed}")
        rows.append(fit_and_score(settings, splits, n_components, seed, features)[1])
    return rows


def labelled_subset(labels: np.ndarray, per_digit: int, seed: int) -> np.ndarray:
    """Positions of ``per_digit`` images of every label (all of one if it has fewer), chosen with ``seed``:
    sorted int64."""
    rng = np.random.default_rng(seed)
    chosen = [
        rng.choice(positions, size=min(per_digit, len(positions)), replace=False)
        for positions in (np.flatnonzero(labels == label) for label in np.unique(labels))
    ]
    return np.sort(np.concatenate(chosen)).astype(np.int64)


@dataclass(frozen=True)
class UnlabeledScore:
    """One fit of ``unlabeled_table``: labelled images per digit, λ, seed, test accuracy and EM's record."""

    labels_per_digit: int
    unlabeled_weight: float
    seed: int
    test_accuracy: float
    n_iter: int
    lower_bounds: tuple[float, ...]  # EM's objective after each iteration
    accuracy_by_iteration: tuple[float, ...]  # test accuracy after each iteration


def with_unlabeled(train_labels: np.ndarray, labels_per_digit: int, seed: int) -> np.ndarray:
    """``train_labels`` with all but ``labels_per_digit`` per digit (chosen with ``seed``) set to -1: int64 (n,)."""
    labels = np.full(len(train_labels), UNLABELED, dtype=np.int64)
    kept = labelled_subset(train_labels, labels_per_digit, seed)
    labels[kept] = train_labels[kept]
    return labels


def fit_with_unlabeled(
    settings: MixtureSettings,
    splits: MnistSplits,
    labels_per_digit: int,
    unlabeled_weight: float,
    seed: int,
    n_components: int = 1,
    features=None,
) -> UnlabeledScore:
    """A mixture fitted on ``labels_per_digit`` labelled images per digit (chosen with ``seed``) and every other
    training image unlabeled at weight ``unlabeled_weight``, its test accuracy measured after every iteration.

    ``features``: (train, test) 0/1 features of ``splits`` in ``settings``' form, when already made.
    """
    train, test = features if features is not None else settings.form.split_features(splits)
    labels = with_unlabeled(splits.train_labels, labels_per_digit, seed)
    model = settings.model(n_components, seed, unlabeled_weight=unlabeled_weight)
    accuracies = [float(model.score(test, splits.test_labels)) for _ in model.fit_steps(train, labels)]
    return UnlabeledScore(
        labels_per_digit,
        float(unlabeled_weight),
        seed,
        accuracies[-1],
        model.n_iter_,
        tuple(model.lower_bounds_),
        tuple(accuracies),
    )


def unlabeled_table(
    settings: MixtureSettings,
    splits: MnistSplits,
    labels_per_digit: Sequence[int] = LABELS_PER_DIGIT,
    weights: Sequence[float] = UNLABELED_WEIGHTS,
    seeds: Sequence[int] = SEEDS,
    n_components: int = 1,
    progress: ProgressCallback | None = None,
) -> list[UnlabeledScore]:
    """Test accuracy with ``labels_per_digit`` labelled images per digit and the rest unlabeled at each weight
    λ of ``weights`` (0: the labelled images alone), for every seed."""
    features = settings.form.split_features(splits)
    cases = [(count, weight, seed) for count in labels_per_digit for weight in weights for seed in seeds]
    rows = []
    for number, (count, weight, seed) in enumerate(cases):
        if progress is not None:
            progress(number / len(cases), f"{count} labelled per digit, λ = {weight:g}, seed {seed}")
        rows.append(fit_with_unlabeled(settings, splits, count, weight, seed, n_components, features))
    return rows


HELPED, HURT, NO_CHANGE = "helped", "hurt", "made no difference"
NO_CHANGE_BAND = 0.005  # a change in test accuracy smaller than this (50 of 10,000 images) is no change


def unlabeled_effect(alone: float, with_unlabeled: float) -> str:
    """What the unlabeled digits did to test accuracy: ``HELPED``, ``HURT`` or ``NO_CHANGE`` (within
    ``NO_CHANGE_BAND``), from the accuracy with the labelled digits alone and with the unlabeled ones."""
    change = with_unlabeled - alone
    if abs(change) < NO_CHANGE_BAND:
        return NO_CHANGE
    return HELPED if change > 0 else HURT


def format_components_table(rows: Sequence[MixtureScore]) -> str:
    """The components table as aligned text: one line per K and seed, then each K's mean."""
    lines = [f"{'K':>3}  {'seed':>4}  {'test accuracy':>13}  {'mean log p(x|y)':>15}  {'iterations':>11}  {'fit s':>6}"]
    for row in rows:
        lines.append(
            f"{row.n_components:>3}  {row.seed:>4}  {row.test_accuracy:>13.4f}  {row.mean_test_loglik:>15.2f}  "
            f"{row.n_iter:>10}{' ' if row.converged else '*'}  {row.fit_seconds:>6.1f}"
        )
    if any(not row.converged for row in rows):
        lines.append("* stopped at max_iter before the objective settled")
    return "\n".join(lines)


def format_unlabeled_table(rows: Sequence[UnlabeledScore]) -> str:
    """The unlabeled-data table as aligned text: per labelled count and λ, the accuracy of each seed and
    the change against λ = 0 (the labelled images alone) of the same seed."""
    alone = {(row.labels_per_digit, row.seed): row.test_accuracy for row in rows if row.unlabeled_weight == 0}
    lines = [f"{'labels/digit':>12}  {'λ':>5}  {'seed':>4}  {'test accuracy':>13}  {'vs λ = 0':>8}  {'iterations':>10}"]
    for row in rows:
        base = alone.get((row.labels_per_digit, row.seed))
        change = "" if base is None or row.unlabeled_weight == 0 else f"{row.test_accuracy - base:+.4f}"
        lines.append(
            f"{row.labels_per_digit:>12}  {row.unlabeled_weight:>5g}  {row.seed:>4}  {row.test_accuracy:>13.4f}  "
            f"{change:>8}  {row.n_iter:>10}"
        )
    return "\n".join(lines)
