"""In a following student's lesson: an invisible element that waits on ``/api/pace`` and asks for the page again
when the class has moved on (the teacher's Next, a new period, the end), so the page moves within a fraction
of a second of the store's change and costs no run while nothing happens.

The script holds one request open (``lab/pace_route.py``) with the version the page shows; an answer with
another version sets the element's value, which reruns the whole page (the value carries a count, so the same
version twice still reruns). It asks again after ``RETRY_MS`` if the page still shows an older version (the
rerun was lost: the connection dropped; sooner, ``RECOVER_MS``, just after a failed request). When the class store
does not answer (a 503 marked ``pace_route.STORE_HEADER``) it asks for the page again once, which then shows the
outage notice (``lab/store_outage.py``) and heals by itself. It waits on a failed
request (offline, the server restarting, a 429) with a growing pause, and asks at once when the browser comes back
online or the tab becomes visible again. A hidden
tab holds no request (a browser allows a few connections per server: tabs in the background leave them free).
Paused (``lab/refresh.py``: *Pause live updates*), it asks nothing: the page changes only on *Refresh now*.
"""

from __future__ import annotations

import os

import streamlit as st

from lab import pace_route
from nbcore.classroom import ClassInfo

KEY = "lesson_pace_listener"
# "poll": no listener, the lesson looks every 2 s by a script run, as before #40 (for a proxy that does not pass
# /api/pace; devtools/pace_bench.py's "before"); anything else: the listener
LISTENING = os.environ.get("NBCORE_FOLLOW", "listen") != "poll"
# a page asked to move that still shows the old version asks again after this long: longer than a run of the
# new step takes when a whole class asks at once (a second ask while the first run is going restarts it), short
# enough for a move lost to a dropped connection without an "online" event to come back within a lesson's minute
RETRY_MS = 15_000
# after a failed request (offline, a server restarting) the page's own connection may still be coming back and
# lose the move's rerun: the first asks again come this much sooner, this many times
RECOVER_MS, RECOVER_ASKS = 3000, 3
_JS = """
const listeners = new WeakMap();

function pause(listener, ms) {
  return new Promise((resolve) => {
    listener.wake = resolve;
    setTimeout(resolve, ms);
  });
}

async function listen(listener) {
  let failures = 0;
  let quickAsks = 0;  // asks again soon after a failure: the page's own connection may be reconnecting
  while (!listener.stopped) {
    if (listener.paused || document.hidden) {
      await pause(listener, 60000);
      continue;
    }
    const asking = listener.seen;
    const asked = Date.now();
    let wait = 0;
    try {
      listener.request = new AbortController();
      const url = listener.path + "?class=" + encodeURIComponent(listener.code) + "&seen=" + asking;
      const answer = await fetch(url, { signal: listener.request.signal, cache: "no-store" });
      if (answer.status === 503 && answer.headers.get(listener.store_header)) {
        // the class store does not answer: the page, drawn again, says so once (and heals when it answers)
        if (!listener.outage && !listener.stopped) {
          listener.outage = true;
          listener.refusals += 1;
          listener.send("refused", listener.refusals);
        }
        throw new Error("HTTP 503");
      }
      if (!answer.ok) throw new Error("HTTP " + answer.status);
      const version = (await answer.json()).version;
      listener.outage = false;
      failures = 0;
      if (version !== listener.seen && !listener.stopped) {
        listener.moves += 1;
        listener.send("moved", version + "." + listener.moves);
        wait = quickAsks > 0 ? listener.recover_ms : listener.retry_ms;
        quickAsks = Math.max(quickAsks - 1, 0);
      }
    } catch (error) {
      if (listener.stopped || asking !== listener.seen) continue;  // aborted for new data: ask again at once
      // held open for seconds, then cut: a proxy's idle timeout shorter than the wait, not a server that is down
      failures = Date.now() - asked > 5000 ? 0 : failures + 1;
      quickAsks = listener.recover_asks;
      wait = Math.min(500 * 2 ** failures, 8000);
    }
    if (wait) await pause(listener, wait);
  }
}

export default function ({ parentElement, data, setStateValue }) {
  let listener = listeners.get(parentElement);
  if (!listener || listener.stopped) {
    listener = { stopped: false, moves: 0, refusals: 0, outage: false, wake: () => {}, request: null };
    listeners.set(parentElement, listener);
    const wake = () => listener.wake();
    window.addEventListener("online", wake);
    document.addEventListener("visibilitychange", wake);
    listener.unlisten = () => {
      window.removeEventListener("online", wake);
      document.removeEventListener("visibilitychange", wake);
    };
    Object.assign(listener, data);
    listener.send = setStateValue;
    listen(listener);
  } else if (listener.seen !== data.seen || listener.code !== data.code || listener.paused !== data.paused) {
    Object.assign(listener, data);
    listener.send = setStateValue;
    if (listener.request) listener.request.abort();
    listener.wake();
  }
  (parentElement.host || parentElement).dataset.seen = data.seen;  // what tests wait on: the version shown
  return () => {
    listener.stopped = true;
    listener.unlisten();
    if (listener.request) listener.request.abort();
    listener.wake();
  };
}
"""
_listener = st.components.v2.component("naive_bayes_lab_pace_listener", html="", js=_JS)


def listen(info: ClassInfo, paused: bool, now: float) -> None:
    """Keep the listener in the page for class ``info`` as this run shows it (call it at the same place on every
    run of a following student's lesson); ``paused``: ask nothing."""
    _listener(
        key=KEY,
        data={
            "path": pace_route.PATH,
            "code": info.code,
            "seen": pace_route.version(info.code, info, now),
            "paused": paused,
            "retry_ms": RETRY_MS,
            "recover_ms": RECOVER_MS,
            "recover_asks": RECOVER_ASKS,
            "store_header": pace_route.STORE_HEADER,
        },
        default={"moved": None, "refused": None},
        on_moved_change=lambda: None,
        on_refused_change=lambda: None,
        width="content",
        height="content",
    )
