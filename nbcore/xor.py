"""The XOR exercise: naive Bayes cannot separate XOR, a model with an edge x1 -> x2 can.

Data: the four points (0,0), (0,1), (1,0), (1,1) labelled x1 XOR x2 = 0, 1, 1, 0.
Within each class, x1 and x2 are each 0 or 1 half the time, so every per-feature
probability naive Bayes learns is 1/2 (with or without smoothing) and every posterior
is 1/2: the class depends only on how x1 and x2 vary *together*, which the naive
independence assumption throws away. The Bayesian network y -> x1, y -> x2, x1 -> x2
models p(x2 | x1, y) and so keeps exactly that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .naive_bayes import BaseNaiveBayes, BernoulliNB, check_labels
from .features import check_binary

XOR_POINTS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.uint8)
XOR_LABELS = np.array([0, 1, 1, 0], dtype=np.int64)


class ChainBayesNet(BaseNaiveBayes):
    """Two 0/1 features with the graph y -> x1, y -> x2, x1 -> x2: p(x, y) = p(y) p(x1 | y) p(x2 | x1, y).

    Each conditional is smoothed independently with strength k:
    ``p(x1=1 | y) = (n(x1=1, y) + k) / (n(y) + 2k)`` and
    ``p(x2=1 | x1, y) = (n(x2=1, x1, y) + k) / (n(x1, y) + 2k)``; a parent value never
    seen (possible only with k = 0) gives 1/2. The class prior is empirical.
    Fitted state: the counts ``class_count_`` (2,), ``x1_count_`` (2,) (x1 = 1 per class),
    ``parent_count_`` (2, 2) (n(x1, y), indexed [y, x1]) and ``x2_count_`` (2, 2) (x2 = 1).
    """

    n_classes = 2

    def __init__(self, k: float = 1.0):
        if not np.isfinite(k) or k < 0:
            raise ValueError(f"k must be a finite number >= 0, got {k!r}")
        self.k = float(k)

    def fit(self, X, y) -> "ChainBayesNet":
        """Count the four tables from 0/1 X (n, 2) and labels y in {0, 1}."""
        X = check_binary(X)
        if X.shape[1] != 2:
            raise ValueError(f"X must have exactly 2 features, got {X.shape[1]}")
        y = check_labels(y, X.shape[0], self.n_classes)
        x1, x2 = X[:, 0].astype(np.int64), X[:, 1].astype(np.int64)
        self.class_count_ = np.bincount(y, minlength=2)
        self.x1_count_ = np.bincount(y, weights=x1, minlength=2).astype(np.int64)
        self.parent_count_ = np.zeros((2, 2), dtype=np.int64)
        self.x2_count_ = np.zeros((2, 2), dtype=np.int64)
        np.add.at(self.parent_count_, (y, x1), 1)
        np.add.at(self.x2_count_, (y, x1), x2)
        return self

    @property
    def x1_prob_(self) -> np.ndarray:
        """p(x1 = 1 | y): float64 (2,)."""
        self._check_fitted()
        return _smoothed(self.x1_count_, self.class_count_, self.k)

    @property
    def x2_prob_(self) -> np.ndarray:
        """p(x2 = 1 | x1, y): float64 (2, 2) indexed [y, x1]."""
        self._check_fitted()
        return _smoothed(self.x2_count_, self.parent_count_, self.k)

    def joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y): float64 (n_samples, 2); -inf where a zero probability (k = 0) is hit."""
        self._check_fitted()
        X = check_binary(X)
        x1, x2 = X[:, :1].astype(np.int64), X[:, 1:].astype(np.int64)
        classes = np.arange(2)
        p_x1 = np.where(x1 == 1, self.x1_prob_, 1 - self.x1_prob_)  # (n, 2)
        p_x2_on = self.x2_prob_[classes, x1]  # (n, 2): p(x2 = 1 | this x1, y)
        p_x2 = np.where(x2 == 1, p_x2_on, 1 - p_x2_on)
        with np.errstate(divide="ignore"):
            return np.log(self.class_count_ / self.class_count_.sum()) + np.log(p_x1) + np.log(p_x2)


def _smoothed(on_count: np.ndarray, total: np.ndarray, k: float) -> np.ndarray:
    """(on + k) / (total + 2k) elementwise, 1/2 where total + 2k = 0."""
    denominator = total + 2 * k
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (on_count + k) / denominator, 0.5)


def naive_bayes(k: float) -> BernoulliNB:
    """BernoulliNB over the two XOR features and two classes, Laplace strength k (alpha = beta = k)."""
    model = BernoulliNB(alpha=k, beta=k)
    model.n_classes = 2  # the XOR labels are 0/1, not MNIST's ten digits
    return model.fit(XOR_POINTS, XOR_LABELS)


@dataclass(frozen=True)
class XorResult:
    """What one model does on the four XOR points."""

    posterior: np.ndarray  # p(y = 1 | x) per point, float64 (4,)
    predictions: np.ndarray  # int64 (4,), ties go to class 0
    accuracy: float


def evaluate(model: BaseNaiveBayes) -> XorResult:
    """Posterior of class 1, predictions and accuracy of a fitted model on the four XOR points."""
    posterior = model.predict_proba(XOR_POINTS)[:, 1]
    predictions = model.predict(XOR_POINTS)
    return XorResult(posterior, predictions, float(np.mean(predictions == XOR_LABELS)))
