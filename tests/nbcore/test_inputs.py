"""nbcore.inputs.InputForm: the one path from MNIST-framed images to what the models see."""

from __future__ import annotations

import numpy as np
import pytest

import nbcore
from nbcore.datasets.mnist import MnistSplits
from nbcore.deskew import deskew_all
from nbcore.experiments.evaluate import evaluate_bernoulli
from nbcore.inputs import InputForm


@pytest.fixture(scope="module")
def small(mnist) -> MnistSplits:
    """3,000 training and 500 test images of the real MNIST, as published."""
    return MnistSplits(
        mnist["train_images"][:3000],
        mnist["train_labels"][:3000],
        mnist["test_images"][:500],
        mnist["test_labels"][:500],
    )


def test_features_are_the_images_deskewed_when_asked_then_binarized(small):
    images = small.test_images[:50]
    plain, upright = InputForm(128), InputForm(128, deskew=True)
    np.testing.assert_array_equal(plain.images(images), images)
    np.testing.assert_array_equal(plain.features(images), nbcore.binarize(images, 128))
    np.testing.assert_array_equal(upright.images(images), deskew_all(images))
    np.testing.assert_array_equal(upright.features(images), nbcore.binarize(deskew_all(images), 128))
    assert not np.array_equal(upright.features(images), plain.features(images))
    both = InputForm(1, deskew=True).prepare(images)
    np.testing.assert_array_equal(both.images, deskew_all(images))
    np.testing.assert_array_equal(both.features, nbcore.binarize(deskew_all(images), 1))
    assert both.features.shape == (50, 784) and both.features.dtype == np.uint8


@pytest.mark.slow
def test_splits_are_deskewed_once_and_marked(small):
    upright = InputForm(128, deskew=True)
    formed = upright.splits(small)
    assert formed.deskewed and not small.deskewed
    np.testing.assert_array_equal(formed.train_images, deskew_all(small.train_images))
    np.testing.assert_array_equal(formed.test_images, deskew_all(small.test_images))
    assert formed.train_labels is small.train_labels and formed.test_labels is small.test_labels
    assert upright.splits(formed) is formed  # in form already: passed through, not deskewed again
    assert InputForm(1).splits(small) is small
    # features of marked splits are those of the published ones put in form: never deskewed twice
    for made_from in (small, formed):
        train, test = InputForm(64, deskew=True).split_features(made_from)
        np.testing.assert_array_equal(train, nbcore.binarize(formed.train_images, 64))
        np.testing.assert_array_equal(test, nbcore.binarize(formed.test_images, 64))
    with pytest.raises(ValueError, match="deskewed"):
        InputForm(128).splits(formed)


def test_deskewing_reports_progress_over_both_splits(small):
    seen = []
    InputForm(deskew=True).splits(small, progress=lambda fraction, message: seen.append((fraction, message)))
    fractions = [fraction for fraction, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("test image" in message for _, message in seen)


@pytest.mark.parametrize(
    "threshold, deskew", [(-1, False), (257, False), (1.5, False), ("128", False), (True, False), (128, "on")]
)
def test_a_form_that_cannot_be_is_refused(threshold, deskew):
    with pytest.raises(ValueError):
        InputForm(threshold, deskew)


def test_images_must_be_a_stack():
    with pytest.raises(ValueError, match="stack"):
        InputForm().images(np.zeros((28, 28), np.uint8))


@pytest.mark.slow
def test_evaluation_with_deskew_is_the_same_from_published_or_deskewed_splits(small):
    from_published = evaluate_bernoulli(small, threshold=128, deskew=True)
    from_formed = evaluate_bernoulli(InputForm(deskew=True).splits(small), threshold=128, deskew=True)
    plain = evaluate_bernoulli(small, threshold=128)
    for key in ("train_accuracy", "test_accuracy", "mean_train_loglik"):
        assert from_published[key] == from_formed[key]
    assert from_published["test_accuracy"] != plain["test_accuracy"]
    assert from_published["deskew"] is True and plain["deskew"] is False
