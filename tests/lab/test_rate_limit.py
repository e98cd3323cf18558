"""The run and message budgets (lab/rate_limit.py): the token bucket, the per-session limiter, the ASGI middleware."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from lab.rate_limit import (
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    RUN_BURST,
    RUNS_PER_SECOND,
    RunLimiter,
    TokenBucket,
    WebsocketMessageBudget,
)


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


def test_a_reservation_past_an_empty_bucket_says_when_its_token_is_due():
    bucket = TokenBucket(capacity=2, rate=4.0, now=0.0)
    assert [bucket.reserve(0.0) for _ in range(4)] == [0.0, 0.0, 0.25, 0.5]  # the waits add up, 1/rate each
    assert bucket.level(0.5) == 0  # the tokens waited for are gone once they are due
    assert bucket.reserve(1.0) == 0.0  # 0.5 s later, two more had come: one taken now


def test_what_is_owed_is_the_time_until_the_tokens_taken_ahead_are_due():
    bucket = TokenBucket(capacity=1, rate=2.0, now=0.0)
    assert bucket.owed(0.0) == 0.0
    bucket.reserve(0.0), bucket.reserve(0.0), bucket.reserve(0.0)  # one held, two taken ahead
    assert bucket.owed(0.0) == 1.0 and bucket.owed(0.75) == 0.25 and bucket.owed(2.0) == 0.0


def test_a_clock_going_back_makes_no_reservation_sooner():
    bucket = TokenBucket(capacity=1, rate=1.0, now=10.0)
    assert bucket.reserve(10.0) == 0.0
    assert bucket.reserve(5.0) == 1.0  # due at 11 s, measured from the latest time seen


def test_sessions_have_separate_budgets():
    limiter = RunLimiter(capacity=2, rate=1.0)
    assert limiter.reserve("flooder", 0.0) == 0.0 and limiter.reserve("flooder", 0.0) == 0.0
    assert limiter.reserve("flooder", 0.0) == 1.0
    assert limiter.reserve("student", 0.0) == 0.0  # another session is not charged for the flood


def serve(
    limiter: RunLimiter, key: str, asks: list[float], run_seconds: float, settle: bool
) -> list[tuple[float, float, float]]:
    """(asked, work begun, work done) for each run one session gets when it asks at ``asks`` (s), as the app runs.

    One run at a time (one script thread per session); a run first waits out what the session owes
    (``check_run``), takes its token, works ``run_seconds``, and with ``settle`` then waits out what it
    owes itself (``settle_fragment_run``). Requests that arrive before a run starts merge into it: the
    newest wins.
    """
    runs, free_at, index = [], 0.0, 0
    while index < len(asks):
        start = max(free_at, asks[index])
        while index + 1 < len(asks) and asks[index + 1] <= start:
            index += 1
        begun = start + limiter.owed(key, start)
        limiter.reserve(key, begun)
        done = begun + run_seconds
        runs.append((asks[index], begun, done))
        free_at, index = done + (limiter.owed(key, done) if settle else 0.0), index + 1
    return runs


@pytest.mark.parametrize("settle", [False, True])
def test_the_budget_carries_a_fast_drawer_at_once_and_holds_a_script_to_its_rate(settle):
    """A stroke every 100 ms for 4.3 s (44 strokes) waits for nothing; a script asking 100 runs/s gets the rate."""
    limiter = RunLimiter()
    drawer = serve(limiter, "fast drawer", [step * 0.1 for step in range(44)], run_seconds=0.02, settle=settle)
    assert len(drawer) == 44 and all(begun == asked for asked, begun, _ in drawer)
    student = serve(limiter, "busy student", [float(step) for step in range(600)], run_seconds=0.02, settle=settle)
    assert all(begun == asked for asked, begun, _ in student)
    script = serve(limiter, "script", [step * 0.01 for step in range(6000)], run_seconds=0.02, settle=settle)
    in_a_minute = [run for run in script if run[1] < 60.0]
    assert RUN_BURST + 59 * RUNS_PER_SECOND <= len(in_a_minute) <= RUN_BURST + 60 * RUNS_PER_SECOND + 2


@pytest.mark.parametrize("per_second", [3.0, 8.0])
def test_a_scribbler_past_the_budget_sees_a_stroke_a_second_and_the_last_at_once(per_second):
    """Strokes at 3 a second (or taps at 8) for a minute, each run settling at its end, as Draw's do: a stroke
    waits at most one token's refill for its run, and a stroke after a pause is run at once."""
    limiter = RunLimiter()
    asks = [step / per_second for step in range(int(60 * per_second))] + [70.0]  # and one more after 10 s
    runs = serve(limiter, "child", asks, run_seconds=0.05, settle=True)
    assert len(runs) < len(asks)  # past the budget: strokes merged into later runs
    assert max(begun - asked for asked, begun, _ in runs) <= 1 / RUNS_PER_SECOND + 1e-9
    assert runs[-2][0] == asks[-2]  # the last stroke of the scribble was run, not dropped
    assert runs[-1][:2] == (70.0, 70.0)


def test_full_buckets_are_dropped_once_many_sessions_are_held():
    limiter = RunLimiter(capacity=10, rate=1.0, prune_above=100)
    for number in range(99):
        limiter.reserve(f"closed-{number}", 0.0)
    for _ in range(10):
        limiter.reserve("busy", 15.0)  # emptied at 15 s: not full again at 20 s
    assert len(limiter) == 100
    assert limiter.reserve("new", 20.0) == 0.0  # the 99 closed sessions' buckets are full again by now
    assert limiter.owed("closed-1", 20.0) == 0.0  # dropped: like a new session
    assert len(limiter) == 2
    assert sum(limiter.reserve("busy", 20.0) == 0.0 for _ in range(10)) == 5  # its state was kept: 5 s of refill


def test_concurrent_runs_of_one_session_never_start_more_than_its_budget():
    limiter = RunLimiter(capacity=50, rate=1.0)
    waits: list[float] = []

    def flood() -> None:
        waits.extend(limiter.reserve("one session", 0.0) for _ in range(1000))

    threads = [threading.Thread(target=flood) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(wait == 0.0 for wait in waits) == 50  # at once: the burst
    assert sorted(waits)[-1] == 8000 - 50  # the rest are spread at the rate: one a second, however many ask


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
