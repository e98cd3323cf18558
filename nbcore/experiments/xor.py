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

from ..models.base import ClassifierMixin
from ..models.bernoulli import BernoulliNB
from ..models.chain import ChainBayesNet

XOR_POINTS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.uint8)
XOR_LABELS = np.array([0, 1, 1, 0], dtype=np.int64)


def naive_bayes(alpha: float) -> BernoulliNB:
    """BernoulliNB fitted on the four XOR points, Laplace pseudo-count alpha (= beta; the page's k)."""
    return BernoulliNB(alpha=alpha, beta=alpha).fit(XOR_POINTS, XOR_LABELS)


def network(alpha: float) -> ChainBayesNet:
    """The chain network y -> x1 -> x2 fitted on the four XOR points, pseudo-count alpha (the page's k)."""
    return ChainBayesNet(alpha=alpha).fit(XOR_POINTS, XOR_LABELS)


@dataclass(frozen=True)
class XorResult:
    """What one model does on the four XOR points."""

    posterior: np.ndarray  # p(y = 1 | x) per point, float64 (4,)
    predictions: np.ndarray  # int64 (4,), ties go to class 0
    accuracy: float

    @property
    def right(self) -> int:
        """How many of the four points the model classifies right."""
        return int((self.predictions == XOR_LABELS).sum())


def evaluate(model: ClassifierMixin) -> XorResult:
    """Posterior of class 1, predictions and accuracy of a fitted model on the four XOR points."""
    posterior = model.predict_proba(XOR_POINTS)[:, 1]
    predictions = model.predict(XOR_POINTS)
    return XorResult(posterior, predictions, float(np.mean(predictions == XOR_LABELS)))
