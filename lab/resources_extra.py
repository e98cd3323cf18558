"""Cached data and models for the Gaussian NB, Spam filter and XOR pages (the pattern of ``lab.state``).

Shared by every session (``st.cache_resource``) and never mutated: the iris data, the
MNIST GaussianNB statistics with its accuracy over a var_smoothing grid, the SMS
messages and both spam experiments. Data errors end the page with a clear message.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import nbcore
from nbcore import spam
from nbcore.evaluate import MnistSplits
from nbcore.gaussian import IRIS_FEATURES, GaussianNB, load_iris

# var_smoothing grid for the MNIST curve: 1e-12 .. 1, one point per decade
VAR_SMOOTHING_GRID = tuple(10.0 ** exponent for exponent in range(-12, 1))


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


@st.cache_resource(show_spinner=False)
def iris() -> Iris:
    features, labels, class_names = load_iris()
    for array in (features, labels):
        array.setflags(write=False)
    return Iris(features, labels, class_names, IRIS_FEATURES)


@st.cache_resource(show_spinner="Fitting Gaussian naive Bayes on MNIST and scoring 13 var_smoothing values…")
def _gaussian_mnist(data_dir: str, _splits: MnistSplits) -> GaussianMnist:
    train = _splits.train_images.reshape(len(_splits.train_images), -1) / 255.0
    test = _splits.test_images.reshape(len(_splits.test_images), -1) / 255.0
    model = GaussianNB().fit(train, _splits.train_labels)
    accuracy = np.array([model.with_params(var_smoothing=value).score(test, _splits.test_labels)
                         for value in VAR_SMOOTHING_GRID])
    accuracy.setflags(write=False)
    return GaussianMnist(model, VAR_SMOOTHING_GRID, accuracy)


def gaussian_mnist(splits: MnistSplits) -> GaussianMnist:
    """The MNIST GaussianNB and its accuracy curve, computed once per server (splits from ``state.mnist()``)."""
    return _gaussian_mnist(str(nbcore.default_data_dir()), splits)


@st.cache_resource(show_spinner=False)
def _sms(data_dir: str) -> tuple[tuple[str, ...], np.ndarray]:
    bar = st.progress(0.0, text="Preparing the SMS Spam Collection…")  # created here so that the cache can replay it

    def show_progress(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=message)

    texts, labels = spam.load_sms(data_dir, progress=show_progress)
    bar.empty()
    labels.setflags(write=False)
    return tuple(texts), labels


def sms() -> tuple[tuple[str, ...], np.ndarray]:
    """All messages and labels (0 = ham, 1 = spam), loaded once per server; a clear stop on errors."""
    try:
        return _sms(str(nbcore.default_data_dir()))
    except spam.SpamDataError as error:
        st.error(f"The SMS Spam Collection is not available. {error}")
        st.stop()


@st.cache_resource(show_spinner="Splitting, counting words and tuning k on the held-out messages…")
def _spam_experiments(data_dir: str) -> dict[str, spam.SpamExperiment]:
    texts, labels = _sms(data_dir)
    return {event_model: spam.run_experiment(texts, labels, event_model) for event_model in spam.EVENT_MODELS}


def spam_experiments() -> dict[str, spam.SpamExperiment]:
    """Both event models, each tuned on held-out data and tested once (shared, do not mutate the models)."""
    sms()
    return _spam_experiments(str(nbcore.default_data_dir()))
