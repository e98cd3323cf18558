"""Numbers and digits as the pages write them in titles, captions and metrics, in the reader's language."""

from __future__ import annotations

import numpy as np

from lab import i18n
from lab.i18n import _
from nbcore.inputs import InputForm

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, digits: int = 3) -> str:
    """A number as people write it: 1.58e-49 -> "1.58 × 10⁻⁴⁹" (``digits`` significant; "1,58 × 10⁻⁴⁹" in
    Spanish); 0 -> "0.0"."""
    if not np.isfinite(value):
        return repr(float(value))
    if value == 0:
        return i18n.decimal(0.0, 1)
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{i18n.decimal(float(mantissa), digits - 1)} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def general(value: float, significant: int = 6) -> str:
    """``value`` as Python's ``g`` format writes it (0.1, 1e-09, 2.5), with the reader's decimal sign and
    thousands separators: "0,1" in Spanish."""
    text = f"{float(value):.{significant}g}"
    if not np.isfinite(value):
        return text
    mantissa, mark, exponent = text.partition("e")
    places = len(mantissa.partition(".")[2])
    return i18n.decimal(float(mantissa), places) + mark + exponent


def signed(value: float, places: int) -> str:
    """``value`` with ``places`` decimals and its sign always written: "+0.0123", "-0.0123" ("+0,0123")."""
    text = i18n.decimal(value, places)
    return text if text.startswith(("-", "−", "+")) else "+" + text


def with_article(digit: int) -> str:
    """ "a 3", "an 8": the article as the digit is spoken (of 0-9, only "eight" starts with a vowel sound); each
    language says it its own way ("un 8", "数字 8")."""
    return (_("an {digit}") if int(digit) == 8 else _("a {digit}")).format(digit=digit)


def as_the_model_sees(form: InputForm) -> str:
    """What ``form`` does to an image, for a caption: "deskewed, then ink wherever a pixel is ≥ 128"."""
    if form.deskew:
        return _("deskewed (sheared upright), then ink wherever a pixel is ≥ {threshold}").format(
            threshold=form.threshold
        )
    return _("ink wherever a pixel is ≥ {threshold}").format(threshold=form.threshold)
