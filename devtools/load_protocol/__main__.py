"""A lecture hall at once: N simulated students on the Draw page, speaking Streamlit's protocol.

    python -m devtools.load_protocol [--students 30 60 120 240] [--duration 60] [--think 2 5] [--send rested]
                                    [--replicas 0] [--server-cpus 1 --client-cpus 0] [--nice -10]
                                    [--message-cache] [--app OTHER_CHECKOUT/app.py]
    python -m devtools.load_protocol --churn 500          # sessions opened and closed, memory after
    python -m devtools.load_protocol --students 60 --abuser flood paced clear-cache --server-cpus 1 --client-cpus 0
    PYTHONPATH=. locust -f devtools/load_protocol/locustfile.py --host http://HOST:PORT   # Locust's own UI/CLI, several machines

No browser: each student is a Locust user (gevent) holding one ``devtools.streamlit_client``
session. It opens /draw, then repeats, thinking ``--think`` seconds (uniform) after each step:

  draw a digit: send a drawing (a canvas state recorded from Chromium, devtools/drawings.json, digits in turn)
      -> wait for the run to finish, check the "Naive Bayes prediction" it got back;
  move the sidebar's alpha one stop (1 -> 2, next time back) -> wait for the run;
  press Clear.

``--send`` says how the page sends, to measure the page before issue 40 and after it with the same students:
``rested`` (the page since issue 40, lab/canvas.py): the drawing goes to the server once the pen has rested,
``REST_MS`` after the digit's last stroke (the student waits that long, then sends: one run per digit), and Clear
is the canvas's own, no run, so the student only thinks; ``stroke`` (before it, with ``--app`` of such a
checkout): a run at every pointer-up (the recorded drawings are one stroke each, so one run per digit too) and
Clear a Streamlit button, a run (waited for, and checked to leave no prediction).

For each N: a fresh server (or ``--replicas k``: k replicas behind nginx, devtools/replicas.py),
warmed by one visitor (MNIST loaded, models trained, both alphas), then N students spawned over
``--spawn-seconds``; measured over ``--duration`` seconds once every student has its page:

* errors: an exception, st.error, a lost connection or a run not finished within ``--timeout``;
  wrong: predictions differing from the digit drawn (each recorded drawing was predicted right
  in Chromium at the default settings);
* drawing sent -> run finished, and drawing sent -> "Naive Bayes prediction" received: p50/p95/p99;
* runs/s served (all three kinds of step), and the p95 of the alpha and Clear runs; students per process:
  the largest N whose draw p95 (sent -> finished) stays within 300 ms;
* server CPU (cores, utime+stime of its process groups / wall; per run: those CPU seconds / runs, the
  number that sets how many students a process serves) and RSS (sum of VmRSS) idle -> peak,
  per student; this process's own CPU (the load generator must not be the bottleneck); the
  machine's busy cores and load average (other work shares the machine).

``--abuser KIND ...``: for each N and KIND, a fresh server and the students, with one more
client abusing the server in turns of ``--abuse-slice`` seconds (off, on, off, ...; ``--duration``
seconds of each in all, so a slow change in the machine's other load falls on both):
``flood`` sends 1,000 rerun requests at once every second (and reads what comes back), ``paced``
asks for run after run, each as soon as the last finished, ``clear-cache`` sends ``clear_cache``
and a rerun, again and again. Printed per KIND: the students' p95 without and with the abuser and
the change, against one run time (p50 of 20 draws of one client on the idle server), what the
abuser sent and got (rerun requests; runs ended, ``script_finished`` messages: past its budget
lab/rate_limit.py holds each run until its token is due), server and load generator CPU, load average.

``--churn K``: one fresh server; K sessions each open /draw, draw once, close (``--churn-parallel``
at a time); RSS before, after, and after Streamlit's disconnected-session TTL
(server.disconnectedSessionTTL, 120 s by default: closed sessions are kept for reconnects in a
TTL cache of at most 128, runtime/memory_session_storage.py, reaped only on a later write) plus
one more session closed, which makes the cache reap.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import gevent
import gevent.event
import psutil
from locust import User, events, task
from locust.env import Environment

from devtools import app_server, draw_page
from devtools.app_server import REPO
from devtools.bench_report import load, markdown_table, percentile
from devtools.streamlit_client import ProtocolError, RunResult, StreamlitClient
from lab.canvas import REST_MS

DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
PREDICTION = "Naive Bayes prediction"
ALPHA_KEY, ALPHA_STOPS = "alpha", ("1", "2")  # the default stop and the next (lab/settings.py), name in the link
CLEAR_KEY = "draw_clear"  # the Streamlit button Clear was before issue 40
TARGETS = {60: 0.300, 120: 1.0}  # students -> p95 of drawing sent -> run finished, seconds
CLASS_P95 = 0.300  # s: "students per process" is the largest N whose p95 stays within this
RSS_TARGET_MB = 2048  # at 240 students
ABUSERS = ("flood", "paced", "clear-cache")
SENDS = ("rested", "stroke")  # --send: the page since issue 40 (a run per rested pen), and before it (per stroke)
FLOOD_REQUESTS = 1000  # rerun requests per flood, one flood a second (a script sends 1,000 in 0.01 s)
SETTLE_S = 2.0  # s: samples this soon after the abuser paused are not counted as "without"
RUN_TIME_DRAWS = 20  # draws of one client on the idle server whose p50 is "one run time"


def canvas_key(client: StreamlitClient) -> str:
    """The Draw canvas's key in this session (devtools/draw_page.py's canvas_key)."""
    return draw_page.canvas_key(client.widget_ids)


# -- what the students record -------------------------------------------------------------------
@dataclass
class Sample:
    kind: str  # "draw", "alpha", "clear"
    sent_at: float  # time.perf_counter()
    finished: float  # seconds, request sent -> script_finished
    prediction: float | None = None  # seconds, request sent -> the prediction metric (draw only)
    wrong: bool = False


@dataclass
class Tally:
    """Everything the students of one phase saw; samples and errors count when sent within [start, end)."""

    samples: list[Sample] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)
    connected: int = 0
    start: float = float("inf")
    end: float = float("inf")

    def in_window(self, at: float) -> bool:
        return self.start <= at < self.end


TALLY = Tally()


@dataclass
class Settings:
    """What the command line sets for every student (Locust makes the users, so they read it from here)."""

    think: tuple[float, float] = (2.0, 5.0)  # s, uniform, after each step
    send: str = "rested"  # SENDS: how the page sends a drawing and what its Clear costs
    timeout: float = 30.0  # s a run may take
    message_cache: bool = False


SETTINGS = Settings()


class Student(User):
    """One student at the Draw page (see the module docstring); the host is the app's URL."""

    def on_start(self) -> None:
        self.client: StreamlitClient | None = None
        self.turn = random.randrange(len(DRAWINGS))
        self.alpha_index = 0

    @property
    def url(self) -> str:
        """The server's address (Locust's --host, or the one main() gives)."""
        if not self.host:
            raise ValueError("no --host given")
        return self.host

    @property
    def session(self) -> StreamlitClient:
        """The open session (a step runs only between open() and close())."""
        if self.client is None:
            raise RuntimeError("the student's session is not open")
        return self.client

    def open(self) -> None:
        # a browser carries nginx's routing cookie; a fresh random one here routes like a new visitor
        self.client = StreamlitClient(
            self.url,
            timeout=SETTINGS.timeout,
            origin=self.url,
            cookie=f"nb_replica={uuid.uuid4().hex}",
            message_cache=SETTINGS.message_cache,
        )
        run = self.client.connect(page="draw")
        self.report("open", run)
        TALLY.connected += 1
        self.alpha_index = 0

    def report(self, name: str, run: RunResult, problem: str | None = None) -> None:
        events.request.fire(
            request_type="WS",
            name=name,
            response_time=run.seconds * 1000,
            response_length=run.messages,
            exception=problem and ProtocolError(problem),
            context={},
        )
        if problem:
            TALLY.errors.append((run.sent_at, f"{name}: {problem}"))

    def think(self) -> None:
        gevent.sleep(random.uniform(*SETTINGS.think))

    @task
    def lesson(self) -> None:
        """Draw -> think -> alpha -> think -> Clear -> think; any failure reconnects (a reload)."""
        try:
            if self.client is None:
                self.open()
                self.think()
            self.draw()
            self.think()
            self.move_alpha()
            self.think()
            self.clear()
            self.think()
        except (ProtocolError, KeyError, OSError) as error:
            TALLY.errors.append((time.perf_counter(), f"{type(error).__name__}: {error}"))
            events.request.fire(
                request_type="WS", name="session", response_time=0, response_length=0, exception=error, context={}
            )
            self.close()
            self.think()

    def draw(self) -> None:
        drawing = DRAWINGS[self.turn % len(DRAWINGS)]
        self.turn += 1
        if SETTINGS.send == "rested":  # the page sends once the pen has rested after the last stroke
            gevent.sleep(REST_MS / 1000)
        run = self.session.component(canvas_key(self.session), json.loads(drawing["json_value"]))
        shown = run.metric_element(PREDICTION)
        problem = "; ".join(run.errors) or (None if shown else "no prediction shown")
        wrong = shown is not None and shown.proto.body != str(drawing["digit"])
        TALLY.samples.append(
            Sample("draw", run.sent_at, run.seconds, shown.received_at - run.sent_at if shown else None, wrong)
        )
        self.report("draw", run, problem)

    def move_alpha(self) -> None:
        self.alpha_index = 1 - self.alpha_index
        run = self.session.select_slider(ALPHA_KEY, ALPHA_STOPS[self.alpha_index])
        TALLY.samples.append(Sample("alpha", run.sent_at, run.seconds))
        self.report("alpha", run, "; ".join(run.errors) or None)

    def clear(self) -> None:
        if SETTINGS.send == "rested":  # the canvas's own Clear: nothing reaches the server
            return
        run = self.session.click(CLEAR_KEY)
        TALLY.samples.append(Sample("clear", run.sent_at, run.seconds))
        problem = "; ".join(run.errors) or (None if run.metric(PREDICTION) is None else "Clear left a prediction")
        self.report("clear", run, problem)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def on_stop(self) -> None:
        self.close()


