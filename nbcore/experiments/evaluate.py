"""MNIST experiments: train on the 60,000 training images, evaluate on the 10,000 test images.

Every MNIST figure the dashboard and the command line (``python -m nbcore evaluate``) show is measured
here, on inputs put in form by ``nbcore.inputs.InputForm`` (threshold, deskew). ``score_bernoulli`` and
``score_softmax`` measure a fitted model; ``evaluate_*`` fit one now and return the flat dict the command
line prints. Also the smoothing curve, the zero-smoothing counts, and learning curves (test accuracy
against training-set size).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..datasets.mnist import MnistSplits
from ..inputs import InputForm
from ..models.bernoulli import BernoulliNB
from ..models.softmax import PRESETS, SoftmaxRegression
from ..progress import ProgressCallback

DIGITS = np.arange(10)  # every MNIST class, declared so that a small training subset still knows all ten


@dataclass(frozen=True)
class NaiveBayesSettings:
    """Binarization threshold (pixel >= threshold is ink), Beta(alpha, beta) smoothing and class prior."""

    threshold: int
    alpha: float
    beta: float
    prior: str


# The two published settings of naive Bayes on MNIST (README): the textbook's (D2L) and the course note's
PUBLISHED_SETTINGS = {
    "textbook": NaiveBayesSettings(threshold=128, alpha=1.0, beta=1.0, prior="empirical"),
    "course note": NaiveBayesSettings(threshold=1, alpha=1.0, beta=1.0, prior="uniform"),
}


def fit_published(splits: MnistSplits, name: str = "textbook") -> BernoulliNB:
    """BernoulliNB fitted on MNIST's training images (as published, not deskewed) with ``PUBLISHED_SETTINGS[name]``:
    the reference a class's drawings are read against (``python -m nbcore class evaluate`` and ``class report``)."""
    settings = PUBLISHED_SETTINGS[name]
    train_features, _ = InputForm(settings.threshold, deskew=False).split_features(splits)
    model = BernoulliNB(alpha=settings.alpha, beta=settings.beta, prior=settings.prior)
    return model.fit(train_features, splits.train_labels)


# alpha = beta grid of the smoothing curve, a log-like scale up to 100 (0 left out: its log-likelihood is -inf)
SMOOTHING_CURVE_ALPHAS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0)


def mean_true_class_loglik(joint_log_likelihood: np.ndarray, labels: np.ndarray) -> float:
    """Mean over samples of log p(x, y_true): (n, k) scores and (n,) labels (column positions) -> nats."""
    return float(joint_log_likelihood[np.arange(len(labels)), labels].mean())


@dataclass(frozen=True)
class BernoulliScores:
    """What a fitted BernoulliNB does on MNIST."""

    model: BernoulliNB
    test_log_proba: np.ndarray  # (n_test, 10), log p(y | x)
    test_predictions: np.ndarray  # (n_test,)
    train_accuracy: float
    test_accuracy: float
    mean_train_loglik: float  # nats per image, mean of log p(x, y_true); -inf when an image is impossible
    mean_test_loglik: float


def score_bernoulli(
    model: BernoulliNB, train_features, train_labels: np.ndarray, test_features, test_labels: np.ndarray
) -> BernoulliScores:
    """Accuracies, posteriors and mean log-likelihoods of a fitted ``model``.

    Features: ``InputForm.features`` of the images (uint8 0/1 (n, 784), or PackedBinary of them).
    """
    test_predictions = model.predict(test_features)
    return BernoulliScores(
        model=model,
        test_log_proba=model.predict_log_proba(test_features),
        test_predictions=test_predictions,
        train_accuracy=float(model.score(train_features, train_labels)),
        test_accuracy=float(np.mean(test_predictions == test_labels)),
        mean_train_loglik=mean_true_class_loglik(model.predict_joint_log_proba(train_features), train_labels),
        mean_test_loglik=mean_true_class_loglik(model.predict_joint_log_proba(test_features), test_labels),
    )


