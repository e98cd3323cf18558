"""What the Gaussian NB page draws: the posterior of a two-feature model over a grid."""

from __future__ import annotations

import numpy as np

from ..models.naive_bayes import GaussianNB


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
