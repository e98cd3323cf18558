"""What the class store's tests share: a clock moved by hand, anonymous student ids, and drawings to send.

The fixtures that make stores on both back ends (``make_store``, ``redis_url``) are in tests/nbcore/conftest.py.
"""

from __future__ import annotations

import numpy as np

from nbcore.classroom import student_id


class Clock:
    """A clock the test moves by hand (seconds since the epoch)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def student(n: int) -> str:
    secret = f"{n:032x}"
    sid = student_id(secret)
    assert sid is not None
    return sid


def frame(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (28, 28), dtype=np.uint8)


def posterior(digit: int) -> np.ndarray:
    values = np.full(10, 0.01)
    values[digit] = 0.91
    return values


def send(store, code, who, meant=3, seed=0):
    return store.add_drawing(code, student(who), frame(seed), meant, posterior(meant), posterior((meant + 1) % 10))
