"""Smoothing: what the pseudo-counts alpha and beta do, and why zero is a bad idea."""

import dataclasses
import math

import streamlit as st

from lab import display, links
from lab.data import mnist, models
from lab.figures import charts, digits, notation
from lab.settings import current_settings
from nbcore.explain import likelihood_product

settings = current_settings()
result = models.evaluation(settings)
model = result.model
splits = mnist.splits()

st.title("Smoothing: pseudo-counts α and β")
st.markdown(
    "p(xᵢ = 1 | y) = (nᵢᵧ + α) / (nᵧ + α + β), where nᵢᵧ counts the training images of digit y "
    "with pixel i inked and nᵧ all training images of y. Move **α** and **β** in the sidebar (0 to 100): "
    "α acts as α imaginary images with the pixel on, β as β with it off; α = β = 1 is Laplace smoothing. "
    "Nothing is re-counted: the counts stay, only the fractions change."
)

left, right = st.columns([1.1, 1], gap="large")
with left:
    digit = links.widget(st.selectbox, "Digit to show", "smoothing_digit", 2, options=range(10))
    # on a log scale: what smoothing moves is the many rarely inked pixels, invisible on a 0..1 scale
    display.chart(
        digits.log_probability_image(
            model.feature_log_prob_[digit].reshape(28, 28),
            f"log₁₀ P(xᵢ = 1 | {digit}), α = {settings.alpha:g}, β = {settings.beta:g}",
            height=440,
        ),
        key="smoothing_digit_image",
    )
    corner_count, digit_count = int(model.feature_count_[digit, 0]), int(model.class_count_[digit])
    st.metric(f"Top-left pixel for {digit}", notation.scientific(float(model.feature_prob_[digit, 0])))
    st.caption(
        f"Inked in {corner_count} of the {digit_count:,} training images of {digit}: p = ({corner_count} + α) "
        f"/ ({digit_count:,} + α + β) with α = {settings.alpha:g}, β = {settings.beta:g}. Pixels like it "
        "make up the border of the picture above; without smoothing they are exactly 0 (blank)."
    )
first, second = st.columns(2)
first.metric("Test accuracy", f"{result.test_accuracy:.4f}")
second.metric(
    "Mean log p(x, y) on training images",
    f"{result.mean_train_loglik:.2f}" if math.isfinite(result.mean_train_loglik) else "−∞",
)
with right:
    curve = models.smoothing_curve(settings)
    on_curve = settings.alpha == settings.beta
    current = f"now (α = {settings.alpha:g}, β = {settings.beta:g})"
    display.chart(
        charts.smoothing_accuracy(
            curve,
            settings.alpha,
            current_label=current,
            current={"test": result.test_accuracy, "train": result.train_accuracy} if not on_curve else None,
        ),
        key="smoothing_accuracy",
    )
    display.chart(
        charts.curves(
            curve["alpha"],
            {"train": curve["mean_train_loglik"], "test": curve["mean_test_loglik"]},
            "α = β (log scale)",
            "nats per image",
            "Mean log p(x, y_true)",
            marker_x=settings.alpha,
            log_x=True,
            current_label=current,
            current={"train": result.mean_train_loglik} if not on_curve else None,
        ),
        key="smoothing_loglik",
    )
    if not on_curve:
        st.caption(
            f"The curves are measured at α = β; the dashed line is at your α = {settings.alpha:g} and the "
            f"stars are the model at α = {settings.alpha:g}, β = {settings.beta:g}."
        )

st.subheader("Why logarithms: underflow")
index = links.widget(
    st.number_input, "Test image", "smoothing_image", 0, min_value=0, max_value=len(splits.test_labels) - 1
)
true_label = int(splits.test_labels[index])
product = likelihood_product(model, mnist.features(settings.input_form).test[index], true_label)
# two by two: four in a row cut the products to "1.58 …" at 1024 px with the sidebar open
columns = [*st.columns(2), *st.columns(2)]
columns[0].metric(f"∏ p(xᵢ | {true_label}) in float32 (textbook)", notation.scientific(product.float32))
columns[1].metric(f"∏ p(xᵢ | {true_label}) in float64", notation.scientific(product.float64))
columns[2].metric("0.1 multiplied 784 times, float64", notation.scientific(0.1**784))
columns[3].metric(f"∑ log p(xᵢ | {true_label})", f"{product.log:.2f}")
st.caption(
    f"The true product is about 10^{product.log10:.0f}. float32 stops at about 10^-45 and float64 at "
    "10^-324: a product of 784 probabilities sinks below that easily and becomes exactly 0.0, and two zeros "
    "cannot be compared. The sum of logarithms is an ordinary number for every digit."
)

st.subheader("No smoothing at all (α = β = 0)")
zero = models.zero_smoothing(settings)
at_laplace = models.evaluation(dataclasses.replace(settings, alpha=1.0, beta=1.0)).test_accuracy
first, second = st.columns(2)
third, _ = st.columns(2)
first.metric("Test images with p(x | true digit) = 0", f"{zero['true_class_impossible']:,}")
second.metric("…impossible under every digit", f"{zero['all_classes_impossible']:,}")
third.metric(
    "Test accuracy at α = β = 0",
    f"{zero['accuracy']:.4f}",
    f"{zero['accuracy'] - result.test_accuracy:+.4f} vs. current",
    delta_color="off",
    delta_arrow="off",
)
if zero["accuracy"] > at_laplace:
    st.info(
        f"Why does α = β = 0 score higher here ({zero['accuracy']:.4f}) than α = β = 1 ({at_laplace:.4f})? "
        f"Not because its probabilities are better: {zero['all_classes_impossible']:,} test images are "
        "impossible under every digit, so for them the decision is not a comparison of probabilities but the "
        "tie-break described below (fewest impossible pixels). The accuracy compares decision rules; as a "
        f"model of new images no smoothing is the worst possible: {zero['true_class_impossible']:,} test images "
        "are impossible under their own digit, so their mean log p(x, y) is −∞."
    )
st.caption(
    "Without pseudo-counts, a pixel never inked for a digit in training gets probability exactly 0: one such "
    "pixel in a test image rules the digit out, however well the other 783 fit. When every digit is ruled "
    "out, this lab ranks digits by how few impossible pixels they have, then by the rest of the evidence."
)
