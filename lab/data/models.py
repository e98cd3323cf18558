"""Naive Bayes and softmax regression for the sidebar's settings, measured by nbcore's evaluation.

Every figure comes from ``nbcore.experiments.evaluate`` on the features and images of the settings'
``InputForm`` (``lab.data.mnist``); nothing here measures anything itself. Naive Bayes is counted once
per input form and re-smoothed for each session's settings; softmax regression is trained once per
deskew setting (its weights cached on disk across restarts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import nbcore
from lab.caching import background, shared
from lab.data import mnist
from lab.settings import SMOOTHING_STOPS, THRESHOLDS, Settings, current_settings
from nbcore.experiments import evaluate
from nbcore.experiments.evaluate import BernoulliScores, SoftmaxScores
from nbcore.inputs import InputForm

# alpha = beta for the smoothing curves: the sidebar's stops, so that every slider position is a point on the
# curve; 0 left out (a log axis, and a log-likelihood of -inf)
CURVE_ALPHAS = tuple(alpha for alpha in SMOOTHING_STOPS if alpha > 0)


# -- naive Bayes -------------------------------------------------------------------------------------
@shared("Counting pixels…", max_entries=2 * len(THRESHOLDS))
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


def model(settings: Settings | None = None) -> nbcore.BernoulliNB:
    """The BernoulliNB for these settings (default: the session's)."""
    return evaluation(settings or current_settings()).model


def smoothing_curve(settings: Settings) -> dict[str, np.ndarray]:
    """``evaluate.smoothing_curve`` over CURVE_ALPHAS for these settings' input form and prior (α, β ignored)."""
    return _smoothing_curve(settings.input_form, settings.prior)


@shared("Scoring MNIST for every α…", max_entries=16)
def _smoothing_curve(form: InputForm, prior: str) -> dict[str, np.ndarray]:
    features, labels = mnist.features(form), mnist.loaded()
    counted = counted_model(form).with_params(prior=prior)
    return evaluate.smoothing_curve(
        counted, features.train_packed, labels.train_labels, features.test_packed, labels.test_labels, CURVE_ALPHAS
    )


def zero_smoothing(settings: Settings) -> dict[str, float]:
    """``evaluate.impossible_true_class`` at α = β = 0 for these settings' input form and prior."""
    return _zero_smoothing(settings.input_form, settings.prior)


@shared(max_entries=16)
def _zero_smoothing(form: InputForm, prior: str) -> dict[str, float]:
    unsmoothed = counted_model(form).with_params(alpha=0.0, beta=0.0, prior=prior)
    return evaluate.impossible_true_class(unsmoothed, mnist.features(form).test_packed, mnist.loaded().test_labels)


@shared("Learning curve for naive Bayes…", max_entries=32)
def bernoulli_learning_curve(settings: Settings) -> dict[str, np.ndarray]:
    """Naive Bayes (these settings) test accuracy over training-set sizes and seeds (about a second)."""
    learner = evaluate.bernoulli_learner(
        settings.input_form, alpha=settings.alpha, beta=settings.beta, prior=settings.prior
    )
    return _learning_curve({"naive Bayes": learner}, settings.deskew)


# -- softmax regression, for comparison ----------------------------------------------------------------
@dataclass(frozen=True)
class TrainedSoftmax:
    """The softmax regression's scores and how it was made (``info`` from ``load_or_train_softmax``)."""

    scores: SoftmaxScores
    info: dict


def _softmax_label(preset: str, deskew: bool) -> str:
    return "Softmax regression" + (" on deskewed MNIST" if deskew else "")


@background(_softmax_label, "nbcore-softmax", max_entries=4)
def _softmax(preset: str, deskew: bool = False, progress=None) -> TrainedSoftmax:
    """Softmax regression loaded from its disk cache, or trained, on MNIST as the models of ``deskew`` see it
    (deskewed training images have another checksum, so their weights have their own cache file)."""
    formed = mnist.loaded(deskew)
    model, info = nbcore.load_or_train_softmax(
        formed.train_images, formed.train_labels, preset=preset, progress=progress
    )
    return TrainedSoftmax(evaluate.score_softmax(model, formed), info)


def softmax(preset: str = "default", deskew: bool = False) -> SoftmaxScores:
    """Softmax regression trained once per server and deskew setting (weights cached on disk across restarts),
    and its scores on MNIST in the same form."""
    if deskew:
        mnist.model_splits(deskew)
    return _softmax(preset, deskew).scores


def softmax_training(preset: str = "default", deskew: bool = False) -> dict:
    """How ``softmax(preset, deskew)`` was made: ``load_or_train_softmax``'s info (cache, fit_seconds, path)."""
    if deskew:
        mnist.model_splits(deskew)
    return _softmax(preset, deskew).info


def _learning_curve_label(deskew: bool) -> str:
    return "Learning curve" + (" on deskewed MNIST" if deskew else "")


@background(_learning_curve_label, "nbcore-curve", max_entries=2)
def softmax_learning_curve(deskew: bool, progress) -> dict[str, np.ndarray]:
    """Softmax test accuracy over training-set sizes and seeds (about 10 s, once per server and deskew setting)."""
    return _learning_curve({"softmax regression": evaluate.softmax_learner(InputForm(deskew=deskew))}, deskew, progress)


def _learning_curve(learners: dict[str, evaluate.Learner], deskew: bool, progress=None) -> dict[str, np.ndarray]:
    """``evaluate.learning_curve`` on MNIST as the models of ``deskew`` see it."""
    return evaluate.learning_curve(
        learners,
        mnist.loaded(deskew),
        evaluate.LEARNING_CURVE_SIZES,
        evaluate.LEARNING_CURVE_SEEDS,
        progress=progress,
    )
