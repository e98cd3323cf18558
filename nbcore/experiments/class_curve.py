"""The class's accuracy curve: its models trained on at most k class drawings per digit, for growing k, each
group of students read by models trained on the other groups' drawings only, against MNIST's model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..features import PackedBinary
from ..models.bernoulli import BernoulliNB
from .class_counts import as_zero_one, combined_counts, model_from_counts

CURVE_SIZES = (1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500)
CURVE_REPEATS = 3
CURVE_FOLDS = 10


@dataclass(frozen=True)
class Curve:
    """Accuracy against ``sizes`` (k,): at most that many class drawings per digit for each model to learn from.

    ``accuracy[name]`` float64 (k,) for "class" (and "mnist_plus_class" when a weight was given): the mean over
    ``repeats`` random draws. Students are split into ``folds`` groups; a group's drawings are read by models
    trained on drawings of the other groups only, so no model reads a student it saw. ``mnist`` is MNIST's
    accuracy on the same drawings (a flat line), ``overtake`` the smallest size from which the class's model
    reads better than MNIST's at every larger size measured (None if it does not within the drawings there are).
    """

    sizes: np.ndarray
    accuracy: dict[str, np.ndarray]
    mnist: float
    repeats: int
    folds: int
    overtake: int | None


def overtake_point(sizes: np.ndarray, accuracy: np.ndarray, reference: float) -> int | None:
    """The smallest of ``sizes`` from which ``accuracy`` stays above ``reference`` to the end, or None."""
    above = np.asarray(accuracy) > reference
    if not above.size or not above[-1]:
        return None
    below = np.flatnonzero(~above)
    return int(sizes[below[-1] + 1]) if below.size else int(sizes[0])


def accuracy_curve(
    features: np.ndarray,
    labels: np.ndarray,
    students: np.ndarray,
    scored: np.ndarray,
    mnist_model: BernoulliNB,
    weight: float | None,
    sizes: Sequence[int] = CURVE_SIZES,
    repeats: int = CURVE_REPEATS,
    folds: int = CURVE_FOLDS,
    seed: int = 0,
) -> Curve | None:
    """The class's model (and, with a ``weight``, MNIST + the class) trained on at most k drawings per digit.

    ``features`` 0/1 (n, n_features), ``labels`` (n,), ``students`` (n,) ids; the drawings where ``scored``
    (bool (n,)) is True are read. Students are dealt, in order of id, into ``folds`` groups (fewer if there
    are fewer students). For each group and repeat, each digit's drawings by the other groups are shuffled
    and the first k counted (the sets grow nested with k). ``sizes`` are kept up to the fewest drawings the
    other groups made of a scored digit, and that number is added as the last size.
    None when fewer than two students sent drawings, nothing is scored, or no size fits.
    """
    ids, positions = np.unique(students, return_inverse=True)
    measured_digits = np.unique(labels[scored])
    if len(ids) < 2 or not measured_digits.size:
        return None
    n_folds = min(folds, len(ids))
    group = (np.arange(len(ids)) % n_folds)[positions]
    per_group = np.stack([np.bincount(labels[group == index], minlength=10) for index in range(n_folds)])
    pools = per_group.sum(axis=0) - per_group  # (groups, 10): drawings of each digit by the other groups
    largest = int(pools[:, measured_digits].min())
    kept = np.asarray([size for size in sizes if size <= largest], np.int64)
    if largest > 0 and (not kept.size or kept[-1] != largest):
        kept = np.append(kept, largest)
    if not kept.size:
        return None
    names = ("class",) if weight is None else ("class", "mnist_plus_class")
    correct = {name: np.zeros((repeats, len(kept))) for name in names}
    rng = np.random.default_rng(seed)
    for index in range(n_folds):
        read = (group == index) & scored
        if not read.any():
            continue
        packed, truth = PackedBinary.from_dense(features[read]), labels[read]
        for repeat in range(repeats):
            class_counts = np.zeros((len(kept), 10), np.int64)
            feature_counts = np.zeros((len(kept), 10, features.shape[1]), np.int64)
            for digit in range(10):
                pool = np.flatnonzero((group != index) & (labels == digit))
                if not pool.size:
                    continue
                # ink per pixel after 1, 2, ... drawings of a shuffled pool: every k's counts in one pass
                running = np.cumsum(features[rng.permutation(pool)], axis=0, dtype=np.int64)
                taken = np.minimum(kept, pool.size)
                class_counts[:, digit] = taken
                feature_counts[:, digit] = running[taken - 1]
            for point in range(len(kept)):
                models = {"class": model_from_counts(mnist_model, class_counts[point], feature_counts[point])}
                if weight is not None:
                    counts = combined_counts(mnist_model, class_counts[point], feature_counts[point], weight)
                    models["mnist_plus_class"] = model_from_counts(mnist_model, *counts)
                for name, model in models.items():
                    correct[name][repeat, point] += np.sum(model.predict(packed) == truth)
    accuracy = {name: correct[name].mean(axis=0) / scored.sum() for name in names}
    mnist_accuracy = float(np.mean(as_zero_one(mnist_model).predict(features[scored]) == labels[scored]))
    return Curve(
        kept, accuracy, mnist_accuracy, repeats, n_folds, overtake_point(kept, accuracy["class"], mnist_accuracy)
    )
