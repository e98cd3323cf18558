"""The class store, the same tests on both back ends: SQLite (a file) and a real redis-server."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from devtools.redis_server import RedisServer, redis_binary
from nbcore.classroom import Refused, codes, open_store, student_id
from nbcore.classroom.bounds import LONGEST_KEEP_SECONDS, MAX_PERIODS
from nbcore.classroom.export import answers_csv, as_arrays, drawings_npz, to_csv
from nbcore.classroom.records import (
    KEEP_AFTER_END_SECONDS,
    KEEP_SECONDS,
    OPERATOR,
    UNAVAILABLE,
    Answer,
    Presence,
    StoreUnavailable,
    Tally,
)
from nbcore.classroom.redis_store import RedisStore
from nbcore.classroom.sqlite_store import SqliteStore, StoreFileError
from nbcore.classroom.store import ENDED, NOT_OPEN, TEACHER_ONLY
from nbcore.experiments.class_drawings import load_drawings
from tests.conftest import REPO, require


class Clock:
    """A clock the test moves by hand (seconds since the epoch)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def redis_url():
    require(redis_binary() is not None, "redis-server is missing (apt-get install redis-server)")
    with RedisServer() as server:
        yield server.url


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request, tmp_path):
    """A function making stores over one back end's storage (a file, or a flushed Redis database)."""
    if request.param == "sqlite":
        return lambda **kwargs: SqliteStore(tmp_path / "classes.sqlite3", **kwargs)
    url = request.getfixturevalue("redis_url")
    first = RedisStore.from_url(url)
    first.client.flushdb()
    return lambda **kwargs: RedisStore.from_url(url, **kwargs)


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


def test_a_class_is_created_with_a_secret_key_and_read_back(make_store):
    store = make_store()
    new = store.create_class()
    assert len(new.info.code) == 8 and codes.class_code(new.info.code) == new.info.code
    assert len(new.teacher_key) >= 32  # 192 bits in URL-safe base64
    assert store.class_info(new.info.code) == new.info
    assert store.is_teacher(new.info.code, new.teacher_key)
    other_last = "y" if new.teacher_key.endswith("x") else "x"  # a key differing in its last letter
    assert not store.is_teacher(new.info.code, new.teacher_key[:-1] + other_last)
    assert not store.is_teacher(new.info.code, None)
    assert store.class_info("NOSUCHCLASS") is None and not store.is_teacher("NOSUCHCLASS", new.teacher_key)


def test_a_chosen_code_cannot_be_taken_twice(make_store):
    store = make_store()
    store.create_class("MATH3B")
    with pytest.raises(Refused, match="already exists"):
        store.create_class("math3b ")
    with pytest.raises(Refused, match="A class code is"):
        store.create_class("no!")


def test_drawings_come_back_whole_and_in_order(make_store):
    store = make_store()
    code = store.create_class().info.code
    sent = [send(store, code, who, meant=who, seed=who) for who in range(5)]
    kept = store.drawings(code)
    assert [d.id for d in kept] == sorted(d.id for d in sent)
    for original, back in zip(sent, kept):
        assert back.student == original.student and back.meant == original.meant
        np.testing.assert_array_equal(back.frame, original.frame)
        np.testing.assert_array_equal(back.bayes_posterior, original.bayes_posterior)
        assert back.softmax_prediction == (original.meant + 1) % 10
    assert [d.meant for d in store.drawings(code, student(2))] == [2]


def test_sending_to_a_code_nobody_created_is_refused_and_creates_nothing(make_store):
    store = make_store()
    for made_up in ("ABCDEFGH", "ZZZZ", "not a code"):
        with pytest.raises(Refused) as refused:
            send(store, made_up, 1)
        assert str(refused.value) == NOT_OPEN
    assert store.class_info("ABCDEFGH") is None and store.drawings("ABCDEFGH") == ()


def test_a_student_keeps_their_newest_drawings_and_others_are_untouched(make_store):
    store = make_store(per_student=3)
    code = store.create_class().info.code
    others = [send(store, code, 99, seed=s) for s in range(2)]
    mine = [send(store, code, 1, seed=10 + s) for s in range(5)]
    assert [d.id for d in store.drawings(code, student(1))] == [d.id for d in mine[-3:]]
    assert [d.id for d in store.drawings(code, student(99))] == [d.id for d in others]


