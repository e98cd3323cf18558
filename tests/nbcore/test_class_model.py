"""The class's model: equal to scikit-learn's BernoulliNB, leave-one-student-out that never peeks, too few drawings
said in words, the curve, and load_digits() as a class beating MNIST's model. The class's mixture of styles is
test_class_mixture.py's, ``python -m nbcore class evaluate`` test_class_evaluate_cli.py's; both take this module's
classes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nbcore.cli.output import json_safe
from nbcore.experiments import class_drawings, class_model
from nbcore.experiments.class_counts import combined_counts, count_students, model_from_counts
from nbcore.experiments.class_curve import accuracy_curve, overtake_point
from nbcore.experiments.class_drawings import check_drawings
from nbcore.experiments.class_model import evaluate_class
from nbcore.features import binarize
from nbcore.models.bernoulli import BernoulliNB
from tests.conftest import require_sklearn

DIGITS = np.arange(10)


def prototypes(seed: int = 0) -> np.ndarray:
    """Ten random digit "shapes": float (10, 28, 28) ink probabilities, ink only in rows 14..27; mostly one
    shape shared by all ten, so that models err (none reads every drawing right) and a model that saw a
    drawing reads it better than one that did not."""
    rng = np.random.default_rng(seed)
    shapes = np.zeros((10, 28, 28))
    shapes[:, 14:, :] = 0.8 * rng.random((14, 28)) ** 3 + 0.2 * rng.random((10, 14, 28)) ** 3
    return shapes


def drawings_of(shapes: np.ndarray, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """uint8 (n, 28, 28) frames: each pixel inked (255) with its digit's probability."""
    return np.where(rng.random((len(labels), 28, 28)) < shapes[labels], 255, 0).astype(np.uint8)


