"""``BernoulliNB``: naive Bayes over 0/1 features (binarized pixels, a binary bag of words) with Beta(alpha, beta)
smoothing and the scikit-learn interface, counts (sufficient statistics) as the fitted state; ``binarized``, the
pixel rule it applies with a threshold.

Shapes: ``X`` is (n_samples, n_features); see ``nbcore.models.base`` for labels and ``classes_``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from scipy.special import logsumexp

from ..features import PackedBinary, as_numbers, byte_table, check_2d, check_binary, packed_matmul
from .base import PRIORS, BaseNaiveBayes, check_labels, check_n_features, check_number
from .counts import check_count_matrix, sum_per_class


def binarized(X, threshold: float):
    """X binarized at ``threshold`` (x >= threshold): uint8 0/1 (n, n_features) or a 0/1 CSR array.

    X may be any finite numbers, an image stack (n, h, w) (flattened), or a sparse matrix when threshold > 0.
    """
    if isinstance(X, PackedBinary):
        raise ValueError(
            "a PackedBinary holds features already binarized: score it with a model whose threshold is None"
        )
    if scipy.sparse.issparse(X):
        if threshold <= 0:
            raise ValueError(
                f"a sparse X can only be binarized at a threshold > 0 (got {threshold!r}): "
                "at 0 or below its zeros would all become 1"
            )
        X = check_count_matrix(X, "numbers", nonnegative=False)
        if not X.has_canonical_format:  # duplicate entries add up before they are compared
            X = X.copy()
            X.sum_duplicates()
        on = X.data >= threshold
        binary = scipy.sparse.csr_array((on.astype(np.float64), X.indices, X.indptr), shape=X.shape)
        binary.eliminate_zeros()
        return binary
    X = as_numbers(X)
    if X.ndim < 2:
        check_2d(X)  # an image stack (n, h, w) is flattened below
    if X.dtype.kind == "f" and not np.all(np.isfinite(X)):
        raise ValueError("X must hold finite numbers (found NaN or infinity)")
    return (X.reshape(X.shape[0], -1) >= threshold).view(np.uint8)


def checked_observation(x, observed_mask, n_features: int, model: str) -> tuple[np.ndarray, np.ndarray]:
    """``inpaint``'s input checked: (0/1 features (n_features,), bool mask (n_features,)), else ValueError."""
    x = check_binary(np.asarray(x).reshape(1, -1))[0]
    observed_mask = np.asarray(observed_mask)
    if observed_mask.shape != x.shape or observed_mask.dtype != bool:
        raise ValueError(f"observed_mask must be a bool array of shape {x.shape}")
    check_n_features(x.shape[0], n_features, model)
    return x, observed_mask


