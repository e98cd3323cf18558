"""Per-session and per-connection caps: a client that floods the server is slowed, the class keeps it.

Streamlit 1.67 has no per-session rate limit, and a proxy cannot count the messages inside the
websocket. Two public hooks can:

* Runs. Every run of the app passes ``shell.run``, which calls ``check_run()`` first (a run of a
  fragment alone calls ``check_fragment_run()``): each session holds a token bucket of ``RUN_BURST``
  runs that refills at ``RUNS_PER_SECOND``. A run that finds it empty takes its token ahead of time
  and owes the wait for it; the session's next run starts only once that is paid (at most
  ``1 / RUNS_PER_SECOND`` s, asleep), so a session gets ``RUNS_PER_SECOND`` runs once its burst is
  spent, however fast it asks. A fragment run pays at its end (``settle_fragment_run()``), with
  everything it drew on screen. Nothing is refused and nothing leaves the screen: a child scribbling
  faster than that sees each stroke at once, keeps the canvas and every stroke on it, and the
  strokes sent while a run pays merge into the next run (``runner.fastReruns`` off), which gets the
  newest drawing.
* Messages. ``WebsocketMessageBudget``, an ASGI middleware given to ``st.App`` in app.py, drops what
  a ``/_stcore/stream`` connection sends beyond ``MESSAGE_BURST`` messages + ``MESSAGES_PER_SECOND``,
  before Streamlit merges each rerun request into the pending run on the event loop that serves
  every session. Requests that do reach it while a run is in progress coalesce into one run once
  ``runner.fastReruns`` is off (.streamlit/config.toml).

The budgets are far above what a person needs at once: a fast drawer makes a stroke every ~100 ms
(10 runs/s on Draw, each a run of its fragment), which the run budget carries for over 4 s without a
wait; a student who draws a digit, reads the verdict and clears (a few runs per digit) never reaches
it; sliders send their value on release, clicks are slower still. Past it, a scribbler's prediction
follows the drawing once a second. docs/security-probes.md has the measurements.

Run buckets are keyed by the session's id: ``st.session_state`` would not do, since a ``clear_cache``
message empties it and would refill the bucket. Streamlit 1.67 has no public accessor for the session
id (``st.context`` has none), so it is read through ``get_script_run_ctx`` (listed in docs/design.md).
"""

from __future__ import annotations

import os
import sys
import threading
import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