def test_a_full_class_refuses_newcomers_and_never_evicts(make_store):
    store = make_store(per_class=4, per_student=2)
    code = store.create_class().info.code
    first = [send(store, code, who) for who in (1, 1, 2, 2)]
    with pytest.raises(Refused, match="holds 4 drawings"):
        send(store, code, 3)
    # a student at their own bound may replace their own oldest: the class stays at its bound
    replaced = send(store, code, 1)
    assert [d.id for d in store.drawings(code)] == [d.id for d in first[1:]] + [replaced.id]


def test_the_teacher_alone_moderates(make_store):
    store = make_store()
    new = store.create_class()
    code, key = new.info.code, new.teacher_key
    drawings = [send(store, code, who, seed=who) for who in (1, 1, 1, 2, 3)]
    for action in (
        lambda k: store.clear(code, k),
        lambda k: store.remove_student(code, k, student(1)),
        lambda k: store.remove_drawing(code, k, drawings[3].id),
        lambda k: store.extend(code, k),
        lambda k: store.delete_class(code, k),
        lambda k: store.end(code, k),
        lambda k: store.new_period(code, k),
        lambda k: store.set_pace(code, k, 2),
        lambda k: store.reveal(code, k, "step-1"),
        lambda k: store.reopen(code, k, "step-1"),
        lambda k: store.reset_question(code, k, "step-1"),
    ):
        with pytest.raises(Refused) as refused:
            action("a student's guess")
        assert str(refused.value) == TEACHER_ONLY
    assert len(store.drawings(code)) == 5
    assert store.remove_drawing(code, key, drawings[3].id) == 1
    assert store.remove_drawing(code, key, drawings[3].id) == 0
    assert store.remove_student(code, key, student(1)) == 3
    assert [d.id for d in store.drawings(code)] == [drawings[4].id]
    send(store, code, 1)  # a removed student can send again
    assert store.clear(code, key) == 2 and store.drawings(code) == ()


