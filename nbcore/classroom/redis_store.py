"""The class store in Redis: for a school with several machines, or Kubernetes.

Each class's keys share the hash tag ``{CODE}``. Every step that reads then writes runs as one Lua
script on the server, so replicas on several machines see one order of events:

* ``nblab:class:{CODE}``: hash of created_at, expires_at, key_digest (hex), next (the last drawing id)
* ``nblab:classes``: sorted set of open codes by expires_at (to count open classes and purge ended ones)
* ``nblab:drawings:{CODE}``: hash of drawing id -> packed drawing (``_pack``)
* ``nblab:students:{CODE}``: set of student ids; ``nblab:student:{CODE}:<id>``: their drawing ids, oldest first
* ``nblab:questions:{CODE}``, ``nblab:answers:{CODE}:<question>`` (student -> answer), ``nblab:reveals:{CODE}``
* ``nblab:budget:<name>:<window>``: a counter that Redis forgets once its window has passed
"""

from __future__ import annotations

import struct
from typing import Any

import redis

from .store import FRAME_BYTES, N_DIGITS, ClassInfo, ClassStore, StoredDrawing, failing_as_unavailable

HEADER = struct.Struct("<dB16s")  # sent_at, meant, student id
POSTERIOR_BYTES = 8 * N_DIGITS
CONNECT_TIMEOUT_S = 5

OPEN = """
local function still_open(class_key, classes_key, code, now, active_until)
  local ends = redis.call('HGET', class_key, 'expires_at')
  if not ends or tonumber(ends) <= now then return false end
  if active_until > tonumber(ends) then
    redis.call('HSET', class_key, 'expires_at', string.format('%.17g', active_until))
    redis.call('ZADD', classes_key, active_until, code)
  end
  return true
end
"""

INSERT_CLASS = """
local ends = redis.call('HGET', KEYS[1], 'expires_at')
if ends then return 'taken' end
if redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[5], '+inf') >= tonumber(ARGV[6]) then return 'full' end
redis.call('HSET', KEYS[1], 'created_at', ARGV[2], 'expires_at', ARGV[3], 'key_digest', ARGV[4], 'next', 0)
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 0
"""

INSERT_DRAWING = (
    OPEN
    + """
if not still_open(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])) then return 'missing' end
local per_class, per_student = tonumber(ARGV[4]), tonumber(ARGV[5])
local held, own = redis.call('HLEN', KEYS[3]), redis.call('LLEN', KEYS[4])
if held >= per_class and own < per_student then return 'full' end
while own >= per_student do
  redis.call('HDEL', KEYS[3], redis.call('LPOP', KEYS[4]))
  own = own - 1
end
local id = redis.call('HINCRBY', KEYS[1], 'next', 1)
redis.call('HSET', KEYS[3], id, ARGV[6])
redis.call('RPUSH', KEYS[4], id)
redis.call('SADD', KEYS[5], ARGV[7])
return id
"""
)

PUT_ANSWER = (
    OPEN
    + """
if not still_open(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])) then return 0 end
redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
redis.call('SADD', KEYS[4], ARGV[6])
return 1
"""
)

REMOVE_DRAWING = """
local packed = redis.call('HGET', KEYS[1], ARGV[1])
if not packed then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('LREM', ARGV[2] .. string.sub(packed, 10, 25), 0, ARGV[1])
return 1
"""


def _number(value: float) -> str:
    return repr(float(value))


