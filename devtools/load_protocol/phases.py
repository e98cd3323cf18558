"""One phase of the load: the server(s) started, warmed by one visitor, N students spawned, the figures of the
steady window (with ``--abuser``: its slices without and with the abuser)."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import gevent
import gevent.event
from locust import events
from locust.env import Environment

from devtools.bench_report import percentile
from devtools.load_protocol.abuser import AbuserTally, abuse, alternate, run_time
from devtools.load_protocol.gauges import Gauge, ProcessGroups
from devtools.load_protocol.students import (
    ALPHA_KEY,
    ALPHA_STOPS,
    CLEAR_KEY,
    DRAWINGS,
    Student,
    Tally,
    canvas_key,
    new_tally,
)
from devtools.replicas import ClassServer, PrefixedServer
from devtools.streamlit_client import StreamlitClient

SETTLE_S = 2.0  # s: samples this soon after the abuser paused are not counted as "without"


class Served:
    """One plain server (replicas=0) or ``devtools.replicas.ClassServer``; ``url`` and ``leaders`` (pids)."""

    def __init__(
        self, replicas: int, data_dir: Path, log_dir: Path, server_prefix: list[str], app: str = "app.py"
    ) -> None:
        self.inner: ClassServer | PrefixedServer
        if replicas:
            # every simulated student connects from this machine's one address: nginx's per-address cap would refuse them
            self.inner = ClassServer(
                replicas, data_dir, log_dir=log_dir, server_prefix=server_prefix, sockets_per_address=0
            )
        else:
            self.inner = PrefixedServer(data_dir, log_dir / "server.log", prefix=server_prefix, app=app)

    def __enter__(self) -> Served:
        self.inner.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.inner.__exit__(*exc)

    @property
    def url(self) -> str:
        return self.inner.url

    @property
    def leaders(self) -> list[int]:
        servers = getattr(self.inner, "servers", [self.inner])
        return [server.process.pid for server in servers]


def warm_up(url: str) -> None:
    """One visitor per replica-ish (a few cookies): page, a drawing, alpha both ways, Clear."""
    for _ in range(4):  # with replicas, several routing cookies reach every replica with high probability
        with StreamlitClient(url, timeout=240, origin=url, cookie=f"nb_replica={uuid.uuid4().hex}") as client:
            client.connect(page="draw")
            client.component(canvas_key(client), json.loads(DRAWINGS[0]["json_value"]))
            for stop in (*ALPHA_STOPS[1:], ALPHA_STOPS[0]):
                client.select_slider(ALPHA_KEY, stop)
            if CLEAR_KEY in client.widget_ids:  # a checkout before issue 40 (--send stroke): Clear was a run
                client.click(CLEAR_KEY)


def run_phase(students: int, served: Served, args, abuser: str | None = None) -> dict:
    """N students against ``served``; the figures of the steady window.

    With ``abuser``: the window is twice ``--duration``, in slices of ``--abuse-slice`` seconds
    without and with the abuser in turn (a slow change of the machine's other load falls on both);
    samples sent in the first ``SETTLE_S`` of a slice without it are left out (what it queued is
    still being served). Returns {"off": figures, "on": figures, ...}.
    """
    phase = new_tally()
    groups = ProcessGroups(served.leaders)
    warm_up(served.url)
    gevent.sleep(2)
    idle_run_time = run_time(served.url) if abuser else float("nan")
    idle_rss = groups.rss_mb()
    gauge = Gauge(groups)
    gauge.watch()
    environment = Environment(user_classes=[Student], events=events, host=served.url)
    runner = environment.create_local_runner()
    runner.start(students, spawn_rate=students / args.spawn_seconds)
    deadline = time.monotonic() + args.spawn_seconds + 120
    while phase.connected < students and time.monotonic() < deadline:
        gevent.sleep(0.2)
    phase.start = time.perf_counter()
    gauge.begin()
    if abuser is None:
        gevent.sleep(args.duration)
        phase.end = time.perf_counter()
        figures = gauge.end()
        runner.quit()
        return summarize(students, phase, figures, idle_rss, args.duration)
    abused, active = AbuserTally(), gevent.event.Event()
    attack = gevent.spawn(abuse, abuser, served.url, abused, active)
    slices = alternate(groups, active, 2 * args.duration, args.abuse_slice)
    phase.end = time.perf_counter()
    attack.kill()
    figures = gauge.end()
    runner.quit()
    if attack.exception is not None:  # the abuser died: its figures would mislead
        abused.errors.append(f"abuser stopped: {attack.exception!r}")
    result = {
        "students": students,
        "abuser": abuser,
        "run_time": idle_run_time,
        "abuser_requests": abused.requests,
        "abuser_runs": abused.runs,
        "abuser_errors": abused.errors[:5],
        "load_average_1min": figures["load_average_1min"],
    }
    for on in (False, True):
        kept = [
            (start + (0 if on or index == 0 else SETTLE_S), end)
            for index, (start, end, state, _) in enumerate(slices)
            if state == on
        ]
        inside = lambda at: any(start <= at < end for start, end in kept)  # noqa: E731,B023
        tally = Tally(
            samples=[sample for sample in phase.samples if inside(sample.sent_at)],
            errors=[(at, text) for at, text in phase.errors if inside(at)],
            connected=phase.connected,
            start=phase.start,
            end=phase.end,
        )
        seconds = sum(end - start for start, end in kept)
        cores = {
            key: sum(cpu[key] for *_, state, cpu in slices if state == on) / seconds
            for key in ("server_cores", "client_cores")
        }
        result["on" if on else "off"] = summarize(students, tally, {**figures, **cores}, idle_rss, seconds)
    return result


def summarize(students: int, tally: Tally, figures: dict, idle_rss: float, duration: float) -> dict:
    window = [sample for sample in tally.samples if tally.in_window(sample.sent_at)]
    draws = [sample for sample in window if sample.kind == "draw"]
    finished = [sample.finished for sample in draws]
    predicted = [sample.prediction for sample in draws if sample.prediction is not None]
    errors = [text for at, text in tally.errors if tally.in_window(at)]
    result = {
        "students": students,
        "connected": tally.connected,
        "errors": len(errors),
        "error_examples": errors[:5],
        "draws": len(draws),
        "wrong": sum(sample.wrong for sample in draws),
        "runs_per_s": len(window) / duration,
        **{f"finished_p{q}": percentile(finished, q) for q in (50, 95, 99)},
        **{f"prediction_p{q}": percentile(predicted, q) for q in (50, 95, 99)},
        "alpha_p95": percentile([s.finished for s in window if s.kind == "alpha"], 95),
        "clear_p95": percentile([s.finished for s in window if s.kind == "clear"], 95),
        "idle_rss_mb": idle_rss,
        **figures,
    }
    result["rss_per_student_mb"] = (result["peak_rss_mb"] - idle_rss) / students
    return result
