"""Lesson: the lab's ideas in order, one step a screen, with questions the student answers before the truth shows.

The step lives in the link (``?lesson=3``), so a teacher can hand out any step. Every figure is the lab's
live figure for the sidebar settings, and every revealed answer is measured now from the current models
(``nbcore.experiments.lesson``, cached in ``lab.state``), never typed in.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import streamlit as st

import nbcore
from lab import display, shell, state
from lab.figures import charts, digits, regions, style
from lab.settings import current_settings
from nbcore.experiments import lesson, xor

QUERY_KEY = "lesson"
COUNT_STOPS = (0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # answers to "how many of the 10,000 test images"
CONFIDENT = 0.99
FEW_IMAGES = 100  # the learning-curve size the last question asks about (one of LEARNING_CURVE_SIZES)
# px, a single map's figure: the map itself over 320 px tall, what the back row of a projector room needs
LESSON_IMAGE_HEIGHT = 490

D2L = (
    "[Dive into Deep Learning, appendix chapter “Naive Bayes”]"
    "(https://d2l.ai/chapter_appendix-mathematics-for-deep-learning/naive-bayes.html)"
)
COURSE_NOTE = (
    "the course note “Naive Bayes vs. softmax regression on MNIST: a generative and a discriminative "
    "model compared” (a handout, not published online)"
)
CS188 = (
    "[Berkeley CS188, Introduction to Artificial Intelligence, lecture on naive Bayes]"
    "(https://inst.eecs.berkeley.edu/~cs188/)"
)
NG_JORDAN = (
    "[Ng & Jordan (2002), “On discriminative vs. generative classifiers: a comparison of logistic "
    "regression and naive Bayes”](https://papers.nips.cc/paper/2020-on-discriminative-vs-generative-"
    "classifiers-a-comparison-of-logistic-regression-and-naive-bayes)"
)
MNIST_PAPER = (
    "[LeCun, Bottou, Bengio & Haffner (1998), “Gradient-based learning applied to document "
    "recognition”](https://doi.org/10.1109/5.726791)"
)

settings = current_settings()
splits = state.mnist()
result = state.evaluation(settings)
model = result.model
test_features = state.features(settings.threshold).test


# -- the frame of every step ----------------------------------------------------------------------------------
def go_to(step: int) -> None:
    st.query_params[QUERY_KEY] = str(step)


def requested_step(n_steps: int) -> int:
    """The step in the link; a value that is not a step number in range gives step 1 and a small notice."""
    try:
        return lesson.parse_step(st.query_params.get_all(QUERY_KEY), n_steps) or 1
    except ValueError:
        st.caption(
            f":material/info: The link's lesson step was not understood (it should be a number from 1 to "
            f"{n_steps}), so the lesson starts at step 1."
        )
        go_to(1)
        return 1


def navigation(step: int, n_steps: int, place: str) -> None:
    """Back, the step counter and Next in one row (``place`` keeps the keys of the two rows apart)."""
    # no disabled buttons at either end: their grey text is too faint on a projector
    with st.container(horizontal=True, vertical_alignment="center", key=f"lesson_nav_{place}"):
        if step > 1:
            st.button(
                "Back", icon=":material/arrow_back:", on_click=go_to, args=(step - 1,), key=f"lesson_back_{place}"
            )
        st.markdown(f"**Step {step} of {n_steps}**")
        if step < n_steps:
            st.button(
                "Next", icon=":material/arrow_forward:", on_click=go_to, args=(step + 1,), key=f"lesson_next_{place}"
            )
        else:
            st.button("Start again", icon=":material/replay:", on_click=go_to, args=(1,), key=f"lesson_restart_{place}")


def try_this(text: str, page: str | None = None, label: str | None = None) -> None:
    """The step's "Try this": a sentence, and a link to the page where the student can do it."""
    st.markdown(f":material/science: **Try this:** {text}")
    if page:
        shell.page_link(page, label)


def sources(*references: str) -> None:
    st.caption("Read more: " + "; ".join(references) + ".")


# -- predict, then reveal ------------------------------------------------------------------------------------------
def _committed_key(question: str) -> str:
    return f"lesson_committed_{question}"


def _commit(question: str) -> None:
    answer = st.session_state.get(f"lesson_answer_{question}")
    if answer is None:  # Reveal before choosing: say so, reveal nothing
        st.session_state[f"lesson_unanswered_{question}"] = True
    else:
        st.session_state[_committed_key(question)] = answer


