"""The class store's bounds: how much a class and a server hold, and the checks every argument passes first.

A check returns the argument as the back ends keep it (a plain int, or bytes), or raises ``ValueError`` (a
bad argument: a programming error or a forged request) or ``Refused`` (a class code, which a person types).
"""

from __future__ import annotations

import re

import numpy as np

from . import codes
from .records import FRAME_SHAPE, N_DIGITS, Refused

LONGEST_KEEP_SECONDS = 7 * 24 * 60 * 60  # a teacher can keep one open at most this far ahead
PER_CLASS = 2000  # drawings a class holds in a period; when full, new ones are refused
PER_STUDENT = 20  # drawings a student keeps in a period; their oldest go first
STUDENTS_PER_PER_CLASS = 2  # students a class keeps: this many times PER_CLASS; newcomers beyond are refused
MAX_CLASSES = 1000  # open classes on a server; when full, "New class" is refused
MAX_PERIODS = 12  # periods a class holds (a school day's); then the teacher makes a new class
MAX_STEP = 99  # lesson steps are 1..MAX_STEP
QUESTION_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
MAX_CHOICE_CHARS = 80

BAD_QUESTION = "a question id is 1 to 40 lower-case letters, digits, - or _"


def posterior_bytes(values: object, name: str) -> bytes:
    """``values``, N_DIGITS finite non-negative probabilities, as little-endian float64 bytes (80)."""
    posterior = np.asarray(values, dtype=np.float64)
    if posterior.shape != (N_DIGITS,) or not np.isfinite(posterior).all() or (posterior < 0).any():
        raise ValueError(f"{name} must be {N_DIGITS} finite probabilities, not {posterior.shape} values")
    return posterior.astype("<f8").tobytes()


def frame_bytes(frame: object) -> bytes:
    """``frame``, a FRAME_SHAPE array of integers 0-255, as uint8 bytes (784, row by row)."""
    pixels = np.asarray(frame)
    if (
        pixels.shape != FRAME_SHAPE
        or not np.issubdtype(pixels.dtype, np.integer)
        or pixels.min() < 0
        or pixels.max() > 255
    ):
        raise ValueError(f"a drawing is a {FRAME_SHAPE} array of integers 0-255")
    return pixels.astype(np.uint8).tobytes()


def valid_int(value: object, low: int, high: int, what: str) -> int:
    """``value`` if it is a whole number ``low``..``high`` (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{what} is a whole number {low}-{high}")
    return int(value)


def valid_code(code: str) -> str:
    """The class code ``code`` as it is kept (``codes.class_code``); Refused with the rule if it is not one."""
    valid = codes.class_code(code)
    if valid is None:
        raise Refused(f"A class code is {codes.CODE_RULE}.")
    return valid


def valid_student(student: str) -> str:
    if not isinstance(student, str) or not re.fullmatch(r"[0-9a-f]{16}", student):
        raise ValueError("a student id is 16 hex digits (codes.student_id)")
    return student


def valid_question(question: object) -> str:
    if not isinstance(question, str) or not QUESTION_PATTERN.fullmatch(question):
        raise ValueError(BAD_QUESTION)
    return question


def valid_digit(meant: object) -> int:
    if isinstance(meant, bool) or not isinstance(meant, (int, np.integer)) or not 0 <= meant < N_DIGITS:
        raise ValueError(f"the digit meant is one of 0-{N_DIGITS - 1}")
    return int(meant)
