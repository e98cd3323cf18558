"""Beyond naive: a few styles per digit, fitted by EM, and what unlabeled digits do to the model.

The unlabeled-digit panel's verdict is also said in a polite live region (lab/live_region.py), so that a screen
reader announces it when another number of labels or λ is chosen.
"""

import numpy as np
import streamlit as st

from lab import display, links, live_region, model_choice
from lab.data import mixtures, mnist, models
from lab.figures import charts, digits, notation, styles
from lab.settings import current_settings
from nbcore.experiments import mixture as experiment

SAMPLES = 8
MIXTURE = "mixture of styles"
NAIVE_MARK, CHOSEN_MARK = "naive Bayes (K = 1)", "chosen K = {x:g}"  # the stars' legend entries on the curves over K

settings = current_settings()
splits = mnist.splits(settings.deskew)

st.title("Beyond naive: styles per digit")
st.markdown(
    "Naive Bayes treats every pixel as an independent coin once the digit is known. So its generated digits "
    "are speckle on a blurred average, and its inpainting is a blur of every way the digit is written. "
    "Give each digit one hidden variable, its **style** (an upright 1 and a slanted one, a 7 with and without "
    "its bar), and let each style be a naive Bayes of its own: p(x | y) = Σₖ p(k | y) Πᵢ p(xᵢ | y, k). "
    "Which image belongs to which style is not given, so **EM** guesses it: each image is counted into its "
    "digit's styles in proportion to how well each one explains it, and the pixel probabilities are smoothed "
    "from those soft counts exactly as naive Bayes smooths its counts. It is still counting."
)


def fit_button(label: str, key: str, help_text: str) -> bool:
    """A button that starts a fit nobody prepared; True in the run it is pressed."""
    return st.button(label, key=key, icon=":material/play_arrow:", help=help_text)


def accuracy_and_likelihood(n_components: int) -> None:
    """Test accuracy and held-out log p(x | y) against K, naive Bayes (K = 1) and softmax regression marked."""
    st.subheader("How many styles?")
    if not mixtures.curve_ready(settings) and not fit_button(
        "Fit 1 to 50 styles per digit at these settings",
        "mixture_fit_curve",
        "Ready at the textbook's settings. Here EM runs for every K, about a minute, once for everyone on this server.",
    ):
        st.caption("The curve over K is ready at the textbook's settings; at these settings it is fitted when asked.")
        return
    curve = mixtures.curve(settings)
    softmax = models.softmax(deskew=settings.deskew)
    marked = {MIXTURE: n_components} if n_components in curve.components else None
    left, right = st.columns(2)
    with left:
        display.chart(
            charts.curves(
                curve.components,
                {MIXTURE: curve.test_accuracy},
                "styles per digit K",
                "test accuracy",
                "Test accuracy by styles per digit",
                log_x=True,
                tick_every_x=True,
                marker_x=1,
                current={MIXTURE: float(curve.test_accuracy[0])},
                current_label=NAIVE_MARK,
                marked=marked,
                marked_label=CHOSEN_MARK,
                stars_named=False,
                references={"softmax regression": softmax.test_accuracy},
            ),
            key="mixture_accuracy",
            alt="Test accuracy of the mixture for each number of styles per digit, with softmax regression's as a line",
        )
    with right:
        display.chart(
            charts.curves(
                curve.components,
                {MIXTURE: curve.mean_test_loglik},
                "styles per digit K",
                "mean log p(x | y), nats",
                "Held-out log-likelihood by styles per digit",
                log_x=True,
                tick_every_x=True,
                marker_x=1,
                current={MIXTURE: float(curve.mean_test_loglik[0])},
                current_label=NAIVE_MARK,
                marked=marked,
                marked_label=CHOSEN_MARK,
                stars_named=False,
            ),
            key="mixture_loglik",
            alt="Mean log p(x | y) of the 10,000 test images for each number of styles per digit",
        )
    best = int(np.argmax(curve.test_accuracy))
    st.caption(
        f"K = 1 is naive Bayes: {curve.test_accuracy[0]:.4f}. With {curve.components[best]} styles per digit the "
        f"mixture reads {curve.test_accuracy[best]:.4f} of the test images right (softmax regression: "
        f"{softmax.test_accuracy:.4f}), and each test image becomes "
        f"{curve.mean_test_loglik[best] - curve.mean_test_loglik[0]:.1f} nats more likely: the model describes the "
        "digits better, not only tells them apart. One random start (seed 0) per K; `python -m nbcore mixture` "
        "compares seeds."
    )


