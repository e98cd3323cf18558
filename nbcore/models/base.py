"""What every classifier here shares: label handling, scikit-learn's estimator contract, the naive Bayes base.

Shapes: ``X`` is (n_samples, n_features); ``y`` holds class labels of any kind numpy can sort
(integers, whole-number floats, strings), at least two distinct ones. ``classes_`` is the sorted
array of the labels seen in ``fit`` (or declared in the first ``partial_fit``); every score
matrix has one column per entry of ``classes_``, and ``predict`` returns entries of it.
All probabilities are natural-log float64 unless a name says otherwise.

The estimator contract is scikit-learn's (``clone``, ``cross_val_score``, ``GridSearchCV`` and
``Pipeline`` take these models), without importing scikit-learn: hyperparameters are the
``__init__`` arguments, stored as given and checked in ``fit``; fitted attributes (trailing
underscore) exist only after ``fit``; an unfitted model raises ``NotFittedError``.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod

import numpy as np
from scipy.special import logsumexp

PRIORS = ("empirical", "uniform")


class NotFittedError(ValueError, AttributeError):
    """A model was used before ``fit``.

    Both bases, as scikit-learn's own NotFittedError: ``hasattr(model, "classes_")`` is False
    before ``fit``, and code catching ValueError or AttributeError catches it.
    """


def check_labels(y, n_samples: int) -> np.ndarray:
    """``y`` as a 1-D array of shape (n_samples,) holding class labels, else ValueError.

    Labels may be integers, whole-number floats, booleans or strings; NaN, infinity and
    fractions (a regression target, not classes) are refused.
    """
    if y is None:
        raise ValueError("a classifier requires y to be passed, but the target y is None")
    y = np.asarray(y)
    if y.dtype == object:  # a list of labels of one kind (strings, numbers) held as Python objects
        y = np.asarray(y.tolist())
        if y.dtype == object:
            raise ValueError("Unknown label type: y mixes labels of different kinds; give all strings or all numbers")
    if y.shape != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},) to match X, got {y.shape}")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError(
                "y must hold class labels, whole numbers or strings, not continuous values "
                "(found NaN, infinity or fractions)"
            )
    elif y.dtype.kind not in "uibUS":
        raise ValueError(f"Unknown label type: y must hold class labels (integers or strings), got dtype {y.dtype}")
    return y


def check_classes(classes) -> np.ndarray:
    """Declared classes as a sorted array of at least two distinct labels, else ValueError."""
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(f"classes must be a list of labels, got shape {classes.shape}")
    classes = check_labels(classes, len(classes))
    unique = np.unique(classes)
    if len(unique) != len(classes):
        raise ValueError(f"classes must be distinct labels, got {classes.tolist()}")
    if len(unique) < 2:
        raise ValueError(f"a classifier needs at least 2 classes, got 1 class: {unique.tolist()}")
    return unique


def class_positions(classes: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Positions in sorted ``classes`` of checked labels ``y``: int64 (n,); ValueError for a label not among them."""
    positions = np.searchsorted(classes, y)
    known = (positions < len(classes)) & (classes[np.minimum(positions, len(classes) - 1)] == y)
    if not np.all(known):
        unknown = np.unique(np.asarray(y)[~known])[:5].tolist()
        raise ValueError(
            f"y holds labels the model has no class for: {unknown}; its classes are "
            f"{classes.tolist()} (declare more with classes=...)"
        )
    return positions.astype(np.int64)


def check_number(name: str, value, minimum: float = 0.0, allow_minimum: bool = True) -> None:
    """ValueError unless ``value`` is a finite real number >= minimum (> minimum if not allow_minimum)."""
    is_number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not is_number or not np.isfinite(value) or value < minimum or (value == minimum and not allow_minimum):
        relation = ">=" if allow_minimum else ">"
        raise ValueError(f"{name} must be a finite number {relation} {minimum:g}, got {value!r}")


