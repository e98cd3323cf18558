"""What a fitted Bernoulli naive Bayes model says, in the forms the dashboard's pages show.

Each function takes a fitted model (attributes ``feature_log_prob_`` and ``feature_log_neg_prob_``,
both (n_classes, n_features) natural logs of p(x_j = 1 | y) and p(x_j = 0 | y)) and returns numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def pixel_log_odds(model) -> tuple[np.ndarray, float]:
    """Per feature and class, log p(x_j = 1 | y) / p(x_j = 0 | y), and its largest finite magnitude.

    Returns ``(log_odds, limit)``: log_odds (n_classes, n_features) in nats, with the infinite values of an
    unsmoothed model (p = 0 or 1) clipped to ±limit, so that a symmetric colour scale [-limit, limit] shows
    them at its ends; limit is 1.0 when no finite value differs from 0 (a scale needs a width).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        log_odds = model.feature_log_prob_ - model.feature_log_neg_prob_
    finite = np.abs(log_odds[np.isfinite(log_odds)])
    limit = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    return np.clip(log_odds, -limit, limit), limit


@dataclass(frozen=True)
class LikelihoodProduct:
    """The product of p(x_j | label) over all features of one image, computed three ways."""

    float32: float  # multiplied in float32, as the textbook's tensors do (0.0 once it underflows)
    float64: float  # multiplied in float64 (0.0 once it underflows)
    log: float  # the sum of the natural logs: the true product's logarithm, finite as long as no factor is 0

    @property
    def log10(self) -> float:
        """The true product's decimal exponent (about 10 ** log10)."""
        return self.log / math.log(10)


def likelihood_product(model, features: np.ndarray, label: int) -> LikelihoodProduct:
    """For 0/1 ``features`` (n_features,) of one image: the product of its n_features probabilities under ``label``."""
    terms = model.pixel_log_likelihoods(np.asarray(features).reshape(-1))[label]  # (n_features,) natural logs
    probabilities = np.exp(terms)
    return LikelihoodProduct(
        float32=float(np.prod(probabilities.astype(np.float32), dtype=np.float32)),
        float64=float(np.prod(probabilities)),
        log=float(np.sum(terms)),
    )
