"""The guided lesson: its step link, Back/Next through every step, and answers measured from the models."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from nbcore.experiments import lesson
from tests.apptest import rerun
from tests.conftest import REPO

TIMEOUT = 180
N_STEPS = 11
NOTICE = "lesson step was not understood"


# -- nbcore.lesson, no MNIST needed ----------------------------------------------------------------------------
@pytest.mark.parametrize("values, expected", [([], None), (["1"], 1), (["9"], 9), (["09"], 9)])
def test_parse_step_reads_one_step_number_in_range(values, expected):
    assert lesson.parse_step(values, N_STEPS) == expected


@pytest.mark.parametrize(
    "values",
    [
        ["0"],
        ["12"],
        ["-1"],
        ["3.0"],
        [" 3"],
        ["3 "],
        ["+3"],
        ["٣"],
        ["３"],
        ["abc"],
        [""],
        ["1e1"],
        ["3", "4"],
        ["9" * 10_000],
        ["<script>alert(1)</script>"],
    ],
)
def test_parse_step_refuses_anything_else_without_repeating_it(values):
    with pytest.raises(ValueError) as refused:
        lesson.parse_step(values, N_STEPS)
    assert str(refused.value) in (
        "the lesson step must be one whole number",
        f"the lesson step must lie between 1 and {N_STEPS}",
    )  # never the value itself


def test_grading_of_guesses_counts_and_choices():
    assert lesson.grade_guess(0.841, 0.842, close=0.01).grade == "exact"
    assert lesson.grade_guess(0.85, 0.842, close=0.01).grade == "close"
    assert lesson.grade_guess(0.95, 0.842, close=0.01) == lesson.Verdict("off", pytest.approx(0.108), 0.842)
    assert lesson.grade_count(40, 32).truth == 32.0 and lesson.grade_choice("1", "2").truth == "2"  # for the chart
    assert lesson.grade_count(30, 32).grade == "exact"
    assert lesson.grade_count(100, 32).grade == "close"
    assert lesson.grade_count(1000, 32).grade == "off"
    assert lesson.grade_count(0, 0).grade == "exact"
    assert lesson.grade_choice("2", "2").grade == "exact" and lesson.grade_choice("1", "2").grade == "off"
    assert [lesson.product_outcome(value) for value in (0.0, 1e-40, 1e-3)] == ["zero", "tiny", "moderate"]


def test_measurements_on_small_hand_made_data():
    probabilities = np.array([[0.995, 0.005], [0.999, 0.001], [0.6, 0.4], [0.2, 0.8]])
    sure = lesson.accuracy_when_confident(probabilities, np.array([0, 1, 0, 1]), 0.99)
    assert (sure.count, sure.accuracy, sure.mean_confidence) == (2, 0.5, pytest.approx(0.997))
    assert lesson.accuracy_when_confident(probabilities, np.array([0, 1, 0, 1]), 0.9999).count == 0
    assert lesson.bayes_wrong_softmax_right(
        np.array([0, 1, 2, 3]), np.array([1, 1, 2, 0]), np.array([1, 2, 2, 0])
    ).tolist() == [0, 3]
    curves = {"a": np.array([[0.1, 0.3], [0.5, 0.7]]), "b": np.array([[0.2, 0.2], [0.9, 0.9]])}
    assert lesson.mean_accuracy_at(np.array([30, 100]), curves, 100) == {"a": 0.6, "b": 0.9}
    # two strokes: within digit 0, a pixel's right neighbour is ink exactly when it is
    images = np.zeros((4, 28, 28), dtype=np.uint8)
    images[0, 5, 5:7] = images[1, 9, 5:7] = 1
    dependence = lesson.neighbour_dependence(images.reshape(4, -1), np.array([0, 0, 1, 1]), digit=0)
    assert dependence[5, 5] == pytest.approx(1 - 0.5) and dependence[9, 5] == pytest.approx(0.5)
    assert np.isnan(dependence[0, 0]) and np.isnan(dependence[:, -1]).all()


def test_prior_gap_and_the_accuracy_from_part_of_the_pixels():
    rng = np.random.default_rng(0)
    labels = np.arange(400) % 10
    # odd pixels are ink more often the larger the digit; even pixels are ink 10 % of the time in every digit
    features = (rng.random((400, 784)) < 0.1 + 0.08 * labels[:, None] * (np.arange(784) % 2)).astype(np.uint8)
    (train, test), (train_labels, test_labels) = np.split(features, 2), np.split(labels, 2)
    model = nbcore.BernoulliNB(prior="uniform").fit(train, train_labels)
    gap = lesson.prior_gap(model, np.array([1] * 5 + [2] * 3 + [3] * 2))
    assert gap.most_wrong == 1 and gap.gap[1] == pytest.approx(0.1 - 0.5) and gap.test_frequency.sum() == 1

    def accuracy_seeing(observed):
        return lesson.observed_part_accuracy(model, train, train_labels, test, test_labels, observed)

    assert accuracy_seeing(np.ones(784, dtype=bool)) == model.score(test, test_labels)
    even = np.arange(784) % 2 == 0
    assert accuracy_seeing(~even) > 0.5 and accuracy_seeing(even) < 0.25  # only even pixels: guessing (0.1)


def test_float32_product_underflows_where_the_log_sum_does_not():
    model = nbcore.BernoulliNB(alpha=1.0).fit(np.eye(784, dtype=np.uint8)[:20], np.arange(20) % 10)
    features = np.zeros((1, 784), dtype=np.uint8)
    running = lesson.running_log10_product(model, features[0], 0)
    assert running.shape == (784,) and np.all(np.diff(running) <= 0)
    counts = lesson.underflow_counts(model, features, np.array([0]))
    product = lesson.float32_product(model, features[0], 0)
    assert running[-1] < np.log10(lesson.FLOAT32_SMALLEST)  # the true product is below float32's range ...
    # ... and float32 gets it wrong: 0.0, or stuck at a few subnormal steps (x * 0.99 rounds back to x there)
    assert product < np.finfo(np.float32).tiny
    assert counts == {
        "images": 1,
        "float32_zero": int(product == 0),
        "float32_stuck": int(product > 0),
        "float64_zero": 0,
        "log_finite": 1,
    }


def test_lesson_figures():
    from lab.figures import bar_charts, line_charts

    prior, frequency = np.full(10, 0.1), np.linspace(0.05, 0.15, 10)
    figure = bar_charts.prior_against_frequency(prior, frequency / frequency.sum(), most_wrong=9)
    outlines = figure.data[0].marker.line.color
    assert len(figure.data) == 2 and outlines[9] != outlines[0] and figure.layout.annotations[0].x == "9"
    running = np.linspace(0, -100, 784)
    figure = line_charts.running_product(running, {"float32": -44.9, "float64": -323.3})
    assert [trace.y[0] for trace in figure.data[1:]] == [-44.9, -323.3] and len(figure.data[0].y) == 784


def test_the_steps_data_is_whole():
    """Every step links to a page of the lab and cites a source; every question's options show, its start is one."""
    from lab import lesson_steps, shell

    pages = {path for section in shell.PAGES.values() for path, _, _ in section}
    assert len(lesson_steps.STEPS) == N_STEPS
    keys = [question.key for step in lesson_steps.STEPS for question in step.questions]
    assert len(keys) == len(set(keys)) == 11
    for step in lesson_steps.STEPS:
        assert {link.page for link in (step.try_page, *step.more)} <= pages and step.sources and "body" in step.texts
        for question in step.questions:
            assert question.kind in ("choice", "guess") and all(question.show(option) for option in question.options)
            assert question.start in question.options if question.kind == "guess" else question.start is None