def a_class(n_students: int = 6, per_digit: int = 3, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(frames, labels, students): every student draws every digit ``per_digit`` times from shared shapes."""
    rng = np.random.default_rng(seed)
    labels = np.tile(np.repeat(DIGITS, per_digit), n_students)
    students = np.repeat(np.arange(n_students) * 7 + 100, 10 * per_digit)  # ids need not be 0..n-1
    return drawings_of(prototypes(), labels, rng), labels, students


@pytest.fixture(scope="module")
def base_model() -> BernoulliNB:
    """A stand-in for MNIST's model: 600 drawings of the same shapes, pixel >= 128, alpha = 1."""
    rng = np.random.default_rng(2)
    labels = np.repeat(DIGITS, 60)
    return BernoulliNB(alpha=1.0).fit(binarize(drawings_of(prototypes(), labels, rng), 128), labels)


# -- agreement with scikit-learn and with refitting -------------------------------------------------
def test_class_model_equals_sklearns_bernoulli_nb_to_1e_10(base_model):
    """The class's model (partial_fit per student), each leave-one-out model and MNIST + class (weighted counts)
    against scikit-learn's BernoulliNB fitted on the same drawings, in log probability."""
    require_sklearn()
    from sklearn.naive_bayes import BernoulliNB as SklearnBernoulliNB

    frames, labels, students = a_class()
    features = binarize(frames, 128)
    features_float = features.astype(np.float64)  # scikit-learn counts uint8 input about 10x slower
    counts = count_students(features, labels, students, base_model)
    theirs = SklearnBernoulliNB(alpha=1.0, binarize=None).fit(features_float, labels)
    np.testing.assert_allclose(
        counts.whole.predict_joint_log_proba(features), theirs.predict_joint_log_proba(features), rtol=0, atol=1e-10
    )
    base_X, base_y = base_training_data()
    for index, student in enumerate(counts.students):
        others = students != student
        left_out = model_from_counts(base_model, *counts.without(index))
        theirs = SklearnBernoulliNB(alpha=1.0, binarize=None).fit(features_float[others], labels[others])
        np.testing.assert_allclose(
            left_out.predict_joint_log_proba(features), theirs.predict_joint_log_proba(features), rtol=0, atol=1e-10
        )
        weight = 37.5  # not a whole number: the counts become weighted sums, as scikit-learn's sample_weight makes them
        combined = model_from_counts(base_model, *combined_counts(base_model, *counts.without(index), weight))
        theirs = SklearnBernoulliNB(alpha=1.0, binarize=None).fit(
            np.vstack([base_X, features_float[others]]),
            np.concatenate([base_y, labels[others]]),
            sample_weight=np.concatenate([np.ones(len(base_y)), np.full(others.sum(), weight)]),
        )
        np.testing.assert_allclose(
            combined.predict_joint_log_proba(features), theirs.predict_joint_log_proba(features), rtol=0, atol=1e-10
        )


def base_training_data(binarized: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The base model's training set again (same seed as the fixture), as 0/1 features or uint8 frames."""
    rng = np.random.default_rng(2)
    labels = np.repeat(DIGITS, 60)
    frames = drawings_of(prototypes(), labels, rng)
    return (binarize(frames, 128) if binarized else frames), labels


def test_an_mnist_model_that_binarizes_for_itself_gives_the_same_evaluation(base_model):
    """A model given threshold=128 (fitted on uint8 frames) is read as the same counts on 0/1 features."""
    frames, labels = base_training_data(binarized=False)
    self_binarizing = BernoulliNB(alpha=1.0, threshold=128).fit(frames, labels)
    frames, labels, students = a_class(n_students=4, per_digit=5)
    ours, theirs = (evaluate_class(frames, labels, students, model) for model in (base_model, self_binarizing))
    for name in ours.models:
        np.testing.assert_array_equal(ours.models[name].predictions, theirs.models[name].predictions)
    assert ours.curve is not None and theirs.curve is not None and theirs.threshold == 128
    np.testing.assert_array_equal(ours.curve.accuracy["class"], theirs.curve.accuracy["class"])
    with pytest.raises(ValueError, match="differs from the MNIST model's own"):
        evaluate_class(frames, labels, students, self_binarizing, threshold=1)


def test_leave_one_student_out_equals_refitting_without_the_student(base_model):
    """Counts minus one student's are the model refitted on the others: same counts, same readings."""
    frames, labels, students = a_class(n_students=5)
    features = binarize(frames, 128)
    counts = count_students(features, labels, students, base_model)
    readings = class_model.leave_one_student_out(features, students, counts, base_model, weight=100.0)
    for index, student in enumerate(counts.students):
        mine, others = students == student, students != student
        refitted = BernoulliNB(alpha=1.0).fit(features[others], labels[others])
        subtracted = model_from_counts(base_model, *counts.without(index))
        np.testing.assert_array_equal(subtracted.feature_count_, refitted.feature_count_)
        np.testing.assert_array_equal(subtracted.feature_log_prob_, refitted.feature_log_prob_)
        np.testing.assert_array_equal(readings["class"][mine], refitted.predict(features[mine]))
        combined = BernoulliNB(alpha=1.0).fit(
            np.vstack([base_training_data()[0]] + [features[others]] * 100),
            np.concatenate([base_training_data()[1]] + [labels[others]] * 100),
        )  # weight 100 written out as 100 copies of each drawing
        np.testing.assert_array_equal(readings["mnist_plus_class"][mine], combined.predict(features[mine]))
    np.testing.assert_array_equal(readings["mnist"], base_model.predict(features))


def planted_class(seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Six ordinary students drawing in the bottom half, and one planted student (id 999) who draws each digit,
    5 times, as its own pattern in the empty top half: a model that saw the planted student reads them
    perfectly, one that did not has never seen ink there. Returns frames, labels, students, planted rows."""
    frames, labels, students = a_class(n_students=6, per_digit=3, seed=seed)
    planted_labels = np.repeat(DIGITS, 5)
    planted = np.zeros((50, 28, 28), np.uint8)
    for row, digit in enumerate(planted_labels):
        planted[row, digit, :] = 255  # digit d is a line across row d
    frames = np.concatenate([frames, planted])
    labels = np.concatenate([labels, planted_labels])
    students = np.concatenate([students, np.full(50, 999)])
    return frames, labels, students, students == 999


@pytest.mark.slow
def test_leave_one_student_out_never_reads_a_student_with_a_model_that_saw_them(base_model):
    frames, labels, students, planted = planted_class()
    features = binarize(frames, 128)
    counts = count_students(features, labels, students, base_model)
    seen = counts.whole.predict(features[planted])
    assert np.mean(seen == labels[planted]) == 1.0  # the planted drawings are easy for a model that saw them
    weighted = model_from_counts(
        base_model, *combined_counts(base_model, counts.whole.class_count_, counts.whole.feature_count_, 100.0)
    )
    assert np.mean(weighted.predict(features[planted]) == labels[planted]) == 1.0
    evaluation = evaluate_class(frames, labels, students, base_model, weight=100.0)
    for name in ("class", "mnist_plus_class"):
        read = evaluation.models[name].predictions[planted]
        assert np.mean(read == labels[planted]) <= 0.2, name  # about chance: the patterns were never seen
    # the curve's models too: the planted student's drawings alone, read at every size
    curve = accuracy_curve(features, labels, students, planted, base_model, weight=100.0, folds=7)
    assert curve is not None and curve.sizes[-1] == 18  # the other six students' 3 drawings of each digit
    for name, accuracy in curve.accuracy.items():
        assert np.all(accuracy <= 0.2), name


def test_the_curves_largest_size_is_leave_one_student_out_when_every_student_draws_alike(base_model):
    """With one fold per student and every student drawing each digit equally often, the last point of the curve
    counts every drawing of the others: it must equal the leave-one-student-out accuracy exactly."""
    frames, labels, students = a_class(n_students=4, per_digit=4)
    evaluation = evaluate_class(frames, labels, students, base_model)
    curve = evaluation.curve
    assert curve is not None and curve.folds == 4 and curve.sizes[-1] == 12 and list(curve.sizes[:3]) == [1, 2, 3]
    assert curve.accuracy["class"][-1] == evaluation.models["class"].accuracy
    assert curve.accuracy["mnist_plus_class"][-1] == evaluation.models["mnist_plus_class"].accuracy
    assert curve.mnist == evaluation.models["mnist"].accuracy


def test_overtake_point_is_where_the_curve_stays_above():
    sizes = np.array([1, 2, 5, 10, 20])
    assert overtake_point(sizes, np.array([0.4, 0.6, 0.5, 0.7, 0.8]), 0.55) == 10  # dips below at 5
    assert overtake_point(sizes, np.array([0.6, 0.6, 0.7, 0.7, 0.8]), 0.55) == 1
    assert overtake_point(sizes, np.array([0.6, 0.6, 0.7, 0.7, 0.5]), 0.55) is None  # below at the end
    assert overtake_point(sizes, np.array([0.55] * 5), 0.55) is None  # equal is not better


# -- too few drawings ----------------------------------------------------------------------------
def test_a_digit_with_too_few_drawings_gets_a_sentence_not_an_accuracy(base_model):
    frames, labels, students = a_class(n_students=4, per_digit=2)
    keep = ~((labels == 7) & (students != students[0]))  # only the first student's two 7s remain
    keep &= ~((labels == 3) & (students == students[0]))  # and the first student draws no 3
    evaluation = evaluate_class(frames[keep], labels[keep], students[keep], base_model)
    assert evaluation.shortage is not None and evaluation.shortage.digits == {7: 2}
    assert not evaluation.measured[7] and evaluation.measured[3]
    sentence = evaluation.shortage.sentence()
    assert "they need 3 more 7s" in sentence and "5 drawings or more" in sentence
    for score in evaluation.models.values():
        assert np.isnan(score.per_digit[7]) and np.isfinite(score.per_digit[3])
        assert score.read == keep.sum() - 2  # the two 7s are not counted
    as_json = json.loads(json.dumps(json_safe(evaluation.as_dict()), allow_nan=False))
    assert as_json["models"]["class"]["per_digit"][7] is None
    assert as_json["shortage"]["digits"] == {"7": 2} and as_json["shortage"]["sentence"] == sentence


def test_one_student_or_none_measures_only_mnists_model(base_model):
    frames, labels, students = a_class(n_students=1, per_digit=5)
    evaluation = evaluate_class(frames, labels, students, base_model)
    assert evaluation.models["mnist"].accuracy is not None
    assert evaluation.models["class"].accuracy is None and evaluation.models["mnist_plus_class"].accuracy is None
    assert evaluation.shortage is not None and "two students or more" in evaluation.shortage.sentence()
    assert evaluation.curve is None
    empty = evaluate_class(frames[:0], labels[:0], students[:0], base_model)
    assert all(score.accuracy is None for score in empty.models.values())
    assert empty.shortage is not None and empty.shortage.sentence().startswith("No drawings yet")
    assert empty.class_feature_prob.shape == (10, 784) and np.all(empty.class_feature_prob == 0.5)


def test_no_curve_when_a_digit_was_drawn_by_one_student_only(base_model):
    frames, labels, students = a_class(n_students=3, per_digit=3)
    keep = (labels != 4) | (students == students[0])  # 4 is drawn by one student, 3 times...
    frames, labels, students = frames[keep], labels[keep], students[keep]
    extra = np.flatnonzero(labels == 4)[:2]  # ...and twice more by the same student: 5, enough to be measured
    frames, labels, students = (np.concatenate([a, a[extra]]) for a in (frames, labels, students))
    evaluation = evaluate_class(frames, labels, students, base_model)
    assert evaluation.measured.all() and evaluation.curve is None
    assert evaluation.curve_note is not None and "too few students" in evaluation.curve_note


def test_check_drawings_says_what_is_wrong():
    frames, labels, students = a_class(n_students=2, per_digit=1)
    cases = [
        ((frames.astype(np.float32), labels, students), "uint8"),
        ((frames[:, :, :27], labels, students), r"\(n, 28, 28\)"),
        ((frames, labels.astype(float), students), "integers"),
        ((frames, labels + 1, students), "0 to 9"),
        ((frames, labels, students.astype(float)), "ids"),
        ((frames, labels[:-1], students), "one entry per drawing"),
    ]
    for arrays, message in cases:
        with pytest.raises(ValueError, match=message):
            check_drawings(*arrays)


# -- the benchmark on real handwriting ---------------------------------------------------------------
@pytest.mark.slow
def test_load_digits_as_a_class_beats_mnist_by_25_points(mnist):
    """The README's benchmark: load_digits() as 20 students through the upload path, models of pixel >= 128,
    alpha = 1. The class's model and MNIST + the class (weight 100) each beat MNIST's model by >= 25 points."""
    require_sklearn()
    drawings = class_drawings.load_digits_class()
    assert len(drawings.labels) == 1797 and len(np.unique(drawings.students)) == 20
    assert np.all(np.diff(drawings.students) >= 0)  # contiguous blocks
    mnist_model = BernoulliNB(alpha=1.0).fit(binarize(mnist["train_images"], 128), mnist["train_labels"])
    evaluation = evaluate_class(drawings.frames, drawings.labels, drawings.students, mnist_model, weight=100.0)
    accuracy = {name: score.accuracy for name, score in evaluation.models.items()}
    assert evaluation.shortage is None and all(score.read == 1797 for score in evaluation.models.values())
    assert accuracy["class"] >= accuracy["mnist"] + 0.25
    assert accuracy["mnist_plus_class"] >= accuracy["mnist"] + 0.25
    assert evaluation.curve is not None and evaluation.curve.overtake is not None
