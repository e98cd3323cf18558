"""Draw's "What the model sees": the framed digit (or, at a toggle, what plain resizing would give) and how it was made."""

from __future__ import annotations

import numpy as np
import streamlit as st

import nbcore
from lab.figures import digits, notation
from nbcore.inputs import InputForm
from nbcore.preprocess import ModelInput
from nbcore.strokes import MNIST_STROKE_RANGE, MNIST_STROKE_WIDTH, stroke_width

# the Draw canvas's brush default (px on the 280 px canvas): a digit about 200 px tall drawn with it is framed
# to a stroke width of 2.7 px, MNIST's median being 2.64 px (method in docs/preprocessing.md)
MNIST_LIKE_BRUSH = 24
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
    st.markdown("**What the model sees**")
    if made_from is not None and st.toggle(
        "Plain resizing instead",
        key="draw_plain_view",
        help="What the models would get if the picture were only squeezed to 28×28, without MNIST's framing.",
    ):
        plain = form.prepare(made_from.plain[None])
        st.image(
            digits.pixel_picture(plain.features[0].reshape(28, 28) * 255, scale=PICTURE_SCALE),
            alt="The picture merely squeezed to 28 × 28 pixels, ink or no ink",
        )
        bayes_says = int(model.predict(plain.features)[0])
        softmax_says = int(softmax.predict(plain.images)[0])
        st.caption(
            f"The whole picture squeezed to 28×28: no crop, no 20 px box, no centring, then "
            f"{notation.as_the_model_sees(form)}: {int(plain.features[0].sum())} of 784 pixels. Given this, naive Bayes would say "
            f"{bayes_says} and softmax {softmax_says}. MNIST's digits never look like this, so the models "
            "have not learned it."
        )
        return
    st.image(
        digits.pixel_picture(features.reshape(28, 28) * 255, scale=PICTURE_SCALE),
        alt="The digit as the model sees it: 28 × 28 pixels, ink or no ink",
    )
    st.caption(
        f"Your digit, cropped, scaled to 20 px and centred by its centre of mass in 28×28 like MNIST, then "
        f"{notation.as_the_model_sees(form)}: {int(features.sum())} of 784 pixels. {_stroke_sentence(frame, made_from)}"
    )


def _stroke_sentence(frame: np.ndarray, made_from: ModelInput | None) -> str:
    """The measured stroke width, and what the stroke step did to it."""
    mnist_width = (
        f"MNIST's: median {MNIST_STROKE_WIDTH:.1f} px, 80 % between {MNIST_STROKE_RANGE[0]:.1f} and "
        f"{MNIST_STROKE_RANGE[1]:.1f} px"
    )
    if made_from is None or not np.isfinite(made_from.width_before):
        width = stroke_width(frame)
        return f"Stroke width {width:.1f} px ({mnist_width})." if np.isfinite(width) else ""
    if made_from.stroke_action == "kept":
        return f"Stroke width {made_from.width_before:.1f} px, kept ({mnist_width})."
    return (
        f"Stroke width {made_from.width_before:.1f} px, {made_from.stroke_action} to "
        f"{made_from.width_after:.1f} px ({mnist_width})."
    )
