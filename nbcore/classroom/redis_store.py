"""The class store in Redis: for a school with several machines, or Kubernetes.

Each class's keys share the hash tag ``{CODE}``; ``pN`` is period N. Every step that reads then writes runs
as one Lua script on the server (``redis_scripts``), so replicas on several machines see one order of events:

* ``nblab:class:{CODE}``: hash of created_at, expires_at, key_digest (hex), next (the last drawing id),
  period, and when set ended_at, pace
* ``nblab:classes``: sorted set of every class held, scored by when it is to be deleted (its end, or its
  expiry while open, plus ``KEEP_AFTER_END_SECONDS``): the purge deletes what is due
* ``nblab:open``: sorted set of classes not ended by hand, scored by expires_at (counts the open classes)
* ``nblab:drawings:{CODE}:pN``: hash of drawing id -> packed drawing (``_pack``)
* ``nblab:students:{CODE}:pN``: set of student ids; ``nblab:student:{CODE}:pN:<id>``: their drawing ids, oldest
  first
* ``nblab:questions:{CODE}:pN``: set of questions answered; ``nblab:answers:{CODE}:pN:<question>`` (student ->
  counted answer) and ``nblab:after:{CODE}:pN:<question>`` (student -> first answer after the reveal), each
  ``answered_at`` newline choice; ``nblab:reveals:{CODE}:pN``: question -> revealed_at
* ``nblab:presence:{CODE}``: student -> step (empty: not on the lesson) newline seen_at
* ``nblab:budget:<name>:<window>``: a counter that Redis forgets once its window has passed
"""

from __future__ import annotations

import struct
from typing import Any

import redis

from .primitives import failing_as_unavailable
from .records import FRAME_BYTES, KEEP_AFTER_END_SECONDS, N_DIGITS, Answer, ClassInfo, Presence, StoredDrawing
from .redis_scripts import (
    CHECK_IN,
    DELETE_CLASS,
    END,
    INSERT_CLASS,
    INSERT_DRAWING,
    NEW_PERIOD,
    PUT_ANSWER,
    REMOVE_DRAWING,
    REOPEN,
    REVEAL,
    SET_PACE,
)
from .store import ClassStore

HEADER = struct.Struct("<dB16s")  # sent_at, meant, student id
POSTERIOR_BYTES = 8 * N_DIGITS
CONNECT_TIMEOUT_S = 5


def _number(value: float) -> str:
    return repr(float(value))


def _outcome(reply: object) -> int | str:
    """A script's reply: a word (bytes) as str, a number as int."""
    return reply.decode() if isinstance(reply, bytes) else int(reply)  # type: ignore[call-overload]


def _timed(value: bytes) -> tuple[float, str]:
    """``answered_at`` newline text, as Lua scripts store it."""
    at, _, text = value.decode("utf-8").partition("\n")
    return float(at), text


