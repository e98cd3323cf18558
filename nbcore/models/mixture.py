"""Naive Bayes with styles: every class a mixture of naive Bayes components over 0/1 features, fitted by EM.

p(x, y) = p(y) Σₖ p(k | y) Πⱼ p(xⱼ | y, k): a hidden style k per class (a slanted 1 and an upright one), and
within a style every pixel an independent coin, as in ``BernoulliNB``. EM is still counting, with soft
counts: the E-step counts each image into its class's styles in proportion to how well each explains it, the
M-step smooths those counts into probabilities exactly as ``BernoulliNB`` smooths its hard counts. Images
labelled ``-1`` (scikit-learn's semi-supervised convention) are unlabeled: they are counted into every
class's styles, in proportion to the posterior p(y, k | x) and weighted by ``unlabeled_weight`` (Nigam et
al., 2000).

Shapes: ``X`` is (n_samples, n_features) of 0/1; ``classes_`` as in ``nbcore.models.base``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.sparse
from scipy.special import logsumexp

from ..features import PackedBinary, check_binary
from . import blas
from .base import PRIORS, BaseNaiveBayes, check_labels, check_n_features, check_number
from .bernoulli import binarized, checked_observation

UNLABELED = -1  # the label of an image whose digit is not given
FIT_FORMAT = 2  # bump when a change to EM changes what a fit gives: prepared fits name it in their keys
# The symmetric Dirichlet prior on each class's style weights: one pseudo-image per style, so that a style
# nothing is counted into keeps a small weight rather than a log weight of -inf.
STYLE_PSEUDO_COUNT = 1.0


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _canonical_order(X: np.ndarray) -> np.ndarray:
    """Row positions of 0/1 uint8 X sorted by the rows' contents, so that a fit never depends on their order."""
    packed = np.packbits(X, axis=1)
    return np.lexsort(packed.T[::-1]) if len(X) > 1 else np.arange(len(X))