def test_a_class_ends_after_inactivity_unless_used_or_extended(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    new = store.create_class()
    code, key = new.info.code, new.teacher_key
    clock.now += KEEP_SECONDS - 60
    send(store, code, 1)  # activity keeps it open 3 h from now
    clock.now += KEEP_SECONDS - 60
    assert store.class_info(code) is not None
    store.extend(code, key, 5 * 3600)  # 60 s were left: now 5 h and 60 s
    clock.now += 5 * 3600
    assert store.class_info(code).is_open(clock.now)
    clock.now += 61
    ended = store.class_info(code)  # ended, kept read-only with what it holds
    assert not ended.is_open(clock.now) and ended.ended(clock.now) == ended.expires_at
    assert ended.deleted_at(clock.now) == ended.expires_at + KEEP_AFTER_END_SECONDS
    assert len(store.drawings(code)) == 1
    with pytest.raises(Refused, match=ENDED):
        send(store, code, 1)
    with pytest.raises(Refused, match="already exists"):
        store.create_class(code)
    clock.now = ended.expires_at + KEEP_AFTER_END_SECONDS
    assert store.class_info(code) is None and store.drawings(code) == ()
    # the code is free again once the ended class is purged, which creating any class does
    again = store.create_class(code)
    assert store.drawings(again.info.code) == ()


def test_keeping_a_class_is_bounded_to_a_week(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    new = store.create_class()
    for _ in range(100):
        info = store.extend(new.info.code, new.teacher_key, 24 * 3600)
    assert info.expires_at == clock.now + LONGEST_KEEP_SECONDS


def test_deleting_deletes_the_class_and_reads_like_a_miss(make_store):
    store = make_store()
    new = store.create_class()
    send(store, new.info.code, 1)
    store.answer(new.info.code, student(1), "step-2", "yes")
    store.check_in(new.info.code, student(1), 2)
    store.delete_class(new.info.code, new.teacher_key)
    assert store.class_info(new.info.code) is None and store.drawings(new.info.code) == ()
    assert store.answers(new.info.code) == [] and store.presence(new.info.code) == {}
    assert store.list_classes() == []
    with pytest.raises(Refused) as closed:
        send(store, new.info.code, 1)
    with pytest.raises(Refused) as never:
        send(store, "QQQQQQQQ", 1)
    assert str(closed.value) == str(never.value)


def test_open_classes_are_bounded_and_ended_ones_make_room(make_store):
    clock = Clock()
    store = make_store(clock=clock, max_classes=3)
    for _ in range(3):
        store.create_class()
    with pytest.raises(Refused, match="3 open classes"):
        store.create_class()
    clock.now += KEEP_SECONDS + 1
    store.create_class()


def test_an_answer_counts_once_per_student_and_can_be_changed(make_store):
    store = make_store()
    new = store.create_class()
    code = new.info.code
    assert store.answer(code, student(1), "step-3", "more")
    store.answer(code, student(2), "step-3", "more")
    store.answer(code, student(1), "step-3", "fewer")
    store.answer(code, student(1), "step-4", "yes")
    assert store.tally(code, "step-3") == Tally({"more": 1, "fewer": 1}, {})
    assert sorted((a.question, a.choice) for a in store.answers(code)) == [
        ("step-3", "fewer"),
        ("step-3", "more"),
        ("step-4", "yes"),
    ]
    assert store.revealed(code) == frozenset()
    store.reveal(code, new.teacher_key, "step-3")
    assert store.revealed(code) == {"step-3"}
    with pytest.raises(Refused):
        store.answer("QQQQQQQQ", student(1), "step-3", "more")
    with pytest.raises(ValueError):
        store.answer(code, student(1), "../../etc", "more")


def test_budgets_count_per_window(make_store):
    clock = Clock(1_800_000_000.0)
    store = make_store(clock=clock)
    assert [store.take("send:addr:10.0.0.1", 3, 60) for _ in range(5)] == [True, True, True, False, False]
    assert store.take("send:addr:10.0.0.2", 3, 60)  # another address has its own
    clock.now += 60
    assert store.take("send:addr:10.0.0.1", 3, 60)


def test_bad_drawings_are_refused_with_value_errors(make_store):
    store = make_store()
    code = store.create_class().info.code
    with pytest.raises(ValueError):
        store.add_drawing(code, student(1), np.zeros((27, 28), np.uint8), 3, posterior(3), posterior(3))
    with pytest.raises(ValueError):
        store.add_drawing(code, student(1), frame(0), 10, posterior(3), posterior(3))
    with pytest.raises(ValueError):
        store.add_drawing(code, student(1), frame(0), 3, np.full(10, np.nan), posterior(3))
    with pytest.raises(ValueError):
        store.add_drawing(code, "'; DROP TABLE drawings; --", frame(0), 3, posterior(3), posterior(3))
    assert store.drawings(code) == ()


def test_a_new_store_on_the_same_storage_sees_everything(make_store):
    """What a restarted server, or another replica, sees."""
    first = make_store()
    new = first.create_class()
    send(first, new.info.code, 1)
    first.answer(new.info.code, student(1), "step-1", "a")
    second = make_store()
    assert second.is_teacher(new.info.code, new.teacher_key)
    assert len(second.drawings(new.info.code)) == 1 and second.tally(new.info.code, "step-1").counted == {"a": 1}


SEND_MANY = """
import sys
import numpy as np
from nbcore.classroom import open_store, student_id
setting, code, who, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store = open_store(setting)
for n in range(count):
    frame = np.full((28, 28), n % 256, np.uint8)
    posterior = np.full(10, 0.1)
    print(store.add_drawing(code, student_id(f"{who * 1000 + n:032x}"), frame, who, posterior, posterior).id)
"""


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(make_store, tmp_path):
    store = make_store()
    code = store.create_class().info.code
    if isinstance(store, RedisStore):
        kwargs = store.client.connection_pool.connection_kwargs
        setting = f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}"
    else:
        setting = f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", SEND_MANY, setting, code, str(who), "60"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in (1, 2)
    ]
    ids = [writer.communicate(timeout=120)[0].split() for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0]
    assert len(set(ids[0]) | set(ids[1])) == 120
    kept = store.drawings(code)
    assert len(kept) == 120 and sorted(d.meant for d in kept) == [1] * 60 + [2] * 60


