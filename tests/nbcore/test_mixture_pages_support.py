"""What the pages need of the mixture of styles beyond its estimator contract: each class's mean image over its
styles (``BernoulliMixtureNB.class_feature_prob_``, Samples' left map) and where a measured accuracy lies between
two others (``nbcore.experiments.lesson.accuracy_band``, the lesson's styles question). No MNIST needed."""

from __future__ import annotations

import numpy as np
import pytest

import nbcore
from nbcore.experiments import lesson
from nbcore.prepared.mixtures import restore_mixture


def small_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two classes of 0/1 images (300, 12), each written two ways: class 0 inks the first or the second half of
    its first six pixels, class 1 likewise on the last six."""
    rng = np.random.default_rng(seed)
    labels = np.arange(300) % 2
    way = rng.integers(0, 2, size=300)
    images = (rng.random((300, 12)) < 0.05).astype(np.uint8)
    for index, (label, half) in enumerate(zip(labels, way)):
        start = 6 * label + 3 * half
        images[index, start : start + 3] = 1
    return images, labels


def test_the_mean_image_is_the_styles_weighted_by_their_weights_as_counted_by_hand():
    params = nbcore.BernoulliMixtureNB(n_components=2, alpha=1.0, beta=1.0).get_params()
    counts = {  # one class, two styles, two features; 10 images: 6 in style 0, 4 in style 1
        "class_count_": np.array([10.0]),
        "component_count_": np.array([[6.0, 4.0]]),
        "feature_count_": np.array([[[6.0, 0.0], [1.0, 4.0]]]),
    }
    model = restore_mixture(params, np.array([0]), counts)
    weights = np.array([(6 + 1) / (10 + 2), (4 + 1) / (10 + 2)])  # one pseudo-image per style
    style_0 = np.array([(6 + 1) / (6 + 2), (0 + 1) / (6 + 2)])  # (s_ckj + α) / (s_ck + α + β)
    style_1 = np.array([(1 + 1) / (4 + 2), (4 + 1) / (4 + 2)])
    np.testing.assert_allclose(model.class_feature_prob_, [weights[0] * style_0 + weights[1] * style_1], rtol=1e-12)


def test_one_style_per_class_gives_naive_bayes_pictures_and_more_styles_the_samples_mean():
    images, labels = small_data()
    naive = nbcore.BernoulliNB(alpha=1.0, beta=1.0).fit(images, labels)
    single = nbcore.BernoulliMixtureNB(n_components=1, alpha=1.0, random_state=0).fit(images, labels)
    np.testing.assert_allclose(single.class_feature_prob_, naive.feature_prob_, rtol=1e-12)

    mixture = nbcore.BernoulliMixtureNB(n_components=2, alpha=1.0, random_state=0).fit(images, labels)
    mean = mixture.class_feature_prob_
    assert mean.shape == (2, 12) and np.all((mean > 0) & (mean < 1))
    np.testing.assert_allclose(mean, np.einsum("ck,ckj->cj", mixture.component_weights_, mixture.feature_prob_))
    drawn = mixture.sample(20_000, 1, rng=0)
    np.testing.assert_allclose(drawn.mean(axis=0), mean[1], atol=0.02)  # what sampling the class averages to
    # averaged over its styles, a class's picture is naive Bayes' one picture again, up to the smoothing
    np.testing.assert_allclose(mean, naive.feature_prob_, atol=0.02)


def test_the_mean_image_needs_a_fitted_model():
    with pytest.raises(nbcore.NotFittedError):
        nbcore.BernoulliMixtureNB().class_feature_prob_  # noqa: B018 (the property raises)


@pytest.mark.parametrize(
    "accuracy, band",
    [(0.80, "lower"), (0.8427, "lower"), (0.85, "between"), (0.9289, "between"), (0.929, "upper"), (0.95, "upper")],
)
def test_an_accuracy_lies_below_between_or_above_two_others(accuracy, band):
    assert lesson.accuracy_band(accuracy, 0.8427, 0.929) == band
    assert band in lesson.ACCURACY_BANDS
