"""Beyond naive: a few styles per digit, fitted by EM, and what unlabeled digits do to the model.

The unlabeled-digit panel's verdict is also said in a polite live region (lab/live_region.py), so that a screen
reader announces it when another number of labels or λ is chosen.
"""

import numpy as np
import streamlit as st

from lab import display, i18n, links, live_region, model_choice
from lab.data import mixtures, mnist, models
from lab.figures import digits, line_charts, notation, styles
from lab.i18n import N_, _, ngettext
from lab.settings import current_settings
from nbcore.experiments import mixture as experiment

SAMPLES = 8
MIXTURE = N_("mixture of styles")  # the curves' series, translated where shown
# the stars' legend entries on the curves over K ({x}: the K marked), translated where shown
NAIVE_MARK, CHOSEN_MARK = N_("naive Bayes (K = 1)"), N_("chosen K = {x:g}")
# what the unlabeled digits did (nbcore's HELPED, HURT, NO_CHANGE): the verdict's start, and a word in the table
EFFECT_VERDICTS = {
    experiment.HELPED: N_("Here the unlabeled digits helped"),
    experiment.HURT: N_("Here the unlabeled digits hurt"),
    experiment.NO_CHANGE: N_("Here the unlabeled digits made no difference"),
}
EFFECT_WORDS = {
    experiment.HELPED: N_("helped"),
    experiment.HURT: N_("hurt"),
    experiment.NO_CHANGE: N_("made no difference"),
}

settings = current_settings()
splits = mnist.splits(settings.deskew)

st.title(_("Beyond naive: styles per digit"))
st.markdown(
    _(
        "Naive Bayes treats every pixel as an independent coin once the digit is known. So its generated digits "
        "are speckle on a blurred average, and its inpainting is a blur of every way the digit is written. "
        "Give each digit one hidden variable, its **style** (an upright 1 and a slanted one, a 7 with and without "
        "its bar), and let each style be a naive Bayes of its own: {formula}. "
        "Which image belongs to which style is not given, so **EM** guesses it: each image is counted into its "
        "digit's styles in proportion to how well each one explains it, and the pixel probabilities are smoothed "
        "from those soft counts exactly as naive Bayes smooths its counts. It is still counting."
    ).format(formula="p(x | y) = Σₖ p(k | y) Πᵢ p(xᵢ | y, k)")
)


def fit_button(label: str, key: str, help_text: str) -> bool:
    """A button that starts a fit nobody prepared; True in the run it is pressed."""
    return st.button(label, key=key, icon=":material/play_arrow:", help=help_text)


