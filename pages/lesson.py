"""Lesson: the lab's ideas in order, one step a screen, with questions the student answers before the truth shows.

What each step says and asks is in ``lab/lesson_steps.py``, the frame (step in the link, Back/Next, questions)
in ``lab/lesson_frame.py``. This page lays each step out: every figure is the lab's live figure for the
sidebar settings, and every revealed answer is measured now from the current models
(``nbcore.experiments.lesson``, cached in ``lab.data``), never typed in.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import streamlit as st

from lab import class_store, classroom, display, focus, lesson_steps, model_choice
from lab import lesson_frame as frame
from lab.data import lesson_answers, mixtures, mnist, models
from lab.figures import charts, class_model, digits, notation, regions, style, styles
from lab.settings import SMOOTHING_STOPS, current_settings
from nbcore.classroom import Refused
from nbcore.experiments import lesson, xor
from nbcore.experiments.class_model import DEFAULT_WEIGHT, MODEL_NAMES
from nbcore.features import observed_region

# px, a single map's figure: the map itself over 320 px tall, what the back row of a projector room needs
LESSON_IMAGE_HEIGHT = 490

settings = current_settings()
splits = mnist.splits()
result = models.evaluation(settings)
model = result.model
features = mnist.features(settings.input_form)
test_features = features.test


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
        alt=[f"The first training image of a {d}, as written" for d in range(10)],
    )
    st.markdown(step.text("seen", as_seen=notation.as_the_model_sees(settings.input_form)))
    st.image(
        [digits.pixel_picture(image, scale=2) for image in ink],
        caption=[str(d) for d in range(10)],
        width=56,
        alt=[f"The same {d} as the model sees it" for d in range(10)],
    )
    st.markdown(
        step.text(
            "body", n_train=len(splits.train_labels), n_test=len(splits.test_labels), threshold=settings.threshold
        )
    )


def step_counting(step: frame.Step) -> None:
    prior = np.exp(model.class_log_prior_)
    st.markdown(step.text("body"))
    question = step.question("prior")
    answer = frame.ask(question)
    if answer is None:
        display.chart(charts.class_bars(prior, f"Class prior p(y) ({model.prior})", "p(y)"), key="lesson_prior_bars")
    else:
        gap = lesson.prior_gap(model, splits.test_labels)
        display.chart(
            charts.prior_against_frequency(gap.prior, gap.test_frequency, gap.most_wrong),
            key="lesson_prior_against_test",
        )
        frame.feedback(
            lesson.grade_choice(str(answer), str(gap.most_wrong)),
            question.reveal.format(
                prior=model.prior,
                digit=gap.most_wrong,
                prior_p=gap.prior[gap.most_wrong],
                share=gap.test_frequency[gap.most_wrong],
                gap=gap.gap[gap.most_wrong] * 100,
                answer=answer,
                your_gap=gap.gap[answer] * 100,
            ),
        )


def step_images(step: frame.Step) -> None:
    display.chart(
        digits.class_heatmaps(model.feature_prob_.reshape(10, 28, 28), "P(xᵢ = 1 | y)", zrange=(0, 1)),
        key="lesson_pixel_probabilities",
    )
    st.markdown(step.text("body"))


def step_logs(step: frame.Step) -> None:
    index = st.number_input("Test image", 0, len(splits.test_labels) - 1, 0, key="lesson_underflow_image")
    true_label = int(splits.test_labels[index])
    pixel_terms = model.pixel_log_likelihoods(test_features[index])[true_label]
    display.chart(
        digits.single_image(
            np.exp(pixel_terms).reshape(28, 28),
            f"The 784 factors p(xᵢ | {true_label}) of test image {index}",
            value_name="p(xᵢ | y)",
            colorscale=style.PROBABILITY_SCALE,
            zrange=(0, 1),
            colorbar_title="p",
            height=LESSON_IMAGE_HEIGHT,
            hover_format=".4f",
        ),
        key="lesson_underflow_factors",
        alt="The probability of each pixel's value under the true digit",
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
            charts.running_product(
                running,
                {
                    "float32's smallest positive number": math.log10(lesson.FLOAT32_SMALLEST),
                    "float64's smallest positive number": math.log10(lesson.FLOAT64_SMALLEST),
                },
            ),
            key="lesson_running_product",
        )
        stuck = product > 0 and running[-1] < math.log10(lesson.FLOAT32_SMALLEST)
        true_value = (
            step.text("true_tiny", exponent=running[-1]) if np.isfinite(running[-1]) else step.text("true_zero")
        )
        frame.feedback(
            lesson.grade_choice(answer, truth),
            question.reveal.format(
                index=index,
                product=repr(product),
                true_value=true_value,
                stuck=step.text("stuck") if stuck else "",
                **counts,
            ),
        )


def step_smoothing(step: frame.Step) -> None:
    digit = st.selectbox("Digit", range(10), index=2, key="lesson_smoothing_digit")
    display.chart(
        digits.single_image(
            model.feature_prob_[digit].reshape(28, 28),
            f"P(xᵢ = 1 | {digit}) at α = {settings.alpha:g}, β = {settings.beta:g}",
            value_name="probability",
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
            zero_question.reveal.format(
                truth=truth,
                threshold=settings.threshold,
                answer=zero_answer,
                all_impossible=zero["all_classes_impossible"],
                accuracy=zero["accuracy"],
            ),
        )
    strongest = SMOOTHING_STOPS[-1]  # the sidebar's strongest smoothing
    stronger = dataclasses.replace(settings, alpha=strongest, beta=strongest)
    accuracy_question = step.question("alpha_100")
    settings_note = lesson_steps.SETTINGS_NOTE.format(
        threshold=settings.threshold, alpha=settings.alpha, beta=settings.beta, prior=settings.prior
    )
    accuracy_answer = frame.ask(
        accuracy_question, accuracy=result.test_accuracy, settings_note=settings_note, strongest=strongest
    )
    if accuracy_answer is not None:
        truth = models.evaluation(stronger).test_accuracy
        curve = models.smoothing_curve(settings)
        marker = settings.alpha if settings.alpha == settings.beta and settings.alpha > 0 else None
        display.chart(
            charts.smoothing_accuracy(curve, marker),
            key="lesson_smoothing_curve",
        )
        frame.feedback(
            lesson.grade_guess(accuracy_answer, truth, close=0.01),
            accuracy_question.reveal.format(
                strongest=strongest,
                truth=truth,
                change=truth - result.test_accuracy,
                accuracy=result.test_accuracy,
                error=accuracy_answer - truth,
            ),
        )


def step_evidence(step: frame.Step) -> None:
    wrong = np.flatnonzero(result.test_predictions != splits.test_labels)
    index = int(
        st.selectbox(
            "A test image naive Bayes gets wrong",
            wrong[:30],
            key="lesson_evidence_image",
            format_func=lambda i: f"test image {i}",
        )
    )
    predicted, true_label = int(result.test_predictions[index]), int(splits.test_labels[index])
    evidence = model.evidence(test_features[index], predicted, true_label).reshape(28, 28)
    display.chart(
        digits.evidence_map(evidence, test_features[index].reshape(28, 28), predicted, true_label),
        key="lesson_evidence_map",
        alt=f"Evidence map of test image {index}: blue pixels speak for {predicted}, red for {true_label}",
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
            question.reveal.format(
                rescued=len(rescued), answer=answer, wrong=len(wrong), softmax_accuracy=softmax.test_accuracy
            ),
        )


def step_generating(step: frame.Step) -> None:
    digit = st.selectbox("Digit to generate", range(10), index=7, key="lesson_sample_digit")
    samples = model.sample(8, digit, rng=np.random.default_rng([0, digit])).reshape(8, 28, 28) * 255.0
    display.chart(
        digits.image_grid(
            samples, [f"sample {i + 1}" for i in range(8)], columns=4, zrange=(0, 255), height_per_row=130
        ),
        key="lesson_samples",
        alt=f"Eight digits {digit} written by the model, every pixel drawn on its own",
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
                ["seen", "filled in", "truth"],
                columns=3,
                value_name="p(ink)",
                zrange=(0, 1),
                height_per_row=200,
                hover_format=".3f",
            ),
            key="lesson_inpainting",
            alt="Test image 0: its top half, the filled-in bottom, the truth",
        )
        frame.feedback(
            lesson.grade_guess(answer, truth, close=0.1),
            question.reveal.format(
                truth=truth, answer=answer, accuracy=result.test_accuracy, read_as=int(np.argmax(posterior))
            ),
        )


def step_independence(step: frame.Step) -> None:
    digit = st.selectbox("Digit", range(10), index=1, key="lesson_dependence_digit")
    dependence = lesson_answers.neighbour_dependence(settings.input_form, digit)
    display.chart(
        digits.difference_map(
            np.nan_to_num(dependence), f"Neighbours inked together, {digit}s", "change", height=LESSON_IMAGE_HEIGHT
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
            regions.xor_posteriors(xor.XOR_POINTS, xor.XOR_LABELS, {"Naive Bayes": outcome.posterior}, height=340),
            key="lesson_xor",
        )
        frame.feedback(
            lesson.grade_choice(str(xor_answer), str(right)),
            xor_question.reveal.format(right=right, k=k, posterior=outcome.posterior[0]),
        )
    confident = lesson_steps.CONFIDENT
    calibration_question = step.question("calibration")
    calibration_answer = frame.ask(calibration_question, confident=confident)
    if calibration_answer is not None:
        sure = lesson.accuracy_when_confident(np.exp(result.test_log_proba), splits.test_labels, confident)
        if sure.count == 0:
            st.info(step.text("none_sure", confident=confident))
        else:
            frame.feedback(
                lesson.grade_guess(calibration_answer, sure.accuracy, close=0.03),
                calibration_question.reveal.format(
                    count=sure.count,
                    confident=confident,
                    mean=sure.mean_confidence,
                    accuracy=sure.accuracy,
                    answer=calibration_answer,
                ),
            )


def step_versus_softmax(step: frame.Step) -> None:
    bayes_curve = models.bernoulli_learning_curve(settings)
    smallest = lesson_steps.FEW_IMAGES
    question = step.question("learning_curve")
    answer = frame.ask(question)
    curves = {"naive Bayes": bayes_curve["naive Bayes"]}
    if answer is not None:
        softmax_curve = models.softmax_learning_curve(settings.deskew)
        curves["softmax regression"] = softmax_curve["softmax regression"]
    display.chart(charts.learning_curves(bayes_curve["sizes"], curves), key="lesson_learning_curves")
    st.markdown(step.text("body"))
    if answer is not None:
        accuracy = lesson.mean_accuracy_at(bayes_curve["sizes"], curves, smallest)
        winner = max(accuracy, key=accuracy.get)
        full_size = int(bayes_curve["sizes"][-1])
        full = lesson.mean_accuracy_at(bayes_curve["sizes"], curves, full_size)
        frame.feedback(
            lesson.grade_choice(answer, winner),
            question.reveal.format(
                size=smallest,
                winner=winner,
                bayes=accuracy["naive Bayes"],
                softmax=accuracy["softmax regression"],
                seeds=bayes_curve["naive Bayes"].shape[1],
                full_size=full_size,
                bayes_full=full["naive Bayes"],
                softmax_full=full["softmax regression"],
            ),
        )


def step_styles(step: frame.Step) -> None:
    digit, components = lesson_steps.STYLES_DIGIT, lesson_steps.STYLES_PER_DIGIT
    display.chart(
        digits.single_image(
            model.feature_prob_[digit].reshape(28, 28),
            f"Naive Bayes' one picture of {digit}: P(xᵢ = 1 | {digit})",
            value_name="probability",
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
        st.info(model_choice.NEEDS_SMOOTHING, icon=":material/info:")
        return
    softmax = models.softmax(deskew=settings.deskew)
    measured = {"bayes": result.test_accuracy, "softmax": softmax.test_accuracy}
    asked = step.question("styles")
    # the options name the accuracies measured now, for the sidebar's settings
    question = dataclasses.replace(
        asked, shown_as={option: str(label).format(**measured) for option, label in dict(asked.shown_as).items()}
    )
    answer = frame.ask(question, components=components)
    if answer is None:
        return
    mixture = mixtures.model(settings, components)  # the prepared curve's at the textbook's settings
    measured_mixture = mixtures.scores(settings, components)
    index = int(np.flatnonzero(mixture.classes_ == digit)[0])
    display.chart(
        styles.style_maps(mixture.feature_prob_[index], mixture.component_weights_[index], digit),
        key="lesson_styles_maps",
        alt=f"The {components} styles of {digit} the mixture learned, each a picture of P(xᵢ = 1 | {digit}, k)",
    )
    if mixtures.curve_ready(settings):  # every K of the curve; else the three models alone (no fit of every K)
        curve = mixtures.curve(settings)
        accuracy_chart = charts.curves(
            curve.components,
            {"mixture of styles": curve.test_accuracy},
            "styles per digit K",
            "test accuracy",
            "Test accuracy by styles per digit (K = 1 is naive Bayes)",
            log_x=True,
            tick_every_x=True,
            marked={"mixture of styles": components},
            references={"softmax regression": softmax.test_accuracy},
        )
    else:
        accuracy_chart = charts.accuracy_bars(
            {
                "naive Bayes": measured["bayes"],
                f"mixture, K = {components}": measured_mixture.test_accuracy,
                "softmax regression": measured["softmax"],
            },
            "Test accuracy",
        )
    display.chart(accuracy_chart, key="lesson_styles_accuracy")
    frame.feedback(
        lesson.grade_choice(
            str(answer), lesson.accuracy_band(measured_mixture.test_accuracy, measured["bayes"], measured["softmax"])
        ),
        question.reveal.format(
            components=components,
            digit=digit,
            mixture=measured_mixture.test_accuracy,
            iterations=measured_mixture.n_iter,
            **measured,
        ),
    )


def step_class_model(step: frame.Step) -> None:
    st.markdown(step.text("body"))
    mnist_prob = models.model(class_store.class_model_settings(settings)).feature_prob_
    if taking is None:
        st.info(step.text("alone"), icon=":material/groups:")
        display.chart(
            digits.class_heatmaps(mnist_prob.reshape(10, 28, 28), "P(xᵢ = 1 | y), MNIST's model", zrange=(0, 1)),
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
            evaluation.shortage.sentence() if evaluation.shortage is not None else step.text("alone"),
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
        charts.accuracy_bars({MODEL_NAMES[name]: float(accuracy) for name, accuracy in scores.items()}, "Read right"),
        key="lesson_class_model_bars",
    )
    best = max(scores, key=lambda name: float(scores[name]))
    frame.feedback(
        lesson.grade_choice(answer, best),
        question.reveal.format(
            drawings=int(evaluation.drawings_per_digit.sum()),
            students=evaluation.students,
            mnist=f"{scores['mnist']:.0%}",
            own=f"{scores['class']:.0%}",
            both=f"{scores['mnist_plus_class']:.0%}",
            weight=evaluation.weight,
        ),
    )


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

st.title(lesson_steps.TITLE)
taking = classroom.lesson_class()  # through a class's link: answers go to the class, the teacher reveals
frame.take_part(taking)
current = frame.keep_pace(frame.requested_step(len(STEPS)))
teaching = classroom.teacher_class()
if teaching is not None:
    frame.class_answers_download(teaching.info.code, teaching.info.period)
frame.navigation(current, len(STEPS), "top")
st.progress(current / len(STEPS))
step = STEPS[current - 1]
st.header(f"{current}. {step.title}")
LAYOUTS[current - 1](step)
frame.follow_up(step)
st.divider()
frame.navigation(current, len(STEPS), "bottom")
with st.expander("All sources of this lesson"):
    st.markdown("\n".join(f"- {reference}" for reference in lesson_steps.ALL_SOURCES))
focus.apply("nb_focus_lesson")  # after Reveal, Send my answer, Start again: the focus where the control was
