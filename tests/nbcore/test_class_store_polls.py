"""Poll answers in the class store, on both back ends: counted once per student, kept apart after the reveal,
reopened and reset by the teacher, refused for an ended or unknown class."""

from __future__ import annotations

import pytest

from nbcore.classroom import Refused
from nbcore.classroom.records import Answer, Tally
from nbcore.classroom.store import ENDED, NOT_OPEN
from tests.nbcore.class_store_helpers import Clock, student


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