def styles_and_samples(n_components: int) -> None:
    """One digit's styles, then samples from the mixture beside naive Bayes's and real digits."""
    st.subheader("The styles of one digit")
    digit = links.widget(st.selectbox, "Digit", "mixture_digit", 7, options=range(10), width=200)
    if not mixtures.model_ready(settings, n_components) and not fit_button(
        f"Fit {n_components} styles per digit at these settings",
        "mixture_fit_model",
        "EM at this K and these settings takes seconds, once for everyone on this server.",
    ):
        st.caption(f"{n_components} styles per digit are not fitted at these settings yet.")
        return
    fitted = mixtures.model(settings, n_components)
    index = int(np.flatnonzero(fitted.classes_ == digit)[0])
    display.chart(
        styles.style_maps(
            fitted.feature_prob_[index],
            fitted.component_weights_[index],
            digit,
            columns=5 if n_components <= 10 else 10,
            height_per_row=150 if n_components <= 10 else 105,
        ),
        key="mixture_styles",
        alt=f"The {n_components} styles of {digit}, each a picture of P(xᵢ = 1 | {digit}, style), heaviest first",
    )

    st.subheader("Generated digits")
    seed = links.counter("Seed", "mixture_seed", "New samples", "mixture_new", ":material/casino:")
    rng = np.random.default_rng([seed, digit])
    from_mixture = fitted.sample(SAMPLES, digit, rng=rng).reshape(SAMPLES, 28, 28)
    from_naive = models.model(settings).sample(SAMPLES, digit, rng=rng).reshape(SAMPLES, 28, 28)
    real = rng.choice(np.flatnonzero(splits.train_labels == digit), size=SAMPLES, replace=False)
    real_seen = mnist.features(settings.input_form).train[real].reshape(SAMPLES, 28, 28)
    numbers = [str(i + 1) for i in range(SAMPLES)]
    # side by side, four to a row: the three compared at a glance, and on a phone (stacked) digits big enough to see
    for column, images, title, key, alt in zip(
        st.columns(3),
        (from_mixture, from_naive, real_seen),
        (f"From the mixture, K = {n_components}", "From naive Bayes", "Real training images"),
        ("mixture_samples", "mixture_naive_samples", "mixture_real"),
        (
            f"{SAMPLES} digits {digit} sampled from the mixture of {n_components} styles per digit",
            f"{SAMPLES} digits {digit} sampled from naive Bayes, every pixel drawn on its own",
            f"{SAMPLES} real training images of {notation.with_article(digit)}, as the models see them",
        ),
        strict=True,
    ):
        with column:
            display.chart(
                digits.image_grid(images * 255, numbers, columns=4, zrange=(0, 255), height_per_row=85, title=title),
                key=key,
                alt=alt,
            )
    st.caption(
        f"Each sample from the mixture first picks a style of {notation.with_article(digit)} by its weight, then "
        "draws every pixel from that style: the strokes of one way of writing come together. Within a style the "
        "pixels are still independent coins, so some speckle stays. Images as the models see them: "
        f"{notation.as_the_model_sees(settings.input_form)}."
    )


def why_here(effect: str, labels: int, alone: float, weight: float, by_weight: dict[float, float]) -> str:
    """Why the unlabeled digits helped or hurt in this case, in words from its numbers: ``effect`` (HELPED, HURT or
    NO_CHANGE), ``labels`` per class, the accuracy with the labels ``alone``, the λ chosen and the accuracy at every λ
    above 0."""
    per_class = f"{labels} labelled digit{'s' if labels != 1 else ''} per class"
    if effect == experiment.NO_CHANGE:
        return (
            f"The change is under {experiment.NO_CHANGE_BAND * len(splits.test_labels):,.0f} of the "
            f"{len(splits.test_labels):,} test images."
        )
    if effect == experiment.HELPED:
        return (
            f"With {per_class} the labelled model alone is poor, so one blob of images per class, found among the "
            "unlabeled digits, is a better guess than the labels give."
        )
    reason = (
        f"With {per_class} the labels already know the digits better than one blob per class does, and the "
        "unlabeled digits pull each class toward a cluster of handwriting that is not its digit."
    )
    other = min(by_weight) if weight > min(by_weight) else max(by_weight)
    if other == weight:
        return reason
    accuracy = by_weight[other]
    if other < weight:
        how = "A smaller λ limits the harm" if accuracy > by_weight[weight] else "A smaller λ does not help here"
    else:
        how = "A larger λ does more harm" if accuracy < by_weight[weight] else "A larger λ does no more harm here"
    return f"{reason} {how}: at λ = {other:g}, {accuracy:.4f} ({accuracy - alone:+.4f})."