def evaluate_bernoulli(
    splits: MnistSplits,
    threshold: int = 128,
    prior: str = "empirical",
    alpha: float = 1.0,
    beta: float | None = None,
    deskew: bool = False,
) -> dict:
    """Fit BernoulliNB now on the training images in ``InputForm(threshold, deskew)``; its figures as a flat dict.

    ``splits``: MNIST as published, or already deskewed (``InputForm.splits``) when ``deskew``.
    """
    form = InputForm(threshold, deskew)
    train_features, test_features = form.split_features(splits)
    started = time.perf_counter()
    model = BernoulliNB(alpha=alpha, beta=beta, prior=prior).fit(train_features, splits.train_labels)
    fit_seconds = time.perf_counter() - started
    scores = score_bernoulli(model, train_features, splits.train_labels, test_features, splits.test_labels)
    return {
        "model": "bernoulli",
        "threshold": threshold,
        "prior": prior,
        "alpha": alpha,
        "beta": model.beta_,
        "train_accuracy": scores.train_accuracy,
        "test_accuracy": scores.test_accuracy,
        "mean_train_loglik": scores.mean_train_loglik,
        "fit_seconds": fit_seconds,
        "deskew": deskew,
    }


def smoothing_curve(
    counted: BernoulliNB, train_features, train_labels: np.ndarray, test_features, test_labels: np.ndarray, alphas
) -> dict[str, np.ndarray]:
    """``score_bernoulli`` at each alpha (beta = alpha), re-derived from the counts of the fitted ``counted``.

    Features as for ``score_bernoulli``. Returns arrays of len(alphas): alpha, train_accuracy,
    test_accuracy, mean_train_loglik and mean_test_loglik (nats; -inf when some image is impossible).
    """
    names = ("train_accuracy", "test_accuracy", "mean_train_loglik", "mean_test_loglik")
    rows = []
    for alpha in alphas:
        model = counted.with_params(alpha=float(alpha), beta=float(alpha))
        scores = score_bernoulli(model, train_features, train_labels, test_features, test_labels)
        rows.append((alpha, *(getattr(scores, name) for name in names)))
    columns = np.array(rows, dtype=np.float64).T
    return dict(zip(("alpha", *names), columns))


def impossible_true_class(model: BernoulliNB, features, labels: np.ndarray) -> dict[str, float]:
    """Under zero smoothing: how many images get log p(x, y_true) = -inf, how many are impossible
    for every class, and the accuracy (with the documented fallback rule)."""
    scores = model.predict_joint_log_proba(features)
    return {
        "true_class_impossible": int(np.isneginf(scores[np.arange(len(labels)), labels]).sum()),
        "all_classes_impossible": int(np.isneginf(scores).all(axis=1).sum()),
        "accuracy": model.score(features, labels),
    }


@dataclass(frozen=True)
class SoftmaxScores:
    """What a fitted softmax regression does on MNIST."""

    model: SoftmaxRegression
    test_proba: np.ndarray  # (n_test, 10)
    test_predictions: np.ndarray  # (n_test,)
    train_accuracy: float
    test_accuracy: float
    mean_train_loglik: float  # nats per image, mean of log p(y_true | x)


def score_softmax(model: SoftmaxRegression, formed: MnistSplits) -> SoftmaxScores:
    """Accuracies, posteriors and mean conditional log-likelihood of ``model`` on ``formed``: the splits as the
    model sees them (``InputForm.splits``), which are also the ones it learned from."""
    test_proba = model.predict_proba(formed.test_images)
    test_predictions = test_proba.argmax(axis=1)
    train_log_proba = model.predict_log_proba(formed.train_images)
    return SoftmaxScores(
        model=model,
        test_proba=test_proba,
        test_predictions=test_predictions,
        train_accuracy=float(np.mean(train_log_proba.argmax(axis=1) == formed.train_labels)),
        test_accuracy=float(np.mean(test_predictions == formed.test_labels)),
        mean_train_loglik=mean_true_class_loglik(train_log_proba, formed.train_labels),
    )