class BernoulliMixtureNB(BaseNaiveBayes):
    """Naive Bayes whose every class is a mixture of ``n_components`` Bernoulli naive Bayes styles, fitted by EM.

    ``feature_log_prob_[c, k, j] = log((s_ckj + alpha) / (s_ck + alpha + beta))`` where ``s_ck`` is the soft
    count of images in style k of class c and ``s_ckj`` of those with feature j on: the MAP estimate under the
    Beta(alpha, beta) smoothing of ``BernoulliNB`` (alpha, beta > 0; ``beta=None`` is beta = alpha). The style
    weights ``component_weights_[c, k] = (s_ck + 1) / (s_c + K)`` (a symmetric prior of one pseudo-image per
    style). ``prior``: "empirical" (the class frequencies, soft counts of the unlabeled images included) or
    "uniform". ``threshold``: as ``BernoulliNB``'s (binarize inside the model, x >= threshold).

    EM starts each style from a different image of its class (half that image, half the class's mean, chosen
    with ``random_state`` among the class's images in an order of their contents, so the data's order does not
    matter) and stops after ``max_iter`` iterations or when the objective rises by less than ``tol`` per
    image. The objective (``lower_bounds_``, one per iteration, never falling beyond float32 rounding) is the mean log p(x, y) of the
    labelled images plus ``unlabeled_weight`` times the log p(x) of the unlabeled ones, plus the log prior
    density of the parameters, over the weighted number of images. ``unlabeled_weight=0`` fits on the
    labelled images alone. With ``n_components=1`` and no unlabeled image the model is ``BernoulliNB``'s.

    Fitted state: the soft counts ``class_count_`` (n_classes,), ``component_count_`` (n_classes, K) and
    ``feature_count_`` (n_classes, K, n_features), all float64; derived: ``component_weights_``,
    ``feature_log_prob_``, ``feature_log_neg_prob_``, ``class_log_prior_``; ``unlabeled_count_``, the weighted
    number of unlabeled images counted (when above 0, ``prior`` too needs a new fit). EM's record, named as in
    scikit-learn's mixtures: ``n_iter_``, ``converged_``, ``lower_bound_`` and ``lower_bounds_``.

    Input: 0/1 features as ``BernoulliNB`` takes them (a dense array, a sparse 0/1 matrix, for scoring a
    ``PackedBinary``). EM works on a dense float32 copy of the training images (4 bytes per feature and image).
    """

    _count_names = ("component_count_", "feature_count_")
    # Everything but the class prior changes what EM converges to: a new value needs a new fit.
    _refit_params = (
        "n_components",
        "alpha",
        "beta",
        "threshold",
        "max_iter",
        "tol",
        "unlabeled_weight",
        "random_state",
    )
    beta_: float

    def __init__(
        self,
        n_components: int = 10,
        alpha: float = 1.0,
        beta: float | None = None,
        prior: str = "empirical",
        threshold: float | None = None,
        max_iter: int = 100,
        tol: float = 1e-3,
        unlabeled_weight: float = 1.0,
        random_state=None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.beta = beta
        self.prior = prior
        self.threshold = threshold
        self.max_iter = max_iter
        self.tol = tol
        self.unlabeled_weight = unlabeled_weight
        self.random_state = random_state

    # -- parameters -------------------------------------------------------------------------
    def _check_params(self) -> None:
        if not _is_integer(self.n_components) or self.n_components < 1:
            raise ValueError(f"n_components must be a whole number >= 1, got {self.n_components!r}")
        check_number("alpha", self.alpha, allow_minimum=False)
        check_number("beta", self.alpha if self.beta is None else self.beta, allow_minimum=False)
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")
        if self.threshold is not None:
            check_number("threshold", self.threshold, minimum=-np.inf)
        if not _is_integer(self.max_iter) or self.max_iter < 1:
            raise ValueError(f"max_iter must be a whole number >= 1, got {self.max_iter!r}")
        check_number("tol", self.tol)
        check_number("unlabeled_weight", self.unlabeled_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags

    @property
    def partial_fit(self):
        """Not available: EM needs every image at once, so ``hasattr(model, "partial_fit")`` is False."""
        raise AttributeError("BernoulliMixtureNB has no partial_fit: EM needs every image at once, call fit")

    # -- input --------------------------------------------------------------------------------
    def _check_X(self, X, training: bool):
        """For fitting: uint8 0/1 (n, n_features). For scoring: that, or a 0/1 CSR array."""
        if self.threshold is not None:
            X = binarized(X, self.threshold)
        if isinstance(X, PackedBinary):
            if training:
                raise ValueError("fit needs the 0/1 features as an array; a PackedBinary is for scoring only")
            X = X.to_dense()
        elif scipy.sparse.issparse(X):
            X = scipy.sparse.csr_array(X)
            if X.data.size and not np.all((X.data == 0) | (X.data == 1)):
                raise ValueError("X must be binary: every feature 0 or 1; found other values or NaN")
            if training:
                X = X.toarray()
        X = X if scipy.sparse.issparse(X) else check_binary(X).astype(np.uint8, copy=False)
        if hasattr(self, "n_features_in_"):
            check_n_features(X.shape[1], self.n_features_in_, type(self).__name__)
        return X

    def _classes_of(self, y: np.ndarray) -> np.ndarray:
        """The classes of the labelled images (a label of -1 marks an unlabeled one)."""
        labelled = y[~self._unlabeled(y)]
        if len(np.unique(labelled)) < 2:
            raise ValueError(
                f"BernoulliMixtureNB needs labelled images of at least 2 classes, found {len(labelled)} labelled "
                f"image(s) of {len(np.unique(labelled))} class(es) (a label of -1 marks an unlabeled image)"
            )
        return super()._classes_of(labelled)

    def with_params(self, **params):
        """As ``BaseNaiveBayes.with_params``; the clone knows how many unlabeled images were counted."""
        clone = super().with_params(**params)
        clone.unlabeled_count_ = self.unlabeled_count_
        return clone

    def _fixed_by_the_fit(self) -> tuple[str, ...]:
        """With unlabeled images counted, the class prior weighed them in every E-step: it is fixed by the fit too."""
        return self._refit_params + (("prior",) if getattr(self, "unlabeled_count_", 0.0) > 0 else ())

    @staticmethod
    def _unlabeled(y: np.ndarray) -> np.ndarray:
        """bool (n,): True where a checked label is -1 (numbers only: a string label is always a class)."""
        if y.dtype.kind in "iuf":
            return y == UNLABELED
        return np.zeros(len(y), dtype=bool)

    # -- fitting: EM ----------------------------------------------------------------------------
    def fit(self, X, y):
        """EM on the labelled images of ``X`` (and the unlabeled ones, label -1, weighted by ``unlabeled_weight``).

        Returns self; ValueError (the model unchanged) for bad hyperparameters or input.
        """
        for _ in self.fit_steps(X, y):
            pass
        return self

    def fit_steps(self, X, y) -> Iterator[int]:
        """``fit`` one EM iteration at a time: yields each iteration's number once its M-step is done, the model
        then holding that iteration's parameters (for progress, or to watch accuracy along EM's way)."""
        self._check_params()
        X, y, classes = self._checked_training_data(X, y)
        unlabeled = self._unlabeled(y)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        class_index = np.searchsorted(classes, y[~unlabeled])
        labelled = X[~unlabeled]
        blocks = []
        for index in range(len(classes)):
            block = labelled[class_index == index]
            blocks.append(block[_canonical_order(block)])
        extra = X[unlabeled] if self.unlabeled_weight > 0 else X[:0]
        extra = extra[_canonical_order(extra)]
        self.unlabeled_count_ = float(self.unlabeled_weight) * len(extra)
        self._initialize(blocks, np.random.default_rng(self.random_state))
        yield from self._run_em([block.astype(np.float32) for block in blocks], extra.astype(np.float32))

    def _initialize(self, blocks: list[np.ndarray], rng: np.random.Generator) -> None:
        """Counts whose derived probabilities put style k of class c halfway between one of the class's images
        (a different one per style where the class has enough distinct ones) and the class's mean image."""
        n_components = self.n_components
        class_sizes = np.array([len(block) for block in blocks], dtype=np.float64)
        self.class_count_ = class_sizes
        self.component_count_ = np.repeat(class_sizes[:, None] / n_components, n_components, axis=1)
        starts = []
        for block in blocks:
            # among distinct images (equal rows are neighbours in the canonical order): two styles started from
            # copies of one image would stay alike through every iteration
            distinct = np.flatnonzero(np.r_[True, np.any(block[1:] != block[:-1], axis=1)])
            seeds = rng.choice(distinct, size=n_components, replace=len(distinct) < n_components)
            starts.append((block[seeds] + block.mean(axis=0)) / 2)
        self.feature_count_ = np.stack(starts) * self.component_count_[:, :, None]
        self._derive_from_counts()

    def _run_em(self, blocks: list[np.ndarray], unlabeled: np.ndarray) -> Iterator[int]:
        """EM from the current parameters: ``blocks`` float32 (n_c, n_features) per class, ``unlabeled`` float32;
        yields each iteration's number after its M-step."""
        weight = float(self.unlabeled_weight)
        total_weight = sum(len(block) for block in blocks) + weight * len(unlabeled)
        self.lower_bounds_: list[float] = []
        previous = -np.inf
        for iteration in range(1, self.max_iter + 1):
            self.n_iter_ = iteration
            with blas.single_thread():  # nbcore.models.blas: thin products, a busy machine
                log_likelihood, counts = self._e_step(blocks, unlabeled, weight)
            self.lower_bounds_.append(float((log_likelihood + self._log_prior_density()) / total_weight))
            self.class_count_, self.component_count_, self.feature_count_ = counts
            self._derive_from_counts()  # the M-step: MAP probabilities from the soft counts
            self.lower_bound_ = self.lower_bounds_[-1]
            self.converged_ = abs(self.lower_bound_ - previous) < self.tol
            yield iteration
            if self.converged_:
                break
            previous = self.lower_bound_

    def _e_step(self, blocks: list[np.ndarray], unlabeled: np.ndarray, weight: float):
        """The log-likelihood of the data under the current parameters and the expected (soft) counts:
        ``(float, (class (C,), component (C, K), feature (C, K, D)))``, one matrix product per block and way."""
        n_classes, n_components = self.component_weights_.shape
        weights32 = self._score_weights.astype(np.float32)
        class_count = np.array([len(block) for block in blocks], dtype=np.float64)
        component_count = np.zeros((n_classes, n_components))
        feature_count = np.zeros((n_classes, n_components, self.n_features_in_))
        log_likelihood = float(class_count @ self.class_log_prior_)
        for index, block in enumerate(blocks):
            columns = slice(index * n_components, (index + 1) * n_components)
            scores = (block @ weights32[:, columns]).astype(np.float64) + self._score_bias[columns]
            norm = logsumexp(scores, axis=1, keepdims=True)
            log_likelihood += float(norm.sum())
            responsibilities = np.exp(scores - norm)
            component_count[index] = responsibilities.sum(axis=0)
            feature_count[index] = responsibilities.T.astype(np.float32) @ block
        if len(unlabeled):
            scores = (unlabeled @ weights32).astype(np.float64) + self._score_bias
            scores += np.repeat(self.class_log_prior_, n_components)
            norm = logsumexp(scores, axis=1, keepdims=True)
            log_likelihood += weight * float(norm.sum())
            responsibilities = np.exp(scores - norm)
            soft = weight * responsibilities.sum(axis=0).reshape(n_classes, n_components)
            component_count += soft
            class_count += soft.sum(axis=1)
            feature_count += weight * (responsibilities.T.astype(np.float32) @ unlabeled).reshape(feature_count.shape)
        return log_likelihood, (class_count, component_count, feature_count)

    def _log_prior_density(self) -> float:
        """log p(parameters) up to a constant: the Beta(alpha, beta) smoothing and the style weights' prior."""
        return float(
            self.alpha * self.feature_log_prob_.sum()
            + self.beta_ * self.feature_log_neg_prob_.sum()
            + STYLE_PSEUDO_COUNT * np.log(self.component_weights_).sum()
        )

    # -- derived from the counts ----------------------------------------------------------------
    def _empty_counts(self, n_classes: int, n_features: int) -> None:  # fit counts through EM, never from empty
        raise AttributeError("BernoulliMixtureNB counts through EM in fit")

    def _add_counts(self, X, class_index: np.ndarray) -> None:
        raise AttributeError("BernoulliMixtureNB counts through EM in fit")

    def _derive_from_counts(self) -> None:
        """Soft counts + (alpha, beta, prior) -> probabilities, style weights and the scoring weights."""
        self.beta_ = float(self.alpha if self.beta is None else self.beta)
        alpha, beta = float(self.alpha), self.beta_
        totals = np.log(self.component_count_ + alpha + beta)[:, :, None]
        # soft counts from float32 products can put s_ckj a hair above s_ck
        off_counts = np.maximum(self.component_count_[:, :, None] - self.feature_count_, 0.0) + beta
        self.feature_log_prob_ = np.log(self.feature_count_ + alpha) - totals
        self.feature_log_neg_prob_ = np.log(off_counts) - totals
        n_components = self.component_count_.shape[1]
        self.component_weights_ = (self.component_count_ + STYLE_PSEUDO_COUNT) / (
            self.component_count_.sum(axis=1, keepdims=True) + n_components * STYLE_PSEUDO_COUNT
        )
        self.class_log_prior_ = self._class_log_prior()
        # log p(x, k | y) = x . (log p - log(1-p)) + sum(log(1-p)) + log p(k | y), one column per (class, style)
        n_features = self.feature_log_prob_.shape[2]
        self._score_weights = (self.feature_log_prob_ - self.feature_log_neg_prob_).reshape(-1, n_features).T
        self._score_bias = (self.feature_log_neg_prob_.sum(axis=2) + np.log(self.component_weights_)).reshape(-1)

    # -- scoring ----------------------------------------------------------------------------
    def _component_log_likelihood(self, X) -> np.ndarray:
        """log p(x, k | y) for checked X: float64 (n_samples, n_classes, n_components)."""
        dense = X if scipy.sparse.issparse(X) else X.astype(np.float64)
        scores = np.asarray(dense @ self._score_weights, dtype=np.float64) + self._score_bias
        return scores.reshape(X.shape[0], *self.component_weights_.shape)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y) for checked X: float64 (n_samples, n_classes)."""
        return logsumexp(self._component_log_likelihood(X), axis=2) + self.class_log_prior_

    def predict_style_log_proba(self, X) -> np.ndarray:
        """log p(y, k | x): float64 (n_samples, n_classes, n_components), each sample's exp sums to 1."""
        self._check_fitted()
        scores = self._component_log_likelihood(self._check_X(X, training=False))
        scores += self.class_log_prior_[:, None]
        return scores - logsumexp(scores, axis=(1, 2), keepdims=True)

    def score_samples(self, X, y=None) -> np.ndarray:
        """log p(x) per image (as scikit-learn's mixtures give it), or log p(x | y) given the labels ``y``:
        float64 (n_samples,), in nats."""
        self._check_fitted()
        per_class = logsumexp(self._component_log_likelihood(self._check_X(X, training=False)), axis=2)
        if y is None:
            return logsumexp(per_class + self.class_log_prior_, axis=1)
        index = self._class_indices(check_labels(y, per_class.shape[0]))
        return per_class[np.arange(len(index)), index]

    # -- generation and missing data -------------------------------------------------------
    @property
    def feature_prob_(self) -> np.ndarray:
        """p(x_j = 1 | y = c, k): float64 (n_classes, n_components, n_features)."""
        self._check_fitted()
        return np.exp(self.feature_log_prob_)

    @property
    def class_feature_prob_(self) -> np.ndarray:
        """p(x_j = 1 | y = c) = Σₖ p(k | c) p(x_j = 1 | c, k), each class's mean image over its styles: float64
        (n_classes, n_features), the counterpart of ``BernoulliNB.feature_prob_`` (and equal to it when K = 1)."""
        self._check_fitted()
        return np.einsum("ck,ckj->cj", self.component_weights_, self.feature_prob_)

    def sample(self, n: int, y, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Draw ``n`` images of class ``y``: each a style from the class's weights, then every pixel from that
        style independently: uint8 (n, n_features)."""
        self._check_fitted()
        index = self._class_indices(check_labels([y], 1))[0]
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        rng = np.random.default_rng(rng)
        styles = rng.choice(self.component_weights_.shape[1], size=n, p=self.component_weights_[index])
        return (rng.random((n, self.n_features_in_)) < self.feature_prob_[index, styles]).view(np.uint8)

    def inpaint(self, x, observed_mask) -> tuple[np.ndarray, np.ndarray]:
        """Fill in the hidden pixels of one image from the observed ones, through every class and style.

        x: 0/1 features (n_features,); observed_mask: bool (n_features,), True where x is seen. Returns
        ``(pixel_prob, class_posterior)``: p(x_j = 1 | observed) for every j (float64 (n_features,); observed
        pixels keep their value) and p(y | observed) (float64 (n_classes,)), from the posterior over (y, k).
        """
        self._check_fitted()
        x, observed_mask = checked_observation(x, observed_mask, self.n_features_in_, type(self).__name__)
        terms = np.where(x == 1, self.feature_log_prob_, self.feature_log_neg_prob_)[:, :, observed_mask]
        scores = terms.sum(axis=2) + np.log(self.component_weights_) + self.class_log_prior_[:, None]
        posterior = np.exp(scores - logsumexp(scores))  # (n_classes, n_components)
        pixel_prob = np.einsum("ck,ckj->j", posterior, self.feature_prob_)
        pixel_prob[observed_mask] = x[observed_mask]
        return pixel_prob, posterior.sum(axis=1)
