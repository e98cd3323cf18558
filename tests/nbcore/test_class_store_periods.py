"""A class's periods and pace in the class store, on both back ends: a new period starts empty while earlier ones
stay readable, periods are bounded, and the pace is a lesson step or free."""

from __future__ import annotations

import pytest

from nbcore.classroom import Refused
from nbcore.classroom.bounds import MAX_PERIODS
from nbcore.classroom.records import Tally
from tests.nbcore.class_store_helpers import send, student


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