# -- the page under AppTest, on real MNIST ------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def data_dir(mnist_root):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NBCORE_DATA_DIR", str(mnist_root))
        yield mnist_root


def open_lesson(query: dict | None = None) -> AppTest:
    script = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\nfrom lab import shell\n"
        "shell.run(default_page='pages/lesson.py')\n"
    )
    app = AppTest.from_string(script, default_timeout=TIMEOUT)
    app.query_params.update(query or {})
    return rerun(app)


def step_shown(app: AppTest) -> int:
    """The step number of the counter "Step n of 10" (both counters agree) and of the header."""
    counters = {item.value for item in app.markdown if re.fullmatch(rf"\*\*Step \d+ of {N_STEPS}\*\*", item.value)}
    assert len(counters) == 1, counters
    step = int(re.search(r"\d+", counters.pop()).group())
    assert any(item.value.startswith(f"{step}. ") for item in app.header)
    return step


def texts(app: AppTest) -> list[str]:
    return [item.value for kind in ("markdown", "caption", "success", "info", "warning") for item in app.get(kind)]


def reveal(app: AppTest, question: str, answer) -> str:
    """Answer ``question`` (its radio or select slider), press Reveal, return the feedback it adds."""
    widget = next(
        item for kind in ("radio", "select_slider") for item in app.get(kind) if item.key == f"lesson_answer_{question}"
    )
    widget.set_value(answer)
    before = feedbacks(rerun(app))
    app.button(key=f"lesson_reveal_{question}").click()
    [added] = [text for text in feedbacks(rerun(app)) if text not in before]
    return added


