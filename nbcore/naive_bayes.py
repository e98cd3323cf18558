"""Naive Bayes estimators with the scikit-learn interface, counts as the fitted state.

Shapes: ``X`` is (n_samples, n_features), ``y`` holds class labels 0..n_classes-1.
All probabilities are natural-log float64 unless a name says otherwise.
"""

from __future__ import annotations

import numpy as np

from .features import PackedBinary, byte_table, check_binary, packed_matmul

N_CLASSES = 10
PRIORS = ("empirical", "uniform")


def logsumexp_rows(values: np.ndarray) -> np.ndarray:
    """log(sum(exp(values), axis=1)) for (n, k) values, stable, -inf for all--inf rows."""
    top = values.max(axis=1, keepdims=True)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return (np.log(np.exp(values - safe_top).sum(axis=1, keepdims=True)) + safe_top)[:, 0]


def check_labels(y, n_samples: int, n_classes: int = N_CLASSES) -> np.ndarray:
    """Labels as an int64 array of shape (n_samples,), each in 0..n_classes-1, else ValueError."""
    y = np.asarray(y)
    if y.shape != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},) to match X, got {y.shape}")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError("y must hold whole-number class labels (found NaN or fractions)")
    elif y.dtype.kind not in "ui":
        raise ValueError(f"y must hold integer class labels, got dtype {y.dtype}")
    if n_samples and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"labels must lie in 0..{n_classes - 1}, found {y.min()}..{y.max()}")
    return y.astype(np.int64)


def check_number(name: str, value, minimum: float = 0.0, allow_minimum: bool = True) -> None:
    """ValueError unless ``value`` is a finite real number >= minimum (> minimum if not allow_minimum)."""
    is_number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not is_number or not np.isfinite(value) or value < minimum or (value == minimum and not allow_minimum):
        relation = ">=" if allow_minimum else ">"
        raise ValueError(f"{name} must be a finite number {relation} {minimum:g}, got {value!r}")


