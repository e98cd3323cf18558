"""``--churn K``: sessions opened and closed on one server, its RSS before, after, and once Streamlit's
disconnected-session TTL has passed."""

from __future__ import annotations

import json
import time
import uuid

import gevent

from devtools.load_protocol.gauges import ProcessGroups
from devtools.load_protocol.phases import Served, warm_up
from devtools.load_protocol.students import DRAWINGS, PREDICTION, canvas_key
from devtools.protocol_run import ProtocolError
from devtools.streamlit_client import StreamlitClient


def churn(served: Served, count: int, parallel: int, ttl_wait: float) -> dict:
    groups = ProcessGroups(served.leaders)
    warm_up(served.url)
    gevent.sleep(3)
    before = groups.rss_mb()
    failures: list[str] = []
    peak = before
    done = 0

    def one(index: int) -> None:
        nonlocal done
        try:
            with StreamlitClient(
                served.url, timeout=60, origin=served.url, cookie=f"nb_replica={uuid.uuid4().hex}"
            ) as client:
                client.connect(page="draw")
                run = client.component(canvas_key(client), json.loads(DRAWINGS[index % len(DRAWINGS)]["json_value"]))
                if run.errors or run.metric(PREDICTION) is None:
                    failures.append(f"session {index}: {run.errors or 'no prediction'}")
        except (ProtocolError, KeyError, OSError) as error:
            failures.append(f"session {index}: {error}")
        done += 1

    started = time.perf_counter()
    queue = list(range(count))

    def worker() -> None:
        while queue:
            one(queue.pop())

    workers = [gevent.spawn(worker) for _ in range(parallel)]
    while not all(w.dead for w in workers):
        peak = max(peak, groups.rss_mb())
        gevent.sleep(0.5)
    churn_seconds = time.perf_counter() - started
    gevent.sleep(3)
    after = groups.rss_mb()
    print(
        f"{count} sessions in {churn_seconds:.0f} s; RSS {before:.0f} -> {after:.0f} MB; waiting {ttl_wait:.0f} s "
        f"(disconnected-session TTL) ...",
        flush=True,
    )
    gevent.sleep(ttl_wait)
    one(count)  # its disconnect writes to the session storage, which reaps the expired sessions
    gevent.sleep(5)
    after_ttl = groups.rss_mb()
    return {
        "sessions": count,
        "failures": len(failures),
        "failure_examples": failures[:5],
        "seconds": churn_seconds,
        "before_mb": before,
        "peak_mb": peak,
        "after_mb": after,
        "after_ttl_mb": after_ttl,
        "ttl_wait_s": ttl_wait,
    }
