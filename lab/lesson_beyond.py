"""The guided lesson's last three steps, where naive Bayes meets models that do better: softmax regression (the
learning curves), a mixture of styles per digit, a model of a class's own drawings. Laid out as the page's other
steps (``pages/lesson.py``), with what only these need: softmax's curve trained on demand, a mixture's fit or
prepared curve (and settings it cannot take), the class store (refused, or too few drawings).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import streamlit as st

from lab import class_model_view, display, i18n, model_choice
from lab import lesson_questions as questions
from lab.data import class_models, mixtures, models
from lab.figures import bar_charts, digits, line_charts, notation
from lab.figures import class_model as class_model_figures
from lab.figures import styles as style_figures
from lab.i18n import N_, _
from lab.lesson_frame import IMAGE_HEIGHT, Step
from lab.lesson_polls import LessonClass
from lab.lesson_steps_limits import FEW_IMAGES, STYLES_DIGIT, STYLES_PER_DIGIT
from lab.settings import Settings
from nbcore.classroom import Refused
from nbcore.experiments import lesson
from nbcore.experiments.class_model import DEFAULT_WEIGHT
from nbcore.experiments.evaluate import BernoulliScores

# the class's models, by the names of nbcore's evaluation (nbcore's MODEL_NAMES, which stay English)
CLASS_MODEL_NAMES = {
    "mnist": N_("MNIST's model"),
    "class": N_("the class's model"),
    "mnist_plus_class": N_("MNIST + the class"),
}


def versus_softmax(step: Step, settings: Settings) -> None:
    """Step 9: naive Bayes' learning curve, then (asked first) softmax regression's beside it, and which is ahead
    with few training images and with all of them."""
    bayes_curve = models.bernoulli_learning_curve(settings)
    smallest = FEW_IMAGES
    question = step.question("learning_curve")
    answer = questions.ask(question, size=i18n.integer(smallest))
    # by the models' keys (the question's option values); named in the reader's language on the chart
    curves = {"naive Bayes": bayes_curve["naive Bayes"]}
    if answer is not None:
        softmax_curve = models.softmax_learning_curve(settings.deskew)
        curves["softmax regression"] = softmax_curve["softmax regression"]
    display.chart(
        line_charts.learning_curves(
            bayes_curve["sizes"], {question.show(name): curve for name, curve in curves.items()}
        ),
        key="lesson_learning_curves",
    )
    st.markdown(step.text("body"))
    if answer is not None:
        race = lesson.race(bayes_curve["sizes"], curves, smallest)
        questions.feedback(
            lesson.grade_choice(answer, race.winner),
            questions.revealed(
                question,
                size=i18n.integer(smallest),
                winner=question.show(race.winner),
                bayes=i18n.decimal(race.at_size["naive Bayes"], 3),
                softmax=i18n.decimal(race.at_size["softmax regression"], 3),
                seeds=i18n.integer(race.seeds),
                full_size=i18n.integer(race.full_size),
                bayes_full=i18n.decimal(race.at_full["naive Bayes"], 3),
                softmax_full=i18n.decimal(race.at_full["softmax regression"], 3),
            ),
        )


def styles(step: Step, settings: Settings, result: BernoulliScores) -> None:
    """Step 10: naive Bayes' one picture of a digit, then (asked first) the styles a mixture learns and its accuracy
    against naive Bayes' and softmax regression's, for the sidebar's settings."""
    model = result.model
    digit, components = STYLES_DIGIT, STYLES_PER_DIGIT
    display.chart(
        digits.single_image(
            model.feature_prob_[digit].reshape(28, 28),
            _("Naive Bayes' one picture of {digit}: P(xᵢ = 1 | {digit})").format(digit=digit),
            value_name=_("probability"),
            colorscale="gray",
            zrange=(0, 1),
            colorbar_title="p",
            height=IMAGE_HEIGHT,
            hover_format=".3f",
        ),
        key="lesson_styles_naive",
    )
    st.markdown(step.text("body", digit=digit))
    if not mixtures.supported(settings):
        st.info(_(model_choice.NEEDS_SMOOTHING), icon=":material/info:")
        return
    softmax = models.softmax(deskew=settings.deskew)
    measured = {"bayes": result.test_accuracy, "softmax": softmax.test_accuracy}
    written = {name: i18n.percent(accuracy, 2) for name, accuracy in measured.items()}
    asked = step.question("styles")
    labels = asked.shown_as  # the options' templates (lab/lesson_steps_limits.py)
    assert isinstance(labels, Mapping)

    def shown(option: str) -> str:
        """The option's words with the accuracies measured now, for the sidebar's settings."""
        return _(labels[option]).format(**written)

    question = dataclasses.replace(asked, shown_as=shown)
    answer = questions.ask(question, components=i18n.integer(components))
    if answer is None:
        return
    mixture = mixtures.model(settings, components)  # the prepared curve's at the textbook's settings
    measured_mixture = mixtures.scores(settings, components)
    display.chart(
        style_figures.style_maps(*lesson.digit_styles(mixture, digit), digit),
        key="lesson_styles_maps",
        alt=_(
            "The {components} styles of {digit} the mixture learned, each a picture of P(xᵢ = 1 | {digit}, k)"
        ).format(components=i18n.integer(components), digit=digit),
    )
    mixture_name, softmax_name = _("mixture of styles"), _("softmax regression")
    if mixtures.curve_ready(settings):  # every K of the curve; else the three models alone (no fit of every K)
        curve = mixtures.curve(settings)
        accuracy_chart = line_charts.curves(
            curve.components,
            {mixture_name: curve.test_accuracy},
            _("styles per digit K"),
            _("test accuracy"),
            _("Test accuracy by styles per digit (K = 1 is naive Bayes)"),
            log_x=True,
            tick_every_x=True,
            marked={mixture_name: components},
            references={softmax_name: softmax.test_accuracy},
        )
    else:
        accuracy_chart = bar_charts.accuracy_bars(
            {
                _("naive Bayes"): measured["bayes"],
                _("mixture, K = {k}").format(k=i18n.integer(components)): measured_mixture.test_accuracy,
                softmax_name: measured["softmax"],
            },
            _("Test accuracy"),
        )
    display.chart(accuracy_chart, key="lesson_styles_accuracy")
    questions.feedback(
        lesson.grade_choice(
            str(answer), lesson.accuracy_band(measured_mixture.test_accuracy, measured["bayes"], measured["softmax"])
        ),
        questions.revealed(
            question,
            components=i18n.integer(components),
            digit=digit,
            mixture=i18n.percent(measured_mixture.test_accuracy, 2),
            iterations=i18n.integer(measured_mixture.n_iter),
            **written,
        ),
    )


