"""Numbers and digits as the pages write them in titles, captions and metrics."""

from __future__ import annotations

import numpy as np

from nbcore.inputs import InputForm

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, digits: int = 3) -> str:
    """A number as people write it: 1.58e-49 -> "1.58 × 10⁻⁴⁹" (``digits`` significant); 0 -> "0.0"."""
    if value == 0 or not np.isfinite(value):
        return repr(float(value))
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def with_article(digit: int) -> str:
    """ "a 3", "an 8": the article as the digit is spoken (of 0-9, only "eight" starts with a vowel sound)."""
    return f"{'an' if int(digit) == 8 else 'a'} {digit}"


def as_the_model_sees(form: InputForm) -> str:
    """What ``form`` does to an image, for a caption: "deskewed, then ink wherever a pixel is ≥ 128"."""
    ink = f"ink wherever a pixel is ≥ {form.threshold}"
    return f"deskewed (sheared upright), then {ink}" if form.deskew else ink