def unlabeled_digits() -> None:
    """Few labels and many unlabeled digits: EM's accuracy along its iterations, and whether they helped."""
    st.subheader("What unlabeled digits do")
    st.markdown(
        "EM can also read digits whose label nobody gave: each one is counted into every digit in proportion to "
        "how likely the model finds it there, at a weight λ (Nigam et al., 2000). Keep a few labelled digits per "
        "class, let the other training images be unlabeled, and see whether they help. One style per digit here."
    )
    if not mixtures.unlabeled_ready(settings) and not fit_button(
        "Fit with unlabeled digits at these settings",
        "mixture_fit_unlabeled",
        "Ready at the textbook's settings. Here EM runs for every case of the panel, about half a minute.",
    ):
        st.caption("This panel is ready at the textbook's settings; at these settings it is fitted when asked.")
        return
    measured = mixtures.unlabeled(settings)
    weights = [weight for weight in measured.weights if weight > 0]
    left, right = st.columns(2)
    with left:
        labels = links.widget(
            st.segmented_control,
            "Labelled digits per class",
            "unlabeled_labels",
            10,
            options=measured.labels_per_digit,
        )
    with right:
        weight = links.widget(
            st.segmented_control,
            "λ: how much an unlabeled digit counts",
            "unlabeled_weight",
            1.0,
            options=weights,
            format_func=lambda value: f"{value:g}",
        )
    if labels is None or weight is None:  # a segmented control can be cleared by clicking its choice again
        st.caption("Choose a number of labelled digits and a λ.")
        return
    row, column = measured.labels_per_digit.index(labels), measured.weights.index(weight)
    alone = float(measured.test_accuracy[row, measured.weights.index(0.0)])
    with_unlabeled = float(measured.test_accuracy[row, column])
    iterations = int(measured.n_iter[row, column])
    display.chart(
        charts.curves(
            np.arange(1, iterations + 1),
            {f"with the unlabeled digits, λ = {weight:g}": measured.accuracy_by_iteration[row, column, :iterations]},
            "EM iteration",
            "test accuracy",
            f"{labels} labelled digits per class and {len(splits.train_labels) - 10 * labels:,} unlabeled",
            references={"labelled digits alone": alone},
        ),
        key="mixture_unlabeled_curve",
        alt="Test accuracy after each EM iteration with the unlabeled digits, and with the labelled digits alone",
    )
    effect = experiment.unlabeled_effect(alone, with_unlabeled)
    by_weight = {value: float(measured.test_accuracy[row, measured.weights.index(value)]) for value in weights}
    verdict = (
        f"Here the unlabeled digits {effect}: {alone:.4f} with the labelled digits alone, {with_unlabeled:.4f} "
        f"with them ({with_unlabeled - alone:+.4f}) after {iterations} EM iterations. "
        + why_here(effect, labels, alone, weight, by_weight)
    )
    st.markdown(f"**{verdict.split(':', 1)[0]}**:{verdict.split(':', 1)[1]}")
    live_region.announce(verdict, key="mixture_unlabeled_announcement")  # a new choice's verdict, read out
    verdicts = {
        count: experiment.unlabeled_effect(
            float(measured.test_accuracy[index, measured.weights.index(0.0)]),
            float(measured.test_accuracy[index, column]),
        )
        for index, count in enumerate(measured.labels_per_digit)
    }
    st.table(
        {
            "Labelled per class": [str(count) for count in measured.labels_per_digit],
            "Labelled alone": [f"{value:.4f}" for value in measured.test_accuracy[:, measured.weights.index(0.0)]],
            f"With unlabeled, λ = {weight:g}": [f"{value:.4f}" for value in measured.test_accuracy[:, column]],
            "The unlabeled digits": [verdicts[count] for count in measured.labels_per_digit],
        }
    )
    st.info(
        "Why they can hurt: EM makes the model more likely for *all* the digits, labelled or not, and with one "
        "style per digit it assumes that each digit is one blob of images. Handwriting is not: the ten blobs that "
        "explain sixty thousand unlabeled digits best are not the ten digits, and the unlabeled digits outvote "
        "the labelled ones. With very few labels the labelled model is so poor that the unlabeled digits still "
        "help; with more, the labels know better. A smaller λ lets the labels keep the upper hand. Give each digit "
        "ten styles and the blobs can follow the handwriting: then the unlabeled digits help with ten labels per "
        "digit as well (`python -m nbcore mixture --labels 10 --unlabeled-components 10` measures it).",
        icon=":material/lightbulb:",
    )


if not mixtures.supported(settings):
    st.warning(model_choice.NEEDS_SMOOTHING, icon=":material/info:")
else:
    n_components = model_choice.components_slider()
    accuracy_and_likelihood(n_components)
    styles_and_samples(n_components)
    unlabeled_digits()
