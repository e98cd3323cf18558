"""A two-feature Bayesian network with the edge naive Bayes leaves out: y -> x1, y -> x2, x1 -> x2."""

from __future__ import annotations

import numpy as np

from ..features import check_binary
from .base import PRIORS, BaseNaiveBayes, check_n_features, check_number


def _smoothed(on_count: np.ndarray, total: np.ndarray, alpha: float) -> np.ndarray:
    """(on + alpha) / (total + 2 alpha) elementwise, 1/2 where total + 2 alpha = 0."""
    denominator = total + 2 * alpha
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (on_count + alpha) / denominator, 0.5)


class ChainBayesNet(BaseNaiveBayes):
    """Two 0/1 features with the graph y -> x1, y -> x2, x1 -> x2: p(x, y) = p(y) p(x1 | y) p(x2 | x1, y).

    Each conditional is smoothed independently with the pseudo-count alpha:
    ``p(x1=1 | y) = (n(x1=1, y) + alpha) / (n(y) + 2 alpha)`` and
    ``p(x2=1 | x1, y) = (n(x2=1, x1, y) + alpha) / (n(x1, y) + 2 alpha)``; a parent value never
    seen (possible only with alpha = 0) gives 1/2. ``prior`` as in the naive Bayes models.
    Fitted state: the counts ``class_count_`` (n_classes,), ``x1_count_`` (n_classes,) (x1 = 1 per
    class), ``parent_count_`` (n_classes, 2) (n(x1, y), indexed [y, x1]) and ``x2_count_``
    (n_classes, 2) (x2 = 1); derived: ``x1_prob_`` (n_classes,) and ``x2_prob_`` (n_classes, 2).
    """

    _count_names = ("x1_count_", "parent_count_", "x2_count_")

    def __init__(self, alpha: float = 1.0, prior: str = "empirical"):
        self.alpha = alpha
        self.prior = prior

    def _check_params(self) -> None:
        check_number("alpha", self.alpha)
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")

    def _check_X(self, X, training: bool) -> np.ndarray:
        X = check_binary(X)
        if X.shape[1] != 2:
            raise ValueError(f"X must have exactly 2 features, got {X.shape[1]}")
        if hasattr(self, "n_features_in_"):
            check_n_features(X.shape[1], self.n_features_in_, type(self).__name__)
        return X

    def _empty_counts(self, n_classes: int, n_features: int) -> None:
        self.class_count_ = np.zeros(n_classes, dtype=np.int64)
        self.x1_count_ = np.zeros(n_classes, dtype=np.int64)
        self.parent_count_ = np.zeros((n_classes, 2), dtype=np.int64)
        self.x2_count_ = np.zeros((n_classes, 2), dtype=np.int64)

    def _add_counts(self, X: np.ndarray, class_index: np.ndarray) -> None:
        """Count the four tables from 0/1 X (n, 2)."""
        n_classes = len(self.classes_)
        x1, x2 = X[:, 0].astype(np.int64), X[:, 1].astype(np.int64)
        parent_count, x2_count = self.parent_count_.copy(), self.x2_count_.copy()
        np.add.at(parent_count, (class_index, x1), 1)
        np.add.at(x2_count, (class_index, x1), x2)
        self.class_count_ = self.class_count_ + np.bincount(class_index, minlength=n_classes)
        self.x1_count_ = self.x1_count_ + np.bincount(class_index, weights=x1, minlength=n_classes).astype(np.int64)
        self.parent_count_, self.x2_count_ = parent_count, x2_count

    def _derive_from_counts(self) -> None:
        alpha = float(self.alpha)
        self.x1_prob_ = _smoothed(self.x1_count_, self.class_count_, alpha)
        self.x2_prob_ = _smoothed(self.x2_count_, self.parent_count_, alpha)
        self.class_log_prior_ = self._class_log_prior()

    def _joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        """log p(x, y): float64 (n_samples, n_classes); -inf where a zero probability (alpha = 0) is hit."""
        x1, x2 = X[:, :1].astype(np.int64), X[:, 1:].astype(np.int64)
        classes = np.arange(len(self.classes_))
        p_x1 = np.where(x1 == 1, self.x1_prob_, 1 - self.x1_prob_)  # (n, n_classes)
        p_x2_on = self.x2_prob_[classes, x1]  # (n, n_classes): p(x2 = 1 | this x1, y)
        p_x2 = np.where(x2 == 1, p_x2_on, 1 - p_x2_on)
        with np.errstate(divide="ignore"):
            return self.class_log_prior_ + np.log(p_x1) + np.log(p_x2)
