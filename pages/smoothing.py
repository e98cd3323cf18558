"""Smoothing: what the pseudo-counts alpha and beta do, and why zero is a bad idea."""

import math

import numpy as np
import streamlit as st

from lab import figures, state

settings = state.current_settings()
result = state.evaluation(settings)
model = result.model
splits = state.mnist()

st.title("Smoothing: p(xᵢ = 1 | y) = (nᵢᵧ + α) / (nᵧ + α + β)")
st.markdown("Move **α** and **β** in the sidebar (0 to 100). α acts as α imaginary images with the pixel on, "
            "β as β with it off; α = β = 1 is Laplace smoothing. Nothing is re-counted: the counts stay, "
            "only the fractions change.")

left, right = st.columns([1, 1.4], gap="large")
with left:
    digit = st.selectbox("Digit to show", range(10), index=2, key="smoothing_digit")
    st.plotly_chart(figures.single_image(model.feature_prob_[digit].reshape(28, 28),
                                         f"P(xᵢ = 1 | {digit}) at α = {settings.alpha:g}, β = {settings.beta:g}",
                                         value_name="probability", colorscale=figures.PROBABILITY_SCALE,
                                         zrange=(0, 1), colorbar_title="p", height=380, hover_format=".4f"),
                    width="stretch", key="smoothing_digit_image")
    first, second = st.columns(2)
    first.metric("Test accuracy", f"{result.test_accuracy:.4f}")
    second.metric("Mean log p(x, y) on training images", f"{result.mean_train_loglik:.2f}"
                  if math.isfinite(result.mean_train_loglik) else "−∞")
with right:
    curve = state.smoothing_curve(settings.threshold, settings.prior)
    marker = settings.alpha if settings.alpha == settings.beta and settings.alpha > 0 else None
    st.plotly_chart(figures.curves(curve["alpha"], {"train": curve["train_accuracy"], "test": curve["test_accuracy"]},
                                   "α = β (log scale)", "accuracy", "Accuracy against smoothing",
                                   marker_x=marker, log_x=True), width="stretch", key="smoothing_accuracy")
    st.plotly_chart(figures.curves(curve["alpha"], {"train": curve["mean_train_loglik"],
                                                    "test": curve["mean_test_loglik"]},
                                   "α = β (log scale)", "nats per image", "Mean log p(x, y_true)",
                                   marker_x=marker, log_x=True), width="stretch", key="smoothing_loglik")

st.subheader("Why logarithms: underflow")
index = st.number_input("Test image", 0, len(splits.test_labels) - 1, 0, key="smoothing_image")
features = (splits.test_images[index].reshape(-1) >= settings.threshold).astype(np.uint8)
true_label = int(splits.test_labels[index])
pixel_terms = model.pixel_log_likelihoods(features)[true_label]
log_sum = float(np.sum(pixel_terms))
columns = st.columns(4)
columns[0].metric(f"∏ p(xᵢ | {true_label}) in float32 (the textbook's tensors)",
                  repr(float(np.prod(np.exp(pixel_terms).astype(np.float32)))))
columns[1].metric(f"∏ p(xᵢ | {true_label}) in float64", repr(float(np.prod(np.exp(pixel_terms)))))
columns[2].metric("0.1 multiplied 784 times, float64", repr(0.1 ** 784))
columns[3].metric(f"∑ log p(xᵢ | {true_label})", f"{log_sum:.2f}")
st.caption(f"The true product is about 10^{log_sum / math.log(10):.0f}. float32 stops at about 10^-45 and float64 at "
           "10^-324: a product of 784 probabilities sinks below that easily and becomes exactly 0.0, and two zeros "
           "cannot be compared. The sum of logarithms is an ordinary number for every digit.")

st.subheader("No smoothing at all (α = β = 0)")
zero = state.zero_smoothing(settings.threshold, settings.prior)
first, second, third = st.columns(3)
first.metric("Test images with p(x | true digit) = 0", f"{zero['true_class_impossible']:,}")
second.metric("…impossible under every digit", f"{zero['all_classes_impossible']:,}")
third.metric("Test accuracy at α = β = 0", f"{zero['accuracy']:.4f}",
             f"{zero['accuracy'] - result.test_accuracy:+.4f} vs. current", delta_color="off", delta_arrow="off")
st.caption("Without pseudo-counts, a pixel never inked for a digit in training gets probability exactly 0: one such "
           "pixel in a test image rules the digit out, however well the other 783 fit. When every digit is ruled "
           "out, this lab ranks digits by how few impossible pixels they have, then by the rest of the evidence.")
