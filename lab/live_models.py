"""What the Draw canvas needs to read a drawing in the page (lab/canvas.py's READING_SCRIPTS): both models and the
framing's constants.

Sent in the canvas component's ``data`` once per settings change: the element is unchanged from stroke to stroke,
so Streamlit sends a reference to the copy the browser keeps, not the models again. Arrays go as little-endian
bytes in base64 (float32, as the issue budgets them; the priors float64): naive Bayes' log p(x_j = 1 | y) and
log p(x_j = 0 | y) (10 x 784 each, -inf kept for an unsmoothed model), softmax regression's weights (10 x 784)
and biases. About 126 kB of text; devtools/live_bench.py measures it.
"""

from __future__ import annotations

import base64

import numpy as np

import nbcore
from nbcore import preprocess, strokes
from nbcore.inputs import InputForm


def _base64(values: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


def framing_constants() -> dict:
    """nbcore's framing constants under the names lab/digit_framing.js and lab/digit_reading.js read them by."""
    return {
        "frame": preprocess.FRAME,
        "box": preprocess.BOX,
        "inkLevel": preprocess.INK_LEVEL,
        "minContrast": preprocess.MIN_CONTRAST,
        "skeletonLevel": strokes.SKELETON_LEVEL,
        "upsample": strokes.UPSAMPLE,
        "strokeRange": list(strokes.MNIST_STROKE_RANGE),
    }


def payload(model: nbcore.BernoulliNB, softmax: nbcore.SoftmaxRegression, form: InputForm) -> dict:
    """The JSON-ready models for the canvas: classes must be the digits 0..9 in order (both models' ``classes_``)."""
    for fitted in (model, softmax):
        if list(fitted.classes_) != list(range(len(fitted.classes_))):
            raise ValueError(f"the live reading needs classes 0..n-1 in order, got {list(fitted.classes_)}")
    return {
        "classes": len(model.classes_),
        "bayes": {
            "log_on": _base64(model.feature_log_prob_, "<f4"),
            "log_off": _base64(model.feature_log_neg_prob_, "<f4"),
            "log_prior": _base64(model.class_log_prior_, "<f8"),
        },
        "softmax": {"coef": _base64(softmax.coef_, "<f4"), "intercept": _base64(softmax.intercept_, "<f4")},
        "form": {"threshold": int(form.threshold), "deskew": bool(form.deskew)},
        "constants": framing_constants(),
    }
