"""The class's model: naive Bayes trained on a class's own drawings, measured leave-one-student-out.

Three Bernoulli naive Bayes models read the same drawings (uint8 (n, 28, 28) frames framed like MNIST,
the digit each student meant, an anonymous id per student):

* ``mnist``: MNIST's model, trained on MNIST's 60,000 training digits only;
* ``class``: the class's model, trained with ``partial_fit`` on the class's drawings;
* ``mnist_plus_class``: MNIST's counts plus the class's counts times ``weight``;
* ``class_mixture`` (``MIXTURE``, only when asked for with ``components`` K > 1): the class's own drawings
  again, as a ``BernoulliMixtureNB`` of K styles per digit fitted by EM (at K = 1 it is the class's model).

Each drawing is read by a model that never saw its student (leave one student out). Counts are the
fitted state, so the model without student s is the whole class's counts minus s's: one count per
student, not one refit per student (``tests/nbcore/test_class_model.py`` holds it equal to refitting).
EM's soft counts cannot be subtracted, so the mixture is fitted once per student left out.
A digit with fewer than ``MIN_DRAWINGS`` drawings gets a ``Shortage`` instead of an accuracy from the class's
models; MNIST's model reads every drawing until those can be measured.

The drawings are checked and loaded by ``class_drawings``; the counts and the models made from them are
``class_counts``'s, the mixture's readings ``class_mixture``'s, the accuracy curve ``class_curve``'s;
``class_report`` puts an evaluation in words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..features import binarize
from ..models.bernoulli import BernoulliNB
from .class_counts import StudentCounts, as_zero_one, combined_counts, count_students, model_from_counts
from .class_curve import Curve, accuracy_curve
from .class_drawings import check_drawings, join_words
from .class_mixture import check_components, components_note, mixture_leave_one_student_out

MIN_DRAWINGS = 5  # drawings of a digit below which its accuracy is not given
DEFAULT_WEIGHT = 100.0  # how many MNIST digits one class drawing counts as in ``mnist_plus_class``
DEFAULT_THRESHOLD = 128
MODEL_NAMES = {"mnist": "MNIST's model", "class": "the class's model", "mnist_plus_class": "MNIST + the class"}
MIXTURE = "class_mixture"  # the class's mixture of styles: a model of its own when components > 1


def model_names(components: int = 1) -> dict[str, str]:
    """Each model's name in words, in the order an evaluation holds them: MODEL_NAMES, with the class's mixture
    of ``components`` styles per digit after the class's model when ``components`` > 1."""
    if components <= 1:
        return dict(MODEL_NAMES)
    names = {name: MODEL_NAMES[name] for name in ("mnist", "class")}
    names[MIXTURE] = f"the class's mixture ({components} styles per digit)"
    return names | {"mnist_plus_class": MODEL_NAMES["mnist_plus_class"]}


def check_weight(weight: float) -> float:
    """``weight`` as a float if it is a finite number >= 0, else ValueError."""
    weight = float(weight)
    if not (np.isfinite(weight) and weight >= 0):
        raise ValueError(f"weight must be a finite number >= 0, got {weight!r}")
    return weight


# -- leave one student out ---------------------------------------------------------------------
def leave_one_student_out(
    features: np.ndarray, students: np.ndarray, counts: StudentCounts, mnist_model: BernoulliNB, weight: float
) -> dict[str, np.ndarray]:
    """Each drawing's digit as read by each model that never saw its student: {name: int64 (n,)}.

    ``features`` 0/1 (n, n_features) binarized like ``mnist_model``'s training images, ``counts`` their
    ``count_students``. MNIST's model never sees a student, so it reads every drawing as it is. With one
    student the class's models have nothing to learn from: their readings are -1.
    """
    readings = {name: np.full(len(students), -1, np.int64) for name in MODEL_NAMES}
    if len(students):
        readings["mnist"] = as_zero_one(mnist_model).predict(features).astype(np.int64)
    if len(counts.students) < 2:
        return readings
    positions = np.searchsorted(counts.students, students)
    for index in range(len(counts.students)):
        rows = positions == index
        others = counts.without(index)
        readings["class"][rows] = model_from_counts(mnist_model, *others).predict(features[rows])
        combined = model_from_counts(mnist_model, *combined_counts(mnist_model, *others, weight))
        readings["mnist_plus_class"][rows] = combined.predict(features[rows])
    return readings


# -- the evaluation ----------------------------------------------------------------------------
def class_features(
    frames: np.ndarray, mnist_model: BernoulliNB, threshold: int | None = None
) -> tuple[np.ndarray, int]:
    """(0/1 features uint8 (n, 784), the threshold): uint8 frames (n, 28, 28) binarized as every model reads them,
    at ``threshold``, which must agree with ``mnist_model``'s own when it has one (DEFAULT_THRESHOLD when both are
    None); ValueError when they differ."""
    own = mnist_model.threshold
    if own is not None:  # x >= T on integer pixels is x >= ceil(T)
        if threshold is not None and threshold != int(np.ceil(own)):
            raise ValueError(f"threshold {threshold} differs from the MNIST model's own, {own}")
        threshold = int(np.ceil(own))
    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    frames = np.asarray(frames)
    features = binarize(frames, threshold) if len(frames) else np.zeros((0, 784), np.uint8)
    return features, threshold


