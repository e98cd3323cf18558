"""The class store's interface, ``ClassStore`` (its records: ``records``; its bounds: ``bounds``); the back ends
implement a few primitives each (``primitives``).

A class is created by its teacher (``create_class``), who gets a secret key; students send drawings and
poll answers under the class code, each under an anonymous student id (``codes.student_id``). Every
size is bounded, and a bound is met by refusing the newcomer with a sentence (``Refused``), never by
dropping what others sent; the one exception is a student's own oldest drawing, which makes room for
their newest.

A class's life: *open* until its teacher ends it (``end``) or ``KEEP_SECONDS`` pass without activity (a
drawing, an answer or a new period; its teacher can keep it longer with ``extend``); then *ended*:
read-only, everything kept, for ``KEEP_AFTER_END_SECONDS`` (so that the teacher can export it, or reopen it
with ``extend``); then *deleted* with everything it held. ``delete_class`` deletes at once.

A class runs in *periods* (1, 2, ...): ``new_period`` starts an empty one under the same code; what earlier
periods hold stays readable with ``period=`` until the class is deleted. Every read without ``period=``, and
every write, is about the current period.

Times are seconds since the epoch (``time.time``: every process and machine shares it); tests inject a
clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace

from . import codes
from .bounds import (
    LONGEST_KEEP_SECONDS,
    MAX_CHOICE_CHARS,
    MAX_CLASSES,
    MAX_PERIODS,
    MAX_STEP,
    PER_CLASS,
    PER_STUDENT,
    QUESTION_PATTERN,
    STUDENTS_PER_PER_CLASS,
    frame_bytes,
    posterior_bytes,
    valid_code,
    valid_digit,
    valid_int,
    valid_question,
    valid_student,
)
from .primitives import StorePrimitives
from .records import (
    KEEP_AFTER_END_SECONDS,
    KEEP_SECONDS,
    OPERATOR,
    Answer,
    ClassInfo,
    Drawing,
    NewClass,
    Presence,
    Refused,
    StoredDrawing,
    Tally,
    TeacherKey,
)

PURGE_EVERY = 500  # budget uses between two purges of deleted classes and spent budgets

NOT_OPEN = "There is no open class with this code: check it with your teacher."  # a miss and a deleted class alike
ENDED = "This class has ended: ask your teacher for the new code."
TEACHER_ONLY = "Only this class's teacher can do that: open the page through the teacher link."


def _deleted(info: ClassInfo, now: float) -> bool:
    """Whether the class is due for deletion at ``now`` (the purge may not have run yet)."""
    deleted_at = info.deleted_at(now)
    return deleted_at is not None and deleted_at <= now


class ClassStore(StorePrimitives):
    """Classes, their drawings, poll answers and who is where; safe to use from many threads and processes at once.

    The public methods check their arguments and the teacher key, then call one primitive of the back
    end (``StorePrimitives``), which does its part atomically. Teacher-only methods take ``key``: the class's teacher key, or
    ``OPERATOR``.
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
        self.max_students = STUDENTS_PER_PER_CLASS * per_class
        self._takes_since_purge = 0

    # -- classes --------------------------------------------------------------------------------
    def create_class(self, code: str | None = None) -> NewClass:
        """A new class with ``code`` (a fresh random one if None) and a fresh teacher key.

        Refused when a class not yet deleted has that code, or when the server holds ``MAX_CLASSES`` open
        classes (ended ones do not count).
        """
        now = self.clock()
        self._purge(now, now - KEEP_AFTER_END_SECONDS)
        chosen = valid_code(code) if code is not None else codes.new_code()
        key = codes.new_teacher_key()
        info = ClassInfo(chosen, now, now + KEEP_SECONDS)
        outcome = self._insert_class(info, codes.key_digest(key), self.max_classes)
        if outcome == "taken":
            raise Refused(f"Class {chosen} already exists: choose another code.")
        if outcome == "full":
            raise Refused(f"This server holds {self.max_classes} open classes, as many as it keeps: try again later.")
        return NewClass(info, key)

    def class_info(self, code: str) -> ClassInfo | None:
        """The class with this code, open or ended, until it is deleted; None for a code never made or deleted
        (the same answer). Callers check ``is_open``."""
        found = self._kept(code)
        return None if found is None else found[0]

    def list_classes(self) -> list[ClassInfo]:
        """Every class not yet deleted, oldest first."""
        now = self.clock()
        kept = [info for info in self._classes() if not _deleted(info, now)]
        return sorted(kept, key=lambda info: (info.created_at, info.code))

    def is_teacher(self, code: str, key: object) -> bool:
        """Whether ``key`` is the teacher key (or ``OPERATOR``) of the class ``code``, open or ended
        (constant-time comparison)."""
        found = self._kept(code)
        if found is None:
            codes.key_matches(key, b"\0" * 32)  # the same work for a miss, so timing tells nothing
            return False
        return key is OPERATOR or codes.key_matches(key, found[1])

    def extend(self, code: str, key: TeacherKey, seconds: float = KEEP_SECONDS) -> ClassInfo:
        """Keep the class open ``seconds`` longer than it would have been (at most a week from now); an ended
        class is reopened."""
        if not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf:
            raise ValueError("a class is kept a positive number of seconds longer")
        info = self._teacher_class(code, key, must_be_open=False)
        now = self.clock()
        until = min(max(info.expires_at, now) + seconds, now + LONGEST_KEEP_SECONDS)
        self._reopen(code, until)
        return self._current(code)

    def end(self, code: str, key: TeacherKey) -> ClassInfo:
        """End the class now: it becomes read-only and is deleted ``KEEP_AFTER_END_SECONDS`` later. An ended class
        keeps the time it first ended."""
        self._teacher_class(code, key, must_be_open=False)
        self._end(code, self.clock())
        return self._current(code)

    def delete_class(self, code: str, key: TeacherKey) -> None:
        """Delete the class and everything sent to it, now."""
        self._teacher_class(code, key, must_be_open=False)
        self._delete_class(code)

    def new_period(self, code: str, key: TeacherKey) -> ClassInfo:
        """Start the next period of the open class: no drawings, answers or reveals, students move freely.
        Earlier periods stay readable (``period=``). Refused once the class holds ``MAX_PERIODS``."""
        self._teacher_class(code, key)
        now = self.clock()
        outcome = self._new_period(code, now, now + KEEP_SECONDS, MAX_PERIODS)
        if outcome == "full":
            raise Refused(f"Class {code} holds {MAX_PERIODS} periods, as many as it keeps: make a new class.")
        self._raise_unless_open(outcome)
        return self._current(code)

    def set_pace(self, code: str, key: TeacherKey, step: int | None) -> ClassInfo:
        """Lead the students to lesson ``step`` (1..``MAX_STEP``), or let them move freely (None)."""
        chosen = None if step is None else valid_int(step, 1, MAX_STEP, "a lesson step")
        self._teacher_class(code, key)
        self._set_pace(code, chosen)
        return self._current(code)

    # -- drawings -------------------------------------------------------------------------------
    def add_drawing(
        self, code: str, student: str, frame: object, meant: int, bayes_posterior: object, softmax_posterior: object
    ) -> Drawing:
        """Keep this drawing in the current period of class ``code`` under ``student``; Refused (not open, ended,
        full), ValueError (bad drawing)."""
        stored = StoredDrawing(
            0,
            valid_student(student),
            valid_digit(meant),
            frame_bytes(frame),
            posterior_bytes(bayes_posterior, "bayes_posterior"),
            posterior_bytes(softmax_posterior, "softmax_posterior"),
            self.clock(),
        )
        outcome = self._insert_drawing(code, stored, self.per_class, self.per_student, stored.sent_at + KEEP_SECONDS)
        if outcome == "full":
            raise Refused(
                f"Class {code}'s gallery holds {self.per_class} drawings, as many as it keeps: "
                "ask your teacher to make room."
            )
        if not isinstance(outcome, int):
            self._raise_unless_open(outcome)
        return replace(stored, id=int(outcome)).drawing()

    def drawings(self, code: str, student: str | None = None, period: int | None = None) -> tuple[Drawing, ...]:
        """The drawings of class ``code`` in ``period`` (default: the current one), only ``student``'s if given,
        oldest first."""
        info = self.class_info(code)
        if info is None:
            return ()
        chosen = self._period(info, period)
        return tuple(row.drawing() for row in self._select_drawings(code, chosen, student))

    def remove_drawing(self, code: str, key: TeacherKey, drawing_id: int) -> int:
        """Teacher only: delete one drawing of the current period; how many were deleted (0 or 1)."""
        info = self._teacher_class(code, key)
        return self._delete_drawings(code, info.period, drawing_id=int(drawing_id))

    def remove_student(self, code: str, key: TeacherKey, student: str) -> int:
        """Teacher only: delete every drawing of one student in the current period; how many."""
        info = self._teacher_class(code, key)
        return self._delete_drawings(code, info.period, student=valid_student(student))

    def clear(self, code: str, key: TeacherKey) -> int:
        """Teacher only: delete every drawing of the current period (its answers stay); how many."""
        info = self._teacher_class(code, key)
        return self._delete_drawings(code, info.period)

    # -- poll answers ---------------------------------------------------------------------------
    def answer(self, code: str, student: str, question: str, choice: str) -> bool:
        """Record ``student``'s answer to ``question`` in the current period. True: it counts (it replaces their
        earlier answer). False: the question was already revealed, so it is kept apart as an answer after the
        reveal (only the student's first such one; it never replaces anything). Refused if the class is not open."""
        valid_question(question)
        if not isinstance(choice, str) or not 0 < len(choice) <= MAX_CHOICE_CHARS:
            raise ValueError(f"an answer is 1 to {MAX_CHOICE_CHARS} characters")
        now = self.clock()
        outcome = self._put_answer(code, valid_student(student), question, choice, now, now + KEEP_SECONDS)
        if outcome not in ("counted", "after"):
            self._raise_unless_open(outcome)
        return outcome == "counted"

    def tally(self, code: str, question: str, period: int | None = None) -> Tally:
        """How many students gave each answer to ``question``: counted ones, and those after the reveal apart."""
        counted: dict[str, int] = {}
        after: dict[str, int] = {}
        info = self.class_info(code)
        if info is None or not QUESTION_PATTERN.fullmatch(question):
            return Tally(counted, after)
        for row in self._select_answers(code, self._period(info, period), question=question):
            into = after if row.after_reveal else counted
            into[row.choice] = into.get(row.choice, 0) + 1
        return Tally(counted, after)

    def answers(self, code: str, period: int | None = None) -> list[Answer]:
        """Every answer of ``period`` (default: the current one): per student and question, the counted one and
        the one after the reveal, in the order they were given."""
        info = self.class_info(code)
        if info is None:
            return []
        rows = self._select_answers(code, self._period(info, period))
        return sorted(rows, key=lambda row: (row.answered_at, row.question, row.student, row.after_reveal))

    def student_answer(self, code: str, student: str, question: str) -> Answer | None:
        """``student``'s counted answer to ``question`` in the current period, else their answer after the reveal,
        else None."""
        info = self.class_info(code)
        if info is None or not QUESTION_PATTERN.fullmatch(question):
            return None
        rows = self._select_answers(code, info.period, question=question, student=valid_student(student))
        return min(rows, key=lambda row: row.after_reveal, default=None)

    def reveal(self, code: str, key: TeacherKey, question: str) -> None:
        """Teacher only: show ``question``'s answer to every student; later answers are kept apart (its first
        reveal time is kept)."""
        valid_question(question)
        info = self._teacher_class(code, key)
        self._put_reveal(code, info.period, question, self.clock())

    def revealed(self, code: str, period: int | None = None) -> frozenset[str]:
        """The questions whose answers the teacher has revealed in ``period`` (default: the current one)."""
        info = self.class_info(code)
        if info is None:
            return frozenset()
        return frozenset(self._revealed(code, self._period(info, period)))

    def reopen(self, code: str, key: TeacherKey, question: str) -> None:
        """Teacher only: take back the reveal of ``question``: answers count again (those given after the reveal
        stay apart)."""
        valid_question(question)
        info = self._teacher_class(code, key)
        self._delete_reveal(code, info.period, question)

    def reset_question(self, code: str, key: TeacherKey, question: str) -> None:
        """Teacher only: delete every answer to ``question`` in the current period, and its reveal."""
        valid_question(question)
        info = self._teacher_class(code, key)
        self._delete_question(code, info.period, question)

    # -- presence -------------------------------------------------------------------------------
    def check_in(self, code: str, student: str, step: int | None) -> None:
        """Note that ``student`` is in class ``code`` now, on lesson ``step`` (None: not on the lesson). Refused
        if the class is not open, or holds ``2 * per_class`` students and this one is new."""
        where = None if step is None else valid_int(step, 1, MAX_STEP, "a lesson step")
        outcome = self._check_in(code, valid_student(student), where, self.clock(), self.max_students)
        if outcome == "full":
            raise Refused(f"Class {code} has {self.max_students} students, as many as it keeps: ask your teacher.")
        self._raise_unless_open(outcome)

    def presence(self, code: str) -> dict[str, Presence]:
        """Every student who checked in to the class (in any period), with where and when they were last seen."""
        if self.class_info(code) is None:
            return {}
        return self._presence(code)

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
            self._purge(now, now - KEEP_AFTER_END_SECONDS)
        window = int(now // window_seconds)
        return self._take(name, window, cost, (window + 1) * window_seconds) <= limit

    # -- helpers --------------------------------------------------------------------------------
    def _kept(self, code: str) -> tuple[ClassInfo, bytes] | None:
        """The class (not yet deleted) and its key digest, or None."""
        if codes.class_code(code) != code:
            return None
        found = self._class(code)
        if found is None:
            return None
        now = self.clock()
        if _deleted(found[0], now):  # due for deletion, not yet purged
            return None
        return found

    def _current(self, code: str) -> ClassInfo:
        info = self.class_info(code)
        if info is None:  # deleted meanwhile
            raise Refused(NOT_OPEN)
        return info

    def _teacher_class(self, code: str, key: TeacherKey, must_be_open: bool = True) -> ClassInfo:
        found = self._kept(code)
        if found is None:
            raise Refused(NOT_OPEN)
        if key is not OPERATOR and not codes.key_matches(key, found[1]):
            raise Refused(TEACHER_ONLY)
        if must_be_open and not found[0].is_open(self.clock()):
            raise Refused(ENDED)
        return found[0]

    @staticmethod
    def _raise_unless_open(outcome: object) -> None:
        """Raise the sentence for a primitive's "missing" or "ended"."""
        if outcome == "ended":
            raise Refused(ENDED)
        if outcome == "missing":
            raise Refused(NOT_OPEN)

    @staticmethod
    def _period(info: ClassInfo, period: int | None) -> int:
        return info.period if period is None else valid_int(period, 1, MAX_PERIODS, "a period")
