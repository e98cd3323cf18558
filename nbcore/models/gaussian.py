"""``GaussianNB``: naive Bayes over real features, a normal distribution per feature and class, with the
scikit-learn interface; per-class means and variances (merged batch by batch) as the fitted state.

Shapes: ``X`` is (n_samples, n_features); see ``nbcore.models.base`` for labels and ``classes_``.
"""

from __future__ import annotations

import numpy as np

from ..features import as_numbers, check_2d
from .base import PRIORS, BaseNaiveBayes, check_n_features, check_number


def check_features(X) -> np.ndarray:
    """X as float64 (n_samples, n_features), every value finite, else ValueError."""
    X = as_numbers(X).astype(np.float64, copy=False)
    check_2d(X)
    if not np.all(np.isfinite(X)):
        raise ValueError("X must hold finite numbers (found NaN or infinity)")
    return X


class GaussianNB(BaseNaiveBayes):
    """Naive Bayes with p(x_j | y = c) = Normal(theta_[c, j], var_[c, j]).

    ``var_ = class_var_ + epsilon_`` where ``epsilon_ = var_smoothing * max_feature_var_``
    (the largest variance of any feature over all training samples, or 1 when every
    feature is constant), as scikit-learn does: it keeps a feature that is constant
    within a class from dividing by zero, so var_smoothing must be > 0.
    ``prior`` is ``"empirical"`` (class frequencies) or ``"uniform"`` (1/n_classes).

    Fitted state (merged batch by batch in ``partial_fit`` with Chan et al.'s update):
    ``class_count_`` (n_classes,), ``theta_`` and ``class_var_`` (the per-class means and
    unsmoothed variances, (n_classes, n_features)) and ``feature_mean_``/``feature_var_``
    (over all samples, (n_features,)); ``set_params`` re-derives ``var_`` and the prior from
    them. Scoring needs one sample or more of every class.
    """

    _count_names = ("theta_", "class_var_", "feature_mean_", "feature_var_")

    def __init__(self, var_smoothing: float = 1e-9, prior: str = "empirical"):
        self.var_smoothing = var_smoothing
        self.prior = prior

    def _check_params(self) -> None:
        check_number("var_smoothing", self.var_smoothing, allow_minimum=False)
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")

    def _check_X(self, X, training: bool) -> np.ndarray:
        X = check_features(X)
        if hasattr(self, "n_features_in_"):
            check_n_features(X.shape[1], self.n_features_in_, type(self).__name__)
        return X

    def _empty_counts(self, n_classes: int, n_features: int) -> None:
        self.class_count_ = np.zeros(n_classes, dtype=np.int64)
        self.theta_ = np.zeros((n_classes, n_features))
        self.class_var_ = np.zeros((n_classes, n_features))
        self.feature_mean_ = np.zeros(n_features)
        self.feature_var_ = np.zeros(n_features)

    @staticmethod
    def _merge(count: int, mean: np.ndarray, var: np.ndarray, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(mean, variance) of ``count`` earlier samples with these statistics plus the rows of ``batch``."""
        batch_mean, batch_var = batch.mean(axis=0), batch.var(axis=0)
        if count == 0:  # exactly what one fit computes
            return batch_mean, batch_var
        added = len(batch)
        total = count + added
        merged_mean = (count * mean + added * batch_mean) / total
        squares = count * var + added * batch_var + (count * added / total) * (batch_mean - mean) ** 2
        return merged_mean, squares / total

    def _add_counts(self, X: np.ndarray, class_index: np.ndarray) -> None:
        theta, class_var = self.theta_.copy(), self.class_var_.copy()
        for index in np.unique(class_index):
            theta[index], class_var[index] = self._merge(
                int(self.class_count_[index]), theta[index], class_var[index], X[class_index == index]
            )
        self.feature_mean_, self.feature_var_ = self._merge(
            int(self.class_count_.sum()), self.feature_mean_, self.feature_var_, X
        )
        self.theta_, self.class_var_ = theta, class_var
        self.class_count_ = self.class_count_ + np.bincount(class_index, minlength=len(self.classes_))

    def _derive_from_counts(self) -> None:
        """Statistics + (var_smoothing, prior) -> var_, the log prior and the scoring matrices."""
        self.max_feature_var_ = float(self.feature_var_.max())
        scale = self.max_feature_var_ if self.max_feature_var_ > 0 else 1.0  # all features constant
        self.epsilon_ = float(self.var_smoothing) * scale
        self.var_ = self.class_var_ + self.epsilon_
        self.class_log_prior_ = self._class_log_prior()
        precision = 1.0 / self.var_
        # -1/2 sum_j (x_j - theta_j)^2 / var_j = x^2 . a + x . b + const, a = -1/(2 var), b = theta / var
        self._square_weights = (-0.5 * precision).T  # (n_features, n_classes)
        self._linear_weights = (self.theta_ * precision).T
        self._bias = (
            self.class_log_prior_
            - 0.5 * np.sum(np.log(2.0 * np.pi * self.var_), axis=1)
            - 0.5 * np.sum(self.theta_**2 * precision, axis=1)
        )

    def _joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        """log p(x, y) for real-valued X: float64 (n_samples, n_classes), two matrix products."""
        empty = self.class_count_ == 0
        if empty.any():
            raise ValueError(
                f"no samples of {self.classes_[empty].tolist()} yet: GaussianNB needs one or more "
                "per class to score (add them with partial_fit)"
            )
        return (X**2) @ self._square_weights + X @ self._linear_weights + self._bias