# -- measuring the server -----------------------------------------------------------------------
class ProcessGroups:
    """CPU seconds and RSS summed over the process groups of the given leader pids."""

    def __init__(self, leaders: list[int]) -> None:
        self.groups = {os.getpgid(pid) for pid in leaders}

    def processes(self) -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter(["pid"]):
            try:
                if os.getpgid(process.pid) in self.groups:
                    found.append(process)
            except (ProcessLookupError, PermissionError):
                pass
        return found

    def cpu_seconds(self) -> float:
        total = 0.0
        for process in self.processes():
            try:
                times = process.cpu_times()
                total += times.user + times.system
            except psutil.Error:
                pass
        return total

    def rss_mb(self) -> float:
        total = 0
        for process in self.processes():
            try:
                total += process.memory_info().rss
            except psutil.Error:
                pass
        return total / 2**20


class Gauge:
    """CPU of the server groups, of this process and of the machine between ``begin()`` and ``end()``; RSS peak."""

    def __init__(self, groups: ProcessGroups) -> None:
        self.groups = groups
        self.me = psutil.Process()
        self.peak_rss = 0.0
        self._sampler: gevent.Greenlet | None = None

    def _sample(self) -> None:
        while True:
            self.peak_rss = max(self.peak_rss, self.groups.rss_mb())
            gevent.sleep(0.5)

    def watch(self) -> None:
        self._sampler = gevent.spawn(self._sample)

    def begin(self) -> None:
        self.t0 = time.perf_counter()
        self.server0 = self.groups.cpu_seconds()
        mine = self.me.cpu_times()
        self.me0 = mine.user + mine.system
        self.machine0 = psutil.cpu_times()

    def end(self) -> dict:
        wall = time.perf_counter() - self.t0
        mine = self.me.cpu_times()
        machine = psutil.cpu_times()
        busy = lambda t: t.user + t.nice + t.system + t.irq + t.softirq + t.steal  # noqa: E731
        if self._sampler is not None:
            self._sampler.kill()
        return {
            "server_cores": (self.groups.cpu_seconds() - self.server0) / wall,
            "client_cores": (mine.user + mine.system - self.me0) / wall,
            "machine_busy_cores": (busy(machine) - busy(self.machine0)) / wall,
            "load_average_1min": load(),
            "peak_rss_mb": self.peak_rss,
        }


