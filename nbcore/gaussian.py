"""Gaussian naive Bayes: every feature is normal within a class, independently of the others.

Also the iris data (bundled with plotly, no download) and a PCA by SVD for viewing it.
"""

from __future__ import annotations

import sys

import numpy as np

from .naive_bayes import PRIORS, BaseNaiveBayes, check_labels, check_number

IRIS_FEATURES = ("sepal_length", "sepal_width", "petal_length", "petal_width")


def check_features(X) -> np.ndarray:
    """X as float64 (n_samples, n_features), every value finite, else ValueError."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must hold finite numbers (found NaN or infinity)")
    return X


class GaussianNB(BaseNaiveBayes):
    """Naive Bayes with p(x_j | y = c) = Normal(theta_[c, j], var_[c, j]).

    ``var_ = class_var_ + epsilon_`` where ``epsilon_ = var_smoothing * max_feature_var_``
    (the largest variance of any feature over the whole training set, or 1 when every
    feature is constant), as scikit-learn does: it keeps a feature that is constant
    within a class from dividing by zero, so var_smoothing must be > 0.
    ``prior`` is ``"empirical"`` (class frequencies) or ``"uniform"`` (1/n_classes).

    Classes are the labels 0..n_classes-1 seen in fit, each needing one sample or more.
    Fitted state: ``class_count_`` (n_classes,), ``theta_`` and ``class_var_`` (the
    per-class means and unsmoothed variances, (n_classes, n_features)) and
    ``max_feature_var_``; ``set_params`` re-derives ``var_`` and the prior from them.
    """

    def __init__(self, var_smoothing: float = 1e-9, prior: str = "empirical"):
        self.var_smoothing = var_smoothing
        self.prior = prior
        self._check_params()

    # -- parameters -------------------------------------------------------------------------
    def get_params(self) -> dict:
        return {"var_smoothing": self.var_smoothing, "prior": self.prior}

    def _check_params(self) -> None:
        check_number("var_smoothing", self.var_smoothing, allow_minimum=False)
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, X, y) -> "GaussianNB":
        """Per-class means and variances of every feature; labels must be 0..k-1, all present."""
        X = check_features(X)
        if X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        y = check_labels(y, X.shape[0], n_classes=sys.maxsize)
        counts = np.bincount(y)
        if np.any(counts == 0):
            missing = np.flatnonzero(counts == 0).tolist()
            raise ValueError(f"labels must be 0..k-1 with every class present; no samples of {missing}")
        self.n_classes = len(counts)
        self.class_count_ = counts.astype(np.int64)
        self.theta_ = np.stack([X[y == label].mean(axis=0) for label in range(self.n_classes)])
        self.class_var_ = np.stack([X[y == label].var(axis=0) for label in range(self.n_classes)])
        self.max_feature_var_ = float(X.var(axis=0).max())
        self.n_features_in_ = X.shape[1]
        self._derive_from_counts()
        return self

    def _derive_from_counts(self) -> None:
        """Statistics + (var_smoothing, prior) -> var_, the log prior and the scoring matrices."""
        scale = self.max_feature_var_ if self.max_feature_var_ > 0 else 1.0  # all features constant
        self.epsilon_ = float(self.var_smoothing) * scale
        self.var_ = self.class_var_ + self.epsilon_
        if self.prior == "uniform":
            self.class_log_prior_ = np.full(self.n_classes, -np.log(self.n_classes))
        else:
            self.class_log_prior_ = np.log(self.class_count_) - np.log(self.class_count_.sum())
        precision = 1.0 / self.var_
        # -1/2 sum_j (x_j - theta_j)^2 / var_j = x^2 . a + x . b + const, a = -1/(2 var), b = theta / var
        self._square_weights = (-0.5 * precision).T  # (n_features, n_classes)
        self._linear_weights = (self.theta_ * precision).T
        self._bias = (self.class_log_prior_
                      - 0.5 * np.sum(np.log(2.0 * np.pi * self.var_), axis=1)
                      - 0.5 * np.sum(self.theta_ ** 2 * precision, axis=1))

    def with_params(self, **params) -> "GaussianNB":
        """A new model with other var_smoothing/prior that shares (read-only) this one's statistics."""
        self._check_fitted()
        clone = GaussianNB(**{**self.get_params(), **params})
        for name in ("class_count_", "theta_", "class_var_"):
            statistic = getattr(self, name)
            statistic.setflags(write=False)
            setattr(clone, name, statistic)
        clone.n_classes = self.n_classes
        clone.max_feature_var_ = self.max_feature_var_
        clone.n_features_in_ = self.n_features_in_
        clone._derive_from_counts()
        return clone

    # -- scoring ----------------------------------------------------------------------------
    def joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y) for real-valued X: float64 (n_samples, n_classes), two matrix products."""
        self._check_fitted()
        X = check_features(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted on {self.n_features_in_}")
        return (X ** 2) @ self._square_weights + X @ self._linear_weights + self._bias


# -- iris ---------------------------------------------------------------------------------------
def load_iris() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Fisher's iris from plotly's bundled copy: float64 (150, 4) in cm, int64 labels 0..2, species names."""
    import plotly.express as px

    frame = px.data.iris()
    features = frame[list(IRIS_FEATURES)].to_numpy(dtype=np.float64)
    labels = frame["species_id"].to_numpy(dtype=np.int64) - 1
    names = tuple(frame.sort_values("species_id")["species"].unique())
    return features, labels, names


def pca(X, n_components: int) -> tuple[np.ndarray, np.ndarray]:
    """Project centred X (n, d) onto its top principal axes via SVD.

    Returns ``(scores, explained_ratio)``: float64 (n, n_components) coordinates and
    the fraction of total variance each component carries, (n_components,).
    """
    X = check_features(X)
    if not 1 <= n_components <= min(X.shape):
        raise ValueError(f"n_components must lie in 1..{min(X.shape)}, got {n_components}")
    centred = X - X.mean(axis=0)
    _, singular_values, axes = np.linalg.svd(centred, full_matrices=False)
    variance = singular_values ** 2
    return centred @ axes[:n_components].T, variance[:n_components] / variance.sum()


def probability_grid(model: GaussianNB, x_range: tuple[float, float], y_range: tuple[float, float],
                     resolution: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Posterior over a regular grid for a model fitted on two features.

    Returns ``(xs, ys, proba)``: float64 (resolution,) each and (resolution, resolution,
    n_classes) with ``proba[i, j] = p(y | x = (xs[j], ys[i]))``.
    """
    if model.n_features_in_ != 2:
        raise ValueError(f"the model must be fitted on exactly 2 features, not {model.n_features_in_}")
    xs = np.linspace(*x_range, resolution)
    ys = np.linspace(*y_range, resolution)
    grid_x, grid_y = np.meshgrid(xs, ys)
    proba = model.predict_proba(np.column_stack([grid_x.ravel(), grid_y.ravel()]))
    return xs, ys, proba.reshape(resolution, resolution, -1)