def accuracy_and_likelihood(n_components: int) -> None:
    """Test accuracy and held-out log p(x | y) against K, naive Bayes (K = 1) and softmax regression marked."""
    st.subheader(_("How many styles?"))
    if not mixtures.curve_ready(settings) and not fit_button(
        _("Fit 1 to 50 styles per digit at these settings"),
        "mixture_fit_curve",
        _(
            "Ready at the textbook's settings. Here EM runs for every K, about a minute, once for everyone on this "
            "server."
        ),
    ):
        st.caption(
            _("The curve over K is ready at the textbook's settings; at these settings it is fitted when asked.")
        )
        return
    curve = mixtures.curve(settings)
    softmax = models.softmax(deskew=settings.deskew)
    mixture = _(MIXTURE)
    marked = {mixture: n_components} if n_components in curve.components else None
    left, right = st.columns(2)
    with left:
        display.chart(
            line_charts.curves(
                curve.components,
                {mixture: curve.test_accuracy},
                _("styles per digit K"),
                _("test accuracy"),
                _("Test accuracy by styles per digit"),
                log_x=True,
                tick_every_x=True,
                marker_x=1,
                current={mixture: float(curve.test_accuracy[0])},
                current_label=_(NAIVE_MARK),
                marked=marked,
                marked_label=_(CHOSEN_MARK),
                stars_named=False,
                references={_("softmax regression"): softmax.test_accuracy},
            ),
            key="mixture_accuracy",
            alt=_(
                "Test accuracy of the mixture for each number of styles per digit, with softmax regression's as a line"
            ),
        )
    with right:
        display.chart(
            line_charts.curves(
                curve.components,
                {mixture: curve.mean_test_loglik},
                _("styles per digit K"),
                _("mean log p(x | y), nats"),
                _("Held-out log-likelihood by styles per digit"),
                log_x=True,
                tick_every_x=True,
                marker_x=1,
                current={mixture: float(curve.mean_test_loglik[0])},
                current_label=_(NAIVE_MARK),
                marked=marked,
                marked_label=_(CHOSEN_MARK),
                stars_named=False,
            ),
            key="mixture_loglik",
            alt=_("Mean log p(x | y) of the {count} test images for each number of styles per digit").format(
                count=i18n.integer(len(splits.test_labels))
            ),
        )
    best = int(np.argmax(curve.test_accuracy))
    k = int(curve.components[best])
    st.caption(
        ngettext(
            "K = 1 is naive Bayes: {naive}. With {k} style per digit the mixture reads {mixture} of the test images "
            "right (softmax regression: {softmax}), and each test image becomes {nats} nats more likely: the model "
            "describes the digits better, not only tells them apart. One random start (seed 0) per K; "
            "`python -m nbcore mixture` compares seeds.",
            "K = 1 is naive Bayes: {naive}. With {k} styles per digit the mixture reads {mixture} of the test images "
            "right (softmax regression: {softmax}), and each test image becomes {nats} nats more likely: the model "
            "describes the digits better, not only tells them apart. One random start (seed 0) per K; "
            "`python -m nbcore mixture` compares seeds.",
            k,
        ).format(
            naive=i18n.decimal(curve.test_accuracy[0], 4),
            k=i18n.integer(k),
            mixture=i18n.decimal(curve.test_accuracy[best], 4),
            softmax=i18n.decimal(softmax.test_accuracy, 4),
            nats=i18n.decimal(curve.mean_test_loglik[best] - curve.mean_test_loglik[0], 1),
        )
    )


def styles_and_samples(n_components: int) -> None:
    """One digit's styles, then samples from the mixture beside naive Bayes's and real digits."""
    st.subheader(_("The styles of one digit"))
    digit = links.widget(st.selectbox, _("Digit"), "mixture_digit", width=200)
    k = i18n.integer(n_components)
    if not mixtures.model_ready(settings, n_components) and not fit_button(
        ngettext(
            "Fit {k} style per digit at these settings", "Fit {k} styles per digit at these settings", n_components
        ).format(k=k),
        "mixture_fit_model",
        _("EM at this K and these settings takes seconds, once for everyone on this server."),
    ):
        st.caption(
            ngettext(
                "{k} style per digit is not fitted at these settings yet.",
                "{k} styles per digit are not fitted at these settings yet.",
                n_components,
            ).format(k=k)
        )
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
        alt=ngettext(
            "The {k} style of {digit}, each a picture of P(xᵢ = 1 | {digit}, style), heaviest first",
            "The {k} styles of {digit}, each a picture of P(xᵢ = 1 | {digit}, style), heaviest first",
            n_components,
        ).format(k=k, digit=digit),
    )

    st.subheader(_("Generated digits"))
    seed = links.counter(_("Seed"), "mixture_seed", _("New samples"), "mixture_new", ":material/casino:")
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
        (_("From the mixture, K = {k}").format(k=k), _("From naive Bayes"), _("Real training images")),
        ("mixture_samples", "mixture_naive_samples", "mixture_real"),
        (
            ngettext(
                "{count} digits {digit} sampled from the mixture of {k} style per digit",
                "{count} digits {digit} sampled from the mixture of {k} styles per digit",
                n_components,
            ).format(count=SAMPLES, digit=digit, k=k),
            _("{count} digits {digit} sampled from naive Bayes, every pixel drawn on its own").format(
                count=SAMPLES, digit=digit
            ),
            _("{count} real training images of {digit}, as the models see them").format(
                count=SAMPLES, digit=notation.with_article(digit)
            ),
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
        _(
            "Each sample from the mixture first picks a style of {digit} by its weight, then "
            "draws every pixel from that style: the strokes of one way of writing come together. Within a style the "
            "pixels are still independent coins, so some speckle stays. Images as the models see them: {form}."
        ).format(digit=notation.with_article(digit), form=notation.as_the_model_sees(settings.input_form))
    )