# -- one abusive client -------------------------------------------------------------------------
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


# -- servers ------------------------------------------------------------------------------------
class Served:
    """One plain server (replicas=0) or ``devtools.replicas.ClassServer``; ``url`` and ``leaders`` (pids)."""

    def __init__(
        self, replicas: int, data_dir: Path, log_dir: Path, server_prefix: list[str], app: str = "app.py"
    ) -> None:
        from devtools.replicas import ClassServer, PrefixedServer

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
    global TALLY
    TALLY = Tally()
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
    while TALLY.connected < students and time.monotonic() < deadline:
        gevent.sleep(0.2)
    TALLY.start = time.perf_counter()
    gauge.begin()
    if abuser is None:
        gevent.sleep(args.duration)
        TALLY.end = time.perf_counter()
        figures = gauge.end()
        runner.quit()
        return summarize(students, TALLY, figures, idle_rss, args.duration)
    abused, active = AbuserTally(), gevent.event.Event()
    attack = gevent.spawn(abuse, abuser, served.url, abused, active)
    slices = alternate(groups, active, 2 * args.duration, args.abuse_slice)
    TALLY.end = time.perf_counter()
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
            samples=[sample for sample in TALLY.samples if inside(sample.sent_at)],
            errors=[(at, text) for at, text in TALLY.errors if inside(at)],
            connected=TALLY.connected,
            start=TALLY.start,
            end=TALLY.end,
        )
        seconds = sum(end - start for start, end in kept)
        cores = {
            key: sum(cpu[key] for *_, state, cpu in slices if state == on) / seconds
            for key in ("server_cores", "client_cores")
        }
        result["on" if on else "off"] = summarize(students, tally, {**figures, **cores}, idle_rss, seconds)
    return result


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


