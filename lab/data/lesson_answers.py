"""The guided lesson's answers (pages/lesson.py), measured once per setting on the features the models see: numbers
only, for every session whatever its language (the page puts them into words)."""

from __future__ import annotations

import dataclasses

import numpy as np

from lab.caching import shared
from lab.data import mnist, models
from lab.i18n import N_
from lab.model_settings import SMOOTHING_STOPS, Settings
from nbcore.experiments import lesson
from nbcore.features import observed_region
from nbcore.inputs import InputForm


@shared(max_entries=32)
def first_of_each_digit(form: InputForm) -> tuple[np.ndarray, np.ndarray]:
    """The first training image of each digit 0..9: as published, grey levels uint8 (10, 28, 28), and as the model
    sees it in ``form``, 0 or 255 float64 (10, 28, 28)."""
    first = lesson.first_of_each_digit(mnist.loaded().train_labels)
    seen = mnist.features(form).train[first].reshape(-1, 28, 28) * 255
    return mnist.loaded().train_images[first], seen


@shared(N_("Multiplying 784 probabilities for every test image…"), max_entries=32)
def underflow(settings: Settings) -> dict[str, int]:
    """For the test images: how many products of p(xᵢ | true digit) become 0.0 in float32 and float64."""
    return lesson.underflow_counts(
        models.evaluation(settings).model, mnist.features(settings.input_form).test, mnist.loaded().test_labels
    )


@shared(N_("Classifying every test image from its top half…"), max_entries=32)
def top_half_accuracy(settings: Settings) -> float:
    """Test accuracy of naive Bayes (these settings) that sees only the top 14 rows of each image."""
    features, labels = mnist.features(settings.input_form), mnist.loaded()
    return lesson.observed_part_accuracy(
        models.evaluation(settings).model,
        features.train,
        labels.train_labels,
        features.test,
        labels.test_labels,
        observed_region("top half"),
    )


def strongest_smoothing_accuracy(settings: Settings) -> float:
    """Test accuracy of naive Bayes at these settings but the sidebar's strongest smoothing (α = β, its last stop)."""
    strongest = SMOOTHING_STOPS[-1]
    return models.evaluation(dataclasses.replace(settings, alpha=strongest, beta=strongest)).test_accuracy


def rescued_by_softmax(settings: Settings) -> int:
    """How many test images naive Bayes (these settings) gets wrong and softmax regression gets right."""
    labels = mnist.loaded().test_labels
    softmax = models.softmax(deskew=settings.deskew)
    return len(
        lesson.bayes_wrong_softmax_right(models.evaluation(settings).test_predictions, softmax.test_predictions, labels)
    )


def confident(settings: Settings, level: float) -> lesson.Confident:
    """The test images naive Bayes (these settings) gives a top posterior of at least ``level``, and how often it
    is right on them."""
    probabilities = np.exp(models.evaluation(settings).test_log_proba)
    return lesson.accuracy_when_confident(probabilities, mnist.loaded().test_labels, level)


@shared(max_entries=80)
def neighbour_dependence(form: InputForm, digit: int) -> np.ndarray:
    """(28, 28): how much a pixel's ink raises its right neighbour's chance of ink, in the training features of
    ``digit`` in ``form``; 0 where it is not measured (the last column, pixels never inked), so the map shows no
    change there."""
    return np.nan_to_num(lesson.neighbour_dependence(mnist.features(form).train, mnist.loaded().train_labels, digit))
