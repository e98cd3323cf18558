"""BernoulliNB's generation and missing data: ``sample`` draws at ``feature_prob_``, ``inpaint`` fills hidden pixels
as brute force and a model of the observed pixels alone do."""

from __future__ import annotations

import numpy as np
import pytest

from nbcore import BernoulliNB
from tests.nbcore import test_bernoulli
from tests.nbcore.test_bernoulli import HAND_X, HAND_Y, N_CLASSES, N_FEATURES

# the fixture of the module that owns the data: 300 samples of 13 0/1 features in 10 classes
data = test_bernoulli.data


# -- sampling --------------------------------------------------------------------------------
def test_sample_shape_dtype_values_and_seed(data):
    X, y = data
    model = BernoulliNB().fit(X, y)
    drawn = model.sample(25, 4, rng=123)
    assert drawn.shape == (25, N_FEATURES) and drawn.dtype == np.uint8
    assert set(np.unique(drawn)) <= {0, 1}
    np.testing.assert_array_equal(drawn, model.sample(25, 4, rng=123))
    np.testing.assert_array_equal(drawn, model.sample(25, 4, rng=np.random.default_rng(123)))
    assert not np.array_equal(drawn, model.sample(25, 4, rng=124))
    assert model.sample(0, 4, rng=0).shape == (0, N_FEATURES)


@pytest.mark.parametrize("label", [-1, 10])
def test_sample_rejects_bad_class(data, label):
    model = BernoulliNB().fit(*data)
    with pytest.raises(ValueError):
        model.sample(3, label)
    with pytest.raises(ValueError):
        model.sample(-1, 0)


@pytest.mark.parametrize("alpha, label", [(1.0, 2), (0.0, 3), (0.0, 5)])
def test_sample_frequencies_match_feature_prob(data, alpha, label):
    X, y = data
    model = BernoulliNB(alpha=alpha).fit(X, y)
    n = 40_000
    frequency = model.sample(n, label, rng=7).mean(axis=0)
    p = model.feature_prob_[label]
    # 5 standard errors: a false alarm about once in 3 million pixels
    np.testing.assert_array_less(np.abs(frequency - p), 5 * np.sqrt(p * (1 - p) / n) + 1e-12)
    if alpha == 0.0:  # probabilities 0 and 1 are exact
        assert frequency[p == 0].sum() == 0 and (frequency[p == 1] == 1).all()


# -- inpainting ------------------------------------------------------------------------------
def brute_inpaint(model: BernoulliNB, x, mask):
    p = model.feature_prob_
    prior = np.exp(model.class_log_prior_)
    weights = np.array(
        [prior[c] * np.prod(np.where(x[mask] == 1, p[c, mask], 1 - p[c, mask])) for c in range(N_CLASSES)]
    )
    posterior = weights / weights.sum()
    pixels = np.array([sum(p[c, j] * posterior[c] for c in range(N_CLASSES)) for j in range(len(x))])
    return pixels, posterior


@pytest.mark.parametrize(
    "alpha, beta, prior", [(1.0, None, "empirical"), (0.5, 2.0, "uniform"), (0.0, 1.0, "empirical")]
)
def test_inpaint_matches_brute_force_and_restricted_model(data, alpha, beta, prior):
    X, y = data
    model = BernoulliNB(alpha=alpha, beta=beta, prior=prior).fit(X, y)
    rng = np.random.default_rng(5)
    for x in X[:8]:
        mask = rng.random(N_FEATURES) < 0.5
        pixel_prob, posterior = model.inpaint(x, mask)
        assert pixel_prob.shape == (N_FEATURES,) and posterior.shape == (N_CLASSES,)
        np.testing.assert_array_equal(pixel_prob[mask], x[mask])  # observed pixels unchanged
        expected_pixels, expected_posterior = brute_inpaint(model, x, mask)
        np.testing.assert_allclose(posterior, expected_posterior, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(pixel_prob[~mask], expected_pixels[~mask], rtol=1e-10, atol=1e-14)
        restricted = BernoulliNB(alpha=alpha, beta=beta, prior=prior).fit(X[:, mask], y)
        np.testing.assert_allclose(posterior, restricted.predict_proba(x[mask][None, :])[0], rtol=1e-10, atol=1e-14)


def test_inpaint_when_every_class_is_impossible_agrees_with_restricted_model():
    model = BernoulliNB(alpha=0.0).fit(HAND_X, HAND_Y)
    x = np.array([1, 0, 1, 1])
    for mask in (np.ones(4, dtype=bool), np.array([True, False, True, True]), np.array([True, True, False, True])):
        _, posterior = model.inpaint(x, mask)
        restricted = BernoulliNB(alpha=0.0).fit(HAND_X[:, mask], HAND_Y)
        assert not np.isnan(posterior).any()
        np.testing.assert_allclose(posterior, restricted.predict_proba(x[mask][None, :])[0], rtol=1e-12)


def test_inpaint_all_observed(data):
    X, y = data
    model = BernoulliNB().fit(X, y)
    x = X[0]
    pixel_prob, posterior = model.inpaint(x, np.ones(N_FEATURES, dtype=bool))
    np.testing.assert_array_equal(pixel_prob, x)
    np.testing.assert_allclose(posterior, model.predict_proba(x[None, :])[0], rtol=1e-10)


def test_inpaint_none_observed_gives_the_prior(data):
    X, y = data
    for prior in ("empirical", "uniform"):
        model = BernoulliNB(prior=prior).fit(X, y)
        pixel_prob, posterior = model.inpaint(X[0], np.zeros(N_FEATURES, dtype=bool))
        np.testing.assert_allclose(posterior, np.exp(model.class_log_prior_), rtol=1e-12)
        np.testing.assert_allclose(pixel_prob, np.exp(model.class_log_prior_) @ model.feature_prob_, rtol=1e-12)


def test_inpaint_rejects_bad_arguments(data):
    X, y = data
    model = BernoulliNB().fit(X, y)
    x = X[0]
    for mask in (
        np.ones(N_FEATURES - 1, dtype=bool),
        np.ones((1, N_FEATURES), dtype=bool),
        np.ones(N_FEATURES, dtype=int),
        np.ones(N_FEATURES, dtype=float),
    ):
        with pytest.raises(ValueError):
            model.inpaint(x, mask)
    with pytest.raises(ValueError):
        model.inpaint(np.append(x, 1), np.ones(N_FEATURES + 1, dtype=bool))
    bad = x.astype(float)
    bad[0] = 0.5
    with pytest.raises(ValueError):
        model.inpaint(bad, np.ones(N_FEATURES, dtype=bool))
