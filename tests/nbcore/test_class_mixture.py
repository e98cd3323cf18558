"""The class's mixture of styles read leave one student out: K = 1 is the class's model (on load_digits() too), two
styles per digit read what naive Bayes cannot, it never reads a student it was fitted on, its checks, and too many
styles said in words."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nbcore.cli.output import json_safe
from nbcore.experiments import class_drawings, class_model
from nbcore.experiments.class_counts import count_students, model_from_counts
from nbcore.experiments.class_mixture import fewest_to_learn_from, mixture_leave_one_student_out
from nbcore.experiments.class_model import MIXTURE, evaluate_class
from nbcore.features import binarize
from nbcore.models.bernoulli import BernoulliNB
from nbcore.models.mixture import BernoulliMixtureNB
from tests.conftest import require_sklearn
from tests.nbcore import test_class_model
from tests.nbcore.test_class_model import DIGITS, a_class, planted_class

# the fixture of the module that owns the classes: a stand-in for MNIST's model (600 drawings)
base_model = test_class_model.base_model

QUADRANTS = tuple(
    (rows, columns) for rows in (slice(0, 14), slice(14, 28)) for columns in (slice(0, 14), slice(14, 28))
)
# the quadrants each of its two styles inks, for the even and the odd digit of a pair: every quadrant is inked in
# half of each digit's drawings, so pixel by pixel the two digits of a pair look alike, style by style they differ
PAIR_STYLES = {0: ((0, 3), (1, 2)), 1: ((0, 2), (1, 3))}


def two_style_class(n_students: int = 6, per_digit: int = 4, seed: int = 6) -> tuple[np.ndarray, ...]:
    """(frames, labels, students): every digit drawn in two styles, alternately, each inking two quadrants with its
    pair's pattern (digits 0 and 1 a pair, 2 and 3, ...): naive Bayes can tell the pairs apart but hardly the two
    digits of a pair; a mixture of two styles per digit can. ``per_digit`` drawings of each digit per student."""
    rng = np.random.default_rng(seed)
    shapes = np.full((10, 2, 28, 28), 0.02)
    for digit in DIGITS:
        if digit % 2 == 0:
            pattern = rng.random((4, 14, 14)) < 0.3
        for style, quadrants in enumerate(PAIR_STYLES[digit % 2]):
            for quadrant in quadrants:
                shapes[(digit, style, *QUADRANTS[quadrant])] = np.where(pattern[quadrant], 0.9, 0.02)
    labels = np.tile(np.repeat(DIGITS, per_digit), n_students)
    styles = np.arange(len(labels)) % 2
    frames = np.where(rng.random((len(labels), 28, 28)) < shapes[labels, styles], 255, 0).astype(np.uint8)
    return frames, labels, np.repeat(np.arange(n_students) + 40, 10 * per_digit)


def test_one_style_per_digit_is_todays_class_model(base_model):
    """K = 1 is today's evaluation, number for number (no fourth model); and the mixture of one style per digit,
    fitted by EM without each student, reads every drawing as the class's model (counts minus the student) does."""
    for frames, labels, students in (a_class(n_students=4, per_digit=5), two_style_class()):
        today = evaluate_class(frames, labels, students, base_model)
        one = evaluate_class(frames, labels, students, base_model, components=1)
        assert list(one.models) == ["mnist", "class", "mnist_plus_class"] and one.components_note is None
        for name, score in today.models.items():
            assert (one.models[name].accuracy, one.models[name].correct) == (score.accuracy, score.correct)
            np.testing.assert_array_equal(one.models[name].predictions, score.predictions)
        assert one.curve is not None and today.curve is not None
        np.testing.assert_array_equal(one.curve.accuracy["class"], today.curve.accuracy["class"])
        assert one.as_dict() | {"components": 1} == today.as_dict()  # JSON says K = 1 too

        features = binarize(frames, 128)
        readings = mixture_leave_one_student_out(features, labels, students, base_model, 1)
        np.testing.assert_array_equal(readings, today.models["class"].predictions)
    counts = count_students(features, labels, students, base_model)
    others = students != students[0]
    mixture = BernoulliMixtureNB(n_components=1, alpha=1.0, random_state=0).fit(features[others], labels[others])
    np.testing.assert_allclose(
        mixture.predict_joint_log_proba(features),
        model_from_counts(base_model, *counts.without(0)).predict_joint_log_proba(features),
        rtol=0,
        atol=1e-9,
    )


