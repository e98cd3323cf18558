"""Heatmaps: the ten pictures P(x_i = 1 | y) the model has learned."""

import numpy as np
import streamlit as st

from lab import display, links
from lab.data import mnist, models
from lab.figures import bar_charts, digits, notation, style
from lab.i18n import _
from lab.model_settings import prior_name
from lab.settings import current_settings
from nbcore.explain import pixel_log_odds

settings = current_settings()
model = models.model(settings)
pixel_prob = model.feature_prob_.reshape(10, 28, 28)

st.title(_("What the model learned: {formula}").format(formula="P(xᵢ = 1 | y)"))
st.markdown(
    _(
        "Each picture is one digit's 784 pixel probabilities — a blurred average of its training images. "
        "Hover a pixel for its digit, row, column and value."
    )
)


view = links.widget(st.segmented_control, _("View"), "heatmap_view", format_func=_)
if view == "Log-odds":
    log_odds, limit = pixel_log_odds(model)
    display.chart(
        digits.class_heatmaps(
            log_odds.reshape(-1, 28, 28), "log p/(1−p)", colorscale=style.DIVERGING_SCALE, zrange=(-limit, limit)
        ),
        key="heatmap_log_odds",
    )
    st.caption(
        _(
            "Blue: the pixel is more often on than off for this digit; red: more often off. "
            "These are the weights naive Bayes puts on each inked pixel."
        )
    )
elif view == "Difference of two digits":
    first, second = st.columns(2)
    with first:
        digit_a = links.widget(st.selectbox, _("Digit"), "heatmap_digit_a")
    with second:
        digit_b = links.widget(st.selectbox, _("versus"), "heatmap_digit_b")
    difference = pixel_prob[digit_a] - pixel_prob[digit_b]
    display.chart(
        digits.difference_map(difference, f"P(xᵢ=1 | {digit_a}) − P(xᵢ=1 | {digit_b})", _("difference")),
        key="heatmap_difference",
    )
    st.caption(
        _(
            "Blue pixels are inked more often in {first}, red ones more often in {second}: they are where the model "
            "tells the two apart."
        ).format(first=notation.with_article(digit_a), second=notation.with_article(digit_b))
    )
else:
    display.chart(digits.class_heatmaps(pixel_prob, "P(xᵢ = 1 | y)", zrange=(0, 1)), key="heatmap_probability")

# real digits beside what was learned from them: the first training image of each digit, in the model's input form
training_labels = mnist.splits().train_labels
first_of_each = [int(np.flatnonzero(training_labels == digit)[0]) for digit in range(10)]
counted = mnist.features(settings.input_form).train[first_of_each].reshape(-1, 28, 28) * 255
st.image(
    [digits.pixel_picture(image, scale=2) for image in counted],
    caption=[str(d) for d in range(10)],
    width=56,
    alt=[_("The first training image of a {digit}, as the model counts it").format(digit=d) for d in range(10)],
)
st.caption(
    _(
        "Real training images as the model counts them: {form}. The pictures above are, for each digit, the share of "
        "its training images in this form with ink at each pixel (smoothed by α and β)."
    ).format(form=notation.as_the_model_sees(settings.input_form))
)

prior = np.exp(model.class_log_prior_)
display.chart(
    bar_charts.class_bars(prior, _("Class prior p(y) ({prior})").format(prior=prior_name(model.prior)), "p(y)"),
    key="heatmap_prior",
)
