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

The drawings are checked and loaded by ``class_drawings``; ``class_report`` puts an evaluation in words.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..features import PackedBinary, binarize
from ..models.bernoulli import BernoulliNB
from ..models.mixture import BernoulliMixtureNB
from .class_drawings import check_drawings, join_words
from .evaluate import DIGITS

MIN_DRAWINGS = 5  # drawings of a digit below which its accuracy is not given
DEFAULT_WEIGHT = 100.0  # how many MNIST digits one class drawing counts as in ``mnist_plus_class``
DEFAULT_THRESHOLD = 128
MODEL_NAMES = {"mnist": "MNIST's model", "class": "the class's model", "mnist_plus_class": "MNIST + the class"}
MIXTURE = "class_mixture"  # the class's mixture of styles: a model of its own when components > 1
CURVE_SIZES = (1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500)
CURVE_REPEATS = 3
CURVE_FOLDS = 10

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # optional: without it BLAS keeps its own thread count
    threadpool_limits = None


def model_names(components: int = 1) -> dict[str, str]:
    """Each model's name in words, in the order an evaluation holds them: MODEL_NAMES, with the class's mixture
    of ``components`` styles per digit after the class's model when ``components`` > 1."""
    if components <= 1:
        return dict(MODEL_NAMES)
    names = {name: MODEL_NAMES[name] for name in ("mnist", "class")}
    names[MIXTURE] = f"the class's mixture ({components} styles per digit)"
    return names | {"mnist_plus_class": MODEL_NAMES["mnist_plus_class"]}


# -- counts and models -------------------------------------------------------------------------
def model_from_counts(template: BernoulliNB, class_count: np.ndarray, feature_count: np.ndarray) -> BernoulliNB:
    """A fitted BernoulliNB with ``template``'s hyperparameters and classes and these counts, reading 0/1
    features (no ``threshold``, whatever the template's).

    ``class_count`` (n_classes,) and ``feature_count`` (n_classes, n_features), integer or (weighted) float.
    The counts are the model's whole fitted state: every probability is derived from them.
    """
    model = BernoulliNB(**zero_one_params(template))
    # the fitted state, set as fit would leave it (with_params would first derive the template's counts: twice
    # the work, and the curve builds thousands of these)
    model.classes_, model.n_features_in_ = template.classes_, template.n_features_in_
    model.class_count_ = np.asarray(class_count)
    model.feature_count_ = np.asarray(feature_count)
    return model.set_params()  # no new parameter: re-derives every probability from the counts just set


def zero_one_params(template: BernoulliNB) -> dict:
    """``template``'s hyperparameters for a model of 0/1 features: alpha, beta and prior, no threshold."""
    return {**template.get_params(), "threshold": None}


