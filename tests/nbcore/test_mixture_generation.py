"""BernoulliMixtureNB's generation and missing data: ``sample`` draws each image from one style, seeded;
``inpaint`` keeps the observed pixels, is BernoulliNB's with one style and follows the style the pixels show."""

from __future__ import annotations

import numpy as np
import pytest

from nbcore import BernoulliMixtureNB, BernoulliNB
from tests.nbcore import test_mixture

# the fixtures of test_mixture: 3,000 / 500 MNIST images binarized at 128 and the mixtures fitted on them
mnist_subset, three_styles, two_styles = test_mixture.mnist_subset, test_mixture.three_styles, test_mixture.two_styles


# -- sampling -------------------------------------------------------------------------------------------------
def test_sample_is_uint8_zero_one_and_seeded(three_styles):
    model = three_styles
    drawn = model.sample(50, 4, rng=0)
    assert drawn.shape == (50, 784) and drawn.dtype == np.uint8 and set(np.unique(drawn).tolist()) <= {0, 1}
    np.testing.assert_array_equal(model.sample(50, 4, rng=0), drawn)
    np.testing.assert_array_equal(model.sample(50, 4, rng=np.random.default_rng(0)), drawn)
    assert not np.array_equal(model.sample(50, 4, rng=1), drawn)
    assert model.sample(0, 4, rng=0).shape == (0, 784)
    with pytest.raises(ValueError, match="n must be"):
        model.sample(-1, 4)
    with pytest.raises(ValueError, match="no class for"):
        model.sample(3, 10)


def test_one_style_samples_have_bernoulli_nb_pixel_means(mnist_subset):
    """K = 1 draws from BernoulliNB's distribution (not its random stream: the style is drawn first): the
    mean of 20,000 samples is feature_prob_ within 0.02 (4.5 standard errors) at every pixel."""
    train_X, train_y, _, _ = mnist_subset
    mixture = BernoulliMixtureNB(n_components=1, random_state=0).fit(train_X, train_y)
    bernoulli = BernoulliNB().fit(train_X, train_y)
    means = mixture.sample(20_000, 7, rng=3).mean(axis=0)
    np.testing.assert_allclose(means, bernoulli.feature_prob_[7], rtol=0, atol=0.02)
    assert np.abs(means - bernoulli.feature_prob_[1]).max() > 0.3  # the test tells digits apart


def test_each_sample_comes_from_one_style_not_their_average(two_styles):
    model, _, _ = two_styles
    first_half = model.feature_prob_[0, :, :20].mean(axis=1)
    assert first_half.min() < 0.15 and first_half.max() > 0.85  # EM found the two opposite styles
    share = model.sample(4000, 0, rng=0)[:, :20].mean(axis=1)
    assert np.mean((share > 0.25) & (share < 0.75)) < 0.01  # the average style would put them all near 0.5
    weight_of_first = model.component_weights_[0, np.argmax(first_half)]
    assert weight_of_first == pytest.approx(0.3, abs=0.05)
    assert np.mean(share > 0.5) == pytest.approx(weight_of_first, abs=0.03)


# -- inpainting ----------------------------------------------------------------------------------------------
def test_inpaint_with_one_style_is_bernoulli_nb(mnist_subset):
    train_X, train_y, test_X, _ = mnist_subset
    mixture = BernoulliMixtureNB(n_components=1, alpha=0.5, random_state=0).fit(train_X, train_y)
    bernoulli = BernoulliNB(alpha=0.5).fit(train_X, train_y)
    top_half = np.arange(784) < 392
    for x in test_X[:5]:
        for mask in (top_half, ~top_half):
            for ours, theirs in zip(mixture.inpaint(x, mask), bernoulli.inpaint(x, mask)):
                np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-10)


def test_inpaint_keeps_the_observed_pixels_and_gives_a_class_posterior(three_styles, mnist_subset):
    model = three_styles
    _, _, test_X, _ = mnist_subset
    x = test_X[0]
    mask = np.random.default_rng(0).random(784) < 0.3
    pixel_prob, class_posterior = model.inpaint(x, mask)
    assert pixel_prob.shape == (784,) and class_posterior.shape == (10,)
    np.testing.assert_array_equal(pixel_prob[mask], x[mask])
    assert np.all((pixel_prob >= 0) & (pixel_prob <= 1))
    assert class_posterior.sum() == pytest.approx(1.0, abs=1e-12)
    # everything seen: the posterior of predict_proba; nothing seen: the prior, and every class's styles averaged
    pixel_prob, class_posterior = model.inpaint(x, np.ones(784, dtype=bool))
    np.testing.assert_array_equal(pixel_prob, x)
    np.testing.assert_allclose(class_posterior, model.predict_proba(test_X[:1])[0], rtol=0, atol=1e-12)
    pixel_prob, class_posterior = model.inpaint(x, np.zeros(784, dtype=bool))
    np.testing.assert_allclose(class_posterior, np.exp(model.class_log_prior_), rtol=0, atol=1e-12)
    np.testing.assert_allclose(pixel_prob, class_posterior @ model.class_feature_prob_, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="observed_mask"):
        model.inpaint(x, mask.astype(int))


def test_inpaint_follows_the_style_the_observed_pixels_show(two_styles):
    """Half of a first-half style seen: the hidden part is filled from that style, not from the class average."""
    model, _, _ = two_styles
    x = np.r_[np.ones(20), np.zeros(20)].astype(np.uint8)
    seen = np.zeros(40, dtype=bool)
    seen[:10] = seen[20:30] = True
    pixel_prob, class_posterior = model.inpaint(x, seen)
    assert class_posterior[0] > 0.99
    assert pixel_prob[10:20].min() > 0.8 and pixel_prob[30:].max() < 0.2
