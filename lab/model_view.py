"""Draw's "What the model sees": the framed digit (or, at a toggle, what plain resizing would give) and how it was made."""

from __future__ import annotations

import numpy as np
import streamlit as st

import nbcore
from lab import i18n
from lab.figures import digits, notation
from lab.i18n import _
from nbcore.inputs import InputForm
from nbcore.preprocess import ModelInput
from nbcore.strokes import MNIST_STROKE_RANGE, MNIST_STROKE_WIDTH, stroke_width

PICTURE_SCALE = 5  # 140 px: under the canvas, beside the evidence map of the same pixels


def show(
    frame: np.ndarray,
    features: np.ndarray,
    made_from: ModelInput | None,
    form: InputForm,
    model: nbcore.BernoulliNB,
    softmax: nbcore.SoftmaxRegression,
) -> None:
    """Lay out "What the model sees" in the current container.

    ``frame``: uint8 (28, 28) softmax regression gets and ``features``: uint8 0/1 (784,) naive Bayes gets, both
    made by ``form`` (framed, stroke step done, deskewed if on); ``made_from``: the ModelInput it came from (None
    for a frame given directly: then no plain-resize toggle).
    """
    st.markdown(_("**What the model sees**"))
    if made_from is not None and st.toggle(
        _("Plain resizing instead"),
        key="draw_plain_view",
        help=_("What the models would get if the picture were only squeezed to 28×28, without MNIST's framing."),
    ):
        plain = form.prepare(made_from.plain[None])
        st.image(
            digits.pixel_picture(plain.features[0].reshape(28, 28) * 255, scale=PICTURE_SCALE),
            alt=_("The picture merely squeezed to 28 × 28 pixels, ink or no ink"),
        )
        bayes_says = int(model.predict(plain.features)[0])
        softmax_says = int(softmax.predict(plain.images)[0])
        st.caption(
            _(
                "The whole picture squeezed to 28×28: no crop, no 20 px box, no centring, then {form}: {inked} of 784 "
                "pixels. Given this, naive Bayes would say {bayes} and softmax {softmax}. MNIST's digits never look "
                "like this, so the models have not learned it."
            ).format(
                form=notation.as_the_model_sees(form),
                inked=i18n.integer(int(plain.features[0].sum())),
                bayes=bayes_says,
                softmax=softmax_says,
            )
        )
        return
    st.image(
        digits.pixel_picture(features.reshape(28, 28) * 255, scale=PICTURE_SCALE),
        alt=_("The digit as the model sees it: 28 × 28 pixels, ink or no ink"),
    )
    framing = _(
        "Your digit, cropped, scaled to 20 px and centred by its centre of mass in 28×28 like MNIST, then {form}: "
        "{inked} of 784 pixels."
    ).format(form=notation.as_the_model_sees(form), inked=i18n.integer(int(features.sum())))
    st.caption(i18n.sentences(framing, _stroke_sentence(frame, made_from)))


def _px(width) -> str:
    """A width in px (a number) with one decimal, in the reader's form."""
    return i18n.decimal(float(width), 1)


def _stroke_sentence(frame: np.ndarray, made_from: ModelInput | None) -> str:
    """The measured stroke width, and what the stroke step did to it."""
    mnist_width = _("MNIST's: median {median} px, 80 % between {low} and {high} px").format(
        median=_px(MNIST_STROKE_WIDTH), low=_px(MNIST_STROKE_RANGE[0]), high=_px(MNIST_STROKE_RANGE[1])
    )
    if made_from is None or not np.isfinite(made_from.width_before):
        width = stroke_width(frame)
        if not np.isfinite(width):
            return ""
        return _("Stroke width {width} px ({mnist}).").format(width=_px(width), mnist=mnist_width)
    before, after = _px(made_from.width_before), _px(made_from.width_after)
    if made_from.stroke_action == "thinned":
        return _("Stroke width {before} px, thinned to {after} px ({mnist}).").format(
            before=before, after=after, mnist=mnist_width
        )
    if made_from.stroke_action == "thickened":
        return _("Stroke width {before} px, thickened to {after} px ({mnist}).").format(
            before=before, after=after, mnist=mnist_width
        )
    return _("Stroke width {before} px, kept ({mnist}).").format(before=before, mnist=mnist_width)