def milliseconds(seconds: float) -> str:
    """Seconds as whole milliseconds; "–" for none (Clear with --send rested makes no run)."""
    return "–" if seconds != seconds else f"{seconds * 1000:.0f}"


def print_table(results: list[dict]) -> None:
    headers = [
        "students",
        "errors",
        "wrong",
        "draws",
        "sent→finished p50 / p95 / p99 (ms)",
        "sent→prediction p50 / p95 / p99 (ms)",
        "runs/s",
        "α p95 / Clear p95 (ms)",
        "server CPU (cores)",
        "server CPU per run (ms)",
        "server RSS idle → peak (MB/student)",
        "load generator CPU",
        "machine busy cores (load avg)",
    ]
    rows = [
        [
            r["students"],
            r["errors"],
            r["wrong"],
            r["draws"],
            " / ".join(milliseconds(r[f"finished_p{q}"]) for q in (50, 95, 99)),
            " / ".join(milliseconds(r[f"prediction_p{q}"]) for q in (50, 95, 99)),
            f"{r['runs_per_s']:.1f}",
            f"{milliseconds(r['alpha_p95'])} / {milliseconds(r['clear_p95'])}",
            f"{r['server_cores']:.2f}",
            f"{r['server_cores'] / r['runs_per_s'] * 1000:.0f}" if r["runs_per_s"] else "–",
            f"{r['idle_rss_mb']:.0f} → {r['peak_rss_mb']:.0f} ({r['rss_per_student_mb']:.2f})",
            f"{r['client_cores']:.2f}",
            f"{r['machine_busy_cores']:.2f} ({r['load_average_1min']:.1f})",
        ]
        for r in results
    ]
    right = [True, True, True, True, False, False, True, False, True, True, False, True, False]
    print("\n" + markdown_table(headers, rows, right=right))
    served = [r["students"] for r in results if r["finished_p95"] <= CLASS_P95]
    print(f"\nlargest N with p95 (sent→finished) ≤ {CLASS_P95 * 1000:.0f} ms: {max(served) if served else 'none'}")
    over = [r["students"] for r in results if r["finished_p95"] > 1.0]
    print(
        f"first N with p95 (sent→finished) > 1 s: {over[0] if over else 'none of ' + str([r['students'] for r in results])}"
    )
    for r in results:
        for text in r["error_examples"]:
            print(f"  N={r['students']} error: {text}")


