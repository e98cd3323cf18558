"""What the guided lesson computes: what its steps show, the true answers to its questions, and how close a guess came.

Every function takes fitted models, arrays or predictions and returns measured figures; the lesson page
(``pages/lesson.py``) asks the student first and measures a question's answer only after the student has committed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..models.bernoulli import BernoulliNB
from ..models.mixture import BernoulliMixtureNB
from .class_model import ClassEvaluation

_STEP = re.compile(r"[0-9]{1,3}", flags=re.ASCII)  # ASCII digits only: int() would also read '３' or '٣'


def parse_step(values: list[str], n_steps: int) -> int | None:
    """The 1-based lesson step a link asks for, or None when the link gives none.

    ``values`` are every value of the ``lesson`` query parameter. Raises ValueError (with a message that
    never repeats the value) unless there is exactly one value, written as 1 to 3 ASCII digits, in
    1..n_steps.
    """
    if not values:
        return None
    if len(values) != 1 or not isinstance(values[0], str) or not _STEP.fullmatch(values[0]):
        raise ValueError("the lesson step must be one whole number")
    step = int(values[0])
    if not 1 <= step <= n_steps:
        raise ValueError(f"the lesson step must lie between 1 and {n_steps}")
    return step


# -- grading ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """How a guess compares with the measured truth: ``grade`` is "exact", "close" or "off"."""

    grade: str
    error: float  # guess - truth, in the unit of the question (0 for a multiple-choice answer)
    truth: float | str = 0.0  # the measured truth: a number, or the correct option as text


def grade_guess(guess: float, truth: float, close: float) -> Verdict:
    """A numeric guess is "exact" within close / 5 of the truth, "close" within ``close``, else "off"."""
    error = float(guess) - float(truth)
    grade = "exact" if abs(error) <= close / 5 else "close" if abs(error) <= close else "off"
    return Verdict(grade, error, float(truth))


def grade_choice(chosen: str, correct: str) -> Verdict:
    """A multiple-choice answer is "exact" when it is the correct option, else "off"."""
    return Verdict("exact" if chosen == correct else "off", 0.0, correct)


def best(accuracy: dict[str, float]) -> str:
    """The name with the highest accuracy in ``accuracy`` (the first of a tie)."""
    return max(accuracy, key=lambda name: accuracy[name])


# -- step 1: the data -----------------------------------------------------------------------------------------
def first_of_each_digit(labels: np.ndarray, n_classes: int = 10) -> np.ndarray:
    """The index of the first image of each digit 0..n_classes-1 among ``labels`` (n,): int64 (n_classes,)."""
    return np.array([int(np.flatnonzero(labels == digit)[0]) for digit in range(n_classes)])


# -- step 2: the class prior ------------------------------------------------------------------------------
@dataclass(frozen=True)
class PriorGap:
    """The model's class prior p(y) against how often each digit occurs among the test images."""

    prior: np.ndarray  # (n_classes,)
    test_frequency: np.ndarray  # (n_classes,)
    most_wrong: int  # the digit where |prior - test frequency| is largest

    @property
    def gap(self) -> np.ndarray:
        """prior - test frequency, (n_classes,)."""
        return self.prior - self.test_frequency


def class_prior(model: BernoulliNB) -> np.ndarray:
    """``model``'s class prior p(y): float64 (n_classes,)."""
    return np.exp(model.class_log_prior_)


def prior_gap(model: BernoulliNB, test_labels: np.ndarray) -> PriorGap:
    """Compare ``model``'s prior with the test labels' class frequencies."""
    prior = class_prior(model)
    frequency = np.bincount(test_labels, minlength=len(prior)) / len(test_labels)
    return PriorGap(prior, frequency, int(np.argmax(np.abs(prior - frequency))))


# -- step 4: underflow ---------------------------------------------------------------------------------------
FLOAT32_SMALLEST = float(np.finfo(np.float32).smallest_subnormal)  # about 1.4e-45
FLOAT64_SMALLEST = float(np.finfo(np.float64).smallest_subnormal)  # about 4.9e-324


