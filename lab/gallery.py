"""A class's drawings, together: the in-memory store behind the class gallery (no Streamlit, no nbcore).

A teacher hands out a link with a class code (``?class=ABCD``); each student's drawing sent from Draw
lands in that code's gallery, which only that code can read. The store holds no names, and is bounded
so that no visitor can fill the server's memory: at most ``per_class`` drawings a code (the oldest
go first), at most ``max_classes`` codes (the least recently used goes first), and every drawing is
forgotten ``keep_seconds`` after it was sent. One instance serves the whole server (lab/state.py),
so every method takes a lock.
"""

from __future__ import annotations

import io
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

CODE_PATTERN = re.compile(r"[A-Z0-9]{4,8}")
CODE_RULE = "4 to 8 letters A–Z or digits 0–9"
EXAMPLE_CODE = "MATH3B"
NEW_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to mix up when read off a projector
N_CLASSES = 10
FRAME_SHAPE = (28, 28)
PER_CLASS = 300
MAX_CLASSES = 200
KEEP_SECONDS = 3 * 60 * 60


def class_code(raw: object) -> str | None:
    """The class code in ``raw`` (surrounding spaces dropped, upper-cased), or None if it is not one.

    A code is ``CODE_RULE``; anything else (other characters, other lengths, not a string) is None.
    """
    if not isinstance(raw, str) or len(raw) > 64:  # long values are refused before any other work
        return None
    code = raw.strip().upper()
    return code if CODE_PATTERN.fullmatch(code) else None


def new_code(length: int = 6) -> str:
    """A random class code of ``length`` letters and digits that read unambiguously aloud and on a screen."""
    return "".join(secrets.choice(NEW_CODE_LETTERS) for _ in range(length))


@dataclass(frozen=True)
class Drawing:
    """One student's drawing as sent: the framed digit and both models' readings of it.

    ``frame`` uint8 (28, 28), read-only; ``meant`` the digit the student says they drew;
    ``bayes_posterior`` and ``softmax_posterior`` float64 (10,), p(y | x) of naive Bayes and of
    softmax regression; ``sent_at`` seconds on the gallery's clock.
    """

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


def _checked_posterior(values: np.ndarray, name: str) -> np.ndarray:
    posterior = np.array(values, dtype=np.float64)
    if posterior.shape != (N_CLASSES,) or not np.isfinite(posterior).all() or (posterior < 0).any():
        raise ValueError(f"{name} must be {N_CLASSES} finite probabilities, not {posterior.shape} values")
    posterior.setflags(write=False)
    return posterior


