"""Presence in the class store, on both back ends: where each student was last seen, bounded per class."""

from __future__ import annotations

import pytest

from nbcore.classroom import Refused
from nbcore.classroom.records import Presence
from nbcore.classroom.store import NOT_OPEN
from tests.nbcore.class_store_helpers import Clock, student


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