def _answer_again(question: str) -> None:
    st.session_state.pop(_committed_key(question), None)


def ask(question: str, prompt: str, kind: str, options, format_func=str, value=None):
    """Ask ``prompt`` and return the committed answer, or None until the student presses Reveal.

    ``kind`` is "choice" (a radio with nothing chosen at first; Reveal before a choice only asks for one) or "guess"
    (a select slider starting at ``value``). Once committed, the answer is shown as given, with
    "Answer again" to take it back; the caller then measures the truth and calls ``feedback``.
    """
    with st.container(border=True, key=f"lesson_question_{question}"):
        return _ask_inside(question, prompt, kind, options, format_func, value)


def _ask_inside(question: str, prompt: str, kind: str, options, format_func, value):
    st.markdown(f":material/quiz: **Predict, then reveal.** {prompt}")
    committed = st.session_state.get(_committed_key(question))
    if committed is not None:
        st.markdown(f"Your answer: **{format_func(committed)}**")
        st.button(
            "Answer again",
            icon=":material/undo:",
            key=f"lesson_again_{question}",
            on_click=_answer_again,
            args=(question,),
        )
        return committed
    widget_key = f"lesson_answer_{question}"
    if kind == "choice":
        short = max(len(format_func(option)) for option in options) <= 12  # short options side by side
        st.radio(
            "Your answer",
            options,
            index=None,
            format_func=format_func,
            key=widget_key,
            label_visibility="collapsed",
            horizontal=short,
        )
    else:
        st.select_slider("Your guess", options, value=value, format_func=format_func, key=widget_key)
    st.button(
        "Reveal",
        icon=":material/visibility:",
        key=f"lesson_reveal_{question}",
        type="primary",
        on_click=_commit,
        args=(question,),
    )
    if st.session_state.pop(f"lesson_unanswered_{question}", False):
        st.caption("Choose an answer first: the lab reveals the truth only once you have committed to one.")
    return None


def feedback(verdict: lesson.Verdict, text: str) -> None:
    """The measured truth in ``text``, framed by how close the committed answer was."""
    if verdict.grade == "exact":
        st.success(f"**Right.** {text}", icon=":material/check_circle:")
    elif verdict.grade == "close":
        st.info(f"**Close.** {text}", icon=":material/near_me:")
    else:
        st.warning(f"**Not quite.** {text}", icon=":material/lightbulb:")


def percent(value: float) -> str:
    return f"{value:.0%}"


def count(value: int) -> str:
    return f"{value:,}"


def settings_note() -> str:
    return (
        f"the sidebar's T = {settings.threshold}, α = {settings.alpha:g}, β = {settings.beta:g}, {settings.prior} prior"
    )


# -- the nine steps ----------------------------------------------------------------------------------------------------
def step_data() -> None:
    first_of_each = np.array([int(np.flatnonzero(splits.train_labels == digit)[0]) for digit in range(10)])
    raw = splits.train_images[first_of_each]
    ink = nbcore.binarize(raw, settings.threshold).reshape(-1, 28, 28) * 255
    # pictures, not a chart: ten small squares wrap onto as many rows as the screen needs
    st.markdown("**As written**: grey levels 0 to 255")
    st.image([digits.pixel_picture(image, scale=2) for image in raw], caption=[str(d) for d in range(10)], width=56)
    st.markdown(f"**As the model sees them**: ink where the grey level is ≥ {settings.threshold}")
    st.image([digits.pixel_picture(image, scale=2) for image in ink], caption=[str(d) for d in range(10)], width=56)
    st.markdown(
        f"MNIST holds {len(splits.train_labels):,} training images and {len(splits.test_labels):,} test "
        "images of handwritten digits, each 28 × 28 pixels with grey levels from 0 to 255. The lab "
        f"turns every pixel into a yes/no question, *is there ink here?*, by comparing it with the "
        f"threshold T = {settings.threshold}. From here on a digit is 784 bits."
    )
    try_this(
        "move the binarization threshold in the sidebar and watch the ink pictures thicken or thin.",
        "pages/home.py",
        "Home: how well the current model does, and some test images",
    )
    sources(MNIST_PAPER, D2L)