def check_n_samples_and_features(shape: tuple[int, ...]) -> None:
    """ValueError for an X of shape (n_samples, n_features) with no samples or no features."""
    if shape[0] == 0:
        raise ValueError("cannot fit on zero samples")
    if len(shape) > 1 and shape[1] == 0:
        # scikit-learn's wording, which its estimator checks look for
        raise ValueError(f"X has 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required.")


class Estimator:
    """scikit-learn's parameter protocol: ``get_params``, ``set_params``, ``repr``, tags.

    A subclass names its hyperparameters as ``__init__`` arguments and stores each one
    unchanged under its own name; it checks them in ``fit`` (``_check_params``), so that
    ``clone`` and ``set_params`` never raise for a value ``fit`` would refuse.
    """

    @classmethod
    def _parameter_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [
            name
            for name, parameter in signature.parameters.items()
            if name != "self" and parameter.kind != parameter.VAR_KEYWORD
        ]

    def get_params(self, deep: bool = True) -> dict:
        """The hyperparameters, named as in ``__init__`` (``deep`` is scikit-learn's; there are no sub-models)."""
        return {name: getattr(self, name) for name in self._parameter_names()}

    def set_params(self, **params):
        """Store hyperparameters as given; ValueError for a name ``__init__`` does not take. Returns self."""
        unknown = set(params) - set(self._parameter_names())
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {', '.join(sorted(unknown))} for {type(self).__name__}; "
                f"its parameters are {', '.join(self._parameter_names())}"
            )
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            name: parameter.default for name, parameter in inspect.signature(type(self).__init__).parameters.items()
        }
        changed = [
            f"{name}={value!r}"
            for name, value in self.get_params().items()
            if not (value is defaults.get(name) or _same_value(value, defaults.get(name)))
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        """What scikit-learn's tools and checks need to know. Only scikit-learn calls this, so it is
        the one place that imports it (a development dependency, never imported by nbcore otherwise)."""
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier", target_tags=TargetTags(required=True), classifier_tags=ClassifierTags()
        )

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "classes_")


def _same_value(value, default) -> bool:
    """Whether a parameter equals its default (for ``repr``); False for anything ``==`` cannot compare."""
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


