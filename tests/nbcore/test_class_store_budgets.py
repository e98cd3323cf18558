"""The class store's budgets, on both back ends: uses counted per fixed window, shared by every process."""

from __future__ import annotations

from tests.nbcore.class_store_helpers import Clock


def test_budgets_count_per_window(make_store):
    clock = Clock(1_800_000_000.0)
    store = make_store(clock=clock)
    assert [store.take("send:addr:10.0.0.1", 3, 60) for _ in range(5)] == [True, True, True, False, False]
    assert store.take("send:addr:10.0.0.2", 3, 60)  # another address has its own
    clock.now += 60
    assert store.take("send:addr:10.0.0.1", 3, 60)