def step_counting() -> None:
    prior = np.exp(model.class_log_prior_)
    st.markdown(
        "Training naive Bayes is counting. For each digit y it counts how many training images show y "
        "(n_y), and for each pixel how many of those have ink there (n_iy). The share n_y / n is the "
        "class prior p(y): how common a digit is before the model looks at the picture. With the "
        "uniform prior (sidebar) every digit gets 1/10 instead."
    )
    answer = ask(
        "prior",
        "The prior is fitted to the training images and then used on the test images. For "
        "which digit is it furthest from the share of that digit among the 10,000 test images?",
        "choice",
        list(range(10)),
        format_func=lambda digit: f"digit {digit}",
    )
    if answer is None:
        display.chart(charts.class_bars(prior, f"Class prior p(y) ({model.prior})", "p(y)"), key="lesson_prior_bars")
    else:
        gap = lesson.prior_gap(model, splits.test_labels)
        display.chart(
            charts.prior_against_frequency(gap.prior, gap.test_frequency, gap.most_wrong),
            key="lesson_prior_against_test",
        )
        feedback(
            lesson.grade_choice(str(answer), str(gap.most_wrong)),
            f"With the {model.prior} prior, digit {gap.most_wrong} is off most: p(y) = "
            f"{gap.prior[gap.most_wrong]:.4f} against {gap.test_frequency[gap.most_wrong]:.4f} of the test "
            f"images ({gap.gap[gap.most_wrong] * 100:+.2f} points); for your digit {answer} the gap is "
            f"{gap.gap[answer] * 100:+.2f} points. Switch the prior in the sidebar and the answer changes.",
        )
    try_this(
        "compare the empirical and the uniform prior in the sidebar.",
        "pages/heatmaps.py",
        "Heatmaps: the prior under the pixel pictures",
    )
    sources(D2L)


def step_images() -> None:
    display.chart(
        digits.class_heatmaps(model.feature_prob_.reshape(10, 28, 28), "P(xᵢ = 1 | y)", zrange=(0, 1)),
        key="lesson_pixel_probabilities",
    )
    st.markdown(
        "Divide each pixel's ink count by the number of images of the digit and you get p(xᵢ = 1 | y), "
        "one probability per pixel and digit: ten blurred average digits. They are the whole model. "
        "Naive Bayes reads a new image by asking, pixel by pixel, how well its ink and its blank paper "
        "fit each of these pictures, and it treats every pixel as a separate coin flip once the digit "
        "is known: that is the *naive* assumption."
    )
    try_this(
        "look at the log-odds view and at the difference of two digits that are easy to confuse, such as 4 and 9.",
        "pages/heatmaps.py",
        "Heatmaps: what the model learned",
    )
    sources(D2L, CS188)


def step_logs() -> None:
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
    st.markdown(
        "p(x | y) is the product of these 784 numbers, one per pixel. Most are close to 1, but the "
        "product of hundreds of numbers below 1 shrinks towards 0 very fast, and a computer's floating "
        "point numbers cannot go below a smallest positive value."
    )
    outcomes = {
        "moderate": "an ordinary small number, such as 0.001",
        "tiny": "a tiny positive number, such as 10⁻¹⁰⁰",
        "zero": "exactly 0.0",
    }
    answer = ask(
        "float32",
        f"Multiply these 784 probabilities in float32, the 32-bit numbers of the textbook's "
        f"tensors. What comes out for test image {index}?",
        "choice",
        list(outcomes),
        format_func=outcomes.get,
    )
    if answer is not None:
        product = lesson.float32_product(model, test_features[index], true_label)
        truth = lesson.product_outcome(product)
        running = lesson.running_log10_product(model, test_features[index], true_label)
        counts = state.lesson_underflow(settings)
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
            f"about 10^{running[-1]:.0f}"
            if np.isfinite(running[-1])
            else "exactly 0 too, because with α or β = 0 one of its pixels has probability 0"
        )
        feedback(
            lesson.grade_choice(answer, truth),
            f"The float32 product of test image {index} is {product!r}; the true value is {true_value}. "
            + (STUCK if stuck else "")
            + f"Over all test images, {counts['float32_zero']:,} of {counts['images']:,} products become exactly "
            f"0.0 in float32, {counts['float32_stuck']:,} more stick at a wrong tiny value, and "
            f"{counts['float64_zero']:,} become 0.0 in float64, while the sum of logarithms is an ordinary "
            f"number for {counts['log_finite']:,} of them. Two zeros cannot be compared; two sums of logs can, "
            "so naive Bayes adds logarithms.",
        )
    try_this(
        "pick other test images above, or set α = 0 in the sidebar.",
        "pages/smoothing.py",
        "Smoothing: underflow in float32 and float64",
    )
    sources(D2L)


