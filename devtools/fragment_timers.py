"""The browser's timers for ``st.fragment(run_every=...)``, for ``devtools/streamlit_client.py``.

The server sends ``auto_rerun`` (interval, fragment id); the frontend then asks for a run of that fragment every
interval until ``stop_auto_rerun`` names it or a whole run starts (its ``new_session`` without fragment ids clears
every timer; the run's ``auto_rerun`` messages set them again).
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class AutoRerun:
    """A fragment the server asked to rerun every ``interval`` seconds; ``due``: its next time (time.perf_counter())."""

    interval: float
    due: float


def set_timer(timers: dict[str, AutoRerun], fragment_id: str, interval: float, received_at: float) -> None:
    """A timer as the browser's ``handleAutoRerun`` sets it: kept as it runs when the interval is the same."""
    if not fragment_id or interval <= 0:
        return
    held = timers.get(fragment_id)
    if held is None or held.interval != interval:
        timers[fragment_id] = AutoRerun(interval, received_at + interval)


def next_due(timers: dict[str, AutoRerun], until: float) -> str | None:
    """Wait for the next timer due before ``until`` (time.perf_counter()) and return its fragment id, moving the
    timer on by its interval (or to now, after a run that took longer); None, having waited until ``until``, when
    none is due before it."""
    due = min((timer.due for timer in timers.values()), default=until)
    if due >= until:
        time.sleep(max(0.0, until - time.perf_counter()))
        return None
    time.sleep(max(0.0, due - time.perf_counter()))
    fragment_id = next(key for key, timer in timers.items() if timer.due == due)
    timer = timers[fragment_id]
    timer.due = max(timer.due + timer.interval, time.perf_counter())
    return fragment_id