def test_two_styles_per_digit_read_what_naive_bayes_cannot(base_model):
    """Digits drawn in two styles that naive Bayes blurs together: the class's mixture of two styles per digit,
    fitted without each student in turn, reads them far better than the class's model, the same on every run."""
    frames, labels, students = two_style_class()
    evaluation = evaluate_class(frames, labels, students, base_model, components=2, curve=False)
    assert list(evaluation.models) == ["mnist", "class", MIXTURE, "mnist_plus_class"]
    assert evaluation.names[MIXTURE] == "the class's mixture (2 styles per digit)"
    mixture, naive = evaluation.models[MIXTURE], evaluation.models["class"]
    assert mixture.read == naive.read == len(labels) and evaluation.components_note is None
    assert naive.accuracy is not None and naive.accuracy < 0.7  # a digit of a pair is about a coin toss
    assert mixture.accuracy is not None and mixture.accuracy >= naive.accuracy + 0.3
    assert np.all(np.isfinite(mixture.per_digit))
    again = evaluate_class(frames, labels, students, base_model, components=2, curve=False)
    np.testing.assert_array_equal(again.models[MIXTURE].predictions, mixture.predictions)  # EM's seed is fixed
    # readings made beforehand (as the page keeps them, apart from the weight) give the same evaluation
    readings = mixture_leave_one_student_out(binarize(frames, 128), labels, students, base_model, 2)
    given = evaluate_class(frames, labels, students, base_model, components=2, curve=False, mixture_readings=readings)
    assert given.models[MIXTURE].accuracy == mixture.accuracy
    with pytest.raises(ValueError, match="one reading per drawing"):
        evaluate_class(frames, labels, students, base_model, components=2, mixture_readings=readings[:-1])
    as_json = json.loads(json.dumps(json_safe(evaluation.as_dict()), allow_nan=False))
    assert as_json["components"] == 2 and as_json["models"][MIXTURE]["name"] == evaluation.names[MIXTURE]


def test_the_mixture_never_reads_a_student_it_was_fitted_on(base_model):
    frames, labels, students, planted = planted_class()
    evaluation = evaluate_class(frames, labels, students, base_model, components=3, curve=False)
    assert np.mean(evaluation.models[MIXTURE].predictions[planted] == labels[planted]) <= 0.2


@pytest.mark.parametrize("components", [0, -1, 2.0, 1.5, True, "2", None])
def test_components_must_be_a_whole_number_of_one_or_more(base_model, components):
    frames, labels, students = a_class(n_students=2, per_digit=1)
    with pytest.raises(ValueError, match=r"components \(styles per digit of the class's mixture\) must be a whole"):
        evaluate_class(frames, labels, students, base_model, components=components)


def test_the_mixture_needs_alpha_and_beta_above_zero():
    frames, labels, students = a_class(n_students=2, per_digit=3)
    for params in ({"alpha": 0.0}, {"alpha": 1.0, "beta": 0.0}):
        unsmoothed = BernoulliNB(**params).fit(binarize(frames, 128), labels)
        with pytest.raises(ValueError, match="the class's mixture needs alpha and beta above 0"):
            evaluate_class(frames, labels, students, unsmoothed, components=2)
        assert evaluate_class(frames, labels, students, unsmoothed, components=1).models["class"].read == 60


def test_more_styles_than_drawings_to_learn_from_is_said_in_words(base_model):
    """Three students drawing each digit twice: a model reading one student learns each digit from 4 drawings.
    K = 4 fits; K = 5 says so (its fits still run: seeds are drawn with replacement)."""
    frames, labels, students = a_class(n_students=3, per_digit=2)
    keep = ~((labels == 6) & (students == students[0]) & (np.arange(len(labels)) % 2 == 0))  # one 6 fewer
    frames, labels, students = frames[keep], labels[keep], students[keep]
    assert fewest_to_learn_from(labels, students, np.ones(10, bool)) == (3, 6)  # the others' 6s, reading student 2
    assert evaluate_class(frames, labels, students, base_model, components=3, curve=False).components_note is None
    evaluation = evaluate_class(frames, labels, students, base_model, components=5, curve=False)
    assert evaluation.components_note == (
        "5 styles per digit is more than the class's drawings can support: with one student left out, the mixture "
        "can have as few as 3 drawings of 6 to learn from, so some of its styles start from the same drawing and "
        "stay alike. 3 styles per digit or fewer give every style a drawing of its own."
    )
    assert evaluation.models[MIXTURE].read == len(labels) and evaluation.models[MIXTURE].accuracy is not None
    assert evaluation.as_dict()["components_note"] == evaluation.components_note
    # a digit left out of the accuracies (fewer than 5 drawings) is not what the sentence counts
    measured_only = np.ones(10, bool)
    measured_only[6] = False
    assert fewest_to_learn_from(labels, students, measured_only) == (4, 0)
    # one student: no model learns from anyone, so there is nothing to say
    one = students == students[0]
    assert evaluate_class(frames[one], labels[one], students[one], base_model, components=5).components_note is None


@pytest.mark.slow
def test_load_digits_mixture_of_one_style_is_the_class_model_and_two_read_better():
    """load_digits() as 20 students: the mixture of one style per digit, fitted without each student, reads every
    drawing as the class's model does (the README's 89.3 %); two styles per digit read better."""
    require_sklearn()
    drawings = class_drawings.load_digits_class()
    features = binarize(drawings.frames, 128)
    template = BernoulliNB(alpha=1.0).fit(features, drawings.labels)  # classes and settings; not MNIST's counts
    counts = count_students(features, drawings.labels, drawings.students, template)
    naive = class_model.leave_one_student_out(features, drawings.students, counts, template, 100.0)["class"]
    one = mixture_leave_one_student_out(features, drawings.labels, drawings.students, template, 1)
    np.testing.assert_array_equal(one, naive)
    two = mixture_leave_one_student_out(features, drawings.labels, drawings.students, template, 2)
    assert np.mean(two == drawings.labels) > np.mean(naive == drawings.labels) + 0.01
