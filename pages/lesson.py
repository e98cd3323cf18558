"""Lesson: the lab's ideas in order, one step a screen, with questions the student answers before the truth shows.

What each step says and asks is in ``lab/lesson_steps.py``, the frame (step in the link, Back/Next, questions)
in ``lab/lesson_frame.py``. This page lays each step out: every figure is the lab's live figure for the
sidebar settings, and every revealed answer is measured now from the current models
(``nbcore.experiments.lesson``, cached in ``lab.data``), never typed in. The measured numbers are written here in
the reader's form (``lab.i18n``) before they fill the steps' translated texts.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import streamlit as st

from lab import class_model_view, class_store, classroom, display, focus, i18n, lesson_steps, model_choice
from lab import lesson_frame as frame
from lab.data import lesson_answers, mixtures, mnist, models
from lab.figures import bar_charts, class_model, digits, line_charts, notation, regions, style, styles
from lab.i18n import N_, _, pgettext
from lab.settings import SMOOTHING_STOPS, current_settings
from nbcore.classroom import Refused
from nbcore.experiments import lesson, xor
from nbcore.experiments.class_model import DEFAULT_WEIGHT
from nbcore.features import observed_region

# px, a single map's figure: the map itself over 320 px tall, what the back row of a projector room needs
LESSON_IMAGE_HEIGHT = 490
# the class prior chart's title, for the sidebar's prior
PRIOR_TITLES = {"empirical": N_("Class prior p(y) (empirical)"), "uniform": N_("Class prior p(y) (uniform)")}
# the class's models, by the names of nbcore's evaluation (nbcore's MODEL_NAMES, which stay English)
CLASS_MODEL_NAMES = {
    "mnist": N_("MNIST's model"),
    "class": N_("the class's model"),
    "mnist_plus_class": N_("MNIST + the class"),
}

settings = current_settings()
splits = mnist.splits()
result = models.evaluation(settings)
model = result.model
features = mnist.features(settings.input_form)
test_features = features.test


def prior_name(prior: str) -> str:
    """The sidebar's prior in words ("empirical prior"), in the reader's language."""
    return _(lesson_steps.PRIOR_NAMES[prior]) if prior in lesson_steps.PRIOR_NAMES else prior


# -- the steps ----------------------------------------------------------------------------------------------------------
def step_data(step: frame.Step) -> None:
    first_of_each = np.array([int(np.flatnonzero(splits.train_labels == digit)[0]) for digit in range(10)])
    raw = splits.train_images[first_of_each]
    ink = features.train[first_of_each].reshape(-1, 28, 28) * 255
    # pictures, not a chart: ten small squares wrap onto as many rows as the screen needs
    st.markdown(step.text("written"))
    st.image(
        [digits.pixel_picture(image, scale=2) for image in raw],
        caption=[str(d) for d in range(10)],
        width=56,
        alt=[_("The first training image of a {digit}, as written").format(digit=d) for d in range(10)],
    )
    st.markdown(step.text("seen", as_seen=notation.as_the_model_sees(settings.input_form)))
    st.image(
        [digits.pixel_picture(image, scale=2) for image in ink],
        caption=[str(d) for d in range(10)],
        width=56,
        alt=[_("The same {digit} as the model sees it").format(digit=d) for d in range(10)],
    )
    st.markdown(
        step.text(
            "body",
            n_train=i18n.integer(len(splits.train_labels)),
            n_test=i18n.integer(len(splits.test_labels)),
            threshold=settings.threshold,
        )
    )


def step_counting(step: frame.Step) -> None:
    prior = np.exp(model.class_log_prior_)
    st.markdown(step.text("body"))
    question = step.question("prior")
    answer = frame.ask(question)
    if answer is None:
        title = _(PRIOR_TITLES[model.prior]) if model.prior in PRIOR_TITLES else f"p(y) ({model.prior})"
        display.chart(bar_charts.class_bars(prior, title, "p(y)"), key="lesson_prior_bars")
    else:
        gap = lesson.prior_gap(model, splits.test_labels)
        display.chart(
            bar_charts.prior_against_frequency(gap.prior, gap.test_frequency, gap.most_wrong),
            key="lesson_prior_against_test",
        )
        frame.feedback(
            lesson.grade_choice(str(answer), str(gap.most_wrong)),
            frame.revealed(
                question,
                prior=prior_name(model.prior),
                digit=gap.most_wrong,
                prior_p=i18n.decimal(gap.prior[gap.most_wrong], 4),
                share=i18n.decimal(gap.test_frequency[gap.most_wrong], 4),
                gap=notation.signed(gap.gap[gap.most_wrong] * 100, 2),
                answer=answer,
                your_gap=notation.signed(gap.gap[answer] * 100, 2),
            ),
        )


def step_images(step: frame.Step) -> None:
    display.chart(
        digits.class_heatmaps(model.feature_prob_.reshape(10, 28, 28), "P(xᵢ = 1 | y)", zrange=(0, 1)),
        key="lesson_pixel_probabilities",
    )
    st.markdown(step.text("body"))


def step_logs(step: frame.Step) -> None:
    index = st.number_input(_("Test image"), 0, len(splits.test_labels) - 1, 0, key="lesson_underflow_image")
    true_label = int(splits.test_labels[index])
    pixel_terms = model.pixel_log_likelihoods(test_features[index])[true_label]
    display.chart(
        digits.single_image(
            np.exp(pixel_terms).reshape(28, 28),
            _("The 784 factors p(xᵢ | {digit}) of test image {index}").format(digit=true_label, index=index),
            value_name="p(xᵢ | y)",
            colorscale=style.PROBABILITY_SCALE,
            zrange=(0, 1),
            colorbar_title="p",
            height=LESSON_IMAGE_HEIGHT,
            hover_format=".4f",
        ),
        key="lesson_underflow_factors",
        alt=_("The probability of each pixel's value under the true digit"),
    )
    st.markdown(step.text("body"))
    question = step.question("float32")
    answer = frame.ask(question, index=index)
    if answer is not None:
        product = lesson.float32_product(model, test_features[index], true_label)
        truth = lesson.product_outcome(product)
        running = lesson.running_log10_product(model, test_features[index], true_label)
        counts = lesson_answers.underflow(settings)
        display.chart(
            line_charts.running_product(
                running,
                {
                    _("float32's smallest positive number"): math.log10(lesson.FLOAT32_SMALLEST),
                    _("float64's smallest positive number"): math.log10(lesson.FLOAT64_SMALLEST),
                },
            ),
            key="lesson_running_product",
        )
        stuck = product > 0 and running[-1] < math.log10(lesson.FLOAT32_SMALLEST)
        true_value = (
            step.text("true_tiny", exponent=i18n.decimal(running[-1], 0))
            if np.isfinite(running[-1])
            else step.text("true_zero")
        )
        frame.feedback(
            lesson.grade_choice(answer, truth),
            frame.revealed(
                question,
                index=index,
                product=repr(product),  # as the computer writes it
                true_value=true_value,
                stuck=step.text("stuck") if stuck else "",
                **{name: i18n.integer(count) for name, count in counts.items()},
            ),
        )


def step_smoothing(step: frame.Step) -> None:
    digit = st.selectbox(_("Digit"), range(10), index=2, key="lesson_smoothing_digit")
    display.chart(
        digits.single_image(
            model.feature_prob_[digit].reshape(28, 28),
            _("P(xᵢ = 1 | {digit}) at α = {alpha}, β = {beta}").format(
                digit=digit, alpha=notation.general(settings.alpha), beta=notation.general(settings.beta)
            ),
            value_name=_("probability"),
            colorscale=style.PROBABILITY_SCALE,
            zrange=(0, 1),
            colorbar_title="p",
            height=LESSON_IMAGE_HEIGHT,
            hover_format=".4f",
        ),
        key="lesson_smoothing_image",
    )
    st.markdown(step.text("body"))
    zero_question = step.question("alpha_zero")
    zero_answer = frame.ask(zero_question)
    if zero_answer is not None:
        zero = models.zero_smoothing(settings)
        truth = zero["true_class_impossible"]
        frame.feedback(
            lesson.grade_count(zero_answer, truth),
            frame.revealed(
                zero_question,
                truth=i18n.integer(truth),
                threshold=settings.threshold,
                answer=i18n.integer(zero_answer),
                all_impossible=i18n.integer(zero["all_classes_impossible"]),
                accuracy=i18n.decimal(zero["accuracy"], 4),
            ),
        )
    strongest = SMOOTHING_STOPS[-1]  # the sidebar's strongest smoothing
    stronger = dataclasses.replace(settings, alpha=strongest, beta=strongest)
    accuracy_question = step.question("alpha_100")
    settings_note = _(lesson_steps.SETTINGS_NOTE).format(
        threshold=settings.threshold,
        alpha=notation.general(settings.alpha),
        beta=notation.general(settings.beta),
        prior=prior_name(settings.prior),
    )
    accuracy_answer = frame.ask(
        accuracy_question,
        accuracy=i18n.decimal(result.test_accuracy, 4),
        settings_note=settings_note,
        strongest=notation.general(strongest),
    )
    if accuracy_answer is not None:
        truth = models.evaluation(stronger).test_accuracy
        curve = models.smoothing_curve(settings)
        marker = settings.alpha if settings.alpha == settings.beta and settings.alpha > 0 else None
        display.chart(
            line_charts.smoothing_accuracy(curve, marker),
            key="lesson_smoothing_curve",
        )
        frame.feedback(
            lesson.grade_guess(accuracy_answer, truth, close=0.01),
            frame.revealed(
                accuracy_question,
                strongest=notation.general(strongest),
                truth=i18n.decimal(truth, 4),
                change=notation.signed(truth - result.test_accuracy, 4),
                accuracy=i18n.decimal(result.test_accuracy, 4),
                error=notation.signed(accuracy_answer - truth, 3),
            ),
        )


def _test_image(index: int) -> str:
    return _("test image {index}").format(index=index)


def step_evidence(step: frame.Step) -> None:
    wrong = np.flatnonzero(result.test_predictions != splits.test_labels)
    index = int(
        st.selectbox(
            _("A test image naive Bayes gets wrong"),
            wrong[:30],
            key="lesson_evidence_image",
            format_func=_test_image,
        )
    )
    predicted, true_label = int(result.test_predictions[index]), int(splits.test_labels[index])
    evidence = model.evidence(test_features[index], predicted, true_label).reshape(28, 28)
    display.chart(
        digits.evidence_map(evidence, test_features[index].reshape(28, 28), predicted, true_label),
        key="lesson_evidence_map",
        alt=_("Evidence map of test image {index}: blue pixels speak for {predicted}, red for {true_label}").format(
            index=index, predicted=predicted, true_label=true_label
        ),
    )
    st.markdown(step.text("body", true_label=true_label, predicted=predicted))
    question = step.question("disagree")
    answer = frame.ask(question)
    if answer is not None:
        softmax = models.softmax(deskew=settings.deskew)
        rescued = lesson.bayes_wrong_softmax_right(
            result.test_predictions, softmax.test_predictions, splits.test_labels
        )
        frame.feedback(
            lesson.grade_count(answer, len(rescued)),
            frame.revealed(
                question,
                rescued=i18n.integer(len(rescued)),
                answer=i18n.integer(answer),
                wrong=i18n.integer(len(wrong)),
                softmax_accuracy=i18n.decimal(softmax.test_accuracy, 4),
            ),
        )


def step_generating(step: frame.Step) -> None:
    digit = st.selectbox(_("Digit to generate"), range(10), index=7, key="lesson_sample_digit")
    samples = model.sample(8, digit, rng=np.random.default_rng([0, digit])).reshape(8, 28, 28) * 255.0
    display.chart(
        digits.image_grid(
            samples,
            [_("sample {number}").format(number=i + 1) for i in range(8)],
            columns=4,
            zrange=(0, 255),
            height_per_row=130,
        ),
        key="lesson_samples",
        alt=_("Eight digits {digit} written by the model, every pixel drawn on its own").format(digit=digit),
    )
    st.markdown(step.text("body"))
    question = step.question("top_half")
    answer = frame.ask(question)
    if answer is not None:
        truth = lesson_answers.top_half_accuracy(settings)
        observed = observed_region("top half")
        filled, posterior = model.inpaint(test_features[0], observed)
        panels = np.stack(
            [
                np.where(observed, test_features[0], np.nan).reshape(28, 28),
                np.where(observed, np.nan, filled).reshape(28, 28),
                test_features[0].reshape(28, 28).astype(float),
            ]
        )
        display.chart(
            digits.image_grid(
                panels,
                [
                    pgettext("inpainting panel", "seen"),
                    pgettext("inpainting panel", "filled in"),
                    pgettext("inpainting panel", "truth"),
                ],
                columns=3,
                value_name=_("p(ink)"),
                zrange=(0, 1),
                height_per_row=200,
                hover_format=".3f",
            ),
            key="lesson_inpainting",
            alt=_("Test image 0: its top half, the filled-in bottom, the truth"),
        )
        frame.feedback(
            lesson.grade_guess(answer, truth, close=0.1),
            frame.revealed(
                question,
                truth=i18n.percent(truth, 1),
                answer=i18n.percent(answer),
                accuracy=i18n.percent(result.test_accuracy, 1),
                read_as=int(np.argmax(posterior)),
            ),
        )


def step_independence(step: frame.Step) -> None:
    digit = st.selectbox(_("Digit"), range(10), index=1, key="lesson_dependence_digit")
    dependence = lesson_answers.neighbour_dependence(settings.input_form, digit)
    display.chart(
        digits.difference_map(
            np.nan_to_num(dependence),
            _("Neighbours inked together, {digit}s").format(digit=digit),
            pgettext("dependence map value", "change"),
            height=LESSON_IMAGE_HEIGHT,
        ),
        key="lesson_dependence_map",
    )
    st.markdown(step.text("body"))
    xor_question = step.question("xor")
    xor_answer = frame.ask(xor_question)
    if xor_answer is not None:
        k = settings.alpha
        outcome = xor.evaluate(xor.naive_bayes(k))
        right = int(round(outcome.accuracy * len(xor.XOR_LABELS)))
        display.chart(
            regions.xor_posteriors(xor.XOR_POINTS, xor.XOR_LABELS, {_("Naive Bayes"): outcome.posterior}, height=340),
            key="lesson_xor",
        )
        frame.feedback(
            lesson.grade_choice(str(xor_answer), str(right)),
            frame.revealed(
                xor_question, right=right, k=notation.general(k), posterior=i18n.decimal(outcome.posterior[0], 2)
            ),
        )
    confident = lesson_steps.CONFIDENT
    calibration_question = step.question("calibration")
    calibration_answer = frame.ask(calibration_question, confident=i18n.percent(confident))
    if calibration_answer is not None:
        sure = lesson.accuracy_when_confident(np.exp(result.test_log_proba), splits.test_labels, confident)
        if sure.count == 0:
            st.info(step.text("none_sure", confident=i18n.percent(confident)))
        else:
            frame.feedback(
                lesson.grade_guess(calibration_answer, sure.accuracy, close=0.03),
                frame.revealed(
                    calibration_question,
                    count=i18n.integer(sure.count),
                    confident=i18n.percent(confident),
                    mean=i18n.decimal(sure.mean_confidence, 4),
                    mean_percent=i18n.percent(sure.mean_confidence, 2),
                    accuracy=i18n.percent(sure.accuracy, 1),
                    answer=i18n.percent(calibration_answer),
                ),
            )


def step_versus_softmax(step: frame.Step) -> None:
    bayes_curve = models.bernoulli_learning_curve(settings)
    smallest = lesson_steps.FEW_IMAGES
    question = step.question("learning_curve")
    answer = frame.ask(question, size=i18n.integer(smallest))
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
        accuracy = lesson.mean_accuracy_at(bayes_curve["sizes"], curves, smallest)
        winner = max(accuracy, key=accuracy.get)
        full_size = int(bayes_curve["sizes"][-1])
        full = lesson.mean_accuracy_at(bayes_curve["sizes"], curves, full_size)
        frame.feedback(
            lesson.grade_choice(answer, winner),
            frame.revealed(
                question,
                size=i18n.integer(smallest),
                winner=question.show(winner),
                bayes=i18n.decimal(accuracy["naive Bayes"], 3),
                softmax=i18n.decimal(accuracy["softmax regression"], 3),
                seeds=i18n.integer(bayes_curve["naive Bayes"].shape[1]),
                full_size=i18n.integer(full_size),
                bayes_full=i18n.decimal(full["naive Bayes"], 3),
                softmax_full=i18n.decimal(full["softmax regression"], 3),
            ),
        )


def step_styles(step: frame.Step) -> None:
    digit, components = lesson_steps.STYLES_DIGIT, lesson_steps.STYLES_PER_DIGIT
    display.chart(
        digits.single_image(
            model.feature_prob_[digit].reshape(28, 28),
            _("Naive Bayes' one picture of {digit}: P(xᵢ = 1 | {digit})").format(digit=digit),
            value_name=_("probability"),
            colorscale="gray",
            zrange=(0, 1),
            colorbar_title="p",
            height=LESSON_IMAGE_HEIGHT,
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
    labels = dict(asked.shown_as)

    def shown(option: str) -> str:
        """The option's words with the accuracies measured now, for the sidebar's settings."""
        return _(labels[option]).format(**written)

    question = dataclasses.replace(asked, shown_as=shown)
    answer = frame.ask(question, components=i18n.integer(components))
    if answer is None:
        return
    mixture = mixtures.model(settings, components)  # the prepared curve's at the textbook's settings
    measured_mixture = mixtures.scores(settings, components)
    index = int(np.flatnonzero(mixture.classes_ == digit)[0])
    display.chart(
        styles.style_maps(mixture.feature_prob_[index], mixture.component_weights_[index], digit),
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
    frame.feedback(
        lesson.grade_choice(
            str(answer), lesson.accuracy_band(measured_mixture.test_accuracy, measured["bayes"], measured["softmax"])
        ),
        frame.revealed(
            question,
            components=i18n.integer(components),
            digit=digit,
            mixture=i18n.percent(measured_mixture.test_accuracy, 2),
            iterations=i18n.integer(measured_mixture.n_iter),
            **written,
        ),
    )


def step_class_model(step: frame.Step) -> None:
    st.markdown(step.text("body"))
    mnist_prob = models.model(class_store.class_model_settings(settings)).feature_prob_
    if taking is None:
        st.info(step.text("alone"), icon=":material/groups:")
        display.chart(
            digits.class_heatmaps(mnist_prob.reshape(10, 28, 28), _("P(xᵢ = 1 | y), MNIST's model"), zrange=(0, 1)),
            key="lesson_class_model_mnist",
        )
        return
    try:
        snapshot = class_store.class_snapshot(taking.code)
    except Refused as refused:
        st.warning(str(refused), icon=":material/cloud_off:")
        return
    evaluation = class_store.class_evaluation(snapshot, class_store.class_model_settings(settings), DEFAULT_WEIGHT)
    scores = {name: score.accuracy for name, score in evaluation.models.items()}
    if any(accuracy is None for accuracy in scores.values()):  # too few drawings, or one student
        st.info(
            class_model_view.shortage_sentence(evaluation.shortage)
            if evaluation.shortage is not None
            else step.text("alone"),
            icon=":material/hourglass_empty:",
        )
        return
    question = step.question("class_model")
    answer = frame.ask(question)
    display.chart(
        class_model.probability_pairs(evaluation.class_feature_prob, mnist_prob, evaluation.drawings_per_digit),
        key="lesson_class_model_pairs",
    )
    if answer is None:
        return
    display.chart(
        bar_charts.accuracy_bars(
            {_(CLASS_MODEL_NAMES.get(name, name)): float(accuracy) for name, accuracy in scores.items()},
            _("Read right"),
        ),
        key="lesson_class_model_bars",
    )
    best = max(scores, key=lambda name: float(scores[name]))
    frame.feedback(
        lesson.grade_choice(answer, best),
        frame.revealed(
            question,
            drawings=i18n.integer(int(evaluation.drawings_per_digit.sum())),
            students=i18n.integer(evaluation.students),
            mnist=i18n.percent(scores["mnist"]),
            own=i18n.percent(scores["class"]),
            both=i18n.percent(scores["mnist_plus_class"]),
            weight=notation.general(evaluation.weight),
        ),
    )


def source_line(reference: str) -> str:
    """One source of the lesson's list, in the reader's language, with a capital letter (the course note's too)."""
    text = _(reference)
    return text[:1].upper() + text[1:]


LAYOUTS = (
    step_data,
    step_counting,
    step_images,
    step_logs,
    step_smoothing,
    step_evidence,
    step_generating,
    step_independence,
    step_versus_softmax,
    step_styles,
    step_class_model,
)
STEPS = lesson_steps.STEPS

st.title(_(lesson_steps.TITLE))
taking = classroom.lesson_class()  # through a class's link: answers go to the class, the teacher reveals
frame.take_part(taking)
current = frame.keep_pace(frame.requested_step(len(STEPS)))
teaching = classroom.teacher_class()
if teaching is not None:
    frame.class_answers_download(teaching.info.code, teaching.info.period)
frame.navigation(current, len(STEPS), "top")
st.progress(current / len(STEPS))
step = STEPS[current - 1]
st.header(f"{current}. {step.heading()}")
LAYOUTS[current - 1](step)
frame.follow_up(step)
st.divider()
frame.navigation(current, len(STEPS), "bottom")
with st.expander(_("All sources of this lesson")):
    st.markdown("\n".join(f"- {source_line(reference)}" for reference in lesson_steps.ALL_SOURCES))
focus.apply("nb_focus_lesson")  # after Reveal, Send my answer, Start again: the focus where the control was