@dataclass(frozen=True)
class Shortage:
    """Why some accuracy is not given: ``digits`` {digit: drawings} with fewer than ``minimum`` drawings
    (their drawings are left out of every accuracy), and ``students`` when fewer than two students sent
    drawings (then the class's models cannot be measured leave-one-student-out)."""

    digits: dict[int, int]
    minimum: int
    students: int

    @property
    def one_student(self) -> bool:
        return self.students < 2

    def sentence(self) -> str:
        """What the class's models still need, in words ("2 more 7s"), for the page and the command line.
        MNIST's model needs nothing: it reads every drawing from the first."""
        if self.students == 0:
            return (
                "No drawings yet: MNIST's model reads the first one sent; the class's models need "
                f"{self.minimum} drawings of a digit, from two students or more."
            )
        parts = ["MNIST's model reads every drawing."]
        if self.one_student:
            parts.append(
                "The class's models are measured once two students or more have sent drawings: each "
                "student's drawings are read by a model trained on the others'."
            )
        if self.digits:
            needs = [
                f"{self.minimum - count} more {digit}{'s' if self.minimum - count != 1 else ''}"
                for digit, count in self.digits.items()
            ]
            if len(self.digits) == 10:
                parts.append(
                    f"The class's models give a digit's accuracy from {self.minimum} drawings of it: {join_words(needs)}."
                )
            else:
                parts.append(
                    f"The class's accuracies are over the digits with {self.minimum} drawings or more; to measure "
                    f"the others they need {join_words(needs)}."
                )
        return " ".join(parts)


@dataclass(frozen=True)
class ModelScore:
    """One model's leave-one-student-out reading: ``accuracy`` over the drawings of measured digits (None if
    there are none, or for a class's model with fewer than two students), ``correct`` of ``read`` drawings,
    ``per_digit`` float64 (10,) accuracy per digit (NaN where not measured), ``predictions`` int64 (n,)
    (-1 where the model could not read)."""

    accuracy: float | None
    correct: int
    read: int
    per_digit: np.ndarray
    predictions: np.ndarray


@dataclass(frozen=True)
class ClassEvaluation:
    """The three models (four with the class's mixture) on one class. ``drawings_per_digit`` int64 (10,),
    ``students`` how many sent drawings, ``weight`` the class's weight in MNIST + the class, ``threshold``,
    ``alpha`` and ``prior`` the settings of all of them, ``minimum`` drawings a digit needs, ``measured`` bool
    (10,) digits with enough drawings, ``models`` {name: ModelScore} in model_names' order, ``shortage`` None
    when everything was measured, ``curve`` None when it cannot be drawn, ``class_feature_prob`` float64
    (10, 784) P(x_j = 1 | y) of the class's model on every drawing, ``curve_note`` a sentence saying why there
    is no curve (None when there is one, or when ``shortage`` already says why), ``components`` the styles per
    digit of the class's mixture (1: no mixture, ``models`` holds the three models only; above 1 it holds
    ``MIXTURE`` too) and ``components_note`` a sentence when the drawings cannot support that many styles
    (``class_mixture.components_note``)."""

    drawings_per_digit: np.ndarray
    students: int
    weight: float
    threshold: int
    alpha: float
    prior: str
    minimum: int
    measured: np.ndarray
    models: dict[str, ModelScore]
    shortage: Shortage | None
    curve: Curve | None
    class_feature_prob: np.ndarray
    curve_note: str | None = None
    components: int = 1
    components_note: str | None = None

    @property
    def drawings(self) -> int:
        """How many drawings the class sent, every digit together."""
        return int(self.drawings_per_digit.sum())

    @property
    def names(self) -> dict[str, str]:
        """Each model's name in words (``model_names``), the mixture's with its styles per digit."""
        return model_names(self.components)

    def as_dict(self) -> dict:
        """Everything but the per-drawing arrays as plain JSON-ready values (NaN for an unmeasured digit)."""
        return {
            "drawings": self.drawings,
            "students": self.students,
            "drawings_per_digit": self.drawings_per_digit.tolist(),
            "weight": self.weight,
            "threshold": self.threshold,
            "alpha": self.alpha,
            "prior": self.prior,
            "minimum_per_digit": self.minimum,
            "measured_digits": np.flatnonzero(self.measured).tolist(),
            "components": self.components,
            "components_note": self.components_note,
            "models": {
                name: {
                    "name": self.names[name],
                    "accuracy": score.accuracy,
                    "correct": score.correct,
                    "read": score.read,
                    "per_digit": score.per_digit.tolist(),
                }
                for name, score in self.models.items()
            },
            "shortage": None
            if self.shortage is None
            else {
                "digits": {str(digit): count for digit, count in self.shortage.digits.items()},
                "minimum": self.shortage.minimum,
                "students": self.shortage.students,
                "sentence": self.shortage.sentence(),
            },
            "curve": None
            if self.curve is None
            else {
                "drawings_per_digit": self.curve.sizes.tolist(),
                **{name: values.tolist() for name, values in self.curve.accuracy.items()},
                "mnist": self.curve.mnist,
                "repeats": self.curve.repeats,
                "folds": self.curve.folds,
                "overtake": self.curve.overtake,
            },
            "curve_note": self.curve_note,
        }


