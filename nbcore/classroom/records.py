"""The class store's records: what a class, a drawing, an answer and a presence are, and how a refusal reads.

The back ends keep these as plain numbers and bytes (``StoredDrawing``); ``store`` hands them out as
these frozen dataclasses. Times are seconds since the epoch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

N_DIGITS = 10
FRAME_SHAPE = (28, 28)
FRAME_BYTES = FRAME_SHAPE[0] * FRAME_SHAPE[1]
KEEP_SECONDS = 3 * 60 * 60  # a class stays open this long after its last activity
KEEP_AFTER_END_SECONDS = 24 * 60 * 60  # an ended class is kept (read-only) this long, then deleted


class Refused(Exception):
    """A request the store will not carry out; ``str()`` is one sentence for the person who asked."""


class StoreUnavailable(Refused):
    """The store's file or server failed (full, locked too long, unreachable); the cause is chained, not shown."""


UNAVAILABLE = "The class store is not answering right now; the rest of the lab works. Try again in a minute."


class Operator:
    """The server's operator (``python -m nbcore class ...``): teacher of every class. Only Python code can pass
    ``OPERATOR``; a page passes the text of a link, which is never it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OPERATOR"


OPERATOR = Operator()
TeacherKey = str | Operator


@dataclass(frozen=True)
class ClassInfo:
    """A class: its code, when it was created and when it stops being open if nothing happens (seconds since the
    epoch); ``ended_at`` when its teacher ended it (None: not ended by hand); its current ``period`` (1, 2, ...);
    ``pace`` the lesson step its teacher leads the students to (None: students move freely)."""

    code: str
    created_at: float
    expires_at: float
    ended_at: float | None = None
    period: int = 1
    pace: int | None = None

    def ended(self, now: float) -> float | None:
        """When the class ended (by its teacher, or at ``expires_at`` once that has passed), or None while open."""
        if self.ended_at is not None:
            return self.ended_at
        return self.expires_at if now >= self.expires_at else None

    def is_open(self, now: float) -> bool:
        return self.ended(now) is None

    def deleted_at(self, now: float) -> float | None:
        """When the store deletes the class and everything it holds, or None while it is open."""
        ended = self.ended(now)
        return None if ended is None else ended + KEEP_AFTER_END_SECONDS


@dataclass(frozen=True)
class NewClass:
    """A class just created: its info and the teacher key, which the store keeps only as a digest."""

    info: ClassInfo
    teacher_key: str


@dataclass(frozen=True)
class Drawing:
    """One drawing as a student sent it.

    ``id`` increases with sending order within a store; ``student`` the anonymous id; ``frame`` uint8
    (28, 28) framed like MNIST, read-only; ``meant`` the digit the student says they drew;
    ``bayes_posterior`` and ``softmax_posterior`` float64 (10,), p(y | x) of both models when sent.
    """

    id: int
    student: str
    frame: np.ndarray
    meant: int
    bayes_posterior: np.ndarray
    softmax_posterior: np.ndarray
    sent_at: float

    @property
    def bayes_prediction(self) -> int:
        return int(np.argmax(self.bayes_posterior))

    @property
    def softmax_prediction(self) -> int:
        return int(np.argmax(self.softmax_posterior))


@dataclass(frozen=True)
class StoredDrawing:
    """A drawing as the back ends hold it: plain numbers and bytes."""

    id: int
    student: str
    meant: int
    frame: bytes
    bayes: bytes
    softmax: bytes
    sent_at: float

    def drawing(self) -> Drawing:
        frame = np.frombuffer(self.frame, dtype=np.uint8).reshape(FRAME_SHAPE)
        bayes = np.frombuffer(self.bayes, dtype="<f8")
        softmax = np.frombuffer(self.softmax, dtype="<f8")
        return Drawing(self.id, self.student, frame, self.meant, bayes, softmax, self.sent_at)


@dataclass(frozen=True)
class Answer:
    """A student's answer to a lesson question: ``after_reveal`` when it came after the teacher revealed the
    question (kept apart, never counted); ``answered_at`` seconds since the epoch."""

    student: str
    question: str
    choice: str
    answered_at: float
    after_reveal: bool


@dataclass(frozen=True)
class Tally:
    """How many students gave each answer to one question: ``counted`` (before the reveal) and ``after_reveal``
    (kept apart); answers nobody gave are absent."""

    counted: dict[str, int]
    after_reveal: dict[str, int]


@dataclass(frozen=True)
class Presence:
    """Where a student of a class was last seen: ``step`` the lesson step (None: not on the lesson), ``seen_at``."""

    step: int | None
    seen_at: float