@failing_as_unavailable(redis.RedisError)
class RedisStore(ClassStore):
    """``ClassStore`` on a Redis server (``client``: a ``redis.Redis``)."""

    CLASSES = "nblab:classes"
    OPEN = "nblab:open"

    def __init__(self, client: redis.Redis, **kwargs) -> None:
        super().__init__(**kwargs)
        # redis-py types every reply as bytes | str (decoding is a run-time option); this client never decodes
        self.client: Any = client
        self._scripts = {
            name: client.register_script(text)
            for name, text in (
                ("insert_class", INSERT_CLASS),
                ("reopen", REOPEN),
                ("end", END),
                ("delete_class", DELETE_CLASS),
                ("new_period", NEW_PERIOD),
                ("set_pace", SET_PACE),
                ("insert_drawing", INSERT_DRAWING),
                ("put_answer", PUT_ANSWER),
                ("check_in", CHECK_IN),
                ("reveal", REVEAL),
            )
        }
        self._remove_drawing_script = client.register_script(REMOVE_DRAWING)

    @classmethod
    def from_url(cls, url: str, **kwargs) -> RedisStore:
        """The store at ``redis://host:port/db``; ConnectionError with a sentence if nothing answers there."""
        client = redis.Redis.from_url(url, socket_timeout=CONNECT_TIMEOUT_S, socket_connect_timeout=CONNECT_TIMEOUT_S)
        try:
            client.ping()
        except redis.RedisError as error:
            raise ConnectionError(
                f"No Redis answers at {url.split('@')[-1]} ({error}): start it, or unset NBCORE_CLASS_STORE "
                "to keep classes in a file in the data directory."
            ) from error
        return cls(client, **kwargs)

    def _run(self, script: str, code: str, now: float, *args: Any) -> int | str:
        """Run one of the class scripts on class ``code`` at ``now``."""
        reply = self._scripts[script](
            keys=[self._class_key(code), self.CLASSES, self.OPEN],
            args=[code, _number(now), KEEP_AFTER_END_SECONDS, *args],
        )
        return _outcome(reply)

    # key names
    @staticmethod
    def _class_key(code: str) -> str:
        return "nblab:class:{" + code + "}"

    @staticmethod
    def _key(kind: str, code: str, period: int) -> str:
        return f"nblab:{kind}:{{{code}}}:p{period}"

    @staticmethod
    def _presence_key(code: str) -> str:
        return "nblab:presence:{" + code + "}"

    @staticmethod
    def _pack(drawing: StoredDrawing) -> bytes:
        header = HEADER.pack(drawing.sent_at, drawing.meant, drawing.student.encode("ascii"))
        return header + drawing.frame + drawing.bayes + drawing.softmax

    @staticmethod
    def _unpack(drawing_id: int, packed: bytes) -> StoredDrawing:
        sent_at, meant, student = HEADER.unpack_from(packed)
        body = packed[HEADER.size :]
        frame, rest = body[:FRAME_BYTES], body[FRAME_BYTES:]
        bayes, softmax = rest[:POSTERIOR_BYTES], rest[POSTERIOR_BYTES:]
        return StoredDrawing(drawing_id, student.decode("ascii"), meant, frame, bayes, softmax, sent_at)

    FIELDS = ["created_at", "expires_at", "ended_at", "period", "pace", "key_digest"]

    @staticmethod
    def _info(code: str, found: list) -> ClassInfo:
        created_at, expires_at, ended_at, period, pace = found[:5]
        return ClassInfo(
            code,
            float(created_at),
            float(expires_at),
            None if ended_at is None else float(ended_at),
            int(period or 1),
            None if pace is None else int(pace),
        )

    def _purge(self, now: float, ended_before: float) -> None:
        due = ended_before + KEEP_AFTER_END_SECONDS
        for raw in self.client.zrangebyscore(self.CLASSES, "-inf", due):
            self._run("delete_class", raw.decode(), now, _number(due))

    def _insert_class(self, info: ClassInfo, key_digest: bytes, max_classes: int) -> int | str:
        return self._run(
            "insert_class", info.code, info.created_at, _number(info.expires_at), key_digest.hex(), max_classes
        )

    def _class(self, code: str) -> tuple[ClassInfo, bytes] | None:
        found = self.client.hmget(self._class_key(code), self.FIELDS)
        if found[0] is None:
            return None
        return self._info(code, found), bytes.fromhex(found[5].decode())

    def _classes(self) -> list[ClassInfo]:
        held = [raw.decode() for raw in self.client.zrange(self.CLASSES, 0, -1)]
        with self.client.pipeline(transaction=False) as pipe:
            for code in held:
                pipe.hmget(self._class_key(code), self.FIELDS)
            found = pipe.execute()
        return [self._info(code, fields) for code, fields in zip(held, found) if fields[0] is not None]

    def _reopen(self, code: str, expires_at: float) -> None:
        self._run("reopen", code, self.clock(), _number(expires_at))

    def _end(self, code: str, now: float) -> None:
        self._run("end", code, now)

    def _delete_class(self, code: str) -> None:
        self._run("delete_class", code, self.clock(), "")

    def _new_period(self, code: str, now: float, active_until: float, max_periods: int) -> str:
        return str(self._run("new_period", code, now, _number(active_until), max_periods))

    def _set_pace(self, code: str, step: int | None) -> None:
        self._run("set_pace", code, self.clock(), "" if step is None else str(step))

    def _insert_drawing(
        self, code: str, drawing: StoredDrawing, per_class: int, per_student: int, active_until: float
    ) -> int | str:
        return self._run(
            "insert_drawing",
            code,
            drawing.sent_at,
            _number(active_until),
            per_class,
            per_student,
            self._pack(drawing),
            drawing.student,
        )

    def _select_drawings(self, code: str, period: int, student: str | None) -> list[StoredDrawing]:
        drawings_key = self._key("drawings", code, period)
        if student is None:
            found = self.client.hgetall(drawings_key).items()
        else:
            ids = self.client.lrange(self._key("student", code, period) + ":" + student, 0, -1)
            found = zip(ids, self.client.hmget(drawings_key, ids) if ids else [])
        rows = [self._unpack(int(drawing_id), packed) for drawing_id, packed in found if packed is not None]
        return sorted(rows, key=lambda row: row.id)

    def _delete_drawings(
        self, code: str, period: int, drawing_id: int | None = None, student: str | None = None
    ) -> int:
        drawings_key, students_key = self._key("drawings", code, period), self._key("students", code, period)
        own_prefix = self._key("student", code, period) + ":"
        if drawing_id is not None:
            return int(self._remove_drawing_script(keys=[drawings_key], args=[drawing_id, own_prefix]))
        students = [student] if student is not None else [s.decode() for s in self.client.smembers(students_key)]
        removed = 0
        for name in students:
            ids = self.client.lrange(own_prefix + name, 0, -1)
            with self.client.pipeline() as pipe:
                if ids:
                    pipe.hdel(drawings_key, *ids)
                pipe.delete(own_prefix + name)
                pipe.srem(students_key, name)
                removed += int(pipe.execute()[0]) if ids else 0
        return removed

    def _put_answer(self, code: str, student: str, question: str, choice: str, now: float, active_until: float) -> str:
        value = f"{_number(now)}\n{choice}".encode()
        return str(self._run("put_answer", code, now, _number(active_until), student, question, value))

    def _select_answers(
        self, code: str, period: int, question: str | None = None, student: str | None = None
    ) -> list[Answer]:
        if question is None:
            questions = sorted(raw.decode() for raw in self.client.smembers(self._key("questions", code, period)))
        else:
            questions = [question]
        with self.client.pipeline(transaction=False) as pipe:
            for asked in questions:
                for kind in ("answers", "after"):
                    name = self._key(kind, code, period) + ":" + asked
                    if student is None:
                        pipe.hgetall(name)
                    else:
                        pipe.hmget(name, [student])
            found = pipe.execute()
        rows = []
        for index, replies in enumerate(found):
            asked, after = questions[index // 2], index % 2 == 1
            pairs = replies.items() if student is None else [(student.encode(), replies[0])]
            for who, value in pairs:
                if value is not None:
                    at, choice = _timed(value)
                    rows.append(Answer(who.decode(), asked, choice, at, after))
        return rows

    def _put_reveal(self, code: str, period: int, question: str, now: float) -> None:
        self._run("reveal", code, now, question, _number(now), period)

    def _delete_reveal(self, code: str, period: int, question: str) -> None:
        self.client.hdel(self._key("reveals", code, period), question)

    def _delete_question(self, code: str, period: int, question: str) -> None:
        with self.client.pipeline() as pipe:
            pipe.delete(self._key("answers", code, period) + ":" + question)
            pipe.delete(self._key("after", code, period) + ":" + question)
            pipe.hdel(self._key("reveals", code, period), question)
            pipe.srem(self._key("questions", code, period), question)
            pipe.execute()

    def _revealed(self, code: str, period: int) -> set[str]:
        return {raw.decode() for raw in self.client.hkeys(self._key("reveals", code, period))}

    def _check_in(self, code: str, student: str, step: int | None, now: float, max_students: int) -> str:
        where = f"{'' if step is None else step}\n{_number(now)}"
        return str(self._run("check_in", code, now, student, where, max_students))

    def _presence(self, code: str) -> dict[str, Presence]:
        found = self.client.hgetall(self._presence_key(code))
        seen = {}
        for student, value in found.items():
            step, _, at = value.decode().partition("\n")
            seen[student.decode()] = Presence(int(step) if step else None, float(at))
        return seen

    def _take(self, name: str, window: int, cost: int, forget_after: float) -> int:
        key = f"nblab:budget:{name}:{window}"
        with self.client.pipeline() as pipe:
            pipe.incrby(key, cost)
            pipe.expireat(key, int(forget_after) + 1)
            return int(pipe.execute()[0])

    def close_connections(self) -> None:
        self.client.connection_pool.disconnect()