RUN_BURST = 40  # runs a session may ask for at once
RUNS_PER_SECOND = 1.0  # and then, sustained (at 2, a script at this pace moved 60 students' p95 by one run time)
PRUNE_ABOVE = 512  # sessions held before idle (full) buckets are dropped
MESSAGE_BURST = 100  # websocket messages a connection may send at once (a browser: one per click or stroke)
MESSAGES_PER_SECOND = 20.0  # and then, sustained
WAIT_LOG = "NBCORE_RUN_WAIT"  # the line a run that waits for its token writes on stderr (NBCORE_LOG_RERUN_MS=1)
STREAM_PATH = "/_stcore/stream"  # Streamlit's websocket (after the server's base URL path, if any)


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` tokens per second (times from time.monotonic(), in seconds)."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        if capacity < 1 or rate <= 0:
            raise ValueError(f"a bucket needs capacity >= 1 and rate > 0, got {capacity}, {rate}")
        self.capacity, self.rate = float(capacity), float(rate)
        self.tokens, self.updated = float(capacity), now

    def level(self, now: float) -> float:
        """Tokens held at ``now`` (never more than ``capacity``; a clock going back adds nothing)."""
        return min(self.capacity, self.tokens + max(0.0, now - self.updated) * self.rate)

    def take(self, now: float) -> bool:
        """Take one token if there is one; False (and nothing taken) when the bucket is empty."""
        self.tokens, self.updated = self.level(now), max(now, self.updated)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def reserve(self, now: float) -> float:
        """Take one token, ahead of time if none is left: seconds from ``now`` until it is due (0 if one was there).

        The waits of several reservations add up: the n-th reservation past an empty bucket is due
        n / ``rate`` seconds on, so whoever waits for the tokens gets them at ``rate``, however many ask.
        """
        self.tokens, self.updated = self.level(now) - 1, max(now, self.updated)
        return max(0.0, -self.tokens / self.rate)

    def owed(self, now: float) -> float:
        """Seconds from ``now`` until every token taken ahead of time is due (0 when none is owed)."""
        return max(0.0, -self.level(now) / self.rate)

    def full(self, now: float) -> bool:
        return self.level(now) >= self.capacity


class RunLimiter:
    """One ``TokenBucket`` per key (a session id), safe to call from every session's script thread.

    A full bucket is the same as a new one, so buckets left full are dropped once more than
    ``prune_above`` keys are held: memory stays bounded by the sessions active in the last
    ``capacity / rate`` seconds.
    """

    def __init__(
        self, capacity: float = RUN_BURST, rate: float = RUNS_PER_SECOND, prune_above: int = PRUNE_ABOVE
    ) -> None:
        self.capacity, self.rate, self.prune_above = capacity, rate, prune_above
        self._buckets: dict[str, TokenBucket] = {}
        self._lock = threading.Lock()

    def reserve(self, key: str, now: float | None = None) -> float:
        """One run for ``key``: seconds it must wait for its token (0 when its bucket had one), the token taken."""
        now = time.monotonic() if now is None else now
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                if len(self._buckets) >= self.prune_above:
                    self._buckets = {k: b for k, b in self._buckets.items() if not b.full(now)}
                bucket = self._buckets[key] = TokenBucket(self.capacity, self.rate, now)
            return bucket.reserve(now)

    def owed(self, key: str, now: float | None = None) -> float:
        """Seconds until the runs ``key`` took ahead of time are due (0 for a key never seen)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            bucket = self._buckets.get(key)
            return 0.0 if bucket is None else bucket.owed(now)

    def __len__(self) -> int:
        return len(self._buckets)


LIMITER = RunLimiter()


def check_run() -> None:
    """Count this run against its session's budget. Call first in a run (``shell.run``), before anything is drawn.

    When the session's last run took its token ahead of time, wait until that token is due; then
    take one for this run (ahead of time if the bucket is empty: the next run waits for it). It does
    nothing outside a websocket session: with no script run, or under AppTest.
    """
    context = _served_run()
    if context is not None:
        _wait_until_paid(context.session_id)
        LIMITER.reserve(context.session_id)


def check_fragment_run() -> None:
    """``check_run`` for a run of an ``st.fragment`` alone (which skips ``shell.run``); call first in the fragment.

    During a full run the fragment's function runs too: that run was counted in ``shell.run``.
    """
    context = _served_run()
    if context is not None and context.fragment_ids_this_run:
        _wait_until_paid(context.session_id)
        LIMITER.reserve(context.session_id)


def settle_fragment_run() -> None:
    """At the end of a fragment's run: wait until the token it took is due, with all it drew on screen.

    The wait would otherwise fall on the session's next run, before it draws anything: the
    browser then shows the fragment's elements faded as stale meanwhile (Draw's canvas too). The
    requests that arrive while it waits merge into one next run. Does nothing during a full run.
    """
    context = _served_run()
    if context is not None and context.fragment_ids_this_run:
        _wait_until_paid(context.session_id)


def _served_run():
    """The script run context of a session a client is connected to over the websocket, else None.

    AppTest's runs have no websocket, so no request headers (and all of them share one session id).
    """
    context = get_script_run_ctx()
    return context if context is not None and len(st.context.headers) else None


def _wait_until_paid(session_id: str) -> None:
    """Sleep until the tokens this session took ahead of time are due.

    Only this session's script thread sleeps (no GIL held, no CPU). A session runs one script
    thread at a time (``runner.fastReruns`` off) and owes at most one token, so it never waits more
    than ``1 / RUNS_PER_SECOND`` s.
    """
    wait = LIMITER.owed(session_id)
    if wait > 0:
        if os.environ.get("NBCORE_LOG_RERUN_MS") == "1":  # beside lab/shell.py's line per run, for tests and load runs
            sys.stderr.write(f"{WAIT_LOG} ms={wait * 1000:.0f}\n")
            sys.stderr.flush()
        time.sleep(wait)


class WebsocketMessageBudget:
    """ASGI middleware: each ``/_stcore/stream`` websocket may send ``burst`` messages, then ``per_second``.

    Messages beyond that are dropped before Streamlit sees them (each would cost the event loop that
    serves every session a rerun request to merge); the connection stays open, so a script gains
    nothing by reconnecting. Twice the run budget: a browser sends one message per click or stroke,
    plus a heartbeat now and then, so a person never reaches it. Other requests pass untouched.
    """

    def __init__(self, app, burst: float = MESSAGE_BURST, per_second: float = MESSAGES_PER_SECOND) -> None:
        self.app, self.burst, self.per_second = app, burst, per_second

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "websocket" or not scope.get("path", "").endswith(STREAM_PATH):
            await self.app(scope, receive, send)
            return
        bucket = TokenBucket(self.burst, self.per_second, time.monotonic())

        async def budgeted_receive():
            while True:
                message = await receive()
                if message["type"] != "websocket.receive" or bucket.take(time.monotonic()):
                    return message

        await self.app(scope, budgeted_receive, send)