def print_abuse_table(results: list[dict]) -> None:
    """The students' p95 without and with each abuser (alternating slices of one window), against one run time."""
    headers = [
        "students",
        "abuser",
        "students' errors / wrong (without · with)",
        "draws",
        "sent→finished p50 / p95 without (ms)",
        "with (ms)",
        "Δp95 (ms)",
        "run time (ms)",
        "Δp95 ≤ run time",
        "abuser: requests / runs",
        "server CPU without · with (cores)",
        "load generator CPU",
        "load avg",
    ]
    rows = []
    for r in results:
        off, on = r["off"], r["on"]
        delta = on["finished_p95"] - off["finished_p95"]
        rows.append(
            [
                r["students"],
                r["abuser"],
                f"{off['errors']} / {off['wrong']} · {on['errors']} / {on['wrong']}",
                f"{off['draws']} · {on['draws']}",
                f"{milliseconds(off['finished_p50'])} / {milliseconds(off['finished_p95'])}",
                f"{milliseconds(on['finished_p50'])} / {milliseconds(on['finished_p95'])}",
                milliseconds(delta),
                milliseconds(r["run_time"]),
                "yes" if delta <= r["run_time"] else "**no**",
                f"{r['abuser_requests']} / {r['abuser_runs']}",
                f"{off['server_cores']:.2f} · {on['server_cores']:.2f}",
                f"{max(off['client_cores'], on['client_cores']):.2f}",
                f"{r['load_average_1min']:.1f}",
            ]
        )
    right = [True, False, False, False, False, False, True, True, False, False, False, True, True]
    print("\n" + markdown_table(headers, rows, right=right))
    for r in results:
        for state in ("off", "on"):
            for text in r[state]["error_examples"]:
                print(f"  N={r['students']} {r['abuser']} ({state}): student error: {text}")
        for text in r["abuser_errors"]:
            print(f"  N={r['students']} {r['abuser']}: abuser: {text}")


def abuse_contained(results: list[dict]) -> bool:
    """No student error, and every abuser moved the students' p95 by at most one run time."""
    return all(
        not r["off"]["errors"]
        and not r["on"]["errors"]
        and r["on"]["finished_p95"] - r["off"]["finished_p95"] <= r["run_time"]
        for r in results
    )


def targets_met(results: list[dict]) -> bool:
    ok = True
    for r in results:
        limit = TARGETS.get(r["students"])
        if r["errors"] or (limit is not None and r["finished_p95"] > limit):
            ok = False
        if r["students"] >= 240 and r["peak_rss_mb"] > RSS_TARGET_MB:
            ok = False
    return ok