LOG10_FLOAT32_SMALLEST = math.log10(FLOAT32_SMALLEST)  # about -44.85
LOG10_FLOAT64_SMALLEST = math.log10(FLOAT64_SMALLEST)  # about -323.3


def running_log10_product(model: BernoulliNB, features: np.ndarray, label: int) -> np.ndarray:
    """log10 of p(x_1 | y) p(x_2 | y) ... p(x_j | y) for j = 1..784, for one 0/1 image (784,): (784,)."""
    return np.cumsum(model.pixel_log_likelihoods(features)[label]) / math.log(10)


def float32_product(model: BernoulliNB, features: np.ndarray, label: int) -> float:
    """The product of the 784 probabilities p(x_j | label) multiplied in float32, as the textbook's tensors do."""
    probabilities = np.exp(model.pixel_log_likelihoods(features)[label]).astype(np.float32)
    return float(np.prod(probabilities, dtype=np.float32))


@dataclass(frozen=True)
class ImageProduct:
    """One image's 784 factors p(x_j | label) and what multiplying them comes to."""

    factors: np.ndarray  # float64 (784,), each in [0, 1]
    running_log10: np.ndarray  # float64 (784,): log10 of the product of the first j factors (-inf once one is 0)
    float32: float  # the product multiplied in float32

    @property
    def outcome(self) -> str:
        """What the float32 product came to: one of ``product_outcome``'s "zero", "tiny", "moderate"."""
        return product_outcome(self.float32)

    @property
    def true_log10(self) -> float:
        """log10 of the true product (-inf when a factor is 0)."""
        return float(self.running_log10[-1])

    @property
    def true_is_zero(self) -> bool:
        """Whether the true product is exactly 0 (a factor is 0: α or β = 0)."""
        return self.true_log10 == -math.inf

    @property
    def stuck(self) -> bool:
        """Whether the float32 product stays above 0 although the true one is below float32's smallest number."""
        return self.float32 > 0 and self.true_log10 < LOG10_FLOAT32_SMALLEST


def image_product(model: BernoulliNB, features: np.ndarray, label: int) -> ImageProduct:
    """The product of p(x_j | label) over one 0/1 image (784,), in float32 and step by step in logarithms."""
    return ImageProduct(
        np.exp(model.pixel_log_likelihoods(features)[label]),
        running_log10_product(model, features, label),
        float32_product(model, features, label),
    )


def underflow_counts(model: BernoulliNB, features: np.ndarray, labels: np.ndarray, chunk: int = 1000) -> dict[str, int]:
    """How many images' products of p(x_j | true digit) go wrong in float32 and in float64.

    features: 0/1 (n, 784); labels (n,). Counts: "float32_zero" and "float64_zero", products that become
    exactly 0.0; "float32_stuck", float32 products that stay above 0 although the true product is below
    float32's smallest positive number (subnormal rounding: x * 0.99 rounds back to x near the bottom of the
    range); "log_finite", images whose sum of logarithms is finite (every image, unless a zero probability
    makes it -inf). Works ``chunk`` images at a time to bound memory.
    """
    counts = {"images": len(labels), "float32_zero": 0, "float32_stuck": 0, "float64_zero": 0, "log_finite": 0}
    float32_floor = math.log(FLOAT32_SMALLEST)
    for start in range(0, len(labels), chunk):
        x, y = features[start : start + chunk], labels[start : start + chunk]
        terms = np.where(x == 1, model.feature_log_prob_[y], model.feature_log_neg_prob_[y])  # (chunk, 784)
        probabilities = np.exp(terms)
        float32 = np.prod(probabilities.astype(np.float32), axis=1, dtype=np.float32)
        log_sum = terms.sum(axis=1)
        counts["float32_zero"] += int((float32 == 0).sum())
        counts["float32_stuck"] += int(((float32 > 0) & (log_sum < float32_floor)).sum())
        counts["float64_zero"] += int((np.prod(probabilities, axis=1) == 0).sum())
        counts["log_finite"] += int(np.isfinite(log_sum).sum())
    return counts