def test_arrays_and_csv_number_students_without_their_ids(make_store):
    store = make_store()
    code = store.create_class().info.code
    for who in (7, 3, 7):
        send(store, code, who, meant=who)
    arrays = as_arrays(store.drawings(code))
    assert arrays.students.tolist() == [1, 2, 1] and arrays.meant.tolist() == [7, 3, 7]
    text = to_csv(store.drawings(code)).decode()
    assert text.splitlines()[0].startswith("student,meant,naive_bayes,softmax,pixel0,")
    assert student(7) not in text and len(text.splitlines()) == 4


def test_sqlite_schema_is_versioned_and_damage_is_a_sentence(tmp_path):
    path = tmp_path / "classes.sqlite3"
    SqliteStore(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE name = 'schema_version'")
    with pytest.raises(StoreFileError, match="schema version 99"):
        SqliteStore(path)
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreFileError, match="move the damaged file away"):
        SqliteStore(damaged)


def test_the_setting_picks_the_back_end(tmp_path, redis_url):
    assert isinstance(open_store("", data_dir=tmp_path), SqliteStore)
    assert (tmp_path / "classes.sqlite3").exists()
    assert isinstance(open_store(f"sqlite:///{tmp_path / 'other.sqlite3'}"), SqliteStore)
    assert isinstance(open_store(redis_url), RedisStore)
    with pytest.raises(ValueError, match="names no store"):
        open_store("postgres://nowhere")
    with pytest.raises(ConnectionError, match="No Redis answers"):
        open_store("redis://127.0.0.1:1/0")