def feedbacks(app: AppTest) -> list[str]:
    """The verdicts on the page: success, info or warning boxes that start with one of the three grades."""
    return [
        item.value
        for kind in ("success", "info", "warning")
        for item in app.get(kind)
        if item.value.startswith(("**Right.**", "**Close.**", "**Not quite.**"))
    ]


def feedback(app: AppTest, containing: str) -> str:
    [shown] = [text for text in feedbacks(app) if containing in text]
    return shown


@pytest.mark.slow
def test_next_and_back_walk_every_step_and_keep_it_in_the_link():
    app = open_lesson()
    assert step_shown(app) == 1 and not any(NOTICE in text for text in texts(app))
    assert len(app.get("image")) == 2  # the first training image of each digit, as written and as ink
    [sources] = [text for text in texts(app) if text.startswith("- [Dive into Deep Learning")]
    for address in (
        "https://d2l.ai/chapter_appendix-mathematics-for-deep-learning/naive-bayes.html",
        "https://inst.eecs.berkeley.edu/~cs188/",
        "https://papers.nips.cc/paper/2020-on-discriminative",
        "https://doi.org/10.1109/5.726791",
    ):
        assert f"]({address}" in sources, address
    assert "course note" in sources
    assert not [button for button in app.button if button.key in ("lesson_back_top", "lesson_back_bottom")]
    for step in range(2, N_STEPS + 1):
        app.button(key="lesson_next_top").click()
        rerun(app)
        assert step_shown(app) == step and app.query_params["lesson"] == str(step)
        assert app.get("plotly_chart") or app.get("image"), f"step {step} shows no live figure"
        assert any("Try this" in text for text in texts(app)), f"step {step} has no 'Try this'"
    assert not [button for button in app.button if button.key in ("lesson_next_top", "lesson_next_bottom")]
    for step in range(N_STEPS - 1, 0, -1):
        app.button(key="lesson_back_bottom").click()
        rerun(app)
        assert step_shown(app) == step and app.query_params["lesson"] == str(step)


@pytest.mark.slow
def test_a_link_opens_its_step_and_the_last_step_starts_again():
    app = open_lesson({"lesson": "3"})
    assert step_shown(app) == 3 and not any(NOTICE in text for text in texts(app))
    app = open_lesson({"lesson": str(N_STEPS)})
    app.button(key="lesson_restart_bottom").click()
    assert step_shown(rerun(app)) == 1 and app.query_params["lesson"] == "1"


@pytest.mark.parametrize("hostile", ["abc", "0", "12", "3.5", "<b>7</b>", "x" * 10_000])
def test_a_link_with_a_bad_step_gives_step_one_and_a_notice(hostile):
    app = open_lesson({"lesson": hostile})
    assert step_shown(app) == 1
    notices = [text for text in texts(app) if NOTICE in text]
    assert len(notices) == 1 and hostile not in notices[0].replace(f"1 to {N_STEPS}", "")  # the notice's own range
    if len(hostile) > 3:  # short values such as "10" occur in the page's own numbers
        assert not any(hostile in text for text in texts(app))
    assert app.query_params["lesson"] == "1"


def test_a_link_with_two_steps_gives_step_one_and_a_notice():
    app = open_lesson({"lesson": ["2", "3"]})
    assert step_shown(app) == 1 and any(NOTICE in text for text in texts(app))