def evaluate_softmax(
    splits: MnistSplits, preset: str = "default", seed: int = 0, progress=None, deskew: bool = False
) -> dict:
    """Train SoftmaxRegression now (never from the disk cache) on pixel/255 of the images in
    ``InputForm(deskew=deskew)``; accuracies, fit time.

    ``mean_train_loglik`` is the conditional log-likelihood, the mean of log p(y_true | x)
    over the training set (Bernoulli's is the joint log p(x, y_true), not comparable).
    """
    formed = InputForm(deskew=deskew).splits(splits)
    started = time.perf_counter()
    model = SoftmaxRegression(preset, seed).fit(formed.train_images, formed.train_labels, progress=progress)
    fit_seconds = time.perf_counter() - started
    scores = score_softmax(model, formed)
    return {
        "model": "softmax",
        "preset": preset,
        "seed": seed,
        "train_accuracy": scores.train_accuracy,
        "test_accuracy": scores.test_accuracy,
        "mean_train_loglik": scores.mean_train_loglik,
        "fit_seconds": fit_seconds,
        "cache": "unused (trained now)",
        "deskew": deskew,
    }


# A learner: (splits whose training part is a subset, seed) -> test accuracy of a model trained on that subset.
Learner = Callable[[MnistSplits, int], float]


def learning_curve(
    learners: dict[str, Learner],
    splits: MnistSplits,
    sizes: Sequence[int],
    seeds: Sequence[int],
    progress: ProgressCallback | None = None,
) -> dict[str, np.ndarray]:
    """Test accuracy of each learner trained on random subsets of the training set.

    Returns ``{name: float64 (len(sizes), len(seeds))}`` plus ``"sizes"``. Subsets are drawn
    per (size, seed) without replacement and shared by all learners; the test set is always the whole one.
    """
    results = {name: np.zeros((len(sizes), len(seeds))) for name in learners}
    steps, done = len(sizes) * len(seeds) * len(learners), 0
    for size_index, size in enumerate(sizes):
        for seed_index, seed in enumerate(seeds):
            subset = np.random.default_rng([seed, size]).choice(len(splits.train_labels), size=size, replace=False)
            part = dataclasses.replace(
                splits, train_images=splits.train_images[subset], train_labels=splits.train_labels[subset]
            )
            for name, learner in learners.items():
                results[name][size_index, seed_index] = learner(part, seed)
                done += 1
                if progress:
                    progress(done / steps, f"{name}: {size:,} training images, seed {seed}")
    return {"sizes": np.asarray(sizes), **results}


LEARNING_CURVE_SIZES = (30, 100, 300, 1000, 3000, 10000, 30000, 60000)
LEARNING_CURVE_SEEDS = (0, 1, 2)
MIN_SOFTMAX_STEPS = 300  # small training sets get more epochs, so that every size gets a fair optimisation


def bernoulli_learner(form: InputForm, **params) -> Learner:
    """A learning-curve learner: BernoulliNB(**params) on the features of ``form``."""

    def learn(splits: MnistSplits, seed: int) -> float:
        train, test = form.split_features(splits)
        model = BernoulliNB(**params).partial_fit(train, splits.train_labels, classes=DIGITS)
        return float(model.score(test, splits.test_labels))

    return learn


def softmax_learner(form: InputForm) -> Learner:
    """A learning-curve learner: the default softmax regression on the images of ``form``, with at least
    MIN_SOFTMAX_STEPS optimiser steps on small sets."""

    def learn(splits: MnistSplits, seed: int) -> float:
        formed = form.splits(splits)
        batch_size = min(PRESETS["default"].batch_size, len(formed.train_labels))
        steps_per_epoch = -(-len(formed.train_labels) // batch_size)
        epochs = max(PRESETS["default"].epochs, -(-MIN_SOFTMAX_STEPS // steps_per_epoch))
        model = SoftmaxRegression("default", seed, epochs=epochs, batch_size=batch_size)
        model.fit(formed.train_images, formed.train_labels, classes=DIGITS)
        return float(model.score(formed.test_images, formed.test_labels))

    return learn