def why_here(effect: str, labels: int, alone: float, weight: float, by_weight: dict[float, float]) -> str:
    """Why the unlabeled digits helped or hurt in this case, in words from its numbers: ``effect`` (HELPED, HURT or
    NO_CHANGE), ``labels`` per class, the accuracy with the labels ``alone``, the λ chosen and the accuracy at every λ
    above 0."""
    count = i18n.integer(labels)
    if effect == experiment.NO_CHANGE:
        return _("The change is under {band} of the {total} test images.").format(
            band=i18n.decimal(experiment.NO_CHANGE_BAND * len(splits.test_labels), 0),
            total=i18n.integer(len(splits.test_labels)),
        )
    if effect == experiment.HELPED:
        return ngettext(
            "With {count} labelled digit per class the labelled model alone is poor, so one blob of images per "
            "class, found among the unlabeled digits, is a better guess than the labels give.",
            "With {count} labelled digits per class the labelled model alone is poor, so one blob of images per "
            "class, found among the unlabeled digits, is a better guess than the labels give.",
            labels,
        ).format(count=count)
    reason = ngettext(
        "With {count} labelled digit per class the labels already know the digits better than one blob per class "
        "does, and the unlabeled digits pull each class toward a cluster of handwriting that is not its digit.",
        "With {count} labelled digits per class the labels already know the digits better than one blob per class "
        "does, and the unlabeled digits pull each class toward a cluster of handwriting that is not its digit.",
        labels,
    ).format(count=count)
    other = min(by_weight) if weight > min(by_weight) else max(by_weight)
    if other == weight:
        return reason
    accuracy = by_weight[other]
    if other < weight:
        if accuracy > by_weight[weight]:
            how = _("{reason} A smaller λ limits the harm: at λ = {weight}, {accuracy} ({change}).")
        else:
            how = _("{reason} A smaller λ does not help here: at λ = {weight}, {accuracy} ({change}).")
    elif accuracy < by_weight[weight]:
        how = _("{reason} A larger λ does more harm: at λ = {weight}, {accuracy} ({change}).")
    else:
        how = _("{reason} A larger λ does no more harm here: at λ = {weight}, {accuracy} ({change}).")
    return how.format(
        reason=reason,
        weight=notation.general(other),
        accuracy=i18n.decimal(accuracy, 4),
        change=notation.signed(accuracy - alone, 4),
    )


