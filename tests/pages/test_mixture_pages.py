"""The mixture of styles on the pages that show naive Bayes: Samples and Inpainting (``?model=mixture&components=K``),
Compare's table, and the lesson's styles step (its question measured from the prepared curve, and taken by a class).

Every expected number is the page's model's own (``lab.data.mixtures``: the curve ``python -m nbcore prepare`` kept,
else fitted once), so the checks are that the page shows that model and its measured figures, not typed-in ones.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lab import lesson_steps, lesson_steps_limits, link_names, model_choice, model_settings
from lab.data import class_store, mixtures, mnist, models
from nbcore.experiments import lesson
from nbcore.features import observed_region
from tests.apptest import open_page, rerun
from tests.pages.test_pages_agree import array, figure, text_with, tiles

pytestmark = pytest.mark.usefixtures("data_dir", "class_store_file", "prepared_mixtures")

MIXTURE = {"model": "mixture", "components": "20"}
STYLES_STEP = str(lesson_steps.STEPS.index(lesson_steps_limits.STYLES) + 1)
TEXTBOOK = model_settings.TEXTBOOK
SMOOTHING_WARNING = "needs α and β above 0"


def textbook_mixture(components: int):
    """The mixture the pages show at the textbook settings (the prepared curve's)."""
    return mixtures.curve.result(TEXTBOOK).models[components]


def link_notices(app: AppTest) -> list[str]:
    return [toast.value for toast in app.toast if "could not be used" in toast.value]


def mean_map(app: AppTest) -> np.ndarray:
    return array(figure(app, "samples_mean")["data"][0]["z"]).reshape(28, 28)


# -- Samples -----------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_samples_from_a_link_show_the_mixture_its_mean_image_and_its_words():
    app = open_page("pages/samples.py", MIXTURE)
    assert not link_notices(app) and not app.warning
    assert app.radio(key=model_choice.MODEL_KEY).value == "mixture"
    assert app.slider(key=model_choice.COMPONENTS_KEY).value == 20
    mixture = textbook_mixture(20)
    digit = app.selectbox(key="samples_digit").value
    np.testing.assert_allclose(mean_map(app), mixture.class_feature_prob_[digit].reshape(28, 28), rtol=1e-12)
    generated = tiles(figure(app, "samples_generated"), 8)
    expected = mixture.sample(8, digit, rng=np.random.default_rng([0, digit])).reshape(8, 28, 28) * 255
    np.testing.assert_array_equal(generated, expected)
    assert "(20 per digit)" in text_with(app, "generative", kinds=("markdown",))
    explanation = text_with(app, "speckle", kinds=("info",))
    assert "picks a style" in explanation and "naive inside each style" in explanation

    app.radio(key=model_choice.MODEL_KEY).set_value("naive")
    rerun(app)
    np.testing.assert_allclose(mean_map(app), models.model(TEXTBOOK).feature_prob_[digit].reshape(28, 28))
    assert "noise sprinkled on a blurry digit" in text_with(app, "Why the samples", kinds=("info",))
    assert not [slider for slider in app.slider if slider.key == model_choice.COMPONENTS_KEY]  # K only with styles


@pytest.mark.parametrize(
    "query, label",
    [
        ({"model": "evil"}, "Model"),
        ({"model": "<script>alert(1)</script>", "components": "20"}, "Model"),
        ({"model": "mixture", "components": "0"}, "Styles per digit K"),
        ({"model": "mixture", "components": "1e9"}, "Styles per digit K"),
    ],
)
def test_a_forged_model_or_component_count_gives_the_link_notice_and_the_default(query, label):
    app = open_page("pages/samples.py", query)
    [notice] = link_notices(app)
    assert f"“{label}”" in notice and "script" not in notice and "1e9" not in notice
    if query["model"] == "mixture":
        assert app.slider(key=model_choice.COMPONENTS_KEY).value == link_names.DEFAULT_COMPONENTS
    else:
        assert app.radio(key=model_choice.MODEL_KEY).value == "naive"


def test_at_alpha_zero_the_mixture_warns_and_naive_bayes_is_shown():
    unsmoothed = dataclasses.replace(TEXTBOOK, alpha=0.0)
    app = open_page("pages/samples.py", {**MIXTURE, "alpha": "0"})
    [warning] = [item.value for item in app.warning]
    assert SMOOTHING_WARNING in warning and "Naive Bayes is shown" in warning
    digit = app.selectbox(key="samples_digit").value
    np.testing.assert_allclose(mean_map(app), models.model(unsmoothed).feature_prob_[digit].reshape(28, 28))
    assert "noise sprinkled on a blurry digit" in text_with(app, "Why the samples", kinds=("info",))
    inpainting = open_page("pages/inpainting.py", {**MIXTURE, "beta": "0"})
    assert any(SMOOTHING_WARNING in item.value for item in inpainting.warning)


# -- Inpainting ----------------------------------------------------------------------------------------------------
def test_inpainting_from_a_link_fills_in_from_the_styles(mnist):
    app = open_page("pages/inpainting.py", MIXTURE)
    assert not link_notices(app) and not app.warning
    mixture = textbook_mixture(20)
    features = TEXTBOOK.input_form.features(mnist["test_images"][:1])[0]
    observed = observed_region("top half")
    filled, posterior = mixture.inpaint(features, observed)
    _, completed, real = tiles(figure(app, "inpaint_panels"), 3)
    np.testing.assert_allclose(completed.reshape(-1), np.where(observed, features, filled), rtol=1e-12)
    np.testing.assert_array_equal(real.reshape(-1), features)
    np.testing.assert_allclose(array(figure(app, "inpaint_posterior")["data"][0]["y"]), posterior, rtol=1e-12)
    caption = text_with(app, "pixels observed", kinds=("caption",))
    assert f"Most likely digit from them alone: {int(np.argmax(posterior))} " in caption
    assert "mixture of 20 styles per digit" in caption
    assert "p(y, k | seen)" in text_with(app, "Show the model part", kinds=("markdown",))
    # sharper than naive Bayes: the filled-in half is nearer 0 or 1 on average
    naive_filled, _ = models.model(TEXTBOOK).inpaint(features, observed)
    hidden = ~observed
    assert np.abs(filled[hidden] - 0.5).mean() > np.abs(naive_filled[hidden] - 0.5).mean()


def test_inpainting_forged_model_gives_the_notice_and_naive_bayes():
    app = open_page("pages/inpainting.py", {"model": "evil", "components": "-3"})
    [notice] = link_notices(app)
    assert "“Model”" in notice
    assert app.radio(key=model_choice.MODEL_KEY).value == "naive"
    assert "mixture" not in text_with(app, "pixels observed", kinds=("caption",))


# -- Compare -------------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_compare_has_the_mixture_column_from_the_curve_and_a_sentence_at_alpha_zero():
    app = open_page("pages/compare.py")
    table = app.table[0].value
    curve = mixtures.curve.result(TEXTBOOK)
    at = curve.components.index(10)
    [column] = [name for name in table.columns if str(name).startswith("Mixture of styles")]
    assert list(table.columns).index(column) == 3  # after naive Bayes and softmax regression
    shown = table[column].tolist()
    assert shown[1] == f"{curve.test_accuracy[at]:.4f}"
    assert shown[2].startswith(f"{curve.mean_test_loglik[at]:.2f} ") and "log p(x | y)" in shown[2]
    assert shown[3] == f"{int(curve.n_iter[at])} EM iterations"
    said = text_with(app, "ways of writing each digit", kinds=("caption",))
    assert f"{curve.test_accuracy[at]:.2%}" in said and f"{curve.mean_test_loglik[0]:.2f}" in said

    unsmoothed = open_page("pages/compare.py", {"alpha": "0"})
    assert not [name for name in unsmoothed.table[0].value.columns if str(name).startswith("Mixture")]
    assert any(SMOOTHING_WARNING in item.value for item in unsmoothed.info)


# -- the lesson's styles step ----------------------------------------------------------------------------------------
def styles_truth() -> tuple[str, float]:
    """The band of the mixture's K = 10 accuracy against naive Bayes' and softmax regression's, and the accuracy."""
    curve = mixtures.curve.result(TEXTBOOK)
    accuracy = float(curve.test_accuracy[curve.components.index(lesson_steps_limits.STYLES_PER_DIGIT)])
    softmax = models.softmax(deskew=False).test_accuracy
    return lesson.accuracy_band(accuracy, models.evaluation(TEXTBOOK).test_accuracy, softmax), accuracy


def feedback_texts(app: AppTest) -> list[str]:
    return [
        item.value
        for kind in ("success", "warning")
        for item in app.get(kind)
        if item.value.startswith(("**Right.**", "**Not quite.**"))
    ]


def test_the_styles_step_asks_with_measured_options_and_reveals_the_curve():
    app = open_page("pages/lesson.py", {"lesson": STYLES_STEP})
    assert any(item.value == f"{STYLES_STEP}. How many ways to write a 7?" for item in app.header)
    radio = app.radio(key="lesson_answer_styles")
    bayes, softmax = models.evaluation(TEXTBOOK).test_accuracy, models.softmax(deskew=False).test_accuracy
    labels = radio.options  # as shown
    assert f"{bayes:.2%}" in labels[0] and f"{softmax:.2%}" in labels[1] and f"{softmax:.2%}" in labels[2]
    truth, accuracy = styles_truth()
    wrong = next(option for option in lesson.ACCURACY_BANDS if option != truth)
    radio.set_value(wrong)
    app.button(key="lesson_reveal_styles").click()
    rerun(app)
    [said] = feedback_texts(app)
    assert said.startswith("**Not quite.**") and f"the mixture reads {accuracy:.2%}" in said
    assert figure(app, "lesson_styles_maps") and figure(app, "lesson_styles_accuracy")
    style_pictures = tiles(figure(app, "lesson_styles_maps"), lesson_steps_limits.STYLES_PER_DIGIT)
    mixture = textbook_mixture(lesson_steps_limits.STYLES_PER_DIGIT)
    np.testing.assert_allclose(  # the heaviest style first
        style_pictures[0], mixture.feature_prob_[7, np.argmax(mixture.component_weights_[7])].reshape(28, 28)
    )
    app.button(key="lesson_again_styles").click()
    rerun(app).radio(key="lesson_answer_styles").set_value(truth)
    app.button(key="lesson_reveal_styles").click()
    [said] = feedback_texts(rerun(app))
    assert said.startswith("**Right.**")


def test_the_styles_step_without_smoothing_says_why_and_asks_nothing():
    app = open_page("pages/lesson.py", {"lesson": STYLES_STEP, "alpha": "0"})
    assert any(SMOOTHING_WARNING in item.value for item in app.info)
    assert not [radio for radio in app.radio if radio.key == "lesson_answer_styles"]
    assert app.get("plotly_chart")  # naive Bayes' one picture of a 7 still shows


@pytest.mark.slow
def test_a_class_answers_the_styles_question_and_the_teacher_reveals():
    made = class_store.class_store().create_class()
    code, key = made.info.code, made.teacher_key
    truth, accuracy = styles_truth()
    for who, choice in ((1, "between"), (2, "upper"), (3, "upper")):
        learner = open_page(
            "pages/lesson.py", {"class": code, "lesson": STYLES_STEP}, browser_memory_student={"value": f"{who:032x}"}
        )
        learner.radio(key="lesson_answer_styles").set_value(choice)
        learner.button(key="lesson_reveal_styles").click()
        rerun(learner)
        assert not feedback_texts(learner)  # waits for the teacher
    assert class_store.class_store().tally(code, "styles").counted == {"between": 1, "upper": 2}
    teacher = open_page("pages/lesson.py", {"class": code, "key": key, "lesson": STYLES_STEP})
    teacher.button(key="lesson_reveal_class_styles").click()
    rerun(teacher)
    [said] = feedback_texts(teacher)
    assert f"the mixture reads {accuracy:.2%}" in said
    assert said.startswith("**Right.**" if truth == "upper" else "**Not quite.**")  # the class's most common answer
    assert feedback_texts(rerun(learner))  # the reveal reaches the students


@pytest.mark.slow
def test_compare_fits_the_mixture_at_unprepared_settings_only_when_asked(mixture_fits):
    """At a threshold nothing prepared, Compare offers the fit and starts none; its button fits K = 10 (and K = 1,
    which the caption compares with) once, then the column is nbcore's fit scored on the test images."""
    fits = mixture_fits
    query = {"threshold": "192"}
    app = open_page("pages/compare.py", query)
    assert fits == [] and not [name for name in app.table[0].value.columns if str(name).startswith("Mixture")]
    next(button for button in app.button if button.key == "compare_fit_mixture").click()
    rerun(app)
    assert sorted(fits) == [1, 10]
    at_192 = dataclasses.replace(TEXTBOOK, threshold=192)
    model = mixtures.model(at_192, 10)
    features = mnist.features(at_192.input_form)
    accuracy = model.score(features.test, mnist.loaded().test_labels)
    [column] = [name for name in app.table[0].value.columns if str(name).startswith("Mixture of styles")]
    assert app.table[0].value[column].tolist()[1] == f"{accuracy:.4f}"
    rerun(open_page("pages/compare.py", query))  # made once for the server: shown again without a fit
    assert sorted(fits) == [1, 10]