class ClassifierMixin(Estimator):
    """``predict_log_proba``, ``predict_proba``, ``predict`` and ``score`` over ``_decision_scores`` and ``classes_``.

    A subclass provides ``_decision_scores(X)``: float64 (n_samples, n_classes), the log
    posterior up to a per-sample constant (columns in the order of ``classes_``).
    """

    classes_: np.ndarray

    @abstractmethod
    def _decision_scores(self, X) -> np.ndarray:
        """Unnormalised log p(y | x): float64 (n_samples, n_classes)."""

    def predict_log_proba(self, X) -> np.ndarray:
        """log p(y | x): float64 (n_samples, n_classes), each row's exp sums to 1."""
        scores = self._decision_scores(X)
        return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, X) -> np.ndarray:
        """p(y | x): float64 (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """Most probable class per sample, an entry of ``classes_``: (n_samples,); ties go to the first class."""
        best = self._decision_scores(X).argmax(axis=1)
        return self.classes_[best]

    def score(self, X, y) -> float:
        """Accuracy: the fraction of samples whose prediction equals ``y`` (labels among ``classes_``)."""
        predicted = self.predict(X)
        self._class_indices(check_labels(y, len(predicted)))  # a label the model never saw is an error
        return float(np.mean(predicted == np.asarray(y)))

    def _class_indices(self, y: np.ndarray) -> np.ndarray:
        """Positions in ``classes_`` of checked labels: int64 (n,); ValueError for a label not among them."""
        return class_positions(self.classes_, y)

    def _check_fitted(self) -> None:
        """NotFittedError unless ``fit`` (or ``partial_fit``) has run."""
        if not hasattr(self, "classes_"):
            raise NotFittedError(f"This {type(self).__name__} is not fitted yet: call fit(X, y) first")


class BaseNaiveBayes(ClassifierMixin, ABC):
    """Naive Bayes over counts: the fitted state is sufficient statistics, everything else is derived.

    A subclass names its hyperparameters as ``__init__`` arguments (``get_params`` reads them
    from the signature) and provides:

    * ``_check_params()``: ValueError for a bad hyperparameter;
    * ``_check_X(X, training)``: the validated input;
    * ``_count_names``: the names of the count arrays (besides ``class_count_``);
    * ``_empty_counts(n_classes, n_features)`` and ``_add_counts(X, class_index)``: the counts of
      nothing, and the counts after adding a batch (new arrays: clones may share the old ones);
    * ``_derive_from_counts()``: counts + hyperparameters -> probabilities and scoring weights;
    * ``_joint_log_likelihood(X)``: log p(x, y) for validated X.

    ``set_params`` and ``with_params`` re-derive from the counts, never from the data.
    """

    _count_names: tuple[str, ...] = ()
    prior: str  # every naive Bayes model has a class prior, "empirical" or "uniform"
    class_count_: np.ndarray  # (n_classes,) samples per class, once fitted

    # -- parameters -------------------------------------------------------------------------
    @abstractmethod
    def _check_params(self) -> None:
        """ValueError with a sentence for any bad hyperparameter (called by ``fit``, not ``__init__``)."""

    def set_params(self, **params):
        """Change hyperparameters. Unfitted: stored as given, checked by ``fit``. Fitted: checked now,
        and the probabilities re-derived from the counts, no refit; an invalid value raises
        ValueError and leaves the model as it was.

        A parameter in ``_refit_params`` changes what the counts are of, so a fitted model
        refuses a new value for it (``sklearn.base.clone(model).set_params(...)`` then ``fit``).
        """
        old = self.get_params()
        super().set_params(**params)
        if not hasattr(self, "classes_"):
            return self
        try:
            self._check_refit_params(old, self._fixed_by_the_fit())
            self._check_params()
        except ValueError:
            super().set_params(**old)
            raise
        self._derive_from_counts()
        return self

    _refit_params: tuple[str, ...] = ()

    def _fixed_by_the_fit(self) -> tuple[str, ...]:
        """The parameters this fitted model's counts depend on: ``_refit_params``."""
        return self._refit_params

    def _check_refit_params(self, fitted_with: dict, fixed: tuple[str, ...]) -> None:
        """ValueError if a parameter of ``fixed`` differs from ``fitted_with``'s value."""
        for name in fixed:
            if getattr(self, name) != fitted_with[name]:
                raise ValueError(
                    f"{name} changes what the counts are of: this {type(self).__name__} was fitted with "
                    f"{name}={fitted_with[name]!r}; fit a new model for {name}={getattr(self, name)!r}"
                )

    def with_params(self, **params):
        """A new fitted model with other hyperparameters and this one's counts (re-alpha without refitting).

        The clone holds read-only views of the counts (cheap, and it cannot change them); this
        model's arrays stay as they were, and its later ``partial_fit`` replaces its own arrays
        rather than writing into the shared ones. ValueError for an invalid value, or a new
        value of a parameter the counts depend on (``_refit_params``).
        """
        self._check_fitted()
        clone = type(self)(**{**self.get_params(), **params})
        clone._check_refit_params(self.get_params(), self._fixed_by_the_fit())
        clone._check_params()
        for name in ("classes_", "class_count_", *self._count_names):
            view = getattr(self, name).view()
            view.setflags(write=False)
            setattr(clone, name, view)
        clone.n_features_in_ = self.n_features_in_
        clone._derive_from_counts()
        return clone

    # -- fitting ----------------------------------------------------------------------------
    @abstractmethod
    def _check_X(self, X, training: bool):
        """Validated input, for fitting or for scoring; ValueError with a sentence otherwise.

        Once ``n_features_in_`` is set the number of features must match it (``check_n_features``).
        """

    @abstractmethod
    def _empty_counts(self, n_classes: int, n_features: int) -> None:
        """Set ``class_count_`` and the other count arrays to the counts of no samples."""

    @abstractmethod
    def _add_counts(self, X, class_index: np.ndarray) -> None:
        """Add one validated batch (with labels as positions in ``classes_``) to the counts."""

    @abstractmethod
    def _derive_from_counts(self) -> None:
        """Counts + hyperparameters -> every derived array."""

    def fit(self, X, y):
        """Learn ``classes_`` from ``y`` (at least two labels) and count ``X``; then derive the probabilities.

        Returns self; ValueError (the model unchanged) for bad hyperparameters or input.
        """
        self._check_params()
        X, y, classes = self._checked_training_data(X, y)
        return self._count_batch(X, y, classes)

    def _classes_of(self, y: np.ndarray) -> np.ndarray:
        """The classes a fit on checked labels ``y`` learns: sorted, at least two (ValueError otherwise)."""
        return check_classes(np.unique(y))

    def _checked_training_data(self, X, y) -> tuple:
        """``(X, y, classes)`` checked for a new fit; on a ValueError a fitted model stays as it was."""
        fitted = hasattr(self, "classes_")
        if fitted:  # validate against no fitted n_features_in_, keep the old fit if the input is bad
            kept = {name: getattr(self, name) for name in ("classes_", "n_features_in_")}
            for name in kept:
                delattr(self, name)
        try:
            X = self._check_X(X, training=True)
            y = check_labels(y, X.shape[0])
            check_n_samples_and_features(X.shape)
            classes = self._classes_of(y)
        except ValueError:
            if fitted:
                for name, value in kept.items():
                    setattr(self, name, value)
            raise
        return X, y, classes

    def partial_fit(self, X, y, classes=None):
        """Add one batch to the counts and re-derive; equal to one ``fit`` on all batches so far.

        ``classes``: every label the model will know, required on the first call (a batch need
        not hold them all); on later calls it may be left out, and must match if given.
        """
        self._check_params()
        X = self._check_X(X, training=True)
        y = check_labels(y, X.shape[0])
        check_n_samples_and_features(X.shape)
        if not hasattr(self, "classes_"):
            if classes is None:
                raise ValueError("the first partial_fit needs classes=[...], every label the model will know")
            return self._count_batch(X, y, check_classes(classes))
        if classes is not None and not np.array_equal(check_classes(classes), self.classes_):
            raise ValueError(f"classes {np.unique(classes).tolist()} differ from the fitted {self.classes_.tolist()}")
        return self._count_batch(X, y, self.classes_)

    def _count_batch(self, X, y: np.ndarray, classes: np.ndarray):
        """Checked X and y into the counts (starting them when ``classes_`` is new), then derive."""
        starting = not hasattr(self, "classes_")
        class_index = class_positions(classes, y)
        self.classes_ = classes
        if starting:
            self.n_features_in_ = X.shape[1]
            self._empty_counts(len(classes), X.shape[1])
        self._add_counts(X, class_index)
        self._derive_from_counts()
        return self

    # -- shared derivations -----------------------------------------------------------------
    def _class_log_prior(self) -> np.ndarray:
        """log p(y): float64 (n_classes,); ``prior`` "uniform" is 1/n_classes, "empirical" the class
        frequencies (-inf for a class without samples)."""
        n_classes = len(self.classes_)
        if self.prior == "uniform":
            return np.full(n_classes, -np.log(n_classes))
        with np.errstate(divide="ignore"):
            return np.log(self.class_count_) - np.log(self.class_count_.sum())

    # -- scoring ----------------------------------------------------------------------------
    @abstractmethod
    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log p(x, y) for validated X: float64 (n_samples, n_classes)."""

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log p(x, y) for every sample and class: float64 (n_samples, n_classes)."""
        self._check_fitted()
        return self._joint_log_likelihood(self._check_X(X, training=False))

    def _decision_scores(self, X) -> np.ndarray:
        return self.predict_joint_log_proba(X)


def check_n_features(n_features: int, expected: int, model: str = "the model") -> None:
    """ValueError unless an input has the number of features the model was fitted on."""
    if n_features != expected:
        raise ValueError(f"X has {n_features} features, but {model} is expecting {expected} features as input")