class BaseNaiveBayes:
    """Shared logic: subclasses provide ``get_params``, ``_check_params``, ``_derive_from_counts``
    (counts -> probabilities) and ``joint_log_likelihood``.

    ``predict_log_proba`` is ``joint_log_likelihood`` normalised over classes with
    logsumexp; ``predict`` is its argmax.
    """

    n_classes = N_CLASSES

    def get_params(self) -> dict:
        raise NotImplementedError

    def _check_params(self) -> None:
        raise NotImplementedError

    def _derive_from_counts(self) -> None:
        raise NotImplementedError

    def set_params(self, **params):
        """Change hyperparameters; a fitted model re-derives its probabilities from its counts, no refit.

        Invalid values raise ValueError and leave the model as it was.
        """
        unknown = set(params) - set(self.get_params())
        if unknown:
            raise ValueError(f"unknown parameter(s): {', '.join(sorted(unknown))}")
        old = self.get_params()
        for name, value in params.items():
            setattr(self, name, value)
        try:
            self._check_params()
        except ValueError:
            for name, value in old.items():
                setattr(self, name, value)
            raise
        if hasattr(self, "class_count_"):
            self._derive_from_counts()
        return self

    def joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y) for every sample and class: float64 (n_samples, n_classes)."""
        raise NotImplementedError

    def _decision_log_likelihood(self, X) -> np.ndarray:
        """The scores that are normalised into the posterior; subclasses may refine -inf rows."""
        return self.joint_log_likelihood(X)

    def predict_log_proba(self, X) -> np.ndarray:
        """log p(y | x): float64 (n_samples, n_classes), each row's exp sums to 1."""
        scores = self._decision_log_likelihood(X)
        return scores - logsumexp_rows(scores)[:, None]

    def predict_proba(self, X) -> np.ndarray:
        """p(y | x): float64 (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """Most probable class per sample: int64 (n_samples,); ties go to the smaller label."""
        return self._decision_log_likelihood(X).argmax(axis=1)

    def score(self, X, y) -> float:
        """Accuracy: the fraction of samples whose prediction equals ``y``."""
        predicted = self.predict(X)
        return float(np.mean(predicted == check_labels(y, len(predicted), self.n_classes)))

    def _check_fitted(self) -> None:
        if not hasattr(self, "class_count_"):
            raise RuntimeError(f"This {type(self).__name__} is not fitted yet: call fit(X, y) first")


class BernoulliNB(BaseNaiveBayes):
    """Naive Bayes over 0/1 features, with a Beta(alpha, beta) prior on every pixel probability.

    ``feature_log_prob_[c, j] = log((n_cj + alpha) / (n_c + alpha + beta))`` where
    ``n_cj`` is how often feature j is 1 in class c and ``n_c`` the class size.
    alpha = beta = 1 is Laplace smoothing; ``beta=None`` means beta = alpha.
    ``prior`` is ``"empirical"`` (class frequencies) or ``"uniform"`` (1/n_classes).

    Fitted state: the counts ``class_count_`` (n_classes,) and ``feature_count_``
    (n_classes, n_features). ``set_params`` re-derives every probability from them.

    Zero probabilities (alpha = 0 or beta = 0): a feature value that never occurred
    in a class makes that class impossible, so ``joint_log_likelihood`` is -inf
    there. When every class is impossible for a sample, the posterior and the
    prediction are taken over the classes with the fewest impossible features,
    ranked by the log-likelihood of their remaining features (the limit of a
    vanishing pseudo-count). A class with no training examples gets
    p = alpha / (alpha + beta) (0.5 when both are 0) and, with the empirical
    prior, a prior of 0, so it is never predicted.
    """

    def __init__(self, alpha: float = 1.0, beta: float | None = None, prior: str = "empirical"):
        self.alpha = alpha
        self.beta = beta
        self.prior = prior
        self._check_params()

    # -- parameters -------------------------------------------------------------------------
    def get_params(self) -> dict:
        return {"alpha": self.alpha, "beta": self.beta, "prior": self.prior}

    def with_params(self, **params) -> "BernoulliNB":
        """A new model with other alpha/beta/prior that shares (read-only) this one's counts."""
        self._check_fitted()
        clone = BernoulliNB(**{**self.get_params(), **params})
        for name in ("class_count_", "feature_count_"):
            counts = getattr(self, name)
            counts.setflags(write=False)
            setattr(clone, name, counts)
        clone.n_features_in_ = self.n_features_in_
        clone._derive_from_counts()
        return clone

    @property
    def beta_(self) -> float:
        return self.alpha if self.beta is None else self.beta

    def _check_params(self) -> None:
        check_number("alpha", self.alpha)
        check_number("beta", self.beta_)
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, X, y) -> "BernoulliNB":
        """Count, per class, how often each feature is 1; then derive the probabilities."""
        X = check_binary(X)
        y = check_labels(y, X.shape[0], self.n_classes)
        if X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        self.class_count_ = np.bincount(y, minlength=self.n_classes).astype(np.int64)
        # int32 accumulators are 3x faster than int64 here and cannot overflow below 2**31 samples
        self.feature_count_ = np.stack([
            X[y == label].sum(axis=0, dtype=np.int32) for label in range(self.n_classes)
        ]).astype(np.int64)
        self.n_features_in_ = X.shape[1]
        self._derive_from_counts()
        return self

    def _derive_from_counts(self) -> None:
        """Counts + (alpha, beta, prior) -> log-probabilities and the scoring weights."""
        alpha, beta = float(self.alpha), float(self.beta_)
        on_counts = self.feature_count_ + alpha
        totals = (self.class_count_ + alpha + beta)[:, None]
        off_counts = totals - on_counts
        with np.errstate(divide="ignore", invalid="ignore"):
            empty_class = totals == 0  # no examples and alpha = beta = 0
            self.feature_log_prob_ = np.where(empty_class, np.log(0.5), np.log(on_counts) - np.log(totals))
            self.feature_log_neg_prob_ = np.where(empty_class, np.log(0.5), np.log(off_counts) - np.log(totals))
            if self.prior == "uniform":
                self.class_log_prior_ = np.full(self.n_classes, -np.log(self.n_classes))
            else:
                self.class_log_prior_ = np.log(self.class_count_) - np.log(self.class_count_.sum())
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
        """(finite log-likelihood part (n, k), number of impossible features (n, k) or None)."""
        self._check_fitted()
        packed = X if isinstance(X, PackedBinary) else PackedBinary.from_dense(X)
        if packed.n_features != self.n_features_in_:
            raise ValueError(f"X has {packed.n_features} features, the model was fitted on {self.n_features_in_}")
        both = packed_matmul(packed, self._score_weights, self._score_table)
        if not self._has_zeros:
            return both + self._score_bias, None
        finite = both[:, : self.n_classes] + self._score_bias
        impossible = np.rint(both[:, self.n_classes:] + self._impossible_bias)
        return finite, impossible

    def joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y) for 0/1 X (or a PackedBinary): float64 (n_samples, n_classes), -inf if impossible."""
        finite, impossible = self._scores(X)
        if impossible is not None:
            finite[impossible > 0] = -np.inf
        return finite

    def _decision_log_likelihood(self, X) -> np.ndarray:
        finite, impossible = self._scores(X)
        if impossible is not None:
            impossible[:, np.isneginf(self.class_log_prior_)] = np.inf
            finite[impossible > impossible.min(axis=1, keepdims=True)] = -np.inf
        return finite

    def pixel_log_likelihoods(self, x) -> np.ndarray:
        """log p(x_j | y = c) for one 0/1 image x (n_features,): float64 (n_classes, n_features)."""
        self._check_fitted()
        x = check_binary(np.asarray(x).reshape(1, -1))[0]
        if x.shape[0] != self.n_features_in_:
            raise ValueError(f"x has {x.shape[0]} features, the model was fitted on {self.n_features_in_}")
        return np.where(x == 1, self.feature_log_prob_, self.feature_log_neg_prob_)

    def evidence(self, x, first: int, second: int) -> np.ndarray:
        """Per-pixel contribution to log p(x | first) - log p(x | second): float64 (n_features,).

        Positive pixels speak for ``first``. Where both terms are -inf the contribution is 0; where
        only one is, it stays +-inf (nan_to_num's default would turn it into +-1.8e308).
        """
        terms = self.pixel_log_likelihoods(x)
        with np.errstate(invalid="ignore"):
            difference = terms[first] - terms[second]
        return np.nan_to_num(difference, nan=0.0, posinf=np.inf, neginf=-np.inf)

    # -- generation and missing data -------------------------------------------------------
    @property
    def feature_prob_(self) -> np.ndarray:
        """p(x_j = 1 | y = c): float64 (n_classes, n_features)."""
        self._check_fitted()
        return np.exp(self.feature_log_prob_)

    def sample(self, n: int, y: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Draw ``n`` feature vectors from p(x | y), every pixel independently: uint8 (n, n_features)."""
        self._check_fitted()
        if not 0 <= int(y) < self.n_classes:
            raise ValueError(f"y must lie in 0..{self.n_classes - 1}, got {y}")
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        rng = np.random.default_rng(rng)
        return (rng.random((n, self.n_features_in_)) < self.feature_prob_[int(y)]).view(np.uint8)

    def inpaint(self, x, observed_mask) -> tuple[np.ndarray, np.ndarray]:
        """Fill in the hidden pixels of one image from the observed ones.

        x: 0/1 features (n_features,); observed_mask: bool (n_features,), True where x is seen.
        Returns ``(pixel_prob, class_posterior)``: p(x_j = 1 | observed) for every j
        (float64 (n_features,); observed pixels keep their value) and p(y | observed)
        (float64 (n_classes,)), using p(x_j | obs) = sum_c p(x_j | c) p(c | obs).
        """
        self._check_fitted()
        x = check_binary(np.asarray(x).reshape(1, -1))[0]
        observed_mask = np.asarray(observed_mask)
        if observed_mask.shape != x.shape or observed_mask.dtype != bool:
            raise ValueError(f"observed_mask must be a bool array of shape {x.shape}")
        if x.shape[0] != self.n_features_in_:
            raise ValueError(f"x has {x.shape[0]} features, the model was fitted on {self.n_features_in_}")
        # The rule of predict_proba: if every class is impossible, keep the classes with the
        # fewest impossible observed pixels (never one with prior 0), ranked by the rest.
        terms = self.pixel_log_likelihoods(x)[:, observed_mask]
        impossible = np.isneginf(terms).sum(axis=1).astype(float)
        impossible[np.isneginf(self.class_log_prior_)] = np.inf
        class_scores = self.class_log_prior_ + np.where(np.isneginf(terms), 0.0, terms).sum(axis=1)
        class_scores = np.where(impossible > impossible.min(), -np.inf, class_scores)[None, :]
        class_posterior = np.exp(class_scores - logsumexp_rows(class_scores)[:, None])[0]
        pixel_prob = class_posterior @ self.feature_prob_
        pixel_prob[observed_mask] = x[observed_mask]
        return pixel_prob, class_posterior