STUCK = (
    "That is not the true value either: below about 10⁻³⁸ float32 keeps only a few digits, so multiplying "
    "by a probability close to 1 rounds the product back up to where it was, and it stops shrinking. "
)


def step_smoothing() -> None:
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
    st.markdown(
        "A pixel that never had ink in any training 2 gets p = 0 for a 2, and then a single stray ink "
        "dot there makes a 2 impossible, however well the other 783 pixels fit. Smoothing pretends "
        "the model saw α extra images with the pixel on and β with it off: "
        "p(xᵢ = 1 | y) = (nᵢᵧ + α) / (nᵧ + α + β). α = β = 1 is Laplace smoothing; α = β = 0 is none."
    )
    zero_answer = ask(
        "alpha_zero",
        "With α = β = 0, how many of the 10,000 test images get p(x | true digit) = 0, "
        "impossible under their own digit?",
        "guess",
        COUNT_STOPS,
        format_func=count,
        value=1000,
    )
    if zero_answer is not None:
        zero = state.zero_smoothing(settings.threshold, settings.prior)
        truth = zero["true_class_impossible"]
        feedback(
            lesson.grade_count(zero_answer, truth),
            f"{truth:,} test images are impossible under their own digit at T = {settings.threshold} "
            f"(you said {zero_answer:,}); {zero['all_classes_impossible']:,} are impossible under every "
            f"digit. Test accuracy at α = β = 0: {zero['accuracy']:.4f}.",
        )
    stronger = dataclasses.replace(settings, alpha=100.0, beta=100.0)
    accuracy_answer = ask(
        "alpha_100",
        f"Test accuracy now is {result.test_accuracy:.4f} ({settings_note()}). "
        "What will it be with α = β = 100, a hundred imaginary images on each side?",
        "guess",
        tuple(round(0.5 + 0.01 * step, 2) for step in range(51)),
        format_func=lambda v: f"{v:.2f}",
        value=0.85,
    )
    if accuracy_answer is not None:
        truth = state.evaluation(stronger).test_accuracy
        curve = state.smoothing_curve(settings.threshold, settings.prior)
        marker = settings.alpha if settings.alpha == settings.beta and settings.alpha > 0 else None
        display.chart(
            charts.smoothing_accuracy(curve, marker),
            key="lesson_smoothing_curve",
        )
        feedback(
            lesson.grade_guess(accuracy_answer, truth, close=0.01),
            f"At α = β = 100 the test accuracy is {truth:.4f}, {truth - result.test_accuracy:+.4f} against the "
            f"current {result.test_accuracy:.4f}; your guess was {accuracy_answer - truth:+.3f} off. "
            "Heavy smoothing pulls every pixel probability towards ½ and blurs the ten pictures together.",
        )
    try_this("drag α and β in the sidebar from 0 to 100.", "pages/smoothing.py", "Smoothing: α, β and α = 0")
    sources(D2L, CS188)


def step_evidence() -> None:
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
    st.markdown(
        f"This is a {true_label} that naive Bayes reads as a {predicted}. Because log p(x | y) is a sum "
        "over pixels, the decision splits into one vote per pixel: blue pixels speak for "
        f"{predicted}, red ones for {true_label}, and their total decides. The outline is the image's "
        "ink. On the Draw page the same map follows your own pen."
    )
    answer = ask(
        "disagree",
        "Softmax regression reads the same pixels without the independence assumption. Of "
        "the 10,000 test images, how many does naive Bayes get wrong while softmax gets right?",
        "guess",
        COUNT_STOPS,
        format_func=count,
        value=100,
    )
    if answer is not None:
        softmax = state.softmax(deskew=settings.deskew)
        rescued = lesson.bayes_wrong_softmax_right(
            result.test_predictions, softmax.test_predictions, splits.test_labels
        )
        feedback(
            lesson.grade_count(answer, len(rescued)),
            f"{len(rescued):,} test images (you said {answer:,}): naive Bayes is wrong on {len(wrong):,} in "
            f"all, softmax regression (test accuracy {softmax.test_accuracy:.4f}) gets {len(rescued):,} of "
            "those right.",
        )
    try_this(
        "draw a digit naive Bayes gets wrong while softmax gets right, and read its evidence map.",
        "pages/draw.py",
        "Draw: your digit, both models, the evidence of each pixel",
    )
    sources(D2L)


