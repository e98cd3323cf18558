"""The class's naive Bayes models as counts: each student's drawings counted once, and a model made from any sum
of counts (the whole class's minus one student's, MNIST's plus the class's times a weight).

Counts are a BernoulliNB's whole fitted state, so a model without student s is the class's counts minus s's:
one count per student, not one refit per student. Features are 0/1 uint8 (n, n_features); counts are per digit,
(10,) drawings and (10, n_features) ink per pixel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..models.bernoulli import BernoulliNB
from .evaluate import DIGITS


def model_from_counts(template: BernoulliNB, class_count: np.ndarray, feature_count: np.ndarray) -> BernoulliNB:
    """A fitted BernoulliNB with ``template``'s hyperparameters and classes and these counts, reading 0/1
    features (no ``threshold``, whatever the template's).

    ``class_count`` (n_classes,) and ``feature_count`` (n_classes, n_features), integer or (weighted) float.
    The counts are the model's whole fitted state: every probability is derived from them.
    """
    model = BernoulliNB(**zero_one_params(template))
    # the fitted state, set as fit would leave it (with_params would first derive the template's counts: twice
    # the work, and the curve builds thousands of these)
    model.classes_, model.n_features_in_ = template.classes_, template.n_features_in_
    model.class_count_ = np.asarray(class_count)
    model.feature_count_ = np.asarray(feature_count)
    return model.set_params()  # no new parameter: re-derives every probability from the counts just set


def zero_one_params(template: BernoulliNB) -> dict:
    """``template``'s hyperparameters for a model of 0/1 features: alpha, beta and prior, no threshold."""
    return {**template.get_params(), "threshold": None}


@dataclass(frozen=True)
class StudentCounts:
    """Each student's counts: ``students`` (s,) the ids in sorted order, ``class_count`` int64 (s, 10)
    drawings per digit, ``feature_count`` int64 (s, 10, n_features) ink per pixel and digit, and ``whole``
    the class's model (a BernoulliNB that ``partial_fit`` every student's drawings in turn)."""

    students: np.ndarray
    class_count: np.ndarray
    feature_count: np.ndarray
    whole: BernoulliNB

    def without(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """(class_count (10,), feature_count (10, n_features)) of every student but the ``index``-th."""
        return (
            self.whole.class_count_ - self.class_count[index],
            self.whole.feature_count_ - self.feature_count[index],
        )


def count_students(
    features: np.ndarray, labels: np.ndarray, students: np.ndarray, template: BernoulliNB
) -> StudentCounts:
    """Count 0/1 ``features`` (n, n_features) per student with ``partial_fit``, in ``template``'s hyperparameters."""
    ids, positions = np.unique(students, return_inverse=True)
    params = zero_one_params(template)
    whole = BernoulliNB(**params)
    class_count = np.zeros((len(ids), len(DIGITS)), np.int64)
    feature_count = np.zeros((len(ids), len(DIGITS), features.shape[1]), np.int64)
    if len(ids) == 0:  # no drawings yet: every probability is the smoothing's (an empirical prior has no classes)
        empty = model_from_counts(template.with_params(prior="uniform"), class_count.sum(0), feature_count.sum(0))
        return StudentCounts(ids, class_count, feature_count, empty)
    for index in range(len(ids)):
        rows = positions == index
        own = BernoulliNB(**params).partial_fit(features[rows], labels[rows], classes=DIGITS)
        class_count[index], feature_count[index] = own.class_count_, own.feature_count_
        whole.partial_fit(features[rows], labels[rows], classes=DIGITS)
    return StudentCounts(ids, class_count, feature_count, whole)


def as_zero_one(model: BernoulliNB) -> BernoulliNB:
    """``model`` itself if it reads 0/1 features, else the same counts in a model that does."""
    return model if model.threshold is None else model_from_counts(model, model.class_count_, model.feature_count_)


def combined_counts(
    mnist_model: BernoulliNB, class_count: np.ndarray, feature_count: np.ndarray, weight: float
) -> tuple[np.ndarray, np.ndarray]:
    """MNIST's counts plus ``weight`` times the class's: float64 (10,) and (10, n_features)."""
    return (
        mnist_model.class_count_ + weight * np.asarray(class_count, np.float64),
        mnist_model.feature_count_ + weight * np.asarray(feature_count, np.float64),
    )
