"""``MultinomialNB``: naive Bayes over count features (a bag of words) with Dirichlet(alpha) smoothing and the
scikit-learn interface, counts (sufficient statistics) as the fitted state.

Shapes: ``X`` is (n_samples, n_features); see ``nbcore.models.base`` for labels and ``classes_``.
"""

from __future__ import annotations

import numpy as np

from .base import PRIORS, BaseNaiveBayes, check_n_features, check_number
from .counts import check_count_matrix, sum_per_class


class MultinomialNB(BaseNaiveBayes):
    """Naive Bayes over counts (a bag of words): a sample is a sequence of independent feature draws.

    ``feature_log_prob_[c, j] = log((n_cj + alpha) / (N_c + alpha * n_features))`` where ``n_cj``
    is the total count of feature j in class c and ``N_c`` the total of all features there
    (scikit-learn's MultinomialNB). alpha must be > 0: a word never seen in a class would
    otherwise make every message containing it impossible there.
    ``prior`` is ``"empirical"`` (class frequencies) or ``"uniform"`` (1/n_classes).

    Input: counts >= 0 as an array or a scipy sparse matrix. Fitted state: ``class_count_``
    (n_classes,) int64 samples per class and ``feature_count_`` (n_classes, n_features) float64.
    """

    _count_names = ("feature_count_",)

    def __init__(self, alpha: float = 1.0, prior: str = "empirical"):
        self.alpha = alpha
        self.prior = prior

    def _check_params(self) -> None:
        check_number("alpha", self.alpha, allow_minimum=False)
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True  # as scikit-learn's MultinomialNB
        return tags

    def _check_X(self, X, training: bool):
        X = check_count_matrix(X, "counts")
        if hasattr(self, "n_features_in_"):
            check_n_features(X.shape[1], self.n_features_in_, type(self).__name__)
        return X

    def _empty_counts(self, n_classes: int, n_features: int) -> None:
        self.class_count_ = np.zeros(n_classes, dtype=np.int64)
        self.feature_count_ = np.zeros((n_classes, n_features), dtype=np.float64)

    def _add_counts(self, X, class_index: np.ndarray) -> None:
        n_classes = len(self.classes_)
        self.class_count_ = self.class_count_ + np.bincount(class_index, minlength=n_classes)
        self.feature_count_ = self.feature_count_ + sum_per_class(X, class_index, n_classes)

    def _derive_from_counts(self) -> None:
        """Counts + (alpha, prior) -> log p(feature | class) and the log prior."""
        smoothed = self.feature_count_ + float(self.alpha)
        self.feature_log_prob_ = np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))
        self.class_log_prior_ = self._class_log_prior()

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y) up to the multinomial coefficient (the same for every class): float64 (n, n_classes)."""
        return np.asarray(X @ self.feature_log_prob_.T, dtype=np.float64) + self.class_log_prior_