def step_generating() -> None:
    digit = st.selectbox("Digit to generate", range(10), index=7, key="lesson_sample_digit")
    samples = model.sample(8, digit, rng=np.random.default_rng([0, digit])).reshape(8, 28, 28) * 255.0
    display.chart(
        digits.image_grid(
            samples, [f"sample {i + 1}" for i in range(8)], columns=4, zrange=(0, 255), height_per_row=130
        ),
        key="lesson_samples",
        alt=f"Eight digits {digit} written by the model, every pixel drawn on its own",
    )
    st.markdown(
        "Naive Bayes is generative: it can write digits. Pick y, then flip 784 independent coins, "
        "pixel i landing on ink with probability p(xᵢ = 1 | y). The same model fills in hidden pixels: "
        "from the visible ones it infers p(y | visible), then paints each hidden pixel with "
        "Σ_y p(xᵢ = 1 | y) p(y | visible)."
    )
    answer = ask(
        "top_half",
        "Hide the bottom half of every test image. How often does naive Bayes still name "
        "the digit right from the top 14 rows alone?",
        "guess",
        tuple(round(0.05 * step, 2) for step in range(21)),
        format_func=percent,
        value=0.5,
    )
    if answer is not None:
        truth = state.lesson_top_half_accuracy(settings)
        observed = nbcore.observed_region("top half")
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
        feedback(
            lesson.grade_guess(answer, truth, close=0.1),
            f"From the top half alone, naive Bayes names {truth:.1%} of the test images right (you said "
            f"{answer:.0%}), against {result.test_accuracy:.1%} with the whole image. Above: test image 0, "
            f"read as a {int(np.argmax(posterior))} from its top half, its bottom half filled in.",
        )
    try_this(
        "generate other digits, and hide other parts of an image.",
        "pages/samples.py",
        "Samples: more digits written by the model",
    )
    shell.page_link("pages/inpainting.py", "Inpainting: any region, any test image or your drawing")
    sources(COURSE_NOTE, D2L)


def step_independence() -> None:
    digit = st.selectbox("Digit", range(10), index=1, key="lesson_dependence_digit")
    dependence = state.lesson_neighbour_dependence(settings.threshold, digit)
    display.chart(
        digits.difference_map(
            np.nan_to_num(dependence), f"Neighbours inked together, {digit}s", "change", height=LESSON_IMAGE_HEIGHT
        ),
        key="lesson_dependence_map",
    )
    st.markdown(
        "Naive Bayes assumes that, once the digit is known, one pixel says nothing about another. The map "
        "measures that in the training images: p(right neighbour ink | this pixel ink) − p(right neighbour "
        "ink), how much more likely the right-hand neighbour is to be ink when this pixel is. Naive Bayes "
        "assumes 0 everywhere; strokes make it strongly positive. "
        "The model therefore counts one stroke as many independent witnesses and grows too sure."
    )
    xor_answer = ask(
        "xor",
        "The smallest case: two bits, labelled 1 when exactly one is on (XOR). Naive Bayes sees "
        "all four points. How many of them does it classify right?",
        "choice",
        [4, 3, 2, 1, 0],
        format_func=lambda n: f"{n} of 4",
    )
    if xor_answer is not None:
        k = settings.alpha
        outcome = xor.evaluate(xor.naive_bayes(k))
        right = int(round(outcome.accuracy * len(xor.XOR_LABELS)))
        display.chart(
            regions.xor_posteriors(xor.XOR_POINTS, xor.XOR_LABELS, {"Naive Bayes": outcome.posterior}, height=340),
            key="lesson_xor",
        )
        feedback(
            lesson.grade_choice(str(xor_answer), str(right)),
            f"{right} of 4 (smoothing k = α = {k:g}): every p(xⱼ = 1 | y) is ½, so p(y = 1 | x) = "
            f"{outcome.posterior[0]:.2f} at every point and the tie goes to class 0. The class lives in how "
            "x₁ and x₂ vary together, exactly what the naive assumption throws away.",
        )
    calibration_answer = ask(
        "calibration",
        f"When naive Bayes is at least {CONFIDENT:.0%} sure of a test image, how often is it right?",
        "guess",
        tuple(round(0.5 + 0.01 * s, 2) for s in range(51)),
        format_func=percent,
        value=0.99,
    )
    if calibration_answer is not None:
        sure = lesson.accuracy_when_confident(np.exp(result.test_log_proba), splits.test_labels, CONFIDENT)
        if sure.count == 0:
            st.info(f"With these settings no test image gets a top probability of {CONFIDENT:.0%} or more.")
        else:
            feedback(
                lesson.grade_guess(calibration_answer, sure.accuracy, close=0.03),
                f"{sure.count:,} of 10,000 test images get p ≥ {CONFIDENT:.0%} (mean "
                f"{sure.mean_confidence:.4f}), and naive Bayes is right on {sure.accuracy:.1%} of them (you "
                f"said {calibration_answer:.0%}). A calibrated model would be right as often as it is sure, "
                f"on about {sure.mean_confidence:.2%} of them.",
            )
    try_this(
        "solve the XOR exercise, then compare both models' calibration.",
        "pages/xor.py",
        "XOR exercise: why it fails, and the one edge that fixes it",
    )
    shell.page_link("pages/compare.py", "Compare: reliability of naive Bayes and softmax regression")
    sources(D2L, CS188)