def unlabeled_digits() -> None:
    """Few labels and many unlabeled digits: EM's accuracy along its iterations, and whether they helped."""
    st.subheader(_("What unlabeled digits do"))
    st.markdown(
        _(
            "EM can also read digits whose label nobody gave: each one is counted into every digit in proportion to "
            "how likely the model finds it there, at a weight λ (Nigam et al., 2000). Keep a few labelled digits "
            "per class, let the other training images be unlabeled, and see whether they help. One style per digit "
            "here."
        )
    )
    if not mixtures.unlabeled_ready(settings) and not fit_button(
        _("Fit with unlabeled digits at these settings"),
        "mixture_fit_unlabeled",
        _("Ready at the textbook's settings. Here EM runs for every case of the panel, about half a minute."),
    ):
        st.caption(_("This panel is ready at the textbook's settings; at these settings it is fitted when asked."))
        return
    measured = mixtures.unlabeled(settings)
    weights = [weight for weight in measured.weights if weight > 0]
    left, right = st.columns(2)
    with left:
        labels = links.widget(
            st.segmented_control,
            _("Labelled digits per class"),
            "unlabeled_labels",
            options=measured.labels_per_digit,
        )
    with right:
        weight = links.widget(
            st.segmented_control,
            _("λ: how much an unlabeled digit counts"),
            "unlabeled_weight",
            options=weights,
            format_func=lambda value: f"{value:g}",  # also the value in the link: not localised
        )
    if labels is None or weight is None:  # a segmented control can be cleared by clicking its choice again
        st.caption(_("Choose a number of labelled digits and a λ."))
        return
    row, column = measured.labels_per_digit.index(labels), measured.weights.index(weight)
    alone = float(measured.test_accuracy[row, measured.weights.index(0.0)])
    with_unlabeled = float(measured.test_accuracy[row, column])
    iterations = int(measured.n_iter[row, column])
    display.chart(
        line_charts.curves(
            np.arange(1, iterations + 1),
            {
                _("with the unlabeled digits, λ = {weight}").format(
                    weight=notation.general(weight)
                ): measured.accuracy_by_iteration[row, column, :iterations]
            },
            _("EM iteration"),
            _("test accuracy"),
            ngettext(
                "{labels} labelled digit per class and {unlabeled} unlabeled",
                "{labels} labelled digits per class and {unlabeled} unlabeled",
                labels,
            ).format(labels=i18n.integer(labels), unlabeled=i18n.integer(len(splits.train_labels) - 10 * labels)),
            references={_("labelled digits alone"): alone},
        ),
        key="mixture_unlabeled_curve",
        alt=_("Test accuracy after each EM iteration with the unlabeled digits, and with the labelled digits alone"),
    )
    effect = experiment.unlabeled_effect(alone, with_unlabeled)
    by_weight = {value: float(measured.test_accuracy[row, measured.weights.index(value)]) for value in weights}
    verdict = ngettext(
        "{verdict}: {alone} with the labelled digits alone, {with_them} with them ({change}) after {iterations} EM "
        "iteration. {why}",
        "{verdict}: {alone} with the labelled digits alone, {with_them} with them ({change}) after {iterations} EM "
        "iterations. {why}",
        iterations,
    )
    numbers = dict(
        alone=i18n.decimal(alone, 4),
        with_them=i18n.decimal(with_unlabeled, 4),
        change=notation.signed(with_unlabeled - alone, 4),
        iterations=i18n.integer(iterations),
        why=why_here(effect, labels, alone, weight, by_weight),
    )
    head = _(EFFECT_VERDICTS[effect])
    st.markdown(verdict.format(verdict=f"**{head}**", **numbers))
    # a new choice's verdict, read out
    live_region.announce(verdict.format(verdict=head, **numbers), key="mixture_unlabeled_announcement")
    verdicts = {
        count: experiment.unlabeled_effect(
            float(measured.test_accuracy[index, measured.weights.index(0.0)]),
            float(measured.test_accuracy[index, column]),
        )
        for index, count in enumerate(measured.labels_per_digit)
    }
    st.table(
        {
            _("Labelled per class"): [i18n.integer(count) for count in measured.labels_per_digit],
            _("Labelled alone"): [
                i18n.decimal(value, 4) for value in measured.test_accuracy[:, measured.weights.index(0.0)]
            ],
            _("With unlabeled, λ = {weight}").format(weight=notation.general(weight)): [
                i18n.decimal(value, 4) for value in measured.test_accuracy[:, column]
            ],
            _("The unlabeled digits"): [_(EFFECT_WORDS[verdicts[count]]) for count in measured.labels_per_digit],
        }
    )
    st.info(
        _(
            "Why they can hurt: EM makes the model more likely for *all* the digits, labelled or not, and with one "
            "style per digit it assumes that each digit is one blob of images. Handwriting is not: the ten blobs "
            "that explain sixty thousand unlabeled digits best are not the ten digits, and the unlabeled digits "
            "outvote the labelled ones. With very few labels the labelled model is so poor that the unlabeled "
            "digits still help; with more, the labels know better. A smaller λ lets the labels keep the upper hand. "
            "Give each digit ten styles and the blobs can follow the handwriting: then the unlabeled digits help "
            "with ten labels per digit as well (`python -m nbcore mixture --labels 10 --unlabeled-components 10` "
            "measures it)."
        ),
        icon=":material/lightbulb:",
    )


if not mixtures.supported(settings):
    st.warning(_(model_choice.NEEDS_SMOOTHING), icon=":material/info:")
else:
    n_components = model_choice.components_slider()
    accuracy_and_likelihood(n_components)
    styles_and_samples(n_components)
    unlabeled_digits()
