"""How the guided lesson's questions offer their answers and show them: the options' stops, and named functions
that write an option in the reader's language and form (named: a ``Question`` may be kept in a session)."""

from __future__ import annotations

from lab import i18n
from lab.i18n import _

COUNT_STOPS = (0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # answers to "how many of the 10,000 test images"


def steps_of(start: float, step: float, count: int) -> tuple[float, ...]:
    """``count`` options from ``start`` on, ``step`` apart, rounded as a slider shows them."""
    return tuple(round(start + step * index, 2) for index in range(count))


def as_digit(option: int) -> str:
    return _("digit {digit}").format(digit=option)


def as_count(option: int) -> str:
    return i18n.integer(option)


def as_two_places(option: float) -> str:
    return i18n.decimal(option, 2)


def as_percent(option: float) -> str:
    return i18n.percent(option)


def as_out_of_four(option: int) -> str:
    return _("{count} of 4").format(count=option)