def step_versus_softmax() -> None:
    bayes_curve = state.bernoulli_learning_curve(settings)
    smallest = FEW_IMAGES
    answer = ask(
        "learning_curve",
        f"Train both models on only {smallest} images. Which one does better on the 10,000 test images?",
        "choice",
        ["naive Bayes", "softmax regression"],
    )
    curves = {"naive Bayes": bayes_curve["naive Bayes"]}
    if answer is not None:
        softmax_curve = state.softmax_learning_curve()
        curves["softmax regression"] = softmax_curve["softmax regression"]
    display.chart(charts.learning_curves(bayes_curve["sizes"], curves), key="lesson_learning_curves")
    st.markdown(
        "Naive Bayes models how digits are written, p(x | y), and turns it around with Bayes' rule; "
        "softmax regression fits the decision p(y | x) directly. Ng and Jordan (2002) argue that the "
        "generative model reaches its (lower) best with fewer examples, while the discriminative one ends "
        "higher once data is plentiful. Whether naive Bayes is ahead at the small end on MNIST depends on "
        "its settings: the curves here are measured for the sidebar's."
    )
    if answer is not None:
        accuracy = lesson.mean_accuracy_at(bayes_curve["sizes"], curves, smallest)
        winner = max(accuracy, key=accuracy.get)
        full = lesson.mean_accuracy_at(bayes_curve["sizes"], curves, int(bayes_curve["sizes"][-1]))
        feedback(
            lesson.grade_choice(answer, winner),
            f"With {smallest} training images {winner} wins: naive Bayes {accuracy['naive Bayes']:.3f}, softmax "
            f"regression {accuracy['softmax regression']:.3f} (mean over {bayes_curve['naive Bayes'].shape[1]} "
            f"random training sets). With all {int(bayes_curve['sizes'][-1]):,}: naive Bayes "
            f"{full['naive Bayes']:.3f}, softmax regression {full['softmax regression']:.3f}.",
        )
    try_this(
        "change α in the sidebar and see where the two curves cross.",
        "pages/compare.py",
        "Compare: both models side by side",
    )
    sources(NG_JORDAN, COURSE_NOTE)


STEPS = (
    ("The data", step_data),
    ("Counting", step_counting),
    ("The pictures P(x | y)", step_images),
    ("Why logarithms: underflow", step_logs),
    ("Smoothing, and α = 0", step_smoothing),
    ("Drawing: the evidence of each pixel", step_evidence),
    ("Generating and inpainting", step_generating),
    ("Where independence breaks", step_independence),
    ("Naive Bayes vs. softmax regression", step_versus_softmax),
)

st.title("Lesson: naive Bayes in nine steps")
current = requested_step(len(STEPS))
navigation(current, len(STEPS), "top")
st.progress(current / len(STEPS))
title, render = STEPS[current - 1]
st.header(f"{current}. {title}")
render()
st.divider()
navigation(current, len(STEPS), "bottom")
with st.expander("All sources of this lesson"):
    st.markdown(
        "\n".join(
            f"- {reference}"
            for reference in (D2L, COURSE_NOTE[0].upper() + COURSE_NOTE[1:], CS188, NG_JORDAN, MNIST_PAPER)
        )
    )
