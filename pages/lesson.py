"""Lesson: the lab's ideas in order, one step a screen, with questions the student answers before the truth shows.

What each step says and asks is in ``lab/lesson_steps.py`` (and its parts), the frame (step in the link, Back/Next)
in ``lab/lesson_frame.py``, the questions in ``lab/lesson_questions.py``, a class's pace and polls in
``lab/lesson_pace.py`` and ``lab/lesson_polls.py``. This page lays each step out (the last two, which reach past
MNIST's naive Bayes, in ``lab/lesson_beyond.py``): every figure is the lab's live figure for the sidebar settings,
and every revealed answer is measured now from the current models (``nbcore.experiments.lesson``, cached in
``lab.data``), never typed in. The measured numbers are written here in the reader's form (``lab.i18n``) before
they fill the steps' translated texts.
"""

from __future__ import annotations

import streamlit as st

from lab import (
    classroom,
    display,
    focus,
    i18n,
    lesson_beyond,
    lesson_pace,
    lesson_polls,
    lesson_sources,
    lesson_steps,
    lesson_steps_limits,
    lesson_steps_model,
    shell,
)
from lab import lesson_frame as frame
from lab import lesson_questions as questions
from lab.data import lesson_answers, mnist, models
from lab.figures import bar_charts, digits, line_charts, notation, regions, style
from lab.i18n import N_, _, pgettext
from lab.model_settings import SMOOTHING_STOPS, prior_phrase
from lab.settings import current_settings
from nbcore.experiments import lesson, xor
from nbcore.features import observed_region

# the class prior chart's title, for the sidebar's prior
PRIOR_TITLES = {"empirical": N_("Class prior p(y) (empirical)"), "uniform": N_("Class prior p(y) (uniform)")}

settings = current_settings()
splits = mnist.splits()
result = models.evaluation(settings)
model = result.model
features = mnist.features(settings.input_form)
test_features = features.test


