"""A class's life in the class store, on both back ends: created with its teacher key, open, ended by its
teacher or by inactivity, kept read-only, reopened, listed and deleted; the operator; the bounds on classes."""

from __future__ import annotations

import pytest

from nbcore.classroom import Refused, codes
from nbcore.classroom.bounds import LONGEST_KEEP_SECONDS
from nbcore.classroom.records import KEEP_AFTER_END_SECONDS, KEEP_SECONDS, OPERATOR
from nbcore.classroom.redis_store import RedisStore
from nbcore.classroom.store import ENDED, NOT_OPEN
from tests.nbcore.class_store_helpers import Clock, send, student


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
