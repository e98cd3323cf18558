"""MNIST experiments: train on the 60,000 training images, evaluate on the 10,000 test images.

Each ``evaluate_*`` function returns a flat dict of measured figures; the
command line (``python -m nbcore evaluate``) prints it. Also the smoothing curve,
the zero-smoothing count, and learning curves (test accuracy against training-set size).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from ..datasets.mnist import MnistSplits
from ..features import binarize
from ..models.naive_bayes import BernoulliNB
from ..models.softmax import PRESETS, SoftmaxRegression
from ..progress import ProgressCallback

DIGITS = np.arange(10)  # every MNIST class, declared so that a small training subset still knows all ten


def mean_true_class_loglik(joint_log_likelihood: np.ndarray, labels: np.ndarray) -> float:
    """Mean over samples of log p(x, y_true): (n, k) scores and (n,) labels (column positions) -> nats."""
    return float(joint_log_likelihood[np.arange(len(labels)), labels].mean())


def evaluate_bernoulli(
    splits: MnistSplits, threshold: int = 128, prior: str = "empirical", alpha: float = 1.0, beta: float | None = None
) -> dict:
    """Fit BernoulliNB on binarized training images; accuracies and mean train log-likelihood."""
    train_features = binarize(splits.train_images, threshold)
    test_features = binarize(splits.test_images, threshold)
    started = time.perf_counter()
    model = BernoulliNB(alpha=alpha, beta=beta, prior=prior).fit(train_features, splits.train_labels)
    fit_seconds = time.perf_counter() - started
    train_scores = model.predict_joint_log_proba(train_features)
    return {
        "model": "bernoulli",
        "threshold": threshold,
        "prior": prior,
        "alpha": alpha,
        "beta": model.beta_,
        "train_accuracy": model.score(train_features, splits.train_labels),
        "test_accuracy": model.score(test_features, splits.test_labels),
        "mean_train_loglik": mean_true_class_loglik(train_scores, splits.train_labels),
        "fit_seconds": fit_seconds,
    }


def smoothing_curve(
    counted: BernoulliNB, train_features, train_labels: np.ndarray, test_features, test_labels: np.ndarray, alphas
) -> dict[str, np.ndarray]:
    """Accuracy and mean log p(x, y_true) against alpha (beta = alpha), re-derived from the counts.

    ``counted`` is a fitted BernoulliNB; features are 0/1 arrays or PackedBinary.
    Returns arrays of len(alphas): alpha, train_accuracy, test_accuracy, mean_train_loglik
    (nats; -inf when some training image is impossible under the model), mean_test_loglik.
    """
    rows = []
    for alpha in alphas:
        model = counted.with_params(alpha=float(alpha), beta=float(alpha))
        train_scores = model.predict_joint_log_proba(train_features)
        test_scores = model.predict_joint_log_proba(test_features)
        rows.append(
            (
                alpha,
                model.score(train_features, train_labels),
                model.score(test_features, test_labels),
                mean_true_class_loglik(train_scores, train_labels),
                mean_true_class_loglik(test_scores, test_labels),
            )
        )
    columns = np.array(rows, dtype=np.float64).T
    names = ("alpha", "train_accuracy", "test_accuracy", "mean_train_loglik", "mean_test_loglik")
    return dict(zip(names, columns))


def impossible_true_class(model: BernoulliNB, features, labels: np.ndarray) -> dict[str, float]:
    """Under zero smoothing: how many images get log p(x, y_true) = -inf, how many are impossible
    for every class, and the accuracy (with the documented fallback rule)."""
    scores = model.predict_joint_log_proba(features)
    return {
        "true_class_impossible": int(np.isneginf(scores[np.arange(len(labels)), labels]).sum()),
        "all_classes_impossible": int(np.isneginf(scores).all(axis=1).sum()),
        "accuracy": model.score(features, labels),
    }


def evaluate_softmax(splits: MnistSplits, preset: str = "default", seed: int = 0, progress=None) -> dict:
    """Train SoftmaxRegression now (never from the disk cache) on pixel/255; accuracies, fit time.

    ``mean_train_loglik`` is the conditional log-likelihood, the mean of log p(y_true | x)
    over the training set (Bernoulli's is the joint log p(x, y_true), not comparable).
    """
    started = time.perf_counter()
    model = SoftmaxRegression(preset, seed).fit(splits.train_images, splits.train_labels, progress=progress)
    fit_seconds = time.perf_counter() - started
    train_log_proba = model.predict_log_proba(splits.train_images)
    return {
        "model": "softmax",
        "preset": preset,
        "seed": seed,
        "train_accuracy": model.score(splits.train_images, splits.train_labels),
        "test_accuracy": model.score(splits.test_images, splits.test_labels),
        "mean_train_loglik": mean_true_class_loglik(train_log_proba, splits.train_labels),
        "fit_seconds": fit_seconds,
        "cache": "unused (trained now)",
    }


class Scorer(Protocol):
    def score(self, images: np.ndarray, labels: np.ndarray) -> float: ...


# A learner: (train images uint8 (n, 28, 28), labels (n,), seed) -> a fitted model with .score(images, labels).
Learner = Callable[[np.ndarray, np.ndarray, int], Scorer]


def learning_curve(
    learners: dict[str, Learner],
    train_images: np.ndarray,
    train_labels: np.ndarray,
    test_images: np.ndarray,
    test_labels: np.ndarray,
    sizes: Sequence[int],
    seeds: Sequence[int],
    progress: ProgressCallback | None = None,
) -> dict[str, np.ndarray]:
    """Test accuracy of each learner trained on random subsets of the training set.

    Returns ``{name: float64 (len(sizes), len(seeds))}`` plus ``"sizes"``. Subsets are drawn
    per (size, seed) without replacement and shared by all learners.
    """
    results = {name: np.zeros((len(sizes), len(seeds))) for name in learners}
    steps, done = len(sizes) * len(seeds) * len(learners), 0
    for size_index, size in enumerate(sizes):
        for seed_index, seed in enumerate(seeds):
            subset = np.random.default_rng([seed, size]).choice(len(train_labels), size=size, replace=False)
            for name, learner in learners.items():
                model = learner(train_images[subset], train_labels[subset], seed)
                results[name][size_index, seed_index] = model.score(test_images, test_labels)
                done += 1
                if progress:
                    progress(done / steps, f"{name}: {size:,} training images, seed {seed}")
    return {"sizes": np.asarray(sizes), **results}


LEARNING_CURVE_SIZES = (30, 100, 300, 1000, 3000, 10000, 30000, 60000)
LEARNING_CURVE_SEEDS = (0, 1, 2)
MIN_SOFTMAX_STEPS = 300  # small training sets get more epochs, so that every size gets a fair optimisation


def bernoulli_learner(threshold: int = 128, **params):
    """A learning-curve learner: (images, labels, seed) -> BernoulliNB binarizing at ``threshold`` itself,
    counted with every digit declared (a small subset may miss one)."""
    return lambda images, labels, seed: BernoulliNB(threshold=threshold, **params).partial_fit(
        images, labels, classes=DIGITS
    )


def softmax_learner(images: np.ndarray, labels: np.ndarray, seed: int) -> SoftmaxRegression:
    """The default softmax regression, with at least MIN_SOFTMAX_STEPS optimiser steps on small sets."""
    batch_size = min(PRESETS["default"].batch_size, len(labels))
    steps_per_epoch = -(-len(labels) // batch_size)
    epochs = max(PRESETS["default"].epochs, -(-MIN_SOFTMAX_STEPS // steps_per_epoch))
    return SoftmaxRegression("default", seed, epochs=epochs, batch_size=batch_size).fit(images, labels, classes=DIGITS)
