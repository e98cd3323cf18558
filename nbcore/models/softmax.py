"""Softmax (multinomial logistic) regression on pixel/255 features, trained in NumPy float32.

Input ``X``: uint8 pixels, (n, 28, 28) or (n, 784), divided by 255 here; or
float features of the same shapes already in [0, 1] (pixel/255), used as they
are. Any (n, h, w) input is flattened to (n, h * w). Labels: any two or more (``classes_``).

Two presets (``PRESETS``), both minimising the mean cross-entropy over the training set:

* ``"course-note"``: full-batch gradient descent, learning rate 0.5, 100 epochs,
  no bias, zero initial weights, no penalty (the course note's recipe; it
  publishes train 0.8933 / test 0.8997 accuracy).
* ``"default"``: Adam on shuffled minibatches of 256, 3 epochs, peak learning rate
  0.03 decayed to 0 with a cosine schedule, bias, L2 penalty 1e-5 (chosen on a
  50k/10k split of the training set, not on the test set).

Why NumPy, not torch: measured on this machine (2 cores, no GPU), float32, the
default preset took 0.87 s with NumPy (OpenBLAS, 1 thread) and 4.5 s with torch
(1 thread; 19 s with 2); one full-batch product (60000, 784) @ (784, 10) took
31 ms in NumPy and 84 ms in torch. Training runs with BLAS limited to one thread
(``nbcore.models.blas``).
float32 gives the same course-note accuracies as float64 (0.8938 / 0.9000 with both).

Determinism: the seed only drives the minibatch shuffling (weights start at zero),
so the same seed and data give identical weights; the course-note preset does not
use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from ..features import as_numbers, check_2d
from ..progress import ProgressCallback
from . import blas
from .base import (
    ClassifierMixin,
    check_classes,
    check_labels,
    check_n_features,
    check_n_samples_and_features,
    class_positions,
)

OPTIMIZERS = ("gd", "adam")
SCHEDULES = ("constant", "cosine")
ADAM_BETA1, ADAM_BETA2, ADAM_EPSILON = 0.9, 0.999, 1e-8
BLOCK_ROWS = 2048  # full-batch gradients are summed over row blocks of this size (cache-sized)


@dataclass(frozen=True)
class SoftmaxSettings:
    """Every hyperparameter of a training run (together with the seed they key the disk cache).

    optimizer: "gd" (plain gradient descent) or "adam"; epochs: passes over the data;
    learning_rate: step size (the peak one under "cosine", which decays it to 0 by the
    last step); batch_size: samples per step, 0 = the full batch; l2: the penalty
    (l2 / 2) * ||coef||^2 added to the mean cross-entropy (the bias is not penalised);
    fit_intercept: learn a bias per class, else it stays 0.
    """

    optimizer: str
    epochs: int
    learning_rate: float
    batch_size: int
    l2: float
    fit_intercept: bool
    schedule: str

    def __post_init__(self):
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        for name, smallest in (("epochs", 1), ("batch_size", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < smallest:
                raise ValueError(f"{name} must be an integer >= {smallest}, got {value!r}")
        for name in ("learning_rate", "l2"):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise ValueError(f"fit_intercept must be True or False, got {self.fit_intercept!r}")


PRESETS = {
    "course-note": SoftmaxSettings(
        optimizer="gd", epochs=100, learning_rate=0.5, batch_size=0, l2=0.0, fit_intercept=False, schedule="constant"
    ),
    "default": SoftmaxSettings(
        optimizer="adam", epochs=3, learning_rate=0.03, batch_size=256, l2=1e-5, fit_intercept=True, schedule="cosine"
    ),
}


def pixel_features(X) -> np.ndarray:
    """uint8 pixels or float features in [0, 1], (n, h, w) or (n, d) -> float32 (n, h*w or d) in [0, 1]."""
    X = as_numbers(X)
    if X.ndim == 3:
        X = X.reshape(X.shape[0], -1)
    check_2d(X)
    if X.dtype == np.uint8:
        return X.astype(np.float32) / np.float32(255)
    if X.dtype.kind != "f":
        raise ValueError(f"X must hold uint8 pixels or float features in [0, 1], got dtype {X.dtype}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    if X.size and (X.min() < 0 or X.max() > 1):
        raise ValueError(f"float features must be pixel/255 in [0, 1], found {X.min()}..{X.max()}")
    return X.astype(np.float32, copy=False)


class SoftmaxRegression(ClassifierMixin):
    """p(y = c | x) = softmax(coef_ @ x + intercept_)[c], fitted by minimising the mean cross-entropy.

    ``SoftmaxRegression(preset, seed, **overrides)``: start from ``PRESETS[preset]`` and
    override any ``SoftmaxSettings`` field by keyword, e.g. ``epochs=1``; a field left at None
    takes the preset's value. Parameters are stored as given and checked by ``fit``
    (``resolved_settings()`` checks and combines them without fitting).

    Fitted state: ``classes_`` (n_classes,), ``coef_`` float32 (n_classes, n_features),
    ``intercept_`` float32 (n_classes,) (zeros without a bias), ``n_features_in_``.
    Probabilities are returned as float64.
    """

    def __init__(
        self,
        preset: str = "default",
        seed: int = 0,
        *,
        optimizer: str | None = None,
        epochs: int | None = None,
        learning_rate: float | None = None,
        batch_size: int | None = None,
        l2: float | None = None,
        fit_intercept: bool | None = None,
        schedule: str | None = None,
    ):
        self.preset = preset
        self.seed = seed
        self.optimizer = optimizer
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.l2 = l2
        self.fit_intercept = fit_intercept
        self.schedule = schedule

    def resolved_settings(self) -> SoftmaxSettings:
        """The preset with the overrides that are not None: ValueError for an unknown preset, a seed
        that is not an integer, or a bad field."""
        if not isinstance(self.preset, str) or self.preset not in PRESETS:
            raise ValueError(f"preset must be one of {tuple(PRESETS)}, got {self.preset!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {self.seed!r}")
        overrides = {
            field.name: getattr(self, field.name)
            for field in fields(SoftmaxSettings)
            if getattr(self, field.name) is not None
        }
        return replace(PRESETS[self.preset], **overrides)

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, X, y, progress: ProgressCallback | None = None, classes=None) -> SoftmaxRegression:
        """Train from zero weights; return self.

        ``classes_`` are the labels of ``y``, or ``classes`` when given (a superset: a learning-curve
        subset may miss a class the test set has; that class then only ever gets pushed down).

        ``progress(fraction, message)`` is called ~100 times: fraction of the steps done (0..1)
        and the epoch with the mean cross-entropy (nats) of its batches so far, each taken
        before its own step.
        """
        settings = self.resolved_settings()
        features = pixel_features(X)
        labels = check_labels(y, features.shape[0])
        check_n_samples_and_features(features.shape)
        classes = check_classes(np.unique(labels) if classes is None else classes)
        class_index = class_positions(classes, labels)
        with blas.single_thread():
            weights = self._train(features, class_index, len(classes), settings, progress)
        self.classes_ = classes
        self.coef_ = np.ascontiguousarray(weights[:-1].T)
        self.intercept_ = weights[-1].copy()
        self.n_features_in_ = features.shape[1]
        return self

    def _train(
        self,
        features: np.ndarray,
        labels: np.ndarray,
        n_classes: int,
        settings: SoftmaxSettings,
        progress: ProgressCallback | None,
    ) -> np.ndarray:
        """The optimisation loop over labels 0..n_classes-1: float32 (n_features + 1, n_classes), the last row
        the bias."""
        n_samples, n_features = features.shape
        one_hot = np.eye(n_classes, dtype=np.float32)[labels]
        batch_size = n_samples if settings.batch_size == 0 else min(settings.batch_size, n_samples)
        steps_per_epoch = math.ceil(n_samples / batch_size)
        total_steps = settings.epochs * steps_per_epoch
        report_every = max(1, total_steps // 100)
        rng = np.random.default_rng(self.seed)
        weights = np.zeros((n_features + 1, n_classes), np.float32)
        gradient = np.empty_like(weights)
        if settings.optimizer == "adam":
            first_moment, second_moment = np.zeros_like(weights), np.zeros_like(weights)
        if progress:
            progress(0.0, f"Training softmax regression ({self.preset})")
        step = 0
        for epoch in range(1, settings.epochs + 1):
            order = rng.permutation(n_samples) if batch_size < n_samples else None
            epoch_loss = 0.0
            for start in range(0, n_samples, batch_size):
                rows = slice(start, start + batch_size) if order is None else order[start : start + batch_size]
                epoch_loss += self._loss_and_gradient(features[rows], one_hot[rows], weights, gradient, settings)
                rate = settings.learning_rate
                if settings.schedule == "cosine":
                    rate *= 0.5 * (1 + math.cos(math.pi * step / total_steps))
                step += 1
                if settings.optimizer == "adam":
                    first_moment *= ADAM_BETA1
                    first_moment += (1 - ADAM_BETA1) * gradient
                    second_moment *= ADAM_BETA2
                    second_moment += (1 - ADAM_BETA2) * gradient * gradient
                    rate *= math.sqrt(1 - ADAM_BETA2**step) / (1 - ADAM_BETA1**step)
                    weights -= np.float32(rate) * first_moment / (np.sqrt(second_moment) + np.float32(ADAM_EPSILON))
                else:
                    weights -= np.float32(rate) * gradient
                if progress and (step % report_every == 0 or step == total_steps):
                    progress(
                        step / total_steps,
                        f"epoch {epoch}/{settings.epochs}: "
                        f"mean cross-entropy {epoch_loss / min(start + batch_size, n_samples):.4f}",
                    )
        return weights

    @staticmethod
    def _loss_and_gradient(
        batch: np.ndarray,
        batch_one_hot: np.ndarray,
        weights: np.ndarray,
        gradient: np.ndarray,
        settings: SoftmaxSettings,
    ) -> float:
        """Fill ``gradient`` (n_features + 1, n_classes) of the batch's mean cross-entropy plus the penalty.

        Returns the batch's summed cross-entropy (nats), before the step.
        """
        coef, bias = weights[:-1], weights[-1]
        gradient[:] = 0
        total_loss = 0.0
        for start in range(0, batch.shape[0], BLOCK_ROWS):
            block = batch[start : start + BLOCK_ROWS]
            scores = block @ coef
            scores += bias
            scores -= scores.max(axis=1, keepdims=True)
            true_class = batch_one_hot[start : start + BLOCK_ROWS]
            true_scores = (scores * true_class).sum(axis=1)
            np.exp(scores, out=scores)
            totals = scores.sum(axis=1, keepdims=True)
            total_loss += float((np.log(totals[:, 0]) - true_scores).sum())  # -log softmax[true class]
            scores /= totals
            scores -= true_class  # d(cross-entropy) / d(scores): softmax - one-hot
            gradient[:-1] += block.T @ scores
            if settings.fit_intercept:
                gradient[-1] += scores.sum(axis=0)
        gradient /= np.float32(batch.shape[0])
        if settings.l2:
            gradient[:-1] += np.float32(settings.l2) * coef
        return total_loss

    # -- prediction -------------------------------------------------------------------------
    def decision_scores(self, X) -> np.ndarray:
        """Unnormalised log-probabilities coef_ @ x + intercept_: float64 (n_samples, n_classes)."""
        self._check_fitted()
        features = pixel_features(X)
        check_n_features(features.shape[1], self.n_features_in_, type(self).__name__)
        return (features @ self.coef_.T + self.intercept_).astype(np.float64)

    def _decision_scores(self, X) -> np.ndarray:
        return self.decision_scores(X)
