"""nbcore.explain: the numbers the Heatmaps, Compare and Smoothing pages show, from a fitted model."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nbcore
from nbcore.explain import likelihood_product, pixel_log_odds


def tiny_model(alpha: float, beta: float) -> nbcore.BernoulliNB:
    """Three features: always on in both classes, never on, on in half of class 0's images only."""
    X = np.array([[1, 0, 1], [1, 0, 0], [1, 0, 0], [1, 0, 0]], dtype=np.uint8)
    return nbcore.BernoulliNB(alpha=alpha, beta=beta).fit(X, np.array([0, 0, 1, 1]))


def test_log_odds_of_a_smoothed_model_are_log_p_over_one_minus_p():
    model = tiny_model(1.0, 1.0)
    log_odds, limit = pixel_log_odds(model)
    p = model.feature_prob_
    np.testing.assert_allclose(log_odds, np.log(p / (1 - p)), rtol=1e-12)
    assert limit == np.abs(log_odds).max() == math.log(3)  # (2 + 1) / (0 + 1): always on, smoothed


def test_infinite_log_odds_are_clipped_to_the_largest_finite_magnitude():
    log_odds, limit = pixel_log_odds(tiny_model(0.0, 0.0))
    # class 0: +inf, -inf, log(1/1) = 0; class 1: +inf, -inf, -inf
    assert limit == 1.0  # no finite value but 0: the colour scale keeps a width of 1 nat
    np.testing.assert_array_equal(log_odds[:2], [[1.0, -1.0, 0.0], [1.0, -1.0, -1.0]])  # the two classes seen
    assert np.isfinite(log_odds).all()


def test_a_product_of_784_probabilities_underflows_in_float32_not_in_logs():
    rng = np.random.default_rng(0)
    X = (rng.random((200, 784)) < 0.1).astype(np.uint8)
    model = nbcore.BernoulliNB().fit(X, np.arange(200) % 2)
    product = likelihood_product(model, X[0], 0)
    terms = model.pixel_log_likelihoods(X[0])[0]
    assert product.float32 == 0.0  # below float32's smallest subnormal, about 1.4e-45
    assert product.log == pytest.approx(math.fsum(terms), rel=1e-12) and product.log10 == product.log / math.log(10)
    assert product.float64 == (0.0 if product.log < -745 else float(np.prod(np.exp(terms))))
