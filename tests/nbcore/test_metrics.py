"""Confusion matrix, reliability/ECE and learning curves."""

from __future__ import annotations

import numpy as np
import pytest

import nbcore
from nbcore.datasets.mnist import MnistSplits
from nbcore.experiments.evaluate import bernoulli_learner, learning_curve
from nbcore.inputs import InputForm
from nbcore.metrics import confusion_matrix, reliability


def test_confusion_matrix_counts_pairs():
    matrix = confusion_matrix(np.array([0, 0, 1, 2, 2, 2]), np.array([0, 1, 1, 2, 0, 2]), n_classes=3)
    assert matrix.tolist() == [[1, 1, 0], [0, 1, 0], [1, 0, 2]]
    assert matrix.sum() == 6


def test_reliability_of_a_perfectly_calibrated_toy_and_an_overconfident_one():
    probabilities = np.array([[0.75, 0.25]] * 4)
    calibrated = reliability(probabilities, np.array([0, 0, 0, 1]), n_bins=4)
    assert calibrated.ece == pytest.approx(0.0)
    assert calibrated.count.tolist() == [0, 0, 4, 0]  # 0.75 falls in the bin (0.5, 0.75]
    overconfident = reliability(np.array([[1.0, 0.0]] * 4), np.array([0, 1, 1, 1]), n_bins=10)
    assert overconfident.ece == pytest.approx(0.75)
    assert overconfident.count[-1] == 4 and np.isnan(overconfident.accuracy[0])


def test_reliability_bins_match_a_brute_force_ece():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(500, 10)) * 3
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    labels = rng.integers(0, 10, 500)
    result = reliability(probabilities, labels, n_bins=10)
    confidence, correct = probabilities.max(1), probabilities.argmax(1) == labels
    expected = 0.0
    for low in np.arange(10) / 10:
        members = (confidence > low) & (confidence <= low + 0.1) if low > 0 else confidence <= 0.1
        if members.any():
            expected += members.mean() * abs(correct[members].mean() - confidence[members].mean())
    assert result.ece == pytest.approx(expected)
    assert result.count.sum() == 500


def test_learning_curve_trains_every_learner_on_shared_subsets():
    rng = np.random.default_rng(0)
    images = (rng.random((200, 28, 28)) * 255).astype(np.uint8)
    labels = rng.integers(0, 10, 200).astype(np.uint8)
    splits = MnistSplits(images, labels, images[:50], labels[:50])
    seen = []

    def bernoulli(part, seed):
        seen.append((len(part.train_labels), len(part.test_labels)))
        # a subset of 20 may miss a digit the test labels have: declare all ten, as nbcore's learners do
        model = nbcore.BernoulliNB().partial_fit(
            nbcore.binarize(part.train_images, 128), part.train_labels, classes=np.arange(10)
        )
        return model.score(nbcore.binarize(part.test_images, 128), part.test_labels)

    calls = []
    curve = learning_curve(
        {"nb": bernoulli, "form": bernoulli_learner(InputForm(128))},
        splits,
        sizes=[20, 100],
        seeds=[0, 1],
        progress=lambda fraction, message: calls.append(fraction),
    )
    assert curve["nb"].shape == (2, 2) and curve["sizes"].tolist() == [20, 100]
    assert seen == [(20, 50), (20, 50), (100, 50), (100, 50)]
    assert calls[-1] == 1.0 and np.all(np.diff(calls) > 0)
    assert np.all((curve["nb"] >= 0) & (curve["nb"] <= 1))
    np.testing.assert_array_equal(curve["form"], curve["nb"])  # nbcore's learner is that model on the same subsets