# -- churn: sessions opened and closed ----------------------------------------------------------
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


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.load_protocol",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--students", type=int, nargs="+", default=[30, 60, 120, 240])
    parser.add_argument("--duration", type=float, default=60.0, help="steady window per N, seconds")
    parser.add_argument("--spawn-seconds", type=float, default=10.0, help="students join over this many seconds")
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 5.0))
    parser.add_argument(
        "--send",
        choices=SENDS,
        default=SENDS[0],
        help="rested: the page since issue 40 (one run per rested pen, Clear in the page); stroke: before it "
        "(a run per pointer-up, Clear a run; with --app of such a checkout)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a run may take before it is an error")
    parser.add_argument("--replicas", type=int, default=0, help="0: one plain server; k: k replicas behind nginx")
    parser.add_argument("--server-cpus", help="taskset CPU list for the server(s), e.g. 1")
    parser.add_argument("--client-cpus", help="CPU list for this load generator, e.g. 0")
    parser.add_argument(
        "--nice",
        type=int,
        help="niceness for the server(s) and this process (e.g. -10 as root: "
        "other work on a shared machine then waits for the class)",
    )
    parser.add_argument(
        "--abuser",
        nargs="+",
        choices=ABUSERS,
        help="per N and abuser: a fresh server, students, and the abuser on and off in turns",
    )
    parser.add_argument("--abuse-slice", type=float, default=10.0, help="seconds of each turn with/without the abuser")
    parser.add_argument("--churn", type=int, default=0, help="open and close this many sessions instead")
    parser.add_argument("--churn-parallel", type=int, default=4)
    parser.add_argument("--ttl-wait", type=float, default=125.0, help="seconds to wait after the churn")
    app_server.add_data_arguments(parser, mnist_source=False)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--message-cache",
        action="store_true",
        help="students keep messages and advertise their hashes as a browser does (large unchanged elements come "
        "as references)",
    )
    parser.add_argument(
        "--app", default="app.py", help="the app to serve (one plain server), e.g. another checkout's app.py"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks: stop the servers
    SETTINGS.think, SETTINGS.timeout, SETTINGS.message_cache = tuple(args.think), args.timeout, args.message_cache
    SETTINGS.send = args.send
    if args.app != "app.py" and args.replicas:
        parser.error("--app serves one plain server: leave out --replicas")
    if args.client_cpus:
        os.sched_setaffinity(0, {int(cpu) for cpu in args.client_cpus.split(",")})
    server_prefix = ["taskset", "-c", args.server_cpus] if args.server_cpus else []
    if args.nice is not None:  # the servers started below inherit it
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)
    with app_server.script_data_dir(args.data_dir, None, "load-protocol-") as (data_dir, _):
        log_dir = Path(subprocess.check_output(["mktemp", "-d", "/tmp/load-protocol-logs-XXXX"], text=True).strip())
        results: list[dict] = []
        try:
            if args.churn:
                with Served(args.replicas, data_dir, log_dir, server_prefix) as served:
                    result = churn(served, args.churn, args.churn_parallel, args.ttl_wait)
                print(json.dumps(result, indent=1))
                results.append(result)
                return 0 if not result["failures"] and result["after_ttl_mb"] - result["before_mb"] <= 50 else 1
            if args.abuser:
                for students in args.students:
                    for abuser in args.abuser:
                        print(
                            f"--- {students} students, abuser: {abuser} in turns of {args.abuse_slice:.0f} s, "
                            f"{2 * args.duration:.0f} s ...",
                            flush=True,
                        )
                        with Served(args.replicas, data_dir, log_dir, server_prefix) as served:
                            results.append(run_phase(students, served, args, abuser))
                        print_abuse_table(results)
                return 0 if abuse_contained(results) else 1
            for students in args.students:
                print(
                    f"--- {students} students ({args.replicas or 'one plain'} "
                    f"{'replicas behind nginx' if args.replicas else 'server'}) ...",
                    flush=True,
                )
                with Served(args.replicas, data_dir, log_dir, server_prefix, args.app) as served:
                    results.append(run_phase(students, served, args))
                print_table(results)
            return 0 if targets_met(results) else 1
        finally:
            if args.json:
                args.json.write_text(
                    json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "results": results}, indent=1)
                )
            print(f"server logs: {log_dir}")


if __name__ == "__main__":
    sys.exit(main())