@pytest.mark.slow
def test_the_prior_question_is_measured_for_the_sidebar_prior(mnist):
    app = open_lesson({"lesson": "2"})
    app.button(key="lesson_reveal_prior").click()  # nothing chosen yet: nothing to reveal
    rerun(app)
    assert not feedbacks(app) and any("Choose an answer first" in text for text in texts(app))
    test_share = np.bincount(mnist["test_labels"], minlength=10) / len(mnist["test_labels"])
    train_share = np.bincount(mnist["train_labels"], minlength=10) / len(mnist["train_labels"])
    expected = {
        prior: int(np.argmax(np.abs(share - test_share)))
        for prior, share in (("empirical", train_share), ("uniform", np.full(10, 0.1)))
    }
    assert expected["empirical"] != expected["uniform"]  # so the sidebar changes the right answer
    shown = reveal(app, "prior", expected["empirical"])
    assert shown.startswith("**Right.**") and f"digit {expected['empirical']} is off most" in shown
    app.radio(key="prior").set_value("uniform")
    shown = feedback(rerun(app), "is off most")
    assert shown.startswith("**Not quite.**") and f"digit {expected['uniform']} is off most" in shown


def confident_at(mnist, alpha: float) -> lesson.Confident:
    """Naive Bayes at T = 128, α = β = ``alpha``, fitted here: the test images it gives p >= 0.99."""
    train, test = (nbcore.binarize(mnist[name], 128) for name in ("train_images", "test_images"))
    model = nbcore.BernoulliNB(alpha=alpha).fit(train, mnist["train_labels"])
    return lesson.accuracy_when_confident(model.predict_proba(test), mnist["test_labels"], 0.99)


@pytest.mark.slow
def test_the_calibration_answer_follows_alpha_and_xor_grades_right_and_wrong(mnist):
    app = open_lesson({"lesson": "8"})
    at_laplace = reveal(app, "calibration", 0.99)
    sure = confident_at(mnist, 1.0)
    assert f"{sure.count:,} of 10,000 test images" in at_laplace and f"right on {sure.accuracy:.1%}" in at_laplace
    app.select_slider(key="alpha").set_value(0.01)
    app.select_slider(key="beta").set_value(0.01)
    at_light = feedback(rerun(app), "test images get p ≥ 99%")
    sure = confident_at(mnist, 0.01)
    assert f"{sure.count:,} of 10,000 test images" in at_light and f"right on {sure.accuracy:.1%}" in at_light
    assert at_light != at_laplace
    assert reveal(app, "xor", 2).startswith("**Right.** 2 of 4")
    app.button(key="lesson_again_xor").click()
    assert reveal(rerun(app), "xor", 4).startswith("**Not quite.** 2 of 4")


def accuracy_at(mnist, threshold: int, alpha: float) -> float:
    train, test = (nbcore.binarize(mnist[name], threshold) for name in ("train_images", "test_images"))
    return nbcore.BernoulliNB(alpha=alpha).fit(train, mnist["train_labels"]).score(test, mnist["test_labels"])


@pytest.mark.slow
def test_every_question_reveals_a_measured_answer(mnist):
    answers = {
        4: {"float32": "tiny"},
        5: {"alpha_zero": 1000},
        6: {"disagree": 100},
        7: {"top_half": 0.5},
        9: {"learning_curve": "naive Bayes"},
    }
    for step, questions in answers.items():
        app = open_lesson({"lesson": str(step)})
        for question, answer in questions.items():
            assert re.search(r"\d", reveal(app, question, answer))
    # the α = β = 100 answer is the model's at α = β = 100, and follows the sidebar's threshold
    app = open_lesson({"lesson": "5"})
    truth = accuracy_at(mnist, 128, 100.0)
    assert f"the test accuracy is {truth:.4f}" in reveal(app, "alpha_100", 0.85)
    app.select_slider(key="threshold").set_value(1)
    truth_at_1 = accuracy_at(mnist, 1, 100.0)
    assert truth_at_1 != truth and f"the test accuracy is {truth_at_1:.4f}" in feedback(rerun(app), "At α = β = 100")