@dataclass(frozen=True)
class StudentCounts:
    """Each student's counts: ``students`` (s,) the ids in sorted order, ``class_count`` int64 (s, 10)
    drawings per digit, ``feature_count`` int64 (s, 10, n_features) ink per pixel and digit, and ``whole``
    the class's model (a BernoulliNB that ``partial_fit`` every student's drawings in turn)."""

    students: np.ndarray
    class_count: np.ndarray
    feature_count: np.ndarray
    whole: BernoulliNB

    def without(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """(class_count (10,), feature_count (10, n_features)) of every student but the ``index``-th."""
        return (
            self.whole.class_count_ - self.class_count[index],
            self.whole.feature_count_ - self.feature_count[index],
        )


def count_students(
    features: np.ndarray, labels: np.ndarray, students: np.ndarray, template: BernoulliNB
) -> StudentCounts:
    """Count 0/1 ``features`` (n, n_features) per student with ``partial_fit``, in ``template``'s hyperparameters."""
    ids, positions = np.unique(students, return_inverse=True)
    params = zero_one_params(template)
    whole = BernoulliNB(**params)
    class_count = np.zeros((len(ids), len(DIGITS)), np.int64)
    feature_count = np.zeros((len(ids), len(DIGITS), features.shape[1]), np.int64)
    if len(ids) == 0:  # no drawings yet: every probability is the smoothing's (an empirical prior has no classes)
        empty = model_from_counts(template.with_params(prior="uniform"), class_count.sum(0), feature_count.sum(0))
        return StudentCounts(ids, class_count, feature_count, empty)
    for index in range(len(ids)):
        rows = positions == index
        own = BernoulliNB(**params).partial_fit(features[rows], labels[rows], classes=DIGITS)
        class_count[index], feature_count[index] = own.class_count_, own.feature_count_
        whole.partial_fit(features[rows], labels[rows], classes=DIGITS)
    return StudentCounts(ids, class_count, feature_count, whole)


def as_zero_one(model: BernoulliNB) -> BernoulliNB:
    """``model`` itself if it reads 0/1 features, else the same counts in a model that does."""
    return model if model.threshold is None else model_from_counts(model, model.class_count_, model.feature_count_)


def combined_counts(
    mnist_model: BernoulliNB, class_count: np.ndarray, feature_count: np.ndarray, weight: float
) -> tuple[np.ndarray, np.ndarray]:
    """MNIST's counts plus ``weight`` times the class's: float64 (10,) and (10, n_features)."""
    return (
        mnist_model.class_count_ + weight * np.asarray(class_count, np.float64),
        mnist_model.feature_count_ + weight * np.asarray(feature_count, np.float64),
    )


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


# -- the class's mixture of styles, leave one student out ----------------------------------------
def check_components(components, template: BernoulliNB | None = None) -> int:
    """``components`` (styles per digit of the class's mixture) as an int if it is a whole number >= 1, else
    ValueError with a sentence; also when it is above 1 and ``template``'s alpha or beta is 0 (EM needs both)."""
    if isinstance(components, bool) or not isinstance(components, (int, np.integer)) or components < 1:
        raise ValueError(
            f"components (styles per digit of the class's mixture) must be a whole number of 1 or more, "
            f"got {components!r}; 1 is the class's model alone"
        )
    components = int(components)
    if components > 1 and template is not None:
        beta = template.alpha if template.beta is None else template.beta
        if not (template.alpha > 0 and beta > 0):
            raise ValueError(
                f"the class's mixture needs alpha and beta above 0 (got alpha = {template.alpha:g}, beta = "
                f"{beta:g}): a style that never saw ink at a pixel could never explain a drawing with ink there"
            )
    return components


def _one_blas_thread():
    """BLAS held to one thread while EM runs: its products are thin, and on a shared 2-core machine whose other
    core was busy, two OpenBLAS threads made a leave-one-student-out pass at 10 styles per digit on
    ``load_digits()`` 3.5x slower than one (7.2 s against 2.1 s; alike on an idle core), as ``models/softmax.py``
    measured for its own training."""
    return contextlib.nullcontext() if threadpool_limits is None else threadpool_limits(1, user_api="blas")


def mixture_leave_one_student_out(
    features: np.ndarray,
    labels: np.ndarray,
    students: np.ndarray,
    template: BernoulliNB,
    components: int,
    seed: int = 0,
) -> np.ndarray:
    """Each drawing's digit as read by the class's mixture of ``components`` styles per digit fitted (EM,
    ``random_state=seed``) on every other student's drawings: int64 (n,), -1 everywhere with fewer than two
    students. ``features`` 0/1 (n, n_features), ``labels`` (n,), ``students`` (n,) ids; the mixture takes
    ``template``'s alpha, beta and prior (both pseudo-counts above 0). One EM fit per student.

    A digit no other student drew is not among that fit's classes, so it is never read: as the class's model
    with an empirical prior. A digit with fewer other drawings than styles starts several styles from the same
    drawing (seeds are drawn with replacement), and those stay alike: see ``components_note``.
    """
    components = check_components(components, template)
    readings = np.full(len(students), -1, np.int64)
    ids, positions = np.unique(students, return_inverse=True)
    if len(ids) < 2:
        return readings
    with _one_blas_thread():
        for index in range(len(ids)):
            rows = positions == index
            model = BernoulliMixtureNB(
                n_components=components,
                alpha=template.alpha,
                beta=template.beta,
                prior=template.prior,
                random_state=seed,
            )
            model.fit(features[~rows], labels[~rows])
            readings[rows] = model.predict(features[rows])
    return readings


def fewest_to_learn_from(labels: np.ndarray, students: np.ndarray, digits: np.ndarray) -> tuple[int, int] | None:
    """(drawings, digit): the fewest drawings of one of ``digits`` (bool (10,)) that a leave-one-student-out
    model learns from when it reads a student who drew that digit, counting only digits other students drew
    too; None when there is no such digit."""
    ids, positions = np.unique(students, return_inverse=True)
    per_student = np.zeros((len(ids), 10), np.int64)
    np.add.at(per_student, (positions, labels), 1)
    others = per_student.sum(axis=0) - per_student
    usable = (per_student > 0) & (others > 0) & np.asarray(digits, bool)[None, :]
    if not usable.any():
        return None
    fewest = np.where(usable, others, np.iinfo(np.int64).max).min(axis=0)
    digit = int(np.argmin(fewest))
    return int(fewest[digit]), digit


def components_note(labels: np.ndarray, students: np.ndarray, digits: np.ndarray, components: int) -> str | None:
    """A sentence when ``components`` styles per digit are more than the drawings can support: some model, reading
    a student, has fewer drawings of one of ``digits`` (bool (10,)) from the others than it has styles. None
    otherwise (and at ``components`` = 1)."""
    found = fewest_to_learn_from(labels, students, digits) if components > 1 else None
    if found is None or found[0] >= components:
        return None
    fewest, digit = found
    advice = (
        "1 style per digit (the class's model) is all these drawings support"
        if fewest == 1
        else f"{fewest} styles per digit or fewer give every style a drawing of its own"
    )
    return (
        f"{components} styles per digit is more than the class's drawings can support: with one student left out, "
        f"the mixture can have as few as {fewest} drawing{'s' if fewest != 1 else ''} of {digit} to learn from, "
        f"so some of its styles start from the same drawing and stay alike. {advice[:1].upper() + advice[1:]}."
    )


# -- the curve: accuracy against class drawings per digit ---------------------------------------
@dataclass(frozen=True)
class Curve:
    """Accuracy against ``sizes`` (k,): at most that many class drawings per digit for each model to learn from.

    ``accuracy[name]`` float64 (k,) for "class" (and "mnist_plus_class" when a weight was given): the mean over
    ``repeats`` random draws. Students are split into ``folds`` groups; a group's drawings are read by models
    trained on drawings of the other groups only, so no model reads a student it saw. ``mnist`` is MNIST's
    accuracy on the same drawings (a flat line), ``overtake`` the smallest size from which the class's model
    reads better than MNIST's at every larger size measured (None if it does not within the drawings there are).
    """

    sizes: np.ndarray
    accuracy: dict[str, np.ndarray]
    mnist: float
    repeats: int
    folds: int
    overtake: int | None


def overtake_point(sizes: np.ndarray, accuracy: np.ndarray, reference: float) -> int | None:
    """The smallest of ``sizes`` from which ``accuracy`` stays above ``reference`` to the end, or None."""
    above = np.asarray(accuracy) > reference
    if not above.size or not above[-1]:
        return None
    below = np.flatnonzero(~above)
    return int(sizes[below[-1] + 1]) if below.size else int(sizes[0])


def accuracy_curve(
    features: np.ndarray,
    labels: np.ndarray,
    students: np.ndarray,
    scored: np.ndarray,
    mnist_model: BernoulliNB,
    weight: float | None,
    sizes: Sequence[int] = CURVE_SIZES,
    repeats: int = CURVE_REPEATS,
    folds: int = CURVE_FOLDS,
    seed: int = 0,
) -> Curve | None:
    """The class's model (and, with a ``weight``, MNIST + the class) trained on at most k drawings per digit.

    ``features`` 0/1 (n, n_features), ``labels`` (n,), ``students`` (n,) ids; the drawings where ``scored``
    (bool (n,)) is True are read. Students are dealt, in order of id, into ``folds`` groups (fewer if there
    are fewer students). For each group and repeat, each digit's drawings by the other groups are shuffled
    and the first k counted (the sets grow nested with k). ``sizes`` are kept up to the fewest drawings the
    other groups made of a scored digit, and that number is added as the last size.
    None when fewer than two students sent drawings, nothing is scored, or no size fits.
    """
    ids, positions = np.unique(students, return_inverse=True)
    measured_digits = np.unique(labels[scored])
    if len(ids) < 2 or not measured_digits.size:
        return None
    n_folds = min(folds, len(ids))
    group = (np.arange(len(ids)) % n_folds)[positions]
    per_group = np.stack([np.bincount(labels[group == index], minlength=10) for index in range(n_folds)])
    pools = per_group.sum(axis=0) - per_group  # (groups, 10): drawings of each digit by the other groups
    largest = int(pools[:, measured_digits].min())
    kept = np.asarray([size for size in sizes if size <= largest], np.int64)
    if largest > 0 and (not kept.size or kept[-1] != largest):
        kept = np.append(kept, largest)
    if not kept.size:
        return None
    names = ("class",) if weight is None else ("class", "mnist_plus_class")
    correct = {name: np.zeros((repeats, len(kept))) for name in names}
    rng = np.random.default_rng(seed)
    for index in range(n_folds):
        read = (group == index) & scored
        if not read.any():
            continue
        packed, truth = PackedBinary.from_dense(features[read]), labels[read]
        for repeat in range(repeats):
            class_counts = np.zeros((len(kept), 10), np.int64)
            feature_counts = np.zeros((len(kept), 10, features.shape[1]), np.int64)
            for digit in range(10):
                pool = np.flatnonzero((group != index) & (labels == digit))
                if not pool.size:
                    continue
                # ink per pixel after 1, 2, ... drawings of a shuffled pool: every k's counts in one pass
                running = np.cumsum(features[rng.permutation(pool)], axis=0, dtype=np.int64)
                taken = np.minimum(kept, pool.size)
                class_counts[:, digit] = taken
                feature_counts[:, digit] = running[taken - 1]
            for point in range(len(kept)):
                models = {"class": model_from_counts(mnist_model, class_counts[point], feature_counts[point])}
                if weight is not None:
                    counts = combined_counts(mnist_model, class_counts[point], feature_counts[point], weight)
                    models["mnist_plus_class"] = model_from_counts(mnist_model, *counts)
                for name, model in models.items():
                    correct[name][repeat, point] += np.sum(model.predict(packed) == truth)
    accuracy = {name: correct[name].mean(axis=0) / scored.sum() for name in names}
    mnist_accuracy = float(np.mean(as_zero_one(mnist_model).predict(features[scored]) == labels[scored]))
    return Curve(
        kept, accuracy, mnist_accuracy, repeats, n_folds, overtake_point(kept, accuracy["class"], mnist_accuracy)
    )


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
    (the module's ``components_note``)."""

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
    def names(self) -> dict[str, str]:
        """Each model's name in words (``model_names``), the mixture's with its styles per digit."""
        return model_names(self.components)

    def as_dict(self) -> dict:
        """Everything but the per-drawing arrays as plain JSON-ready values (NaN for an unmeasured digit)."""
        return {
            "drawings": int(self.drawings_per_digit.sum()),
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
