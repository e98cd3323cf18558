"""Smoothing: what the pseudo-counts alpha and beta do, and why zero is a bad idea."""

import dataclasses
import math

import streamlit as st

from lab import display, i18n, links
from lab.data import mnist, models
from lab.figures import digits, line_charts, notation
from lab.i18n import _, pgettext
from lab.settings import current_settings
from nbcore.explain import likelihood_product

settings = current_settings()
result = models.evaluation(settings)
model = result.model
splits = mnist.splits()

st.title(_("Smoothing: pseudo-counts α and β"))
st.markdown(
    _(
        "{formula}, where nᵢᵧ counts the training images of digit y "
        "with pixel i inked and nᵧ all training images of y. Move **α** and **β** in the sidebar (0 to 100): "
        "α acts as α imaginary images with the pixel on, β as β with it off; α = β = 1 is Laplace smoothing. "
        "Nothing is re-counted: the counts stay, only the fractions change."
    ).format(formula="p(xᵢ = 1 | y) = (nᵢᵧ + α) / (nᵧ + α + β)")
)

left, right = st.columns([1.1, 1], gap="large")
with left:
    digit = links.widget(st.selectbox, _("Digit to show"), "smoothing_digit")
    # on a log scale: what smoothing moves is the many rarely inked pixels, invisible on a 0..1 scale
    display.chart(
        digits.log_probability_image(
            model.feature_log_prob_[digit].reshape(28, 28),
            f"log₁₀ P(xᵢ = 1 | {digit}), α = {notation.general(settings.alpha)}, β = {notation.general(settings.beta)}",
            height=440,
        ),
        key="smoothing_digit_image",
    )
    corner_count, digit_count = int(model.feature_count_[digit, 0]), int(model.class_count_[digit])
    st.metric(
        _("Top-left pixel for {digit}").format(digit=digit), notation.scientific(float(model.feature_prob_[digit, 0]))
    )
    st.caption(
        _(
            "Inked in {inked} of the {count} training images of {digit}: p = ({inked} + α) / ({count} + α + β) "
            "with α = {alpha}, β = {beta}. Pixels like it make up the border of the picture above; without "
            "smoothing they are exactly 0 (blank)."
        ).format(
            inked=i18n.integer(corner_count),
            count=i18n.integer(digit_count),
            digit=digit,
            alpha=notation.general(settings.alpha),
            beta=notation.general(settings.beta),
        )
    )
first, second = st.columns(2)
first.metric(_("Test accuracy"), i18n.decimal(result.test_accuracy, 4))
second.metric(
    _("Mean log p(x, y) on training images"),
    i18n.decimal(result.mean_train_loglik, 2) if math.isfinite(result.mean_train_loglik) else "−∞",
)
with right:
    curve = models.smoothing_curve(settings)
    on_curve = settings.alpha == settings.beta
    current = _("now (α = {alpha}, β = {beta})").format(
        alpha=notation.general(settings.alpha), beta=notation.general(settings.beta)
    )
    train, test = pgettext("accuracy on", "train"), pgettext("accuracy on", "test")
    display.chart(
        line_charts.smoothing_accuracy(
            curve,
            settings.alpha,
            current_label=current,
            current={"test": result.test_accuracy, "train": result.train_accuracy} if not on_curve else None,
        ),
        key="smoothing_accuracy",
    )
    display.chart(
        line_charts.curves(
            curve["alpha"],
            {train: curve["mean_train_loglik"], test: curve["mean_test_loglik"]},
            _("{quantity} (log scale)").format(quantity="α = β"),
            _("nats per image"),
            _("Mean log p(x, y_true)"),
            marker_x=settings.alpha,
            log_x=True,
            current_label=current,
            current={train: result.mean_train_loglik} if not on_curve else None,
        ),
        key="smoothing_loglik",
    )
    if not on_curve:
        st.caption(
            _(
                "The curves are measured at α = β; the dashed line is at your α = {alpha} and the "
                "stars are the model at α = {alpha}, β = {beta}."
            ).format(alpha=notation.general(settings.alpha), beta=notation.general(settings.beta))
        )

st.subheader(_("Why logarithms: underflow"))
index = links.widget(
    st.number_input, _("Test image"), "smoothing_image", min_value=0, max_value=len(splits.test_labels) - 1
)
true_label = int(splits.test_labels[index])
product = likelihood_product(model, mnist.features(settings.input_form).test[index], true_label)
# two by two: four in a row cut the products to "1.58 …" at 1024 px with the sidebar open
columns = [*st.columns(2), *st.columns(2)]
product_of = f"∏ p(xᵢ | {true_label})"  # a formula: the same in every language
columns[0].metric(_("{product} in float32 (textbook)").format(product=product_of), notation.scientific(product.float32))
columns[1].metric(_("{product} in float64").format(product=product_of), notation.scientific(product.float64))
columns[2].metric(
    _("{factor} multiplied {times} times, float64").format(factor=i18n.decimal(0.1, 1), times=784),
    notation.scientific(0.1**784),
)
columns[3].metric(f"∑ log p(xᵢ | {true_label})", i18n.decimal(product.log, 2))
st.caption(
    _(
        "The true product is about 10^{exponent}. float32 stops at about 10^-45 and float64 at "
        "10^-324: a product of 784 probabilities sinks below that easily and becomes exactly 0.0, and two zeros "
        "cannot be compared. The sum of logarithms is an ordinary number for every digit."
    ).format(exponent=i18n.decimal(product.log10, 0))
)

st.subheader(_("No smoothing at all (α = β = 0)"))
zero = models.zero_smoothing(settings)
at_laplace = models.evaluation(dataclasses.replace(settings, alpha=1.0, beta=1.0)).test_accuracy
first, second = st.columns(2)
third, unused = st.columns(2)
first.metric(_("Test images with p(x | true digit) = 0"), i18n.integer(zero["true_class_impossible"]))
second.metric(_("…impossible under every digit"), i18n.integer(zero["all_classes_impossible"]))
third.metric(
    _("Test accuracy at α = β = 0"),
    i18n.decimal(zero["accuracy"], 4),
    _("{change} vs. current").format(change=notation.signed(zero["accuracy"] - result.test_accuracy, 4)),
    delta_color="off",
    delta_arrow="off",
)
if zero["accuracy"] > at_laplace:
    st.info(
        _(
            "Why does α = β = 0 score higher here ({unsmoothed}) than α = β = 1 ({laplace})? "
            "Not because its probabilities are better: {all_impossible} test images are "
            "impossible under every digit, so for them the decision is not a comparison of probabilities but the "
            "tie-break described below (fewest impossible pixels). The accuracy compares decision rules; as a "
            "model of new images no smoothing is the worst possible: {own_impossible} test images "
            "are impossible under their own digit, so their mean log p(x, y) is −∞."
        ).format(
            unsmoothed=i18n.decimal(zero["accuracy"], 4),
            laplace=i18n.decimal(at_laplace, 4),
            all_impossible=i18n.integer(zero["all_classes_impossible"]),
            own_impossible=i18n.integer(zero["true_class_impossible"]),
        )
    )
st.caption(
    _(
        "Without pseudo-counts, a pixel never inked for a digit in training gets probability exactly 0: one such "
        "pixel in a test image rules the digit out, however well the other 783 fit. When every digit is ruled "
        "out, this lab ranks digits by how few impossible pixels they have, then by the rest of the evidence."
    )
)
