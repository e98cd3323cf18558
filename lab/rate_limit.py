"""Per-session and per-connection caps: a client that floods the server is slowed, the class keeps it.

Streamlit 1.67 has no per-session rate limit, and a proxy cannot count the messages inside the
websocket. Two public hooks can:

* Runs. Every run of the app passes ``shell.run``, which calls ``check_run()`` first (a run of a
  fragment alone calls ``check_fragment_run()``): each session holds a token bucket of ``RUN_BURST``
  runs that refills at ``RUNS_PER_SECOND``; a run that finds it empty shows ``OVER_BUDGET`` to that
  session only, holds that session for a second and stops before any work.
* Messages. ``WebsocketMessageBudget``, an ASGI middleware given to ``st.App`` in app.py, drops what
  a ``/_stcore/stream`` connection sends beyond ``MESSAGE_BURST`` messages + ``MESSAGES_PER_SECOND``,
  before Streamlit merges each rerun request into the pending run on the event loop that serves
  every session. Requests that do reach it while a run is in progress coalesce into one run once
  ``runner.fastReruns`` is off (.streamlit/config.toml).

The budgets are far above a person's: a fast drawer makes a stroke every ~100 ms (10 runs/s on Draw,
each a run of its fragment), which the run budget carries for over 4 s without a pause, and a
student who draws a digit, reads the verdict and clears (a few runs per digit) never reaches it;
sliders send their value on release, clicks are slower still. docs/security-probes.md has the
measurements.

Run buckets are keyed by the session's id: ``st.session_state`` would not do, since a ``clear_cache``
message empties it and would refill the bucket. Streamlit 1.67 has no public accessor for the session
id (``st.context`` has none), so it is read through ``get_script_run_ctx`` (listed in docs/design.md).
"""

from __future__ import annotations

import threading
import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

RUN_BURST = 40  # runs a session may ask for at once
RUNS_PER_SECOND = 1.0  # and then, sustained (at 2, a script at this pace moved 60 students' p95 by one run time)
OVER_BUDGET = (
    "This page asked the server for more runs than anyone can click or draw: it is paused for a "
    "few seconds so that the rest of the class keeps a fast server. Wait a moment, then carry on."
)
REFUSED_PAUSE_S = 1.0  # a refused run holds its session this long before it ends (see _refuse)
PRUNE_ABOVE = 512  # sessions held before idle (full) buckets are dropped
MESSAGE_BURST = 100  # websocket messages a connection may send at once (a browser: one per click or stroke)
MESSAGES_PER_SECOND = 20.0  # and then, sustained
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

    def allow(self, key: str, now: float | None = None) -> bool:
        """One run for ``key``: True if its bucket had a token (taken), False if over budget."""
        now = time.monotonic() if now is None else now
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                if len(self._buckets) >= self.prune_above:
                    self._buckets = {k: b for k, b in self._buckets.items() if not b.full(now)}
                bucket = self._buckets[key] = TokenBucket(self.capacity, self.rate, now)
            return bucket.take(now)

    def __len__(self) -> int:
        return len(self._buckets)


LIMITER = RunLimiter()


def check_run() -> None:
    """Count this run against its session's budget; over budget: tell that session and ``st.stop()``.

    Call first in a run (``shell.run``). It does nothing outside a websocket session: with no
    script run, or under AppTest.
    """
    context = _served_run()
    if context is None or LIMITER.allow(context.session_id):
        return
    _refuse()


def check_fragment_run() -> None:
    """``check_run`` for a run of an ``st.fragment`` alone (which skips ``shell.run``); call first in the fragment.

    During a full run the fragment's function runs too: that run was counted in ``shell.run``.
    """
    context = _served_run()
    if context is None or not context.fragment_ids_this_run or LIMITER.allow(context.session_id):
        return
    _refuse()


def _served_run():
    """The script run context of a session a client is connected to over the websocket, else None.

    AppTest's runs have no websocket, so no request headers (and all of them share one session id).
    """
    context = get_script_run_ctx()
    return context if context is not None and len(st.context.headers) else None


def _refuse() -> None:
    """Tell the session, hold its run ``REFUSED_PAUSE_S``, stop it.

    The pause keeps refused runs rare: a script that waits for each run before asking for the
    next gets one refusal a second instead of one every few ms (each still costs a thread and a
    message). It holds only this session's script thread, asleep (no GIL); requests that arrive
    meanwhile coalesce into one run (``runner.fastReruns`` off).
    """
    st.warning(OVER_BUDGET, icon=":material/hourglass_top:")
    time.sleep(REFUSED_PAUSE_S)
    st.stop()


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