class BernoulliNB(BaseNaiveBayes):
    """Naive Bayes over 0/1 features, with a Beta(alpha, beta) prior on every feature probability.

    ``feature_log_prob_[c, j] = log((n_cj + alpha) / (n_c + alpha + beta))`` where
    ``n_cj`` is how often feature j is 1 in class c and ``n_c`` the class size.
    alpha = beta = 1 is Laplace smoothing; ``beta=None`` means beta = alpha (scikit-learn's
    BernoulliNB(alpha) is this model with beta = alpha); ``beta_`` is the value in use.
    ``prior`` is ``"empirical"`` (class frequencies) or ``"uniform"`` (1/n_classes).

    ``threshold``: None (the default) when X is already 0/1; a number T to binarize X inside
    the model as ``x >= T``, nbcore's pixel rule (``nbcore.binarize``: 128 is the textbook's
    threshold, 1 "any ink"). scikit-learn's ``binarize=b`` keeps ``x > b`` instead: on integer
    pixels ``threshold=T`` is ``binarize=T - 1``; on real features the two differ only for
    values exactly equal to the threshold. With a threshold, X may be any finite numbers, an
    image stack (n, h, w) (flattened to (n, h * w)), or a sparse matrix when T > 0. The counts
    are of the binarized X, so a fitted model refuses another threshold (fit a new one).

    Input without a threshold: a 0/1 array (any numeric or bool dtype; uint8 is the fast path),
    a scipy sparse matrix of 0/1 (a binary bag of words), or, for scoring only, a ``PackedBinary``.
    Fitted state: the counts ``class_count_`` (n_classes,) and ``feature_count_``
    (n_classes, n_features), both int64. ``set_params`` re-derives every probability from them.

    Zero probabilities (alpha = 0 or beta = 0): a feature value that never occurred
    in a class makes that class impossible, so ``predict_joint_log_proba`` is -inf
    there. When every class is impossible for a sample, the posterior and the
    prediction are taken over the classes with the fewest impossible features,
    ranked by the log-likelihood of their remaining features (the limit of a
    vanishing pseudo-count). A class with no training examples (declared through
    ``partial_fit(..., classes=...)``) gets p = alpha / (alpha + beta) (0.5 when both
    are 0) and, with the empirical prior, a prior of 0, so it is never predicted.
    """

    _count_names = ("feature_count_",)
    _refit_params = ("threshold",)
    beta_: float  # the pseudo-count of "feature off" in use, once fitted: beta, or alpha when beta is None

    def __init__(
        self, alpha: float = 1.0, beta: float | None = None, prior: str = "empirical", threshold: float | None = None
    ):
        self.alpha = alpha
        self.beta = beta
        self.prior = prior
        self.threshold = threshold

    # -- parameters -------------------------------------------------------------------------
    def _check_params(self) -> None:
        check_number("alpha", self.alpha)
        check_number("beta", self.alpha if self.beta is None else self.beta)
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")
        if self.threshold is not None:
            check_number("threshold", self.threshold, minimum=-np.inf)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True  # as scikit-learn's BernoulliNB: an accuracy bar it need not meet
        return tags

    # -- fitting ----------------------------------------------------------------------------
    def _check_X(self, X, training: bool):
        """For fitting: a 0/1 array or CSR array. For scoring: a PackedBinary or CSR array (a dense array is
        packed here; packing checks the 0/1 values in the same pass). With a threshold, X is binarized first."""
        if self.threshold is not None:
            X = binarized(X, self.threshold)
        if isinstance(X, PackedBinary):
            if training:
                raise ValueError("fit needs the 0/1 features as an array; a PackedBinary is for scoring only")
            n_features = X.n_features
        elif scipy.sparse.issparse(X):
            X = scipy.sparse.csr_array(X)
            if X.data.size and not np.all((X.data == 0) | (X.data == 1)):
                raise ValueError(
                    "X must be binary: every feature 0 or 1 (e.g. a bag of words with binary=True); "
                    "found other values or NaN"
                )
            n_features = X.shape[1]
        elif training:
            X = check_binary(X)
            n_features = X.shape[1]
        else:
            X = PackedBinary.from_dense(X)
            n_features = X.n_features
        if hasattr(self, "n_features_in_"):
            check_n_features(n_features, self.n_features_in_, type(self).__name__)
        return X

    def _empty_counts(self, n_classes: int, n_features: int) -> None:
        self.class_count_ = np.zeros(n_classes, dtype=np.int64)
        self.feature_count_ = np.zeros((n_classes, n_features), dtype=np.int64)

    def _add_counts(self, X, class_index: np.ndarray) -> None:
        """Count, per class, how often each feature is 1."""
        n_classes = len(self.classes_)
        if scipy.sparse.issparse(X):
            counts = np.rint(sum_per_class(X, class_index, n_classes)).astype(np.int64)
        else:
            # int32 accumulators are 3x faster than int64 here and cannot overflow below 2**31 samples
            counts = np.stack(
                [X[class_index == index].sum(axis=0, dtype=np.int32) for index in range(n_classes)]
            ).astype(np.int64)
        self.class_count_ = self.class_count_ + np.bincount(class_index, minlength=n_classes)
        self.feature_count_ = self.feature_count_ + counts

    def _derive_from_counts(self) -> None:
        """Counts + (alpha, beta, prior) -> log-probabilities and the scoring weights."""
        self.beta_ = float(self.alpha if self.beta is None else self.beta)
        alpha, beta = float(self.alpha), self.beta_
        on_counts = self.feature_count_ + alpha
        totals = (self.class_count_ + alpha + beta)[:, None]
        off_counts = totals - on_counts
        with np.errstate(divide="ignore", invalid="ignore"):
            empty_class = totals == 0  # no examples and alpha = beta = 0
            self.feature_log_prob_ = np.where(empty_class, np.log(0.5), np.log(on_counts) - np.log(totals))
            self.feature_log_neg_prob_ = np.where(empty_class, np.log(0.5), np.log(off_counts) - np.log(totals))
        self.class_log_prior_ = self._class_log_prior()
        # log p(x, c) = x . (log p - log(1-p)) + sum(log(1-p)) + log prior, over finite terms;
        # the -inf terms are counted separately as "impossible" features.
        impossible_on = np.isneginf(self.feature_log_prob_)
        impossible_off = np.isneginf(self.feature_log_neg_prob_)
        finite_on = np.where(impossible_on, 0.0, self.feature_log_prob_)
        finite_off = np.where(impossible_off, 0.0, self.feature_log_neg_prob_)
        self._score_weights = (finite_on - finite_off).T  # (n_features, n_classes); see below for zeros
        self._score_bias = finite_off.sum(axis=1) + self.class_log_prior_
        self._has_zeros = bool(impossible_on.any() or impossible_off.any())
        if self._has_zeros:  # impossible count = x . (on - off) + sum(off), scored alongside
            impossible_weights = (impossible_on.astype(float) - impossible_off).T
            self._impossible_bias = impossible_off.sum(axis=1).astype(float)
            self._score_weights = np.hstack([self._score_weights, impossible_weights])
        self._score_table = byte_table(self._score_weights)

    # -- scoring ----------------------------------------------------------------------------
    def _scores(self, X) -> tuple[np.ndarray, np.ndarray | None]:
        """(finite log-likelihood part (n, k), number of impossible features (n, k) or None) for checked X."""
        if scipy.sparse.issparse(X):
            both = np.asarray(X @ self._score_weights, dtype=np.float64)
        else:
            both = packed_matmul(X, self._score_weights, self._score_table)
        if not self._has_zeros:
            return both + self._score_bias, None
        n_classes = len(self.classes_)
        finite = both[:, :n_classes] + self._score_bias
        impossible = np.rint(both[:, n_classes:] + self._impossible_bias)
        return finite, impossible

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y) for checked X: float64 (n_samples, n_classes), -inf where a feature is impossible."""
        finite, impossible = self._scores(X)
        if impossible is not None:
            finite[impossible > 0] = -np.inf
        return finite

    def _decision_scores(self, X) -> np.ndarray:
        """log p(x, y), refined where every class is impossible (see the class docstring)."""
        self._check_fitted()
        finite, impossible = self._scores(self._check_X(X, training=False))
        if impossible is not None:
            impossible[:, np.isneginf(self.class_log_prior_)] = np.inf
            finite[impossible > impossible.min(axis=1, keepdims=True)] = -np.inf
        return finite

    def pixel_log_likelihoods(self, x) -> np.ndarray:
        """log p(x_j | y = c) for one 0/1 image x (n_features,): float64 (n_classes, n_features)."""
        self._check_fitted()
        x = check_binary(np.asarray(x).reshape(1, -1))[0]
        check_n_features(x.shape[0], self.n_features_in_, type(self).__name__)
        return np.where(x == 1, self.feature_log_prob_, self.feature_log_neg_prob_)

    def evidence(self, x, first, second) -> np.ndarray:
        """Per-pixel contribution to log p(x | first) - log p(x | second): float64 (n_features,).

        ``first`` and ``second`` are class labels. Positive pixels speak for ``first``. Where both
        terms are -inf the contribution is 0; where only one is, it stays +-inf (nan_to_num's
        default would turn it into +-1.8e308).
        """
        terms = self.pixel_log_likelihoods(x)
        first_index, second_index = self._class_indices(check_labels([first, second], 2))
        with np.errstate(invalid="ignore"):
            difference = terms[first_index] - terms[second_index]
        return np.nan_to_num(difference, nan=0.0, posinf=np.inf, neginf=-np.inf)

    # -- generation and missing data -------------------------------------------------------
    @property
    def feature_prob_(self) -> np.ndarray:
        """p(x_j = 1 | y = c): float64 (n_classes, n_features)."""
        self._check_fitted()
        return np.exp(self.feature_log_prob_)

    def sample(self, n: int, y, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Draw ``n`` feature vectors from p(x | y) for the class label ``y``, every pixel independently:
        uint8 (n, n_features)."""
        self._check_fitted()
        index = self._class_indices(check_labels([y], 1))[0]
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        rng = np.random.default_rng(rng)
        return (rng.random((n, self.n_features_in_)) < self.feature_prob_[index]).view(np.uint8)

    def inpaint(self, x, observed_mask) -> tuple[np.ndarray, np.ndarray]:
        """Fill in the hidden pixels of one image from the observed ones.

        x: 0/1 features (n_features,); observed_mask: bool (n_features,), True where x is seen.
        Returns ``(pixel_prob, class_posterior)``: p(x_j = 1 | observed) for every j
        (float64 (n_features,); observed pixels keep their value) and p(y | observed)
        (float64 (n_classes,)), using p(x_j | obs) = sum_c p(x_j | c) p(c | obs).
        """
        self._check_fitted()
        x, observed_mask = checked_observation(x, observed_mask, self.n_features_in_, type(self).__name__)
        # The rule of predict_proba: if every class is impossible, keep the classes with the
        # fewest impossible observed pixels (never one with prior 0), ranked by the rest.
        terms = self.pixel_log_likelihoods(x)[:, observed_mask]
        impossible = np.isneginf(terms).sum(axis=1).astype(float)
        impossible[np.isneginf(self.class_log_prior_)] = np.inf
        class_scores = self.class_log_prior_ + np.where(np.isneginf(terms), 0.0, terms).sum(axis=1)
        class_scores = np.where(impossible > impossible.min(), -np.inf, class_scores)
        class_posterior = np.exp(class_scores - logsumexp(class_scores))
        pixel_prob = class_posterior @ self.feature_prob_
        pixel_prob[observed_mask] = x[observed_mask]
        return pixel_prob, class_posterior
