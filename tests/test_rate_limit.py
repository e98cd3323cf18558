"""The run and message budgets (lab/rate_limit.py): the token bucket, the per-session limiter, the ASGI middleware."""

from __future__ import annotations

import asyncio
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor

import pytest
from streamlit.testing.v1 import AppTest

from lab import rate_limit
from lab.rate_limit import (
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    OVER_BUDGET,
    REFUSED_PAUSE_S,
    RUN_BURST,
    RUNS_PER_SECOND,
    RunLimiter,
    TokenBucket,
    WebsocketMessageBudget,
)
from tests.conftest import REPO


def test_a_bucket_gives_its_capacity_at_once_then_refuses():
    bucket = TokenBucket(capacity=3, rate=1.0, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert not bucket.take(0.5)  # half a token is not a run


def test_a_bucket_refills_at_its_rate_up_to_its_capacity():
    bucket = TokenBucket(capacity=2, rate=4.0, now=0.0)
    assert bucket.take(0.0) and bucket.take(0.0) and not bucket.take(0.0)
    assert bucket.take(0.25) and not bucket.take(0.25)  # one token per 1/rate seconds
    assert bucket.level(100.0) == 2  # a long pause refills to capacity, not beyond
    assert bucket.full(100.0)


def test_refused_requests_take_nothing():
    bucket = TokenBucket(capacity=1, rate=1.0, now=0.0)
    assert bucket.take(0.0)
    assert not any(bucket.take(0.1 * step) for step in range(1, 10))  # a flood at 10/s within the second
    assert bucket.take(1.0)  # the refill was not eaten by the refused requests


def test_a_clock_going_back_adds_no_tokens():
    bucket = TokenBucket(capacity=1, rate=1.0, now=10.0)
    assert bucket.take(10.0)
    assert not bucket.take(5.0)
    assert not bucket.take(10.5)


@pytest.mark.parametrize("capacity, rate", [(0, 1.0), (1, 0.0), (5, -1.0)])
def test_a_bucket_that_could_never_give_a_run_is_refused(capacity, rate):
    with pytest.raises(ValueError):
        TokenBucket(capacity, rate, now=0.0)


def test_sessions_have_separate_budgets():
    limiter = RunLimiter(capacity=2, rate=1.0)
    assert limiter.allow("flooder", 0.0) and limiter.allow("flooder", 0.0)
    assert not limiter.allow("flooder", 0.0)
    assert limiter.allow("student", 0.0)  # another session is not charged for the flood


def test_the_budget_carries_a_fast_drawer_and_stops_a_script():
    """A stroke every 100 ms for 4.3 s (44 strokes), and 1 run/s for ever, are allowed; a script asking 100 runs/s is cut."""
    limiter = RunLimiter()
    assert all(limiter.allow("fast drawer", step * 0.1) for step in range(44))
    assert all(limiter.allow("busy student", float(step)) for step in range(600))
    allowed = sum(limiter.allow("script", step * 0.01) for step in range(6000))  # 60 s
    assert RUN_BURST + 59 * RUNS_PER_SECOND <= allowed <= RUN_BURST + 60 * RUNS_PER_SECOND + 1


def test_full_buckets_are_dropped_once_many_sessions_are_held():
    limiter = RunLimiter(capacity=10, rate=1.0, prune_above=100)
    for number in range(99):
        limiter.allow(f"closed-{number}", 0.0)
    for _ in range(10):
        limiter.allow("busy", 15.0)  # emptied at 15 s: not full again at 20 s
    assert len(limiter) == 100
    assert limiter.allow("new", 20.0)  # the 99 closed sessions' buckets are full again by now
    assert len(limiter) == 2
    assert sum(limiter.allow("busy", 20.0) for _ in range(10)) == 5  # its state was kept: 5 s of refill


def test_concurrent_sessions_never_get_more_than_their_budget():
    limiter = RunLimiter(capacity=50, rate=1e-9)
    allowed = []

    def flood() -> None:
        allowed.append(sum(limiter.allow("one session", 0.0) for _ in range(1000)))

    threads = [threading.Thread(target=flood) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(allowed) == 50


def run_middleware(scope: dict, messages: list[dict], burst: float, per_second: float) -> list[dict]:
    """What an ASGI app behind WebsocketMessageBudget receives when a client sends ``messages`` at once."""
    incoming = list(messages)
    received: list[dict] = []

    async def receive() -> dict:
        return incoming.pop(0) if incoming else {"type": "websocket.disconnect", "code": 1000}

    async def app(scope, receive, send) -> None:
        while (message := await receive())["type"] != "websocket.disconnect":
            received.append(message)

    async def send(message) -> None:
        pass

    # in a thread of its own: earlier tests in the same process (the browser tests) may leave an event loop
    # running in this one, where asyncio.run refuses to start
    budgeted = WebsocketMessageBudget(app, burst=burst, per_second=per_second)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, budgeted(scope, receive, send)).result()
    return received


STREAM = {"type": "websocket", "path": "/_stcore/stream"}


def test_a_websocket_flood_reaches_streamlit_only_up_to_the_message_budget():
    flood = [{"type": "websocket.connect"}] + [{"type": "websocket.receive", "bytes": b"%d" % n} for n in range(1000)]
    received = run_middleware(STREAM, flood, burst=100, per_second=1e-9)
    assert received[0] == {"type": "websocket.connect"}  # the handshake always passes
    assert [message["bytes"] for message in received[1:]] == [b"%d" % n for n in range(100)]  # the first 100, in order


def test_other_paths_and_other_websockets_are_not_counted():
    messages = [{"type": "websocket.receive", "bytes": b"x"}] * 50
    assert len(run_middleware({"type": "websocket", "path": "/other"}, messages, burst=1, per_second=1e-9)) == 50
    assert len(run_middleware({**STREAM, "path": "/class/_stcore/stream"}, messages, burst=1, per_second=1e-9)) == 1


def test_the_message_budget_is_above_the_run_budget():
    """A person who stays within the run budget never loses a message (one message per run, plus heartbeats)."""
    assert MESSAGE_BURST >= 2 * RUN_BURST and MESSAGES_PER_SECOND >= 2 * RUNS_PER_SECOND


REFUSED_RUN = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
import streamlit as st
from lab import rate_limit
rate_limit._refuse()
st.write("the page's work")
"""


def test_a_refused_run_tells_its_session_holds_it_and_does_no_work(monkeypatch):
    """The pause, on a fake clock: the refused run sleeps ``REFUSED_PAUSE_S`` in its own script thread, then stops."""
    paused: list[float] = []
    monkeypatch.setattr(rate_limit, "time", types.SimpleNamespace(sleep=paused.append, monotonic=time.monotonic))
    app = AppTest.from_string(REFUSED_RUN).run()
    assert not app.exception and [warning.value for warning in app.warning] == [OVER_BUDGET]
    assert paused == [REFUSED_PAUSE_S] and not app.markdown  # stopped before the page's work