def test_a_store_whose_server_went_away_says_so_in_a_sentence(tmp_path):
    require(redis_binary() is not None, "redis-server is missing (apt-get install redis-server)")
    with RedisServer() as server:
        store = RedisStore.from_url(server.url)
        code = store.create_class().info.code
    with pytest.raises(StoreUnavailable) as refused:
        send(store, code, 1)
    assert str(refused.value) == UNAVAILABLE and "127.0.0.1" not in str(refused.value)
    locked = SqliteStore(tmp_path / "classes.sqlite3", busy_timeout_ms=200)
    code = locked.create_class().info.code
    holder = sqlite3.connect(tmp_path / "classes.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holding the file's lock longer than the store waits
    try:
        with pytest.raises(StoreUnavailable):
            send(locked, code, 1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(send(locked, code, 1).frame) == 28  # and it works again once the lock is gone


# -- a class's life: ended, kept, reopened, deleted -----------------------------------------------
def test_an_ended_class_is_kept_read_only_then_deleted(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    new = store.create_class()
    code, key = new.info.code, new.teacher_key
    kept = send(store, code, 1)
    store.answer(code, student(1), "step-2", "yes")
    store.check_in(code, student(1), 2)
    clock.now += 60
    ended = store.end(code, key)
    assert ended.ended_at == clock.now and not ended.is_open(clock.now)
    assert store.class_info(code) == ended and store.is_teacher(code, key)
    clock.now += 60
    assert store.end(code, key).ended_at == ended.ended_at  # the first end time stays
    # everything is still there to read and export, nothing can be added or changed
    assert [d.id for d in store.drawings(code)] == [kept.id]
    assert store.tally(code, "step-2").counted == {"yes": 1} and set(store.presence(code)) == {student(1)}
    for write in (
        lambda: send(store, code, 2),
        lambda: store.answer(code, student(2), "step-2", "no"),
        lambda: store.check_in(code, student(2), 1),
        lambda: store.clear(code, key),
        lambda: store.remove_drawing(code, key, kept.id),
        lambda: store.reveal(code, key, "step-2"),
        lambda: store.new_period(code, key),
        lambda: store.set_pace(code, key, 3),
    ):
        with pytest.raises(Refused) as refused:
            write()
        assert str(refused.value) == ENDED
    assert len(store.drawings(code)) == 1 and store.tally(code, "step-2").counted == {"yes": 1}
    # deleted KEEP_AFTER_END_SECONDS after the end, not after the last activity
    clock.now = ended.ended_at + KEEP_AFTER_END_SECONDS - 1
    assert store.class_info(code) is not None and [c.code for c in store.list_classes()] == [code]
    clock.now += 1
    assert store.class_info(code) is None and store.list_classes() == [] and not store.is_teacher(code, key)
    with pytest.raises(Refused) as missing:
        send(store, code, 1)
    assert str(missing.value) == NOT_OPEN
    store.create_class()  # purges it
    assert store.drawings(code) == () and store.presence(code) == {}


def test_extending_reopens_an_ended_class_with_everything_in_it(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    new = store.create_class()
    code, key = new.info.code, new.teacher_key
    send(store, code, 1)
    store.end(code, key)
    clock.now += 3600
    reopened = store.extend(code, key, 2 * 3600)
    assert reopened.is_open(clock.now) and reopened.ended_at is None
    assert reopened.expires_at == max(new.info.expires_at, clock.now) + 2 * 3600
    assert store.class_info(code) == reopened and len(store.drawings(code)) == 1
    send(store, code, 2)
    # a class ended by inactivity reopens from now
    clock.now = store.class_info(code).expires_at + 600
    assert not store.class_info(code).is_open(clock.now)
    assert store.extend(code, key, 3600).expires_at == clock.now + 3600
    assert len(store.drawings(code)) == 2
    with pytest.raises(ValueError):
        store.extend(code, key, -5)


def test_classes_are_listed_oldest_first_with_their_state(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    first = store.create_class("FIRST1")
    clock.now += 10
    store.create_class("SECOND2")
    clock.now += 10
    store.end("FIRST1", first.teacher_key)
    listed = store.list_classes()
    assert [c.code for c in listed] == ["FIRST1", "SECOND2"]
    assert [c.is_open(clock.now) for c in listed] == [False, True]


def test_the_operator_teaches_every_class_and_no_text_is_the_operator(make_store):
    store = make_store()
    code = store.create_class().info.code
    assert store.is_teacher(code, OPERATOR)
    for impostor in ("OPERATOR", repr(OPERATOR), "", None):
        assert not store.is_teacher(code, impostor)
        with pytest.raises(Refused, match="Only this class's teacher"):
            store.end(code, impostor)
    assert store.set_pace(code, OPERATOR, 4).pace == 4
    assert not store.end(code, OPERATOR).is_open(store.clock())
    assert store.extend(code, OPERATOR).is_open(store.clock())
    store.delete_class(code, OPERATOR)
    assert store.class_info(code) is None


def test_a_teachers_write_racing_the_deletion_of_the_class_creates_nothing(make_store):
    """The teacher is checked, then the class is deleted (its teacher in another tab), then the write runs:
    the back end's primitive writes nothing and raises nothing."""
    store = make_store()
    new = store.create_class()
    code = new.info.code
    store.delete_class(code, new.teacher_key)
    store._put_reveal(code, 1, "prior", store.clock())
    store._set_pace(code, 3)
    store._reopen(code, store.clock() + 60)
    store._end(code, store.clock())
    assert store.class_info(code) is None and store.revealed(code) == frozenset()
    if isinstance(store, RedisStore):
        assert store.client.keys(f"*{code}*") == []
    again = store.create_class(code)
    assert again.info.period == 1 and again.info.pace is None and store.revealed(code) == frozenset()


# -- periods and pace ---------------------------------------------------------------------------
def test_a_new_period_starts_empty_and_earlier_periods_stay_readable(make_store):
    store = make_store(per_class=3, per_student=3)
    new = store.create_class()
    code, key = new.info.code, new.teacher_key
    first = [send(store, code, who) for who in (1, 2, 3)]
    store.answer(code, student(1), "prior", "3")
    store.reveal(code, key, "prior")
    store.set_pace(code, key, 4)
    store.check_in(code, student(1), 4)
    later = store.new_period(code, key)
    assert later.period == 2 and later.pace is None and later.code == code
    assert store.drawings(code) == () and store.answers(code) == [] and store.revealed(code) == frozenset()
    assert store.tally(code, "prior") == Tally({}, {})
    # the bounds hold per period: the full first period does not refuse the second's drawings
    second = [send(store, code, who) for who in (4, 5, 6)]
    assert [d.id for d in store.drawings(code, period=1)] == [d.id for d in first]
    assert [d.id for d in store.drawings(code)] == [d.id for d in second]
    assert store.tally(code, "prior", period=1).counted == {"3": 1} and store.revealed(code, period=1) == {"prior"}
    assert store.answer(code, student(1), "prior", "5")  # not revealed in this period: it counts
    assert [(a.choice, a.after_reveal) for a in store.answers(code, period=1)] == [("3", False)]
    # moderation acts on the current period only
    assert store.clear(code, key) == 3 and len(store.drawings(code, period=1)) == 3
    assert set(store.presence(code)) == {student(1)}  # a class's students stay its students
    with pytest.raises(ValueError):
        store.drawings(code, period=0)
    assert store.drawings(code, period=3) == ()


def test_periods_are_bounded(make_store):
    store = make_store()
    new = store.create_class()
    for period in range(2, MAX_PERIODS + 1):
        assert store.new_period(new.info.code, new.teacher_key).period == period
    with pytest.raises(Refused, match=f"holds {MAX_PERIODS} periods"):
        store.new_period(new.info.code, new.teacher_key)


def test_pace_is_a_step_or_free(make_store):
    store = make_store()
    new = store.create_class()
    code, key = new.info.code, new.teacher_key
    assert new.info.pace is None and new.info.period == 1
    assert store.set_pace(code, key, 3).pace == 3 and store.class_info(code).pace == 3
    assert store.set_pace(code, key, None).pace is None
    for bad in (0, 100, -1, True, 2.5, "3"):
        with pytest.raises(ValueError):
            store.set_pace(code, key, bad)
    assert store.class_info(code).pace is None


# -- answers and reveals ------------------------------------------------------------------------
def test_answers_after_the_reveal_are_kept_apart_and_never_replace(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    new = store.create_class()
    code, key = new.info.code, new.teacher_key
    store.answer(code, student(1), "prior", "3")
    clock.now += 1
    store.answer(code, student(2), "prior", "5")
    clock.now += 1
    store.reveal(code, key, "prior")
    assert store.revealed(code) == {"prior"}
    clock.now += 1
    assert store.answer(code, student(2), "prior", "3") is False  # a change of mind after the truth is out
    clock.now += 1
    assert store.answer(code, student(2), "prior", "1") is False  # only their first one after the reveal is kept
    assert store.answer(code, student(3), "prior", "3") is False  # a late student
    assert store.tally(code, "prior") == Tally({"3": 1, "5": 1}, {"3": 2})
    assert store.student_answer(code, student(2), "prior") == Answer(student(2), "prior", "5", clock.now - 3, False)
    assert store.student_answer(code, student(3), "prior") == Answer(student(3), "prior", "3", clock.now, True)
    assert store.student_answer(code, student(4), "prior") is None
    assert [(a.student, a.choice, a.after_reveal) for a in store.answers(code)] == [
        (student(1), "3", False),
        (student(2), "5", False),
        (student(2), "3", True),
        (student(3), "3", True),
    ]
    # reopened on purpose: answers count again, those after the reveal stay apart
    store.reopen(code, key, "prior")
    assert store.revealed(code) == frozenset()
    assert store.answer(code, student(3), "prior", "5") is True
    assert store.tally(code, "prior") == Tally({"3": 1, "5": 2}, {"3": 2})
    # reset on purpose: that question starts again, the others keep theirs
    store.answer(code, student(1), "likelihood", "0.5")
    store.reveal(code, key, "prior")
    store.reset_question(code, key, "prior")
    assert store.tally(code, "prior") == Tally({}, {}) and store.revealed(code) == frozenset()
    assert store.tally(code, "likelihood").counted == {"0.5": 1}
    assert store.answer(code, student(2), "prior", "1") is True
    with pytest.raises(ValueError):
        store.reveal(code, key, "Not A Question")


def test_answers_to_an_ended_or_unknown_class_are_refused_with_their_sentence(make_store):
    store = make_store()
    new = store.create_class()
    store.end(new.info.code, new.teacher_key)
    with pytest.raises(Refused) as ended:
        store.answer(new.info.code, student(1), "prior", "3")
    with pytest.raises(Refused) as missing:
        store.answer("QQQQQQQQ", student(1), "prior", "3")
    assert (str(ended.value), str(missing.value)) == (ENDED, NOT_OPEN)


# -- presence -----------------------------------------------------------------------------------
def test_presence_says_where_each_student_was_last_seen_and_is_bounded(make_store):
    clock = Clock()
    store = make_store(clock=clock, per_class=2)  # at most 4 students
    code = store.create_class().info.code
    assert store.presence(code) == {}
    store.check_in(code, student(1), None)
    clock.now += 5
    store.check_in(code, student(1), 3)
    store.check_in(code, student(2), 1)
    assert store.presence(code) == {student(1): Presence(3, clock.now), student(2): Presence(1, clock.now)}
    for who in (3, 4):
        store.check_in(code, student(who), None)
    with pytest.raises(Refused, match="has 4 students"):
        store.check_in(code, student(5), 1)
    store.check_in(code, student(4), 2)  # those already in still move
    assert store.presence(code)[student(4)].step == 2 and student(5) not in store.presence(code)
    with pytest.raises(ValueError):
        store.check_in(code, student(1), 0)
    with pytest.raises(Refused) as missing:
        store.check_in("QQQQQQQQ", student(1), 1)
    assert str(missing.value) == NOT_OPEN


# -- export -------------------------------------------------------------------------------------
def test_exported_drawings_are_what_class_evaluate_reads(make_store, tmp_path):
    store = make_store()
    code = store.create_class().info.code
    sent = [send(store, code, who, meant=digit, seed=digit) for who, digit in ((7, 1), (3, 2), (7, 9))]
    path = tmp_path / "class.npz"
    path.write_bytes(drawings_npz(store.drawings(code)))
    with np.load(path, allow_pickle=False) as arrays:
        assert sorted(arrays.files) == ["frames", "labels", "students"]
        assert arrays["frames"].dtype == np.uint8 and arrays["frames"].shape == (3, 28, 28)
        assert arrays["labels"].dtype == np.int64 and arrays["students"].dtype == np.int64
    loaded = load_drawings(path)
    np.testing.assert_array_equal(loaded.frames, np.stack([d.frame for d in sent]))
    assert loaded.labels.tolist() == [1, 2, 9] and loaded.students.tolist() == [1, 2, 1]


def test_exported_answers_number_students_and_never_run_as_formulas():
    rows = [
        Answer("a" * 16, "prior", "3", 1_800_000_000.0, False),
        Answer("b" * 16, "prior", "=HYPERLINK(1)", 1_800_000_001.5, False),
        Answer("a" * 16, "prior", "-192.16", 1_800_000_002.0, True),
        Answer("b" * 16, "likelihood", '5, "and" more\nlines', 1_800_000_003.0, False),
    ]
    text = answers_csv(rows).decode("utf-8")
    assert "a" * 16 not in text and "b" * 16 not in text
    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed == [
        ["student", "question", "answer", "answered_at", "after_reveal"],
        ["1", "prior", "3", "2027-01-15T08:00:00Z", "no"],
        ["2", "prior", "'=HYPERLINK(1)", "2027-01-15T08:00:01Z", "no"],
        ["1", "prior", "-192.16", "2027-01-15T08:00:02Z", "yes"],
        ["2", "likelihood", '5, "and" more\nlines', "2027-01-15T08:00:03Z", "no"],
    ]
    assert answers_csv([]).decode() == "student,question,answer,answered_at,after_reveal\n"


# -- the SQLite file of schema 1, migrated ------------------------------------------------------
# nbcore/classroom/sqlite_store.py's SCHEMA at schema version 1 (commit 5027553), verbatim: what teachers'
# store files hold
SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, key_digest BLOB NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS classes_by_end ON classes (expires_at);
CREATE TABLE IF NOT EXISTS drawings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
    student TEXT NOT NULL, meant INTEGER NOT NULL, frame BLOB NOT NULL, bayes BLOB NOT NULL,
    softmax BLOB NOT NULL, sent_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS drawings_by_class ON drawings (code, id);
CREATE INDEX IF NOT EXISTS drawings_by_student ON drawings (code, student, id);
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
    question TEXT NOT NULL, student TEXT NOT NULL, choice TEXT NOT NULL, answered_at REAL NOT NULL,
    PRIMARY KEY (code, question, student));
CREATE TABLE IF NOT EXISTS reveals (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, question TEXT NOT NULL,
    PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS budgets (
    name TEXT NOT NULL, window INTEGER NOT NULL, used INTEGER NOT NULL, forget_after REAL NOT NULL,
    PRIMARY KEY (name, window));
"""


def a_schema_1_file(path, now: float) -> list[int]:
    """A store file as schema 1's code left it: class OLD1 (teacher key "the-teacher-key") with three drawings
    of two students, two answers and a reveal, class OTHER2 with one drawing. The drawing ids."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    for statement in SCHEMA_1.split(";"):
        db.execute(statement)
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    for code, created in (("OLD1", now - 600), ("OTHER2", now - 300)):
        db.execute(
            "INSERT INTO classes VALUES (?, ?, ?, ?)",
            (code, codes.key_digest("the-teacher-key"), created, created + KEEP_SECONDS),
        )
    ids = []
    for code, who, meant in (("OLD1", 1, 3), ("OTHER2", 9, 0), ("OLD1", 2, 5), ("OLD1", 1, 8)):
        cursor = db.execute(
            "INSERT INTO drawings (code, student, meant, frame, bayes, softmax, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                code,
                student(who),
                meant,
                frame(meant).tobytes(),
                posterior(meant).tobytes(),
                posterior(0).tobytes(),
                now,
            ),
        )
        ids.append(cursor.lastrowid)
    db.execute("INSERT INTO answers VALUES ('OLD1', 'prior', ?, '3', ?)", (student(1), now - 60))
    db.execute("INSERT INTO answers VALUES ('OLD1', 'prior', ?, '5', ?)", (student(2), now - 50))
    db.execute("INSERT INTO reveals VALUES ('OLD1', 'prior')")
    db.execute("INSERT INTO budgets VALUES ('new:address:10.0.0.1', 1, 2, ?)", (now + 3600,))
    db.close()
    return ids


def test_a_schema_1_file_is_migrated_in_place_and_keeps_everything(tmp_path):
    clock = Clock()
    path = tmp_path / "classes.sqlite3"
    ids = a_schema_1_file(path, clock.now)
    store = SqliteStore(path, clock=clock)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone() == ("2",)
    info = store.class_info("OLD1")
    assert (info.created_at, info.expires_at) == (clock.now - 600, clock.now - 600 + KEEP_SECONDS)
    assert (info.ended_at, info.period, info.pace) == (None, 1, None) and info.is_open(clock.now)
    assert store.is_teacher("OLD1", "the-teacher-key")
    kept = store.drawings("OLD1")
    assert [d.id for d in kept] == [ids[0], ids[2], ids[3]] and [d.meant for d in kept] == [3, 5, 8]
    np.testing.assert_array_equal(kept[0].frame, frame(3))
    assert kept[2].bayes_prediction == 8 and [d.id for d in store.drawings("OTHER2")] == [ids[1]]
    assert store.tally("OLD1", "prior") == Tally({"3": 1, "5": 1}, {}) and store.revealed("OLD1") == {"prior"}
    assert [a.answered_at for a in store.answers("OLD1")] == [clock.now - 60, clock.now - 50]
    # what schema 2 adds works on the migrated classes
    assert store.answer("OLD1", student(3), "prior", "1") is False  # revealed before the migration: locked
    assert send(store, "OLD1", 1).id > max(ids)  # ids keep increasing
    store.check_in("OLD1", student(1), 2)
    assert store.new_period("OLD1", "the-teacher-key").period == 2 and store.drawings("OLD1") == ()
    assert len(store.drawings("OLD1", period=1)) == 4
    store.delete_class("OTHER2", "the-teacher-key")  # deleting cascades through the rebuilt tables
    assert store.class_info("OTHER2") is None
    SqliteStore(path, clock=clock)  # opened again: nothing more to migrate
    assert len(store.drawings("OLD1", period=1)) == 4


def test_a_failed_migration_leaves_the_schema_1_file_as_it_was(tmp_path):
    path = tmp_path / "classes.sqlite3"
    a_schema_1_file(path, Clock().now)
    with sqlite3.connect(path) as db:  # something in the way of the migration's last step
        db.execute("CREATE TABLE presence (anything TEXT)")
    with pytest.raises(StoreFileError, match="cannot be opened"):
        SqliteStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone() == ("1",)
        assert [row[1] for row in db.execute("PRAGMA table_info(answers)")] == [
            "code",
            "question",
            "student",
            "choice",
            "answered_at",
        ]
        assert db.execute("SELECT count(*) FROM drawings").fetchone() == (4,)
