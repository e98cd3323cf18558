"""The guided lesson's answers (pages/lesson.py), measured once per setting on the features the models see: numbers
only, for every session whatever its language (the page puts them into words)."""

from __future__ import annotations

import numpy as np

from lab.caching import shared
from lab.data import mnist, models
from lab.i18n import N_
from lab.settings import Settings
from nbcore.experiments import lesson
from nbcore.features import observed_region
from nbcore.inputs import InputForm


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


@shared(max_entries=80)
def neighbour_dependence(form: InputForm, digit: int) -> np.ndarray:
    """(28, 28): how much a pixel's ink raises its right neighbour's chance of ink, in the training features of
    ``digit`` in ``form``."""
    return lesson.neighbour_dependence(mnist.features(form).train, mnist.loaded().train_labels, digit)
