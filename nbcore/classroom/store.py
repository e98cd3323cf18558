"""The class store's records, bounds and interface; the back ends implement a few primitives each.

A class is created by its teacher (``create_class``), who gets a secret key; students send drawings and
poll answers under the class code, each under an anonymous student id (``codes.student_id``). Every
size is bounded, and a bound is met by refusing the newcomer with a sentence (``Refused``), never by
dropping what others sent; the one exception is a student's own oldest drawing, which makes room for
their newest. A class ends ``KEEP_SECONDS`` after its last activity (its teacher can keep it longer),
or when its teacher closes it; either way everything of it is deleted.

Times are seconds since the epoch (``time.time``: every process and machine shares it); tests inject a
clock.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from . import codes

LOG = logging.getLogger(__name__)
N_DIGITS = 10
FRAME_SHAPE = (28, 28)
FRAME_BYTES = FRAME_SHAPE[0] * FRAME_SHAPE[1]
KEEP_SECONDS = 3 * 60 * 60  # a class lives this long after its last activity
LONGEST_KEEP_SECONDS = 7 * 24 * 60 * 60  # a teacher can keep one at most this far ahead
PER_CLASS = 2000  # drawings a class holds; when full, new ones are refused
PER_STUDENT = 20  # drawings a student keeps in a class; their oldest go first
MAX_CLASSES = 1000  # open classes on a server; when full, "New class" is refused
QUESTION_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
MAX_CHOICE_CHARS = 80
PURGE_EVERY = 500  # budget uses between two purges of ended classes and spent budgets
SETTING = "NBCORE_CLASS_STORE"  # unset: SQLite in the data directory; sqlite:///path; redis://host:port/db

NOT_OPEN = "There is no open class with this code: check it with your teacher."  # a miss and a closed class alike
TEACHER_ONLY = "Only this class's teacher can do that: open the page through the teacher link."


class Refused(Exception):
    """A request the store will not carry out; ``str()`` is one sentence for the person who asked."""


class StoreUnavailable(Refused):
    """The store's file or server failed (full, locked too long, unreachable); the cause is chained, not shown."""


UNAVAILABLE = "The class store is not answering right now; the rest of the lab works. Try again in a minute."


def failing_as_unavailable(*errors: type[BaseException]):
    """Class decorator for a back end: its primitives raise ``StoreUnavailable`` for ``errors``, logged with the cause."""

    def decorate(cls):
        for name in ClassStore.__abstractmethods__:
            method = getattr(cls, name)

            @functools.wraps(method)
            def guarded(self, *args, _method=method, **kwargs):
                try:
                    return _method(self, *args, **kwargs)
                except errors as error:
                    LOG.warning("class store failed in %s: %r", _method.__name__, error)
                    raise StoreUnavailable(UNAVAILABLE) from error

            setattr(cls, name, guarded)
        return cls

    return decorate


@dataclass(frozen=True)
class ClassInfo:
    """An open class: its code, when it was created and when it ends (seconds since the epoch)."""

    code: str
    created_at: float
    expires_at: float


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


def _posterior_bytes(values: object, name: str) -> bytes:
    posterior = np.asarray(values, dtype=np.float64)
    if posterior.shape != (N_DIGITS,) or not np.isfinite(posterior).all() or (posterior < 0).any():
        raise ValueError(f"{name} must be {N_DIGITS} finite probabilities, not {posterior.shape} values")
    return posterior.astype("<f8").tobytes()


def _frame_bytes(frame: object) -> bytes:
    pixels = np.asarray(frame)
    if (
        pixels.shape != FRAME_SHAPE
        or not np.issubdtype(pixels.dtype, np.integer)
        or pixels.min() < 0
        or pixels.max() > 255
    ):
        raise ValueError(f"a drawing is a {FRAME_SHAPE} array of integers 0-255")
    return pixels.astype(np.uint8).tobytes()


