"""The XOR exercise: naive Bayes learns 1/2 everywhere and fails; the edge x1 -> x2 classifies XOR."""

from __future__ import annotations

import numpy as np
import pytest

from lab.figures import regions
from nbcore import ChainBayesNet, NotFittedError
from nbcore.experiments import xor


@pytest.mark.parametrize("k", [0.0, 0.5, 1.0, 10.0])
def test_naive_bayes_learns_one_half_and_cannot_separate_xor(k):
    model = xor.naive_bayes(k)
    np.testing.assert_allclose(model.feature_prob_, 0.5)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [0.5, 0.5])
    result = xor.evaluate(model)
    np.testing.assert_allclose(result.posterior, 0.5)
    assert result.predictions.tolist() == [0, 0, 0, 0]  # every point is a tie, broken towards class 0
    assert result.accuracy == 0.5


def test_network_without_smoothing_is_certain_and_right():
    model = ChainBayesNet(alpha=0).fit(xor.XOR_POINTS, xor.XOR_LABELS)
    np.testing.assert_allclose(model.x1_prob_, [0.5, 0.5])
    np.testing.assert_allclose(model.x2_prob_, [[0.0, 1.0], [1.0, 0.0]])  # class 0 copies x1, class 1 flips it
    result = xor.evaluate(model)
    np.testing.assert_allclose(result.posterior, [0, 1, 1, 0])
    assert result.accuracy == 1.0


@pytest.mark.parametrize("k", [0.5, 1.0, 10.0])
def test_network_with_smoothing_still_classifies_all_four(k):
    model = ChainBayesNet(alpha=k).fit(xor.XOR_POINTS, xor.XOR_LABELS)
    copy = (1 + k) / (1 + 2 * k)  # p(x2 = x1 | x1, y = 0): seen once in one example, plus k
    np.testing.assert_allclose(model.x2_prob_, [[1 - copy, copy], [copy, 1 - copy]])
    result = xor.evaluate(model)
    np.testing.assert_allclose(result.posterior, [1 - copy, copy, copy, 1 - copy])
    assert result.predictions.tolist() == xor.XOR_LABELS.tolist() and result.accuracy == 1.0


def test_network_rejects_bad_input():
    with pytest.raises(ValueError, match="alpha must be"):
        ChainBayesNet(alpha=-1).fit(xor.XOR_POINTS, xor.XOR_LABELS)
    with pytest.raises(ValueError, match="2 features"):
        ChainBayesNet().fit(np.zeros((2, 3)), [0, 1])
    with pytest.raises(NotFittedError, match="not fitted"):
        ChainBayesNet().predict(xor.XOR_POINTS)


def test_xor_figure_has_one_panel_per_model():
    figure = regions.xor_posteriors(
        xor.XOR_POINTS, xor.XOR_LABELS, {"naive": np.full(4, 0.5), "network": np.array([0, 1, 1, 0.0])}
    )
    assert len(figure.data) == 2 and [trace.xaxis for trace in figure.data] == ["x", "x2"]
    assert list(figure.data[1].marker.color) == [0, 1, 1, 0]