@failing_as_unavailable(redis.RedisError)
class RedisStore(ClassStore):
    """``ClassStore`` on a Redis server (``client``: a ``redis.Redis``)."""

    def __init__(self, client: redis.Redis, **kwargs) -> None:
        super().__init__(**kwargs)
        # redis-py types every reply as bytes | str (decoding is a run-time option); this client never decodes
        self.client: Any = client
        self._insert_class_script = client.register_script(INSERT_CLASS)
        self._insert_drawing_script = client.register_script(INSERT_DRAWING)
        self._put_answer_script = client.register_script(PUT_ANSWER)
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

    # key names
    @staticmethod
    def _keys(code: str) -> dict[str, str]:
        tag = "{" + code + "}"
        return {
            "class": f"nblab:class:{tag}",
            "drawings": f"nblab:drawings:{tag}",
            "students": f"nblab:students:{tag}",
            "student": f"nblab:student:{tag}:",
            "questions": f"nblab:questions:{tag}",
            "answers": f"nblab:answers:{tag}:",
            "reveals": f"nblab:reveals:{tag}",
        }

    CLASSES = "nblab:classes"

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

    def _purge(self, now: float) -> None:
        for raw in self.client.zrangebyscore(self.CLASSES, "-inf", now):
            self._delete_class(raw.decode())

    def _insert_class(self, info: ClassInfo, key_digest: bytes, max_classes: int) -> int | str:
        keys = self._keys(info.code)
        outcome = self._insert_class_script(
            keys=[keys["class"], self.CLASSES],
            args=[
                info.code,
                _number(info.created_at),
                _number(info.expires_at),
                key_digest.hex(),
                _number(info.created_at),
                max_classes,
            ],
        )
        return outcome.decode() if isinstance(outcome, bytes) else int(outcome)

    def _class(self, code: str) -> tuple[ClassInfo, bytes] | None:
        found = self.client.hmget(self._keys(code)["class"], ["created_at", "expires_at", "key_digest"])
        if found[0] is None:
            return None
        return ClassInfo(code, float(found[0]), float(found[1])), bytes.fromhex(found[2].decode())

    def _set_expiry(self, code: str, expires_at: float) -> None:
        keys = self._keys(code)
        with self.client.pipeline() as pipe:
            pipe.hset(keys["class"], "expires_at", _number(expires_at))
            pipe.zadd(self.CLASSES, {code: expires_at})
            pipe.execute()

    def _delete_class(self, code: str) -> None:
        keys = self._keys(code)
        students = [keys["student"] + s.decode() for s in self.client.smembers(keys["students"])]
        questions = [keys["answers"] + q.decode() for q in self.client.smembers(keys["questions"])]
        with self.client.pipeline() as pipe:
            names = [keys[name] for name in ("class", "drawings", "students", "questions", "reveals")]
            pipe.delete(*names, *students, *questions)
            pipe.zrem(self.CLASSES, code)
            pipe.execute()

    def _insert_drawing(
        self, code: str, drawing: StoredDrawing, per_class: int, per_student: int, active_until: float
    ) -> int | str:
        keys = self._keys(code)
        outcome = self._insert_drawing_script(
            keys=[keys["class"], self.CLASSES, keys["drawings"], keys["student"] + drawing.student, keys["students"]],
            args=[
                code,
                _number(drawing.sent_at),
                _number(active_until),
                per_class,
                per_student,
                self._pack(drawing),
                drawing.student,
            ],
        )
        return outcome.decode() if isinstance(outcome, bytes) else int(outcome)

    def _select_drawings(self, code: str, student: str | None) -> list[StoredDrawing]:
        keys = self._keys(code)
        if student is None:
            found = self.client.hgetall(keys["drawings"]).items()
        else:
            ids = self.client.lrange(keys["student"] + student, 0, -1)
            found = zip(ids, self.client.hmget(keys["drawings"], ids) if ids else [])
        rows = [self._unpack(int(drawing_id), packed) for drawing_id, packed in found if packed is not None]
        return sorted(rows, key=lambda row: row.id)

    def _delete_drawings(self, code: str, drawing_id: int | None = None, student: str | None = None) -> int:
        keys = self._keys(code)
        if drawing_id is not None:
            return int(self._remove_drawing_script(keys=[keys["drawings"]], args=[drawing_id, keys["student"]]))
        students = [student] if student is not None else [s.decode() for s in self.client.smembers(keys["students"])]
        removed = 0
        for name in students:
            ids = self.client.lrange(keys["student"] + name, 0, -1)
            with self.client.pipeline() as pipe:
                if ids:
                    pipe.hdel(keys["drawings"], *ids)
                pipe.delete(keys["student"] + name)
                pipe.srem(keys["students"], name)
                removed += int(pipe.execute()[0]) if ids else 0
        return removed

    def _put_answer(self, code: str, student: str, question: str, choice: str, now: float, active_until: float) -> bool:
        keys = self._keys(code)
        outcome = self._put_answer_script(
            keys=[keys["class"], self.CLASSES, keys["answers"] + question, keys["questions"]],
            args=[code, _number(now), _number(active_until), student, choice, question],
        )
        return int(outcome) == 1

    def _count_answers(self, code: str, question: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        for choice in self.client.hvals(self._keys(code)["answers"] + question):
            counts[choice.decode()] = counts.get(choice.decode(), 0) + 1
        return counts

    def _all_answers(self, code: str) -> list[tuple[str, str]]:
        keys = self._keys(code)
        rows = []
        for raw in self.client.smembers(keys["questions"]):
            question = raw.decode()
            rows += [(question, choice.decode()) for choice in self.client.hvals(keys["answers"] + question)]
        return rows

    def _put_reveal(self, code: str, question: str) -> None:
        self.client.sadd(self._keys(code)["reveals"], question)

    def _revealed(self, code: str) -> set[str]:
        return {raw.decode() for raw in self.client.smembers(self._keys(code)["reveals"])}

    def _take(self, name: str, window: int, cost: int, forget_after: float) -> int:
        key = f"nblab:budget:{name}:{window}"
        with self.client.pipeline() as pipe:
            pipe.incrby(key, cost)
            pipe.expireat(key, int(forget_after) + 1)
            return int(pipe.execute()[0])

    def close_connections(self) -> None:
        self.client.connection_pool.disconnect()
