"""Inpainting: fill in the hidden part of a digit from the part that is seen."""

import numpy as np
import streamlit as st

from lab import display, i18n, link_names, links, model_choice
from lab.data import mnist
from lab.figures import bar_charts, digits, notation
from lab.i18n import N_, _, ngettext
from lab.settings import current_settings
from nbcore.features import observed_region

EXAMPLES_PER_DIGIT = 3
TEST_IMAGE, MY_DRAWING = link_names.INPAINT_SOURCES  # the image sources' values; shown translated
# nbcore's regions (OBSERVED_REGIONS, the choice's values), as the choice shows them
REGION_NAMES = {
    "top half": N_("top half"),
    "bottom half": N_("bottom half"),
    "left half": N_("left half"),
    "right half": N_("right half"),
    "random pixels": N_("random pixels"),
}


settings = current_settings()
splits = mnist.splits()

st.title(_("Inpainting: guess the hidden pixels"))
intro = st.container()  # the words for the model chosen below
name, model = model_choice.generative_model(settings)
mixture = name == model_choice.MIXTURE
if mixture:
    intro.markdown(
        _(
            "Show the model part of an image. The mixture of styles first infers the digit *and the way it is "
            "written* from the visible pixels, {posterior}, then fills in each hidden pixel as {fill}. Only the "
            "styles that agree with the seen part paint the hidden part, so the fill is sharper than naive Bayes' "
            "one average picture per digit."
        ).format(posterior=_("p(y, k | seen)"), fill=_("p(xⱼ = 1 | seen) = Σ_y Σ_k p(xⱼ = 1 | y, k) · p(y, k | seen)"))
    )
else:
    intro.markdown(
        _(
            "Show the model part of an image. It first infers the digit from the visible pixels, {posterior}, then "
            "fills in each hidden pixel as {fill}."
        ).format(posterior=_("p(y | seen)"), fill=_("p(xⱼ = 1 | seen) = Σ_y p(xⱼ = 1 | y) · p(y | seen)"))
    )

sources = [TEST_IMAGE] + ([MY_DRAWING] if st.session_state.get("draw_frame") is not None else [])
controls = st.columns([1.2, 1, 1.2])
with controls[0]:
    if len(sources) > 1:
        source = links.widget(st.radio, _("Image"), "inpaint_source", options=sources, format_func=_, horizontal=True)
    else:  # a choice of one is no choice: say where a second would come from
        source = sources[0]
        st.caption(_("Image: a test image. Draw a digit on the Draw page to fill in your own here."))
with controls[1]:
    region = links.widget(
        st.selectbox,
        _("What is observed"),
        "inpaint_region",
        format_func=lambda name: _(REGION_NAMES[name]) if name in REGION_NAMES else name,
    )
fraction = 0.5
if region == "random pixels":
    with controls[1]:
        fraction = links.widget(st.slider, _("Fraction observed"), "inpaint_fraction", step=0.05)
if source == TEST_IMAGE:
    # the first three test images of each digit, in test-set order (image 0, a 7, comes first)
    choices = np.sort(
        np.concatenate([np.flatnonzero(splits.test_labels == digit)[:EXAMPLES_PER_DIGIT] for digit in range(10)])
    )
    with controls[2]:
        index = links.widget(
            st.selectbox,
            _("Test image"),
            "inpaint_index",
            default=int(choices[0]),
            options=choices.tolist(),
            format_func=lambda i: f"#{i}: {notation.with_article(splits.test_labels[i])}",
        )
    image, truth_label = splits.test_images[index], int(splits.test_labels[index])
else:
    image, truth_label = st.session_state.draw_frame, None

features = settings.input_form.features(image[None])[0]
observed = observed_region(region, fraction=fraction, seed=int(fraction * 1000))
pixel_prob, class_posterior = model.inpaint(features, observed)

shown = np.where(observed, features.astype(float), np.nan).reshape(28, 28)
# one digit again: the seen pixels as they are, the hidden ones as the model's p(ink)
completed = np.where(observed, features.astype(float), pixel_prob).reshape(28, 28)
panels = np.stack([shown, completed, features.reshape(28, 28).astype(float)])
# short: three titles side by side on a phone have about 100 px each
titles = [_("What it sees"), _("Filled in"), _("The real image")]
display.chart(
    digits.image_grid(
        panels,
        titles,
        columns=3,
        value_name=_("value"),
        zrange=(0, 1),
        colorbar_title=_("p(ink); seen pixels are 0 or 1"),
        height_per_row=240,
        hover_format=".3f",
    ),
    key="inpaint_panels",
)
guess = int(np.argmax(class_posterior))
seen = i18n.integer(int(observed.sum()))
sentences = [
    _("{seen} of 784 pixels observed. Most likely digit from them alone: {guess}.").format(seen=seen, guess=guess)
    if truth_label is None
    else _("{seen} of 784 pixels observed. Most likely digit from them alone: {guess} (the image is {truth}).").format(
        seen=seen, guess=guess, truth=notation.with_article(truth_label)
    ),
    _("Every panel shows the image as the model sees it: {form}.").format(
        form=notation.as_the_model_sees(settings.input_form)
    ),
]
if mixture:
    sentences.append(
        ngettext(
            "Filled in by the mixture of {k} style per digit, each style weighted by how well it explains the seen "
            "pixels.",
            "Filled in by the mixture of {k} styles per digit, each style weighted by how well it explains the seen "
            "pixels.",
            model.n_components,
        ).format(k=i18n.integer(model.n_components))
    )
st.caption(i18n.sentences(*sentences))
display.chart(
    bar_charts.class_bars(class_posterior, _("p(y | observed pixels)"), _("probability"), highlight=guess),
    key="inpaint_posterior",
)
