"""One abusive client beside the students (``--abuser``): what it does, its turns on and off, and "one run time"
(the p50 of one client's draws on the idle server) that the students' p95 is held against."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field

import gevent
import gevent.event
import psutil

from devtools.bench_report import percentile
from devtools.load_protocol.gauges import ProcessGroups
from devtools.load_protocol.students import DRAWINGS, SETTINGS, canvas_key
from devtools.protocol_run import ProtocolError
from devtools.streamlit_client import StreamlitClient

ABUSERS = ("flood", "paced", "clear-cache")
FLOOD_REQUESTS = 1000  # rerun requests per flood, one flood a second (a script sends 1,000 in 0.01 s)
RUN_TIME_DRAWS = 20  # draws of one client on the idle server whose p50 is "one run time"


@dataclass
class AbuserTally:
    requests: int = 0  # rerun (and clear_cache) messages sent
    runs: int = 0  # runs ended: script_finished messages (a run cut short by the next one counts too)
    errors: list[str] = field(default_factory=list)


def abuse(kind: str, url: str, tally: AbuserTally, active: gevent.event.Event) -> None:
    """One client on /draw doing ``kind`` (see the module docstring) while ``active`` is set, until killed.

    One session throughout: a pause does not give it a new budget.
    """
    with StreamlitClient(url, timeout=SETTINGS.timeout, origin=url, cookie=f"nb_replica={uuid.uuid4().hex}") as client:
        client.connect(page="draw")
        while True:
            active.wait()
            try:
                if kind == "flood":
                    client.send_reruns(FLOOD_REQUESTS)
                    tally.requests += FLOOD_REQUESTS
                    messages = client.drain(1.0)
                    tally.runs += sum(message.WhichOneof("type") == "script_finished" for message in messages)
                    continue
                if kind == "clear-cache":
                    client.clear_cache()
                    tally.requests += 1
                client.rerun()
                tally.requests += 1
                tally.runs += 1
            except ProtocolError as error:  # the server may close an abuser's socket: reconnect, as a script would
                tally.errors.append(str(error))
                client.close()
                client.connect(page="draw")


def run_time(url: str) -> float:
    """p50 of ``RUN_TIME_DRAWS`` draws (sent -> finished, s) of one client alone: "one run time"."""
    with StreamlitClient(url, timeout=SETTINGS.timeout, origin=url, cookie=f"nb_replica={uuid.uuid4().hex}") as client:
        client.connect(page="draw")
        seconds = []
        for index in range(RUN_TIME_DRAWS):
            seconds.append(
                client.component(canvas_key(client), json.loads(DRAWINGS[index % len(DRAWINGS)]["json_value"])).seconds
            )
            gevent.sleep(0.2)
    return percentile(seconds, 50)


def alternate(groups: ProcessGroups, active: gevent.event.Event, seconds: float, slice_s: float) -> list[tuple]:
    """Clear and set ``active`` in turn for ``slice_s`` each, ``seconds`` in all, starting cleared.

    Returns (start, end, abuser on, {"server_cores": s, "client_cores": s} CPU seconds) per slice.
    """
    me = psutil.Process()
    own = lambda: sum(me.cpu_times()[:2])  # noqa: E731
    slices, on, end = [], False, time.perf_counter() + seconds
    while (start := time.perf_counter()) < end:
        active.set() if on else active.clear()
        server0, client0 = groups.cpu_seconds(), own()
        gevent.sleep(min(slice_s, end - start))
        slices.append(
            (
                start,
                time.perf_counter(),
                on,
                {"server_cores": groups.cpu_seconds() - server0, "client_cores": own() - client0},
            )
        )
        on = not on
    active.clear()
    return slices