class ClassStore(ABC):
    """Classes, their drawings and poll answers; safe to use from many threads and processes at once.

    The public methods check their arguments and the teacher key, then call one primitive of the back
    end, which does its part atomically.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        per_class: int = PER_CLASS,
        per_student: int = PER_STUDENT,
        max_classes: int = MAX_CLASSES,
    ) -> None:
        self.clock = clock
        self.per_class, self.per_student, self.max_classes = per_class, per_student, max_classes
        self._takes_since_purge = 0

    # -- classes --------------------------------------------------------------------------------
    def create_class(self, code: str | None = None) -> NewClass:
        """A new class with ``code`` (a fresh random one if None) and a fresh teacher key.

        Refused when an open class has that code, or when the server holds ``MAX_CLASSES`` open classes.
        """
        now = self.clock()
        self._purge(now)
        chosen = self._valid_code(code) if code is not None else codes.new_code()
        key = codes.new_teacher_key()
        info = ClassInfo(chosen, now, now + KEEP_SECONDS)
        outcome = self._insert_class(info, codes.key_digest(key), self.max_classes)
        if outcome == "taken":
            raise Refused(f"Class {chosen} already exists: choose another code.")
        if outcome == "full":
            raise Refused(f"This server holds {self.max_classes} open classes, as many as it keeps: try again later.")
        return NewClass(info, key)

    def class_info(self, code: str) -> ClassInfo | None:
        """The open class with this code, or None (never created, closed or ended: the same answer)."""
        valid = codes.class_code(code)
        if valid is None or valid != code:
            return None
        found = self._class(code)
        if found is None or found[0].expires_at <= self.clock():
            return None
        return found[0]

    def is_teacher(self, code: str, key: object) -> bool:
        """Whether ``key`` is the teacher key of the open class ``code`` (constant-time comparison)."""
        valid = codes.class_code(code)
        found = self._class(code) if valid == code else None
        if found is None or found[0].expires_at <= self.clock():
            codes.key_matches(key, b"\0" * 32)  # the same work for a miss, so timing tells nothing
            return False
        return codes.key_matches(key, found[1])

    def extend(self, code: str, key: str, seconds: float = KEEP_SECONDS) -> ClassInfo:
        """Keep the class ``seconds`` longer than it would have been kept (at most a week from now)."""
        info = self._teacher_class(code, key)
        now = self.clock()
        until = min(max(info.expires_at, now) + seconds, now + LONGEST_KEEP_SECONDS)
        self._set_expiry(code, until)
        return ClassInfo(code, info.created_at, until)

    def close(self, code: str, key: str) -> None:
        """End the class now: it and everything sent to it are deleted."""
        self._teacher_class(code, key)
        self._delete_class(code)

    # -- drawings -------------------------------------------------------------------------------
    def add_drawing(
        self, code: str, student: str, frame: object, meant: int, bayes_posterior: object, softmax_posterior: object
    ) -> Drawing:
        """Keep this drawing in class ``code`` under ``student``; Refused (closed, full), ValueError (bad drawing)."""
        stored = StoredDrawing(
            0,
            self._valid_student(student),
            self._valid_digit(meant),
            _frame_bytes(frame),
            _posterior_bytes(bayes_posterior, "bayes_posterior"),
            _posterior_bytes(softmax_posterior, "softmax_posterior"),
            self.clock(),
        )
        outcome = self._insert_drawing(code, stored, self.per_class, self.per_student, stored.sent_at + KEEP_SECONDS)
        if outcome == "full":
            raise Refused(
                f"Class {code}'s gallery holds {self.per_class} drawings, as many as it keeps: "
                "ask your teacher to make room."
            )
        if not isinstance(outcome, int):  # "missing": never created, closed or ended
            raise Refused(NOT_OPEN)
        return replace(stored, id=outcome).drawing()

    def drawings(self, code: str, student: str | None = None) -> tuple[Drawing, ...]:
        """The drawings of the open class ``code`` (only ``student``'s if given), oldest first."""
        if self.class_info(code) is None:
            return ()
        return tuple(row.drawing() for row in self._select_drawings(code, student))

    def remove_drawing(self, code: str, key: str, drawing_id: int) -> int:
        """Teacher only: delete one drawing; how many were deleted (0 or 1)."""
        self._teacher_class(code, key)
        return self._delete_drawings(code, drawing_id=int(drawing_id))

    def remove_student(self, code: str, key: str, student: str) -> int:
        """Teacher only: delete every drawing of one student; how many."""
        self._teacher_class(code, key)
        return self._delete_drawings(code, student=self._valid_student(student))

    def clear(self, code: str, key: str) -> int:
        """Teacher only: delete every drawing of the class (its answers stay); how many."""
        self._teacher_class(code, key)
        return self._delete_drawings(code)

    # -- poll answers ---------------------------------------------------------------------------
    def answer(self, code: str, student: str, question: str, choice: str) -> None:
        """Record ``student``'s answer to ``question``, replacing an earlier one; Refused if the class is not open."""
        if not QUESTION_PATTERN.fullmatch(question):
            raise ValueError("a question id is 1 to 40 lower-case letters, digits, - or _")
        if not isinstance(choice, str) or not 0 < len(choice) <= MAX_CHOICE_CHARS:
            raise ValueError(f"an answer is 1 to {MAX_CHOICE_CHARS} characters")
        now = self.clock()
        if not self._put_answer(code, self._valid_student(student), question, choice, now, now + KEEP_SECONDS):
            raise Refused(NOT_OPEN)

    def tally(self, code: str, question: str) -> dict[str, int]:
        """How many students gave each answer to ``question`` (answers nobody gave are absent)."""
        if self.class_info(code) is None or not QUESTION_PATTERN.fullmatch(question):
            return {}
        return self._count_answers(code, question)

    def answers(self, code: str) -> list[tuple[str, str]]:
        """Every (question, answer) of the class, one per student and question, in no particular order."""
        if self.class_info(code) is None:
            return []
        return self._all_answers(code)

    def reveal(self, code: str, key: str, question: str) -> None:
        """Teacher only: show ``question``'s answer to every student of the class."""
        self._teacher_class(code, key)
        if not QUESTION_PATTERN.fullmatch(question):
            raise ValueError("a question id is 1 to 40 lower-case letters, digits, - or _")
        self._put_reveal(code, question)

    def revealed(self, code: str) -> frozenset[str]:
        """The questions whose answers the teacher has revealed."""
        if self.class_info(code) is None:
            return frozenset()
        return frozenset(self._revealed(code))

    # -- budgets --------------------------------------------------------------------------------
    def take(self, name: str, limit: int, window_seconds: float, cost: int = 1) -> bool:
        """Count ``cost`` uses of budget ``name``; False once it was used more than ``limit`` times in this window
        (``cost`` 0 only looks).

        Windows are fixed (they start at multiples of ``window_seconds``) and shared by every process.
        """
        now = self.clock()
        self._takes_since_purge += 1
        if self._takes_since_purge >= PURGE_EVERY:  # spent budgets of one-off names (fresh sessions) go
            self._takes_since_purge = 0
            self._purge(now)
        window = int(now // window_seconds)
        return self._take(name, window, cost, (window + 1) * window_seconds) <= limit

    # -- helpers --------------------------------------------------------------------------------
    def _teacher_class(self, code: str, key: str) -> ClassInfo:
        info = self.class_info(code)
        if info is None:
            raise Refused(NOT_OPEN)
        if not self.is_teacher(code, key):
            raise Refused(TEACHER_ONLY)
        return info

    @staticmethod
    def _valid_code(code: str) -> str:
        valid = codes.class_code(code)
        if valid is None:
            raise Refused(f"A class code is {codes.CODE_RULE}.")
        return valid

    @staticmethod
    def _valid_student(student: str) -> str:
        if not isinstance(student, str) or not re.fullmatch(r"[0-9a-f]{16}", student):
            raise ValueError("a student id is 16 hex digits (codes.student_id)")
        return student

    @staticmethod
    def _valid_digit(meant: object) -> int:
        if isinstance(meant, bool) or not isinstance(meant, (int, np.integer)) or not 0 <= meant < N_DIGITS:
            raise ValueError(f"the digit meant is one of 0-{N_DIGITS - 1}")
        return int(meant)

    # -- what a back end provides (each atomic) -------------------------------------------------
    @abstractmethod
    def _purge(self, now: float) -> None:
        """Delete every class that ended before ``now``, with everything sent to it, and spent budgets."""

    @abstractmethod
    def _insert_class(self, info: ClassInfo, key_digest: bytes, max_classes: int) -> int | str:
        """Create the class: 0, or "taken" (an open class has the code), or "full" (``max_classes`` are open)."""

    @abstractmethod
    def _class(self, code: str) -> tuple[ClassInfo, bytes] | None:
        """The class with this code and its key digest, or None; ended classes may still be returned."""

    @abstractmethod
    def _set_expiry(self, code: str, expires_at: float) -> None: ...

    @abstractmethod
    def _delete_class(self, code: str) -> None: ...

    @abstractmethod
    def _insert_drawing(
        self, code: str, drawing: StoredDrawing, per_class: int, per_student: int, active_until: float
    ) -> int | str:
        """Add it if the class is open: its new id; "missing" if not open; "full" if the class holds
        ``per_class`` and the student has fewer than ``per_student`` (whose oldest would make room). Keeps
        the class open until at least ``active_until``."""

    @abstractmethod
    def _select_drawings(self, code: str, student: str | None) -> list[StoredDrawing]: ...

    @abstractmethod
    def _delete_drawings(self, code: str, drawing_id: int | None = None, student: str | None = None) -> int: ...

    @abstractmethod
    def _put_answer(self, code: str, student: str, question: str, choice: str, now: float, active_until: float) -> bool:
        """Record the answer if the class is open (False if not); keeps the class open until ``active_until``."""

    @abstractmethod
    def _count_answers(self, code: str, question: str) -> dict[str, int]: ...

    @abstractmethod
    def _all_answers(self, code: str) -> list[tuple[str, str]]: ...

    @abstractmethod
    def _put_reveal(self, code: str, question: str) -> None: ...

    @abstractmethod
    def _revealed(self, code: str) -> set[str]: ...

    @abstractmethod
    def _take(self, name: str, window: int, cost: int, forget_after: float) -> int:
        """Add ``cost`` to the budget's use in ``window``; the use after it."""

    def close_connections(self) -> None:  # noqa: B027 - optional for back ends that hold none
        """Release what the store holds open (connections); it can still be used afterwards."""


# -- drawings as arrays and CSV -----------------------------------------------------------------
@dataclass(frozen=True)
class DrawingArrays:
    """Drawings as arrays: ``frames`` uint8 (n, 28, 28); ``meant``, ``bayes``, ``softmax`` int64 (n,) digits;
    ``students`` int64 (n,): 1 for the first student to send, 2 for the next, ... (no ids leave the store)."""

    frames: np.ndarray
    meant: np.ndarray
    bayes: np.ndarray
    softmax: np.ndarray
    students: np.ndarray


def as_arrays(drawings: Sequence[Drawing]) -> DrawingArrays:
    """The frames, digits meant, both models' predictions and student numbers of ``drawings``, in order."""
    frames = np.stack([d.frame for d in drawings]) if drawings else np.zeros((0,) + FRAME_SHAPE, np.uint8)
    numbers: dict[str, int] = {}
    students = [numbers.setdefault(d.student, len(numbers) + 1) for d in drawings]
    return DrawingArrays(
        frames,
        np.array([d.meant for d in drawings], dtype=np.int64),
        np.array([d.bayes_prediction for d in drawings], dtype=np.int64),
        np.array([d.softmax_prediction for d in drawings], dtype=np.int64),
        np.array(students, dtype=np.int64),
    )


CSV_HEADER = ["student", "meant", "naive_bayes", "softmax"] + [f"pixel{i}" for i in range(FRAME_BYTES)]


def to_csv(drawings: Sequence[Drawing]) -> bytes:
    """UTF-8 CSV, a header then one row per drawing: student number, meant digit, naive Bayes' and softmax's
    predictions, then the 784 pixels of the 28x28 frame in row-major order (0-255; ``pixel0`` top left)."""
    arrays = as_arrays(drawings)
    rows = np.column_stack(
        [
            arrays.students,
            arrays.meant,
            arrays.bayes,
            arrays.softmax,
            arrays.frames.reshape(len(drawings), FRAME_BYTES).astype(np.int64),
        ]
    )
    text = io.StringIO()
    text.write(",".join(CSV_HEADER) + "\n")
    if len(rows):
        np.savetxt(text, rows, fmt="%d", delimiter=",")
    return text.getvalue().encode("utf-8")


# -- choosing a back end ------------------------------------------------------------------------
def store_setting() -> str:
    """The store setting: ``$NBCORE_CLASS_STORE``, or "" (SQLite in the data directory)."""
    return os.environ.get(SETTING, "").strip()


def open_store(setting: str | None = None, data_dir: Path | None = None) -> ClassStore:
    """The store a setting names: "" (SQLite file ``classes.sqlite3`` in ``data_dir``), ``sqlite:///path``
    or ``redis://host:port/db``. ValueError with a sentence for anything else."""
    setting = store_setting() if setting is None else setting.strip()
    if setting.startswith(("redis://", "rediss://", "unix://")):
        from .redis_store import RedisStore

        return RedisStore.from_url(setting)
    if setting.startswith("sqlite:///"):
        path = Path(setting[len("sqlite:///") - 1 :])
    elif setting == "":
        from nbcore.datasets import default_data_dir

        path = (data_dir or default_data_dir()) / "classes.sqlite3"
    else:
        raise ValueError(
            f"{SETTING} names no store we know: give sqlite:///absolute/path or redis://host:port/0, "
            "or leave it unset for a file in the data directory"
        )
    from .sqlite_store import SqliteStore

    return SqliteStore(path)
