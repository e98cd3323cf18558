"""What the Gaussian NB page draws: the posterior of a two-feature model over a grid, and GaussianNB on MNIST."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..datasets.mnist import MnistSplits
from ..models.gaussian import GaussianNB

# var_smoothing grid of the MNIST curve: 1e-12 .. 1, one point per decade
VAR_SMOOTHING_GRID = tuple(10.0**exponent for exponent in range(-12, 1))


def probability_grid(
    model: GaussianNB, x_range: tuple[float, float], y_range: tuple[float, float], resolution: int = 200
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Posterior over a regular grid for a model fitted on two features.

    Returns ``(xs, ys, proba)``: float64 (resolution,) each and (resolution, resolution,
    n_classes) with ``proba[i, j] = p(y | x = (xs[j], ys[i]))``.
    """
    if model.n_features_in_ != 2:
        raise ValueError(f"the model must be fitted on exactly 2 features, not {model.n_features_in_}")
    xs = np.linspace(*x_range, resolution)
    ys = np.linspace(*y_range, resolution)
    grid_x, grid_y = np.meshgrid(xs, ys)
    proba = model.predict_proba(np.column_stack([grid_x.ravel(), grid_y.ravel()]))
    return xs, ys, proba.reshape(resolution, resolution, -1)


def var_smoothing_curve(formed: MnistSplits, grid: Sequence[float]) -> tuple[GaussianNB, np.ndarray]:
    """GaussianNB on pixel / 255 of ``formed`` (the splits as the models see them, ``InputForm.splits``), fitted
    once at its default var_smoothing; returns it and the test accuracy at each value of ``grid``, (len(grid),)."""
    train = formed.train_images.reshape(len(formed.train_images), -1) / 255.0
    test = formed.test_images.reshape(len(formed.test_images), -1) / 255.0
    model = GaussianNB().fit(train, formed.train_labels)
    accuracy = np.array([model.with_params(var_smoothing=value).score(test, formed.test_labels) for value in grid])
    return model, accuracy