# -- step 6: where the two models disagree -------------------------------------------------------------------
def wrong_images(predictions: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Indices of the images whose prediction is not their label: int64 (m,)."""
    return np.flatnonzero(predictions != labels)


def bayes_wrong_softmax_right(
    bayes_predictions: np.ndarray, softmax_predictions: np.ndarray, labels: np.ndarray
) -> np.ndarray:
    """Indices of the images naive Bayes gets wrong and softmax regression gets right: int64 (m,)."""
    return np.flatnonzero((bayes_predictions != labels) & (softmax_predictions == labels))


# -- step 7: generating and inpainting -------------------------------------------------------------------------
def written_digits(model: BernoulliNB, digit: int, count: int) -> np.ndarray:
    """``count`` images of ``digit`` drawn from the model, as grey levels 0 or 255: float64 (count, 28, 28). Seeded
    by the digit, so the same digit shows the same images every time."""
    return model.sample(count, digit, rng=np.random.default_rng([0, digit])).reshape(count, 28, 28) * 255.0


@dataclass(frozen=True)
class Inpainted:
    """One image with its hidden pixels filled in by the model."""

    panels: np.ndarray  # float64 (3, 28, 28): the seen pixels (NaN where hidden), the filled-in p(ink), the truth
    read_as: int  # the digit the model reads from the seen pixels alone


def inpainted(model: BernoulliNB, features: np.ndarray, observed: np.ndarray) -> Inpainted:
    """Fill in one 0/1 image (784,) from its ``observed`` pixels (bool (784,)), as three panels to show."""
    filled, posterior = model.inpaint(features, observed)
    panels = np.stack(
        [
            np.where(observed, features, np.nan).reshape(28, 28),
            np.where(observed, np.nan, filled).reshape(28, 28),
            features.reshape(28, 28).astype(float),
        ]
    )
    return Inpainted(panels, int(np.argmax(posterior)))


def observed_part_accuracy(
    model: BernoulliNB,
    train_features: np.ndarray,
    train_labels: np.ndarray,
    test_features: np.ndarray,
    test_labels: np.ndarray,
    observed: np.ndarray,
) -> float:
    """Test accuracy of naive Bayes that sees only the ``observed`` pixels (bool (784,)).

    Counting only the observed pixels of the training images gives the same probabilities as ``model`` for
    those pixels; classifying from them is the first step of inpainting, p(y | observed).
    """
    part = BernoulliNB(**model.get_params()).fit(train_features[:, observed], train_labels)
    return part.score(test_features[:, observed], test_labels)


# -- step 8: calibration ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Confident:
    """Test images on which the top posterior is at least ``level``, and how often it is right on them."""

    level: float
    count: int
    accuracy: float  # NaN when count is 0
    mean_confidence: float  # NaN when count is 0


def accuracy_when_confident(probabilities: np.ndarray, labels: np.ndarray, level: float) -> Confident:
    """probabilities (n, k) rows summing to 1, labels (n,): the images with max probability >= level."""
    top = probabilities.max(axis=1)
    sure = top >= level
    count = int(sure.sum())
    if count == 0:
        return Confident(level, 0, float("nan"), float("nan"))
    right = probabilities[sure].argmax(axis=1) == labels[sure]
    return Confident(level, count, float(right.mean()), float(top[sure].mean()))


# -- step 9: learning curves -----------------------------------------------------------------------------------------
def mean_accuracy_at(sizes: np.ndarray, accuracy_by_model: dict[str, np.ndarray], size: int) -> dict[str, float]:
    """Each model's mean test accuracy over seeds at training-set ``size`` (one of ``sizes``).

    accuracy_by_model[name] is (len(sizes), n_seeds), as ``nbcore.experiments.evaluate.learning_curve`` returns.
    """
    position = list(np.asarray(sizes)).index(size)
    return {name: float(np.mean(accuracy[position])) for name, accuracy in accuracy_by_model.items()}


@dataclass(frozen=True)
class Race:
    """Two or more models' learning curves compared at a small training-set size and at the full one."""

    size: int  # the small training-set size asked about
    at_size: dict[str, float]  # each model's mean test accuracy over seeds at ``size``
    winner: str  # the model best at ``size``
    full_size: int  # the largest size of the curves
    at_full: dict[str, float]  # each model's mean test accuracy at ``full_size``
    seeds: int  # random training sets per size


def race(sizes: np.ndarray, accuracy_by_model: dict[str, np.ndarray], size: int) -> Race:
    """Compare the models of ``accuracy_by_model`` ((len(sizes), n_seeds) each) at ``size`` and at the largest
    size."""
    at_size = mean_accuracy_at(sizes, accuracy_by_model, size)
    full_size = int(sizes[-1])
    seeds = next(iter(accuracy_by_model.values())).shape[1]
    return Race(size, at_size, best(at_size), full_size, mean_accuracy_at(sizes, accuracy_by_model, full_size), seeds)


def grade_count(guess: int, truth: int) -> Verdict:
    """A guessed count (0..) is "exact" within a factor of about 1.6 of the truth, "close" within about 3
    (compared as log10(1 + count)), else "off"; ``error`` is guess - truth in images."""
    verdict = grade_guess(math.log10(1 + guess), math.log10(1 + truth), close=0.5)
    return Verdict(verdict.grade, float(guess - truth), float(truth))


def product_outcome(value: float) -> str:
    """What a product of probabilities came to: "zero" (it underflowed), "tiny" (below 1e-30) or "moderate"."""
    return "zero" if value == 0 else "tiny" if value < 1e-30 else "moderate"


# -- step 8: neighbouring pixels are not independent -----------------------------------------------------------
def neighbour_dependence(features: np.ndarray, labels: np.ndarray, digit: int) -> np.ndarray:
    """How much a pixel's ink raises the chance that its right-hand neighbour is ink, within one digit.

    For the training images of ``digit`` (features 0/1 (n, 784)), per pixel i with right neighbour j:
    p(x_j = 1 | x_i = 1, y) - p(x_j = 1 | y). Naive Bayes assumes this is 0 everywhere. float64 (28, 28);
    NaN in the last column (no right neighbour) and where pixel i is never ink.
    """
    images = features[labels == digit].reshape(-1, 28, 28).astype(np.float64)
    left, right = images[:, :, :-1], images[:, :, 1:]
    left_on = left.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        both_given_left = (left * right).sum(axis=0) / left_on
    dependence = np.full((28, 28), np.nan)
    dependence[:, :-1] = np.where(left_on > 0, both_given_left - right.mean(axis=0), np.nan)
    return dependence


# -- step 10: styles per digit ------------------------------------------------------------------------------------
ACCURACY_BANDS = ("lower", "between", "upper")


def accuracy_band(accuracy: float, lower: float, upper: float) -> str:
    """Where a measured ``accuracy`` lies against two others, ``lower`` <= ``upper``: "lower" (at most ``lower``),
    "upper" (at least ``upper``, when not at most ``lower``) or "between"; one of ``ACCURACY_BANDS``."""
    return "lower" if accuracy <= lower else "upper" if accuracy >= upper else "between"


def digit_styles(mixture: BernoulliMixtureNB, digit: int) -> tuple[np.ndarray, np.ndarray]:
    """The styles the mixture learned for ``digit``: P(x_j = 1 | digit, k) float64 (K, 784) and their weights
    p(k | digit) (K,)."""
    index = int(np.flatnonzero(mixture.classes_ == digit)[0])
    return mixture.feature_prob_[index], mixture.component_weights_[index]


# -- step 11: the class's own handwriting -------------------------------------------------------------------------
def class_model_accuracies(evaluation: ClassEvaluation) -> dict[str, float] | None:
    """Each model's leave-one-student-out accuracy on a class's drawings, by nbcore's model name; None while any
    is unmeasured (too few drawings, or one student)."""
    scores = {name: score.accuracy for name, score in evaluation.models.items()}
    if any(accuracy is None for accuracy in scores.values()):
        return None
    return {name: float(accuracy) for name, accuracy in scores.items() if accuracy is not None}
