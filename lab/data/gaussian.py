"""The Gaussian NB page's data: Fisher's iris, and Gaussian naive Bayes on MNIST's pixels as the models see them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lab.caching import shared
from lab.data import data_dir, mnist
from lab.i18n import N_
from nbcore.datasets.iris import IRIS_FEATURES, load_iris
from nbcore.experiments.gaussian import VAR_SMOOTHING_GRID
from nbcore.models.gaussian import GaussianNB
from nbcore.prepared.disk import folder_of
from nbcore.prepared.results import VarSmoothingCurve


@dataclass(frozen=True)
class Iris:
    """Fisher's iris: features float64 (150, 4) in cm, labels int64 (150,) 0..2, species and feature names."""

    features: np.ndarray
    labels: np.ndarray
    class_names: tuple[str, ...]
    feature_names: tuple[str, ...]


@dataclass(frozen=True)
class GaussianMnist:
    """GaussianNB on MNIST pixels / 255: the fitted statistics and test accuracy for every grid value."""

    model: GaussianNB  # fitted on the 60,000 training images at the default var_smoothing
    var_smoothing: tuple[float, ...]
    test_accuracy: np.ndarray  # (len(var_smoothing),)


@shared()
def iris() -> Iris:
    features, labels, class_names = load_iris()
    return Iris(features, labels, class_names, IRIS_FEATURES)


@shared(N_("Fitting Gaussian naive Bayes on MNIST and scoring 13 var_smoothing values…"), max_entries=2)
def _gaussian_mnist(folder: str, deskew: bool) -> GaussianMnist:
    stored = VarSmoothingCurve(mnist.loaded(deskew), VAR_SMOOTHING_GRID).get(folder_of(folder))
    model, accuracy = stored.value
    return GaussianMnist(model, VAR_SMOOTHING_GRID, accuracy)


def read_prepared() -> None:
    """Read iris and the MNIST GaussianNB ``prepare`` kept (Deskew off), as the server starts: about 0.3 s each."""
    iris()
    _gaussian_mnist(data_dir(), False)


def gaussian_mnist(deskew: bool) -> GaussianMnist:
    """The MNIST GaussianNB (pixels as the models of ``deskew`` see them) and its accuracy curve, once per server:
    kept in the data folder by ``python -m nbcore prepare``, else computed and kept there."""
    mnist.splits(deskew)
    return _gaussian_mnist(data_dir(), deskew)
