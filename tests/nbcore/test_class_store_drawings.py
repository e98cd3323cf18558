"""Drawings in the class store, on both back ends: kept whole and in order, bounded per student and per class
(refusing newcomers, never evicting), moderated by the teacher alone, and refused when malformed."""

from __future__ import annotations

import numpy as np
import pytest

from nbcore.classroom import Refused
from nbcore.classroom.store import NOT_OPEN, TEACHER_ONLY
from tests.nbcore.class_store_helpers import frame, posterior, send, student


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
