"""Naive Bayes and softmax regression for the sidebar's settings, measured by nbcore's evaluation.

Every figure comes from ``nbcore.experiments.evaluate`` on the features and images of the settings'
``InputForm`` (``lab.data.mnist``); nothing here measures anything itself. Naive Bayes is counted once
per input form and re-smoothed for each session's settings; softmax regression is trained once per
deskew setting (its weights cached on disk across restarts). The curves are read from what
``python -m nbcore prepare`` kept in the data folder (``nbcore.prepared``), else computed and kept there.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

import nbcore
from lab.caching import background, shared
from lab.data import data_dir, mnist
from lab.i18n import N_, _
from lab.model_settings import TEXTBOOK, THRESHOLDS, Settings
from nbcore.experiments import evaluate
from nbcore.experiments.evaluate import BernoulliScores, SoftmaxScores
from nbcore.inputs import InputForm
from nbcore.models.softmax_cache import load_or_train_softmax
from nbcore.prepared import results
from nbcore.prepared.disk import folder_of

CURVE_ALPHAS = evaluate.SMOOTHING_CURVE_ALPHAS  # alpha = beta of the smoothing curves: the sidebar's stops but 0


# -- naive Bayes -------------------------------------------------------------------------------------
@shared(N_("Counting pixels…"), max_entries=2 * len(THRESHOLDS))
def counted_model(form: InputForm) -> nbcore.BernoulliNB:
    """BernoulliNB fitted (counted) on the training features of ``form``; smoothing is applied per settings.

    ``fit_seconds_`` records how long the counting took.
    """
    train, labels = mnist.features(form).train, mnist.loaded().train_labels
    started = time.perf_counter()
    model = nbcore.BernoulliNB().fit(train, labels)
    model.fit_seconds_ = time.perf_counter() - started
    return model


def counted_fit_seconds(settings: Settings) -> float:
    """How long counting the training set took for these settings (the naive Bayes fit), in seconds."""
    return counted_model(settings.input_form).fit_seconds_


@shared(max_entries=256)
def evaluation(settings: Settings) -> BernoulliScores:
    """The naive Bayes model for these settings and what it does on MNIST in their input form."""
    form = settings.input_form
    model = counted_model(form).with_params(alpha=settings.alpha, beta=settings.beta, prior=settings.prior)
    features, labels = mnist.features(form), mnist.loaded()
    return evaluate.score_bernoulli(
        model, features.train_packed, labels.train_labels, features.test_packed, labels.test_labels
    )


def model(settings: Settings) -> nbcore.BernoulliNB:
    """The BernoulliNB for these settings."""
    return evaluation(settings).model


def smoothing_curve(settings: Settings) -> dict[str, np.ndarray]:
    """``evaluate.smoothing_curve`` over CURVE_ALPHAS for these settings' input form and prior (α, β ignored)."""
    return _smoothing_curve(settings.input_form, settings.prior)


@shared(N_("Scoring MNIST for every α…"), max_entries=16)
def _smoothing_curve(form: InputForm, prior: str) -> dict[str, np.ndarray]:
    features = mnist.features(form)
    curve = results.SmoothingCurve(
        mnist.loaded(form.deskew),
        form.threshold,
        prior,
        CURVE_ALPHAS,
        counted=counted_model(form),
        features=(features.train_packed, features.test_packed),
    )
    return curve.get(folder_of(data_dir())).value


def zero_smoothing(settings: Settings) -> dict[str, float]:
    """``evaluate.impossible_true_class`` at α = β = 0 for these settings' input form and prior."""
    return _zero_smoothing(settings.input_form, settings.prior)


@shared(max_entries=16)
def _zero_smoothing(form: InputForm, prior: str) -> dict[str, float]:
    unsmoothed = counted_model(form).with_params(alpha=0.0, beta=0.0, prior=prior)
    return evaluate.impossible_true_class(unsmoothed, mnist.features(form).test_packed, mnist.loaded().test_labels)


@shared(N_("Learning curve for naive Bayes…"), max_entries=32)
def bernoulli_learning_curve(settings: Settings) -> dict[str, np.ndarray]:
    """Naive Bayes (these settings) test accuracy over training-set sizes and seeds: kept in the data folder,
    else computed (about a second) and kept there."""
    curve = results.NaiveBayesLearningCurve(
        mnist.loaded(settings.deskew), settings.threshold, settings.alpha, settings.beta, settings.prior
    )
    return curve.get(folder_of(data_dir())).value


# -- softmax regression, for comparison ----------------------------------------------------------------
@dataclass(frozen=True)
class TrainedSoftmax:
    """The softmax regression's scores and how it was made (``info`` from ``load_or_train_softmax``)."""

    scores: SoftmaxScores
    info: dict


def _softmax_label(preset: str, deskew: bool) -> str:
    return _("Softmax regression on deskewed MNIST") if deskew else _("Softmax regression")


@background(_softmax_label, "nbcore-softmax", max_entries=4, in_sidebar=True)
def _softmax(preset: str, deskew: bool = False, progress=None) -> TrainedSoftmax:
    """Softmax regression loaded from its disk cache, or trained, on MNIST as the models of ``deskew`` see it
    (deskewed training images have another checksum, so their weights have their own cache file)."""
    formed = mnist.loaded(deskew)
    model, info = load_or_train_softmax(formed.train_images, formed.train_labels, preset=preset, progress=progress)
    return TrainedSoftmax(evaluate.score_softmax(model, formed), info)


def softmax(preset: str = "default", deskew: bool = False) -> SoftmaxScores:
    """Softmax regression trained once per server and deskew setting (weights cached on disk across restarts),
    and its scores on MNIST in the same form."""
    if deskew:
        mnist.splits(deskew)
    return _softmax(preset, deskew).scores


def softmax_training(preset: str = "default", deskew: bool = False) -> dict:
    """How ``softmax(preset, deskew)`` was made: ``load_or_train_softmax``'s info (cache, fit_seconds, path)."""
    if deskew:
        mnist.splits(deskew)
    return _softmax(preset, deskew).info


def _learning_curve_label(deskew: bool) -> str:
    return _("Learning curve on deskewed MNIST") if deskew else _("Learning curve")


@background(_learning_curve_label, "nbcore-curve", max_entries=2)
def softmax_learning_curve(deskew: bool, progress) -> dict[str, np.ndarray]:
    """Softmax test accuracy over training-set sizes and seeds, once per server and deskew setting: kept in the
    data folder, else computed (about 10 s) and kept there."""
    return results.SoftmaxLearningCurve(mnist.loaded(deskew)).get(folder_of(data_dir()), progress).value


def read_prepared() -> bool:
    """On a data folder ``python -m nbcore prepare`` has prepared: read deskewed MNIST and both softmax regressions,
    count the default naive Bayes, Deskew off and on, and read its smoothing curve, so that the first visit of a page and the Deskew switch
    find them in memory (``lab/startup.py`` calls this as the server starts).

    Each is a fraction of a second, once per server. On a folder ``prepare`` has not prepared nothing is done: that
    would be seconds of training no visitor has asked for yet. Whether the folder was prepared.
    """
    if not results.DeskewedMnist(mnist.loaded()).is_prepared(folder_of(data_dir())):
        return False
    for deskew in (False, True):
        _softmax.result("default", deskew)  # waits for MNIST as these models see it, read from disk
        evaluation(dataclasses.replace(TEXTBOOK, deskew=deskew))
    smoothing_curve(TEXTBOOK)  # Smoothing's figures at the default settings
    zero_smoothing(TEXTBOOK)
    return True