def class_model(step: Step, settings: Settings, taking: LessonClass | None) -> None:
    """Step 11: MNIST's model, and (taken as a class, asked first) how it, the class's own model and both together
    read the class's drawings, each student's read by models that never saw that student."""
    st.markdown(step.text("body"))
    mnist_prob = models.model(class_models.class_model_settings(settings)).feature_prob_
    if taking is None:
        st.info(step.text("alone"), icon=":material/groups:")
        display.chart(
            digits.class_heatmaps(mnist_prob.reshape(10, 28, 28), _("P(xᵢ = 1 | y), MNIST's model"), zrange=(0, 1)),
            key="lesson_class_model_mnist",
        )
        return
    try:
        snapshot = class_models.class_snapshot(taking.code)
    except Refused as refused:
        st.warning(str(refused), icon=":material/cloud_off:")
        return
    evaluation = class_models.class_evaluation(snapshot, class_models.class_model_settings(settings), DEFAULT_WEIGHT)
    scores = lesson.class_model_accuracies(evaluation)
    if scores is None:  # too few drawings, or one student
        st.info(
            class_model_view.shortage_sentence(evaluation.shortage)
            if evaluation.shortage is not None
            else step.text("alone"),
            icon=":material/hourglass_empty:",
        )
        return
    question = step.question("class_model")
    answer = questions.ask(question)
    display.chart(
        class_model_figures.probability_pairs(evaluation.class_feature_prob, mnist_prob, evaluation.drawings_per_digit),
        key="lesson_class_model_pairs",
    )
    if answer is None:
        return
    display.chart(
        bar_charts.accuracy_bars(
            {_(CLASS_MODEL_NAMES.get(name, name)): accuracy for name, accuracy in scores.items()},
            _("Read right"),
        ),
        key="lesson_class_model_bars",
    )
    questions.feedback(
        lesson.grade_choice(answer, lesson.best(scores)),
        questions.revealed(
            question,
            drawings=i18n.integer(evaluation.drawings),
            students=i18n.integer(evaluation.students),
            mnist=i18n.percent(scores["mnist"]),
            own=i18n.percent(scores["class"]),
            both=i18n.percent(scores["mnist_plus_class"]),
            weight=notation.general(evaluation.weight),
        ),
    )