def _score(predictions: np.ndarray, labels: np.ndarray, measured_rows: np.ndarray, usable: bool) -> ModelScore:
    per_digit = np.full(10, np.nan)
    if not usable:
        return ModelScore(None, 0, 0, per_digit, predictions)
    right = predictions == labels
    for digit in np.unique(labels[measured_rows]):
        per_digit[digit] = right[measured_rows & (labels == digit)].mean()
    read = int(measured_rows.sum())
    correct = int(right[measured_rows].sum())
    return ModelScore(correct / read if read else None, correct, read, per_digit, predictions)


def evaluate_class(
    frames,
    labels,
    students,
    mnist_model: BernoulliNB,
    weight: float = DEFAULT_WEIGHT,
    threshold: int | None = None,
    minimum: int = MIN_DRAWINGS,
    curve: bool = True,
    seed: int = 0,
    components: int = 1,
    mixture_readings: np.ndarray | None = None,
) -> ClassEvaluation:
    """The three models read a class's drawings, each student's by models that never saw that student.

    ``mnist_model``: a BernoulliNB fitted on MNIST's training images binarized at ``threshold`` (its own
    ``threshold`` when it has one; DEFAULT_THRESHOLD when both are None); its alpha, beta and prior are the
    class's models' too. Digits with fewer than ``minimum`` drawings are left out of the accuracies and
    named in ``shortage``; ``curve=False`` skips the curve (most of the time this takes).

    ``components`` K > 1 adds a fourth model, the class's mixture of K styles per digit (``MIXTURE``), read
    leave-one-student-out like the class's model (``mixture_leave_one_student_out``, EM seeded with ``seed``;
    alpha and beta above 0). ``mixture_readings``: its readings, if already made by that function on these
    drawings at this threshold, K and seed (a page keeps them apart from the weight); else they are made here.
    K = 1 is the evaluation without the mixture, the class's model being that mixture already.
    """
    drawings = check_drawings(frames, labels, students)
    weight = check_weight(weight)
    components = check_components(components, mnist_model)
    features, threshold = class_features(drawings.frames, mnist_model, threshold)
    labels = drawings.labels
    counts = count_students(features, labels, drawings.students, mnist_model)
    readings = leave_one_student_out(features, drawings.students, counts, mnist_model, weight)
    if components > 1:
        if mixture_readings is None:
            mixture_readings = mixture_leave_one_student_out(
                features, labels, drawings.students, mnist_model, components, seed
            )
        elif np.shape(mixture_readings) != labels.shape:
            raise ValueError(
                f"mixture_readings must hold one reading per drawing, {labels.shape}, got {np.shape(mixture_readings)}"
            )
        readings = {**readings, MIXTURE: np.asarray(mixture_readings, np.int64)}
    per_digit = np.bincount(labels, minlength=10).astype(np.int64)
    measured = per_digit >= minimum
    n_students = len(counts.students)
    measured_rows = measured[labels]
    comparable = n_students >= 2 and bool(measured_rows.any())
    # MNIST's model never saw a student: until the class's models can be measured it reads every drawing, then
    # the same drawings as they do, so the three accuracies compare like with like
    mnist_rows = measured_rows if comparable else np.ones(len(labels), dtype=bool)
    models = {
        name: _score(
            readings[name],
            labels,
            mnist_rows if name == "mnist" else measured_rows,
            usable=name == "mnist" or comparable,
        )
        for name in model_names(components)
    }
    short = {int(digit): int(per_digit[digit]) for digit in np.flatnonzero(~measured)}
    shortage = Shortage(short, minimum, n_students) if short or n_students < 2 else None
    accuracy_curve_, curve_note = None, None
    if curve:
        accuracy_curve_ = accuracy_curve(
            features, labels, drawings.students, measured_rows, mnist_model, weight, seed=seed
        )
        if accuracy_curve_ is None and n_students >= 2 and measured.any():
            curve_note = (
                "No curve yet: its models learn each digit from other students than the ones they read, and "
                "some digits have been drawn by too few students."
            )
    return ClassEvaluation(
        per_digit,
        n_students,
        weight,
        threshold,
        float(mnist_model.alpha),
        mnist_model.prior,
        minimum,
        measured,
        models,
        shortage,
        accuracy_curve_,
        counts.whole.feature_prob_,
        curve_note,
        components,
        components_note(labels, drawings.students, measured, components) if comparable else None,
    )
