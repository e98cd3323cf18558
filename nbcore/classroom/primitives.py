"""What a class store's back end provides: a few primitives, each atomic, that ``store.ClassStore`` builds on.

``ClassStore`` checks every argument and the teacher key, then calls one primitive; a back end (``sqlite_store``,
``redis_store``) implements them all, and ``failing_as_unavailable`` turns its own failures into
``StoreUnavailable``.
"""

from __future__ import annotations

import functools
import logging
from abc import ABC, abstractmethod

from .records import UNAVAILABLE, Answer, ClassInfo, Presence, StoredDrawing, StoreUnavailable

LOG = logging.getLogger(__name__)


class StorePrimitives(ABC):
    """The primitives a back end implements, each atomic (one transaction, or one Lua script)."""

    # "missing": no such class (or due for deletion); "ended": the class is ended (read-only).
    @abstractmethod
    def _purge(self, now: float, ended_before: float) -> None:
        """Delete every class that ended before ``ended_before``, with everything sent to it, and budgets
        spent before ``now``."""

    @abstractmethod
    def _insert_class(self, info: ClassInfo, key_digest: bytes, max_classes: int) -> int | str:
        """Create the class: 0, or "taken" (a class has the code), or "full" (``max_classes`` are open at
        ``info.created_at``)."""

    @abstractmethod
    def _class(self, code: str) -> tuple[ClassInfo, bytes] | None:
        """The class with this code and its key digest, or None; ended classes are returned too."""

    @abstractmethod
    def _classes(self) -> list[ClassInfo]:
        """Every class held (some may be due for deletion)."""

    @abstractmethod
    def _reopen(self, code: str, expires_at: float) -> None:
        """The class is open until ``expires_at`` (its end cleared)."""

    @abstractmethod
    def _end(self, code: str, now: float) -> None:
        """The class ended at ``now``, unless it ended already (by hand, or at its expiry)."""

    @abstractmethod
    def _delete_class(self, code: str) -> None: ...

    @abstractmethod
    def _new_period(self, code: str, now: float, active_until: float, max_periods: int) -> str:
        """If the class is open, its period + 1 and pace None ("ok"; "full" once it holds ``max_periods``);
        keeps the class open until at least ``active_until``."""

    @abstractmethod
    def _set_pace(self, code: str, step: int | None) -> None: ...

    @abstractmethod
    def _insert_drawing(
        self, code: str, drawing: StoredDrawing, per_class: int, per_student: int, active_until: float
    ) -> int | str:
        """Add it to the current period if the class is open: its new id; "missing"; "ended"; "full" if the
        period holds ``per_class`` and the student has fewer than ``per_student`` (whose oldest would make room).
        Keeps the class open until at least ``active_until``."""

    @abstractmethod
    def _select_drawings(self, code: str, period: int, student: str | None) -> list[StoredDrawing]: ...

    @abstractmethod
    def _delete_drawings(
        self, code: str, period: int, drawing_id: int | None = None, student: str | None = None
    ) -> int: ...

    @abstractmethod
    def _put_answer(self, code: str, student: str, question: str, choice: str, now: float, active_until: float) -> str:
        """In the current period, if the class is open: "counted" (not revealed: replaces the student's answer)
        or "after" (revealed: kept apart unless they have one there already); "missing"; "ended". Keeps the class
        open until at least ``active_until``."""

    @abstractmethod
    def _select_answers(
        self, code: str, period: int, question: str | None = None, student: str | None = None
    ) -> list[Answer]: ...

    @abstractmethod
    def _put_reveal(self, code: str, period: int, question: str, now: float) -> None: ...

    @abstractmethod
    def _delete_reveal(self, code: str, period: int, question: str) -> None: ...

    @abstractmethod
    def _delete_question(self, code: str, period: int, question: str) -> None:
        """Delete the question's answers (both kinds) and its reveal in ``period``."""

    @abstractmethod
    def _revealed(self, code: str, period: int) -> set[str]: ...

    @abstractmethod
    def _check_in(self, code: str, student: str, step: int | None, now: float, max_students: int) -> str:
        """If the class is open, note the student's step and ``now``: "ok"; "full" for a newcomer once
        ``max_students`` have checked in; "missing"; "ended"."""

    @abstractmethod
    def _presence(self, code: str) -> dict[str, Presence]: ...

    @abstractmethod
    def _take(self, name: str, window: int, cost: int, forget_after: float) -> int:
        """Add ``cost`` to the budget's use in ``window``; the use after it."""

    def close_connections(self) -> None:  # noqa: B027 - optional for back ends that hold none
        """Release what the store holds open (connections); it can still be used afterwards."""


def failing_as_unavailable(*errors: type[BaseException]):
    """Class decorator for a back end: its primitives raise ``StoreUnavailable`` for ``errors``, logged with the cause."""

    def decorate(cls):
        for name in StorePrimitives.__abstractmethods__:
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