# -- the steps ----------------------------------------------------------------------------------------------------------
def step_data(step: frame.Step) -> None:
    raw, ink = lesson_answers.first_of_each_digit(settings.input_form)
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
    st.markdown(step.text("body"))
    question = step.question("prior")
    answer = questions.ask(question)
    if answer is None:
        title = _(PRIOR_TITLES[model.prior]) if model.prior in PRIOR_TITLES else f"p(y) ({model.prior})"
        display.chart(bar_charts.class_bars(lesson.class_prior(model), title, "p(y)"), key="lesson_prior_bars")
    else:
        gap = lesson.prior_gap(model, splits.test_labels)
        display.chart(
            bar_charts.prior_against_frequency(gap.prior, gap.test_frequency, gap.most_wrong),
            key="lesson_prior_against_test",
        )
        questions.feedback(
            lesson.grade_choice(str(answer), str(gap.most_wrong)),
            questions.revealed(
                question,
                prior=prior_phrase(model.prior),
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
    product = lesson.image_product(model, test_features[index], true_label)
    display.chart(
        digits.single_image(
            product.factors.reshape(28, 28),
            _("The 784 factors p(xᵢ | {digit}) of test image {index}").format(digit=true_label, index=index),
            value_name="p(xᵢ | y)",
            colorscale=style.PROBABILITY_SCALE,
            zrange=(0, 1),
            colorbar_title="p",
            height=frame.IMAGE_HEIGHT,
            hover_format=".4f",
        ),
        key="lesson_underflow_factors",
        alt=_("The probability of each pixel's value under the true digit"),
    )
    st.markdown(step.text("body"))
    question = step.question("float32")
    answer = questions.ask(question, index=index)
    if answer is not None:
        counts = lesson_answers.underflow(settings)
        display.chart(
            line_charts.running_product(
                product.running_log10,
                {
                    _("float32's smallest positive number"): lesson.LOG10_FLOAT32_SMALLEST,
                    _("float64's smallest positive number"): lesson.LOG10_FLOAT64_SMALLEST,
                },
            ),
            key="lesson_running_product",
        )
        true_value = (
            step.text("true_zero")
            if product.true_is_zero
            else step.text("true_tiny", exponent=i18n.decimal(product.true_log10, 0))
        )
        questions.feedback(
            lesson.grade_choice(answer, product.outcome),
            questions.revealed(
                question,
                index=index,
                product=repr(product.float32),  # as the computer writes it
                true_value=true_value,
                stuck=step.text("stuck") if product.stuck else "",
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
            height=frame.IMAGE_HEIGHT,
            hover_format=".4f",
        ),
        key="lesson_smoothing_image",
    )
    st.markdown(step.text("body"))
    zero_question = step.question("alpha_zero")
    zero_answer = questions.ask(zero_question)
    if zero_answer is not None:
        zero = models.zero_smoothing(settings)
        truth = zero["true_class_impossible"]
        questions.feedback(
            lesson.grade_count(zero_answer, truth),
            questions.revealed(
                zero_question,
                truth=i18n.integer(truth),
                threshold=settings.threshold,
                answer=i18n.integer(zero_answer),
                all_impossible=i18n.integer(zero["all_classes_impossible"]),
                accuracy=i18n.decimal(zero["accuracy"], 4),
            ),
        )
    strongest = SMOOTHING_STOPS[-1]  # the sidebar's strongest smoothing
    accuracy_question = step.question("alpha_100")
    settings_note = _(lesson_steps_model.SETTINGS_NOTE).format(
        threshold=settings.threshold,
        alpha=notation.general(settings.alpha),
        beta=notation.general(settings.beta),
        prior=prior_phrase(settings.prior),
    )
    accuracy_answer = questions.ask(
        accuracy_question,
        accuracy=i18n.decimal(result.test_accuracy, 4),
        settings_note=settings_note,
        strongest=notation.general(strongest),
    )
    if accuracy_answer is not None:
        truth = lesson_answers.strongest_smoothing_accuracy(settings)
        curve = models.smoothing_curve(settings)
        marker = settings.alpha if settings.alpha == settings.beta and settings.alpha > 0 else None
        display.chart(
            line_charts.smoothing_accuracy(curve, marker),
            key="lesson_smoothing_curve",
        )
        questions.feedback(
            lesson.grade_guess(accuracy_answer, truth, close=0.01),
            questions.revealed(
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
    wrong = lesson.wrong_images(result.test_predictions, splits.test_labels)
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
    answer = questions.ask(question)
    if answer is not None:
        rescued = lesson_answers.rescued_by_softmax(settings)
        softmax = models.softmax(deskew=settings.deskew)
        questions.feedback(
            lesson.grade_count(answer, rescued),
            questions.revealed(
                question,
                rescued=i18n.integer(rescued),
                answer=i18n.integer(answer),
                wrong=i18n.integer(len(wrong)),
                softmax_accuracy=i18n.decimal(softmax.test_accuracy, 4),
            ),
        )


def step_generating(step: frame.Step) -> None:
    digit = st.selectbox(_("Digit to generate"), range(10), index=7, key="lesson_sample_digit")
    display.chart(
        digits.image_grid(
            lesson.written_digits(model, digit, 8),
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
    answer = questions.ask(question)
    if answer is not None:
        truth = lesson_answers.top_half_accuracy(settings)
        filled = lesson.inpainted(model, test_features[0], observed_region("top half"))
        display.chart(
            digits.image_grid(
                filled.panels,
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
        questions.feedback(
            lesson.grade_guess(answer, truth, close=0.1),
            questions.revealed(
                question,
                truth=i18n.percent(truth, 1),
                answer=i18n.percent(answer),
                accuracy=i18n.percent(result.test_accuracy, 1),
                read_as=filled.read_as,
            ),
        )


def step_independence(step: frame.Step) -> None:
    digit = st.selectbox(_("Digit"), range(10), index=1, key="lesson_dependence_digit")
    dependence = lesson_answers.neighbour_dependence(settings.input_form, digit)
    display.chart(
        digits.difference_map(
            dependence,
            _("Neighbours inked together, {digit}s").format(digit=digit),
            pgettext("dependence map value", "change"),
            height=frame.IMAGE_HEIGHT,
        ),
        key="lesson_dependence_map",
    )
    st.markdown(step.text("body"))
    xor_question = step.question("xor")
    xor_answer = questions.ask(xor_question)
    if xor_answer is not None:
        k = settings.alpha
        outcome = xor.evaluate(xor.naive_bayes(k))
        display.chart(
            regions.xor_posteriors(xor.XOR_POINTS, xor.XOR_LABELS, {_("Naive Bayes"): outcome.posterior}, height=340),
            key="lesson_xor",
        )
        questions.feedback(
            lesson.grade_choice(str(xor_answer), str(outcome.right)),
            questions.revealed(
                xor_question,
                right=outcome.right,
                k=notation.general(k),
                posterior=i18n.decimal(outcome.posterior[0], 2),
            ),
        )
    confident = lesson_steps_limits.CONFIDENT
    calibration_question = step.question("calibration")
    calibration_answer = questions.ask(calibration_question, confident=i18n.percent(confident))
    if calibration_answer is not None:
        sure = lesson_answers.confident(settings, confident)
        if sure.count == 0:
            st.info(step.text("none_sure", confident=i18n.percent(confident)))
        else:
            questions.feedback(
                lesson.grade_guess(calibration_answer, sure.accuracy, close=0.03),
                questions.revealed(
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
    lesson_beyond.versus_softmax(step, settings)


def step_styles(step: frame.Step) -> None:
    lesson_beyond.styles(step, settings, result)


def step_class_model(step: frame.Step) -> None:
    lesson_beyond.class_model(step, settings, taking)


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
taking = lesson_polls.lesson_class()  # through a class's link: answers go to the class, the teacher reveals
questions.take_part(taking)
current = lesson_pace.keep_pace(frame.requested_step(len(STEPS)))
teaching = classroom.teacher_class()
if teaching is not None:
    lesson_polls.class_answers_download(teaching.info.code, teaching.info.period)
frame.navigation(current, len(STEPS), "top")
st.progress(current / len(STEPS))
step = STEPS[current - 1]
st.header(f"{current}. {step.heading()}")
LAYOUTS[current - 1](step)
frame.follow_up(step, shell.page_link)
st.divider()
frame.navigation(current, len(STEPS), "bottom")
with st.expander(_("All sources of this lesson")):
    st.markdown("\n".join(f"- {source_line(reference)}" for reference in lesson_sources.ALL_SOURCES))
focus.apply("nb_focus_lesson")  # after Reveal, Send my answer, Start again: the focus where the control was