class ClassGallery:
    """Drawings per class code, bounded in count per code, in codes and in time; thread-safe.

    ``clock`` returns seconds (``time.monotonic`` by default; tests inject their own).
    """

    def __init__(
        self,
        per_class: int = PER_CLASS,
        max_classes: int = MAX_CLASSES,
        keep_seconds: float = KEEP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        if per_class < 1 or max_classes < 1 or keep_seconds <= 0:
            raise ValueError("a gallery holds at least one drawing of one class for some time")
        self.per_class, self.max_classes, self.keep_seconds = per_class, max_classes, keep_seconds
        self._clock = clock
        self._lock = threading.Lock()
        # code -> drawings, oldest first; codes in order of last use, least recent first
        self._classes: OrderedDict[str, deque[Drawing]] = OrderedDict()

    def add(
        self, code: str, frame: np.ndarray, meant: int, bayes_posterior: np.ndarray, softmax_posterior: np.ndarray
    ) -> Drawing:
        """Keep a copy of this drawing in ``code``'s gallery and return it; ValueError for a bad code or drawing."""
        code = self._valid(code)
        pixels = np.asarray(frame)
        if (
            pixels.shape != FRAME_SHAPE
            or not np.issubdtype(pixels.dtype, np.integer)
            or pixels.min() < 0
            or pixels.max() > 255
        ):
            raise ValueError(f"a drawing is a {FRAME_SHAPE} array of integers 0-255")
        if isinstance(meant, bool) or not isinstance(meant, (int, np.integer)) or not 0 <= meant < N_CLASSES:
            raise ValueError(f"the digit meant is one of 0-{N_CLASSES - 1}")
        pixels = pixels.astype(np.uint8)  # a fresh copy: the caller's array may change later
        pixels.setflags(write=False)
        with self._lock:
            now = self._clock()
            drawing = Drawing(
                pixels,
                int(meant),
                _checked_posterior(bayes_posterior, "bayes_posterior"),
                _checked_posterior(softmax_posterior, "softmax_posterior"),
                now,
            )
            self._forget_old(now)
            drawings = self._classes.get(code)
            if drawings is None:
                drawings = self._classes[code] = deque(maxlen=self.per_class)
                while len(self._classes) > self.max_classes:
                    self._classes.popitem(last=False)
            self._classes.move_to_end(code)
            drawings.append(drawing)
            return drawing

    def drawings(self, code: str) -> tuple[Drawing, ...]:
        """``code``'s drawings still kept, oldest first (empty for a code nobody sent to)."""
        code = self._valid(code)
        with self._lock:
            self._forget_old(self._clock())
            if code not in self._classes:
                return ()
            self._classes.move_to_end(code)
            return tuple(self._classes[code])

    def clear(self, code: str) -> None:
        """Forget all of ``code``'s drawings."""
        code = self._valid(code)
        with self._lock:
            self._classes.pop(code, None)

    def class_count(self) -> int:
        """How many codes hold drawings."""
        with self._lock:
            self._forget_old(self._clock())
            return len(self._classes)

    @staticmethod
    def _valid(code: str) -> str:
        valid = class_code(code)
        if valid is None or valid != code:
            raise ValueError(f"a class code is {CODE_RULE}, upper-case")
        return valid

    def _forget_old(self, now: float) -> None:
        """Drop drawings older than ``keep_seconds``, and codes left empty (the lock is held)."""
        oldest_kept = now - self.keep_seconds
        for code in list(self._classes):
            drawings = self._classes[code]
            while drawings and drawings[0].sent_at < oldest_kept:
                drawings.popleft()
            if not drawings:
                del self._classes[code]


@dataclass(frozen=True)
class GalleryArrays:
    """Drawings as arrays: ``frames`` uint8 (n, 28, 28); ``meant``, ``bayes``, ``softmax`` int64 (n,) digits."""

    frames: np.ndarray
    meant: np.ndarray
    bayes: np.ndarray
    softmax: np.ndarray


def as_arrays(drawings: Sequence[Drawing]) -> GalleryArrays:
    """The frames, digits meant and both models' predictions of ``drawings``, in their order."""
    frames = np.stack([drawing.frame for drawing in drawings]) if drawings else np.zeros((0,) + FRAME_SHAPE, np.uint8)
    return GalleryArrays(
        frames,
        np.array([drawing.meant for drawing in drawings], dtype=np.int64),
        np.array([drawing.bayes_prediction for drawing in drawings], dtype=np.int64),
        np.array([drawing.softmax_prediction for drawing in drawings], dtype=np.int64),
    )


CSV_HEADER = ["meant", "naive_bayes", "softmax"] + [f"pixel{index}" for index in range(FRAME_SHAPE[0] * FRAME_SHAPE[1])]


def to_csv(drawings: Sequence[Drawing]) -> bytes:
    """UTF-8 CSV, a header then one row per drawing: meant digit, naive Bayes' and softmax's predictions,
    then the 784 pixels of the 28x28 frame in row-major order (0-255; ``pixel0`` top left, as Kaggle's MNIST CSV)."""
    arrays = as_arrays(drawings)
    rows = np.column_stack(
        [
            arrays.meant,
            arrays.bayes,
            arrays.softmax,
            arrays.frames.reshape(len(drawings), FRAME_SHAPE[0] * FRAME_SHAPE[1]).astype(np.int64),
        ]
    )
    text = io.StringIO()
    text.write(",".join(CSV_HEADER) + "\n")
    if len(rows):
        np.savetxt(text, rows, fmt="%d", delimiter=",")
    return text.getvalue().encode("utf-8")
