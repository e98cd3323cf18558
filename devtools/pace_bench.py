"""A class led through the guided lesson: how soon students follow the teacher's Next, and what following costs.

    python -m devtools.pace_bench [--follow before after] [--replicas 1 2] [--students 30 60 120] [--steps 3]
        [--idle 20] [--stores sqlite redis] [--data-dir DIR | --mnist-source DIR] [--log-dir DIR]

For each --follow way, store and --replicas count: that many ``streamlit run app.py`` behind nginx
(``devtools/replicas.py``; 1 = one app process) on a fresh class store, NBCORE_LOG_RERUN_MS=1, and
``NBCORE_FOLLOW=poll`` for "before" (the lesson looks for the teacher's step by a run every 2 s, as before #40)
or unset for "after" (the pace listener, ``lab/pace_listener.py``, waits on ``/api/pace``). Then, for each
--students count, protocol clients (``devtools/streamlit_client.py``), each a session of its own from a
loopback address of its own (each device of a classroom has one), with its own browser secret (the
``browser_memory_student`` answer a browser gives):

1. peer: the students on /lesson alone (no class), doing nothing for --idle s;
2. the class (made through nbcore's store, with its teacher key): the students open /lesson?class=CODE
   and do what a browser does: run the page's timers (``StreamlitClient.run_auto_reruns``: the follow
   fragment, ``lab/lesson_pace._follow_teacher``, every ``lab/class_period.FOLLOW_SECONDS``) and, where the
   page holds the pace listener, what its script does (``Listening``: one request to ``/api/pace`` held open
   with the version the page shows, from the student's address; a new version sets the listener's value,
   which reruns the page). The teacher opens /lesson?class=CODE&key=KEY, presses *Lead: students follow my
   step*, then Next --steps times. For each Next and student: the time from the teacher's Next run finishing
   (its ``script_finished`` received) to the student's page showing the new step (the header "N. ..."
   arriving). A student who has not shown it within ``FOLLOW_TIMEOUT_S`` counts as not followed;
3. the class idle-following for --idle s (the teacher does nothing): the lesson's runs per second per
   student (the replicas' NBCORE_RERUN lines: the follow fragment's and whole runs), the listener's answers
   per student-minute, and the replicas' CPU seconds per student-minute (/proc, devtools/procfs.py), against
   the peer's.

Everything runs on loopback and is stopped at the end; the defaults take 2–3 minutes on a 2-core machine.
Tables are printed in Markdown (docs/benchmarks-class-store.md holds them, with the method).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import queue
import re
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from devtools.app_server import REPO
from devtools.bench_report import load, load_averages, positive_int, print_table, say
from devtools.rerun_log import RerunLog
from devtools.streamlit_client import RunResult, StreamlitClient, loopback_address

STORES = ("sqlite", "redis")
FOLLOWS = {"before": "poll", "after": "listen"}  # --follow: NBCORE_FOLLOW for the replicas
RUN_TIMEOUT = 180.0  # s a run may take (120 students joining at once on 2 shared cores)
FOLLOW_TIMEOUT_S = 60.0  # a student not on the teacher's step this long after Next has not followed
SETTLE_S = 2.0  # between the last student following and the teacher's next Next
JOINING_AT_ONCE = 8  # students opening the lesson at the same time (a class does not arrive in one instant)
SECRET_KEY = "browser_memory_student"  # the browser's answer with the student's secret (lab/classroom)
LEAD_KEY, NEXT_KEY = "lesson_pace_lead", "lesson_next_top"
LISTENER_NAME = "naive_bayes_lab_pace_listener"  # lab/pace_listener.py's component


# -- the students ---------------------------------------------------------------------------------
@dataclass
class Student:
    """A student's session and what its page holds: the pace listener's data (None: the page has none)."""

    number: int
    client: StreamlitClient
    listener: dict | None = None

    def saw(self, run: RunResult) -> None:
        """Keep the listener's data from a run that drew it (a whole run; a fragment's does not)."""
        for element in run.of_kind("bidi_component"):
            if element.proto.component_name == LISTENER_NAME:
                self.listener = json.loads(element.proto.json)


def open_lesson(url: str, number: int, query: str) -> Student:
    """Student ``number``'s session on /lesson?``query`` with a browser secret of its own, as a browser opens it."""
    client = StreamlitClient(url, timeout=RUN_TIMEOUT, source_address=loopback_address(number))
    try:
        run = client.connect(page="lesson", query_string=query)
        if SECRET_KEY in client.widget_ids:
            run = client.set_widget(SECRET_KEY, "json_value", {"value": secrets.token_hex(16)}) or run
        if run.errors:
            raise RuntimeError(f"/lesson?{query} for student {number}: {run.errors}")
    except BaseException:
        client.close()
        raise
    student = Student(number, client)
    student.saw(run)
    return student


def open_students(url: str, count: int, query: str, first_number: int) -> list[Student]:
    with ThreadPoolExecutor(JOINING_AT_ONCE) as pool:
        return list(pool.map(lambda n: open_lesson(url, first_number + n, query), range(count)))


def step_shown(run: RunResult) -> tuple[int, float] | None:
    """The lesson step whose header ("N. Title") the run showed, and when it arrived; None if none."""
    for element in run.of_kind("heading"):
        number, dot, _ = element.proto.body.partition(". ")
        if dot and number.isdigit():
            return int(number), element.received_at
    return None


class Listening:
    """What the pace listener's script does in a browser, for one student: one request to ``/api/pace`` held
    open with the version the page shows, from the student's own address; a new version is put in ``moves``
    for the student's thread, which owns the session's socket. Runs in a thread of its own."""

    def __init__(self, student: Student, moves: queue.Queue, stop: threading.Event, answers: list[int]) -> None:
        self.student, self.moves, self.stop, self.answers = student, moves, stop, answers
        self.shown = threading.Event()  # set when the page shows a version again (after a move's run)

    def run(self, until: float) -> None:
        from lab.pace_listener import RETRY_MS  # a page asked to move that still shows the old version asks again

        base = self.student.client
        host, port = base.base_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        failures = 0
        while not self.stop.is_set() and time.perf_counter() < until:
            data = self.student.listener
            assert data is not None
            seen = data["seen"]
            connection = http.client.HTTPConnection(
                host, int(port), timeout=RUN_TIMEOUT, source_address=(base.source_address or "", 0)
            )
            try:
                connection.request("GET", f"{data['path']}?class={data['code']}&seen={seen}")
                answer = connection.getresponse()
                body = answer.read()
                if answer.status != 200:
                    raise ConnectionError(f"HTTP {answer.status}: {body[:200]!r}")
                version = json.loads(body)["version"]
                failures = 0
            except (OSError, ValueError, KeyError):
                failures += 1
                self.stop.wait(min(0.5 * 2**failures, 8.0))
                continue
            finally:
                connection.close()
            self.answers[0] += 1
            if version != seen:
                self.shown.clear()
                self.moves.put(version)
                self.shown.wait(RETRY_MS / 1000)


@dataclass
class Following:
    """What the class's students showed while following: (student, step) -> when the step first arrived."""

    seen: dict[tuple[int, int], float] = field(default_factory=dict)
    own_run: dict[tuple[int, int], float] = field(default_factory=dict)  # s, the run's request -> the step shown
    runs: int = 0
    answers: list[int] = field(default_factory=lambda: [0])  # the listeners' answers from /api/pace
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self, students: Sequence[Student], until: float) -> None:
        """Each student runs its page's timers (and listener) in threads of its own until ``until`` or ``finish``."""
        self.threads = [
            threading.Thread(target=self.follow, args=(index, student, until), daemon=True)
            for index, student in enumerate(students)
        ]
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        """Stop the students after their current run (a timer's interval and a run at most) and wait for them."""
        self.stop.set()
        for thread in self.threads:
            thread.join(RUN_TIMEOUT)

    def follow(self, index: int, student: Student, until: float) -> None:
        """Student ``index`` runs its page's timers, and moves when its listener hears of a new version, until
        ``stop`` or ``until``, noting each step shown."""
        client = student.client

        def each(run: RunResult) -> bool:
            shown = step_shown(run)
            student.saw(run)
            with self.lock:
                self.runs += 1
                if shown is not None and (index, shown[0]) not in self.seen:
                    self.seen[index, shown[0]] = shown[1]
                    self.own_run[index, shown[0]] = shown[1] - run.sent_at
                if run.errors:
                    self.failures.append(f"student {index}: {run.errors}")
            return self.stop.is_set()

        try:
            if student.listener is None:
                client.run_auto_reruns(until, each)
                return
            moves: queue.Queue[str] = queue.Queue()
            listening = Listening(student, moves, self.stop, self.answers)
            threading.Thread(target=listening.run, args=(until,), daemon=True).start()
            count = 0
            while not self.stop.is_set() and time.perf_counter() < until:
                due = min((timer.due for timer in client.auto_reruns.values()), default=until)
                try:  # a quarter of a second at most: ``finish`` is noticed soon
                    version = moves.get(
                        timeout=max(0.0, min(due, until, time.perf_counter() + 0.25) - time.perf_counter())
                    )
                except queue.Empty:
                    if time.perf_counter() >= due:  # a timer is due: run it (and any other due by then)
                        client.run_auto_reruns(min(due + 0.001, until), each)
                    continue
                count += 1
                if each(client.component("lesson_pace_listener", {"moved": f"{version}.{count}"})):
                    return
                listening.shown.set()
        except Exception as error:  # a lost connection or a run past its timeout: counted, the others go on
            with self.lock:
                self.failures.append(f"student {index}: {type(error).__name__}: {error}")

    def followed(self, students: int, step: int) -> int:
        with self.lock:
            return sum((number, step) in self.seen for number in range(students))


# -- the server's side ----------------------------------------------------------------------------
@dataclass
class Idle:
    """One idle window: seconds, the replicas' CPU seconds, lesson runs by scope, the listeners' answers, this
    process's CPU seconds."""

    seconds: float = 0.0
    server_cpu: float = 0.0
    fragment_runs: int = 0
    whole_runs: int = 0
    answers: int = 0
    generator_cpu: float = 0.0
    load: str = ""


def idle_window(seconds: float, pgids: Sequence[int], logs: Sequence[RerunLog], answers: list[int]) -> Idle:
    """Nothing asked of the students for ``seconds`` (their timers run in their threads): what the server did."""
    from devtools import procfs

    def cpu() -> float:
        return sum(procfs.group_cpu_seconds(pgid) for pgid in pgids)

    for log in logs:
        log.skip()
    before_load, server, own, started, asked = load(), cpu(), time.process_time(), time.monotonic(), answers[0]
    time.sleep(seconds)
    idle = Idle(time.monotonic() - started, cpu() - server, generator_cpu=time.process_time() - own)
    idle.answers = answers[0] - asked
    for log in logs:
        lines = [scope for page, _, _, scope in log.read() if page == "lesson"]
        idle.fragment_runs += lines.count("fragment")
        idle.whole_runs += lines.count("app")
    idle.load = f"{before_load:.1f}–{load():.1f}"
    return idle


@dataclass
class Setup:
    """One server setup's and class size's figures."""

    follow: str
    store: str
    replicas: int
    students: int
    latencies: list[float] = field(default_factory=list)  # s, Next's run finished -> a student's step shown
    from_click: list[float] = field(default_factory=list)  # s, Next pressed -> a student's step shown
    own_runs: list[float] = field(default_factory=list)  # s, the student's run that moved it: request -> step shown
    asked: int = 0  # (student, Next) pairs
    followed: int = 0
    per_replica: list[int] = field(default_factory=list)  # whole lesson runs in each replica's log while led
    failures: list[str] = field(default_factory=list)
    lead_load: str = ""
    peer: Idle = field(default_factory=Idle)
    pacing: Idle = field(default_factory=Idle)


def lead_the_class(
    url: str, code: str, key: str, students: list[Student], steps: int, setup: Setup, until: float
) -> Following:
    """The teacher leads; each student follows in a thread of its own until the caller calls ``finish``."""
    following = Following()
    following.start(students, until)
    before = load()
    with StreamlitClient(url, timeout=RUN_TIMEOUT, source_address=loopback_address(9999)) as teacher:
        shown = teacher.connect(page="lesson", query_string=f"class={code}&key={key}")
        led = teacher.click(LEAD_KEY)
        if shown.errors or led.errors or (step_shown(led) or (0,))[0] != 1:
            raise RuntimeError(f"the teacher's lesson: {shown.errors or led.errors or led.texts()[:6]}")
        for step in range(2, steps + 2):
            pressed = teacher.click(NEXT_KEY)
            if (step_shown(pressed) or (0,))[0] != step or pressed.errors:
                raise RuntimeError(f"the teacher's Next to step {step}: {pressed.errors or pressed.texts()[:6]}")
            deadline = pressed.finished_at + FOLLOW_TIMEOUT_S
            while following.followed(len(students), step) < len(students) and time.perf_counter() < deadline:
                time.sleep(0.05)
            with following.lock:
                for number in range(len(students)):
                    setup.asked += 1
                    arrived = following.seen.get((number, step))
                    if arrived is not None and arrived - pressed.finished_at <= FOLLOW_TIMEOUT_S:
                        setup.followed += 1
                        setup.latencies.append(arrived - pressed.finished_at)
                        setup.from_click.append(arrived - pressed.sent_at)
                        setup.own_runs.append(following.own_run[number, step])
            time.sleep(SETTLE_S)
    setup.lead_load = f"{before:.1f}–{load():.1f}"
    return following


def class_of(
    setup: Setup, code: str, key: str, url: str, pgids: list[int], logs: list[RerunLog], args: argparse.Namespace
) -> Setup:
    """``setup.students`` students: alone on the lesson (the peer), then in class ``code`` led by its teacher."""
    name = f"pace-{setup.follow}-{setup.store}-{setup.replicas}, {setup.students} students"
    say(f"[{name}] peer: the students on the lesson alone, idle {args.idle:.0f} s ...")
    alone = open_students(url, setup.students, "", 0)
    try:
        peer = Following()  # the same clients: any timer the lesson alone had would run too
        peer.start(alone, time.perf_counter() + args.idle + 1)
        setup.peer = idle_window(args.idle, pgids, logs, peer.answers)
        peer.finish()
    finally:
        for student in alone:
            student.client.close()
    say(f"[{name}] class {code}: the students join the lesson ...")
    students = open_students(url, setup.students, f"class={code}", 1000)
    try:
        until = time.perf_counter() + args.steps * (FOLLOW_TIMEOUT_S + SETTLE_S) + args.idle + 120
        say(f"[{name}] the teacher leads, then Next {args.steps} times ...")
        for log in logs:
            log.skip()
        following = lead_the_class(url, code, key, students, args.steps, setup, until)
        setup.per_replica = [sum(1 for page, _, _, scope in log.read() if page == "lesson") for log in logs]
        say(f"[{name}] the class idle-following for {args.idle:.0f} s ...")
        setup.pacing = idle_window(args.idle, pgids, logs, following.answers)
        following.finish()
        setup.failures = following.failures + peer.failures
    finally:
        for student in students:
            student.client.close()
    return setup


def measure(
    follow: str, kind: str, replicas: int, args: argparse.Namespace, folder: Path, data_dir: Path
) -> list[Setup]:
    """One server setup (``follow`` way, store ``kind``, ``replicas``), each --students count in turn on it."""
    from devtools.class_stores import fresh_store
    from devtools.replicas import ClassServer
    from nbcore.classroom import open_store
    from nbcore.classroom.backends import SETTING

    name = f"pace-{follow}-{kind}-{replicas}"
    setups = []
    with fresh_store(kind, folder, name) as (setting, _):
        log_dir = args.log_dir / name
        log_dir.mkdir(parents=True, exist_ok=True)
        env = {SETTING: setting, "NBCORE_LOG_RERUN_MS": "1", "NBCORE_FOLLOW": FOLLOWS[follow]}
        say(f"[{name}] starting {replicas} replica(s) behind nginx (load average {load():.1f}) ...")
        prefix = ["taskset", "-c", args.server_cpus] if args.server_cpus else None
        with ClassServer(replicas, data_dir, log_dir=log_dir, extra_env=env, server_prefix=prefix) as served:
            pgids = [server.process.pid for server in served.servers if server.process]
            logs = [RerunLog([server.log_path]) for server in served.servers]
            for count in args.students:
                setup = Setup(follow, kind, replicas, count)
                made = open_store(setting).create_class()  # a class of its own for each count
                setups.append(class_of(setup, made.info.code, made.teacher_key, served.url, pgids, logs, args))
            problems = [server.log_path for server in served.servers if "Traceback" in server.log_text()]
            if problems:
                say(f"[{name}] tracebacks in {', '.join(map(str, problems))}")
    for setup in setups:
        if setup.failures:
            say(f"[{name}, {setup.students}] {len(setup.failures)} failures, the first: {setup.failures[:3]}")
    return setups


# -- the tables -----------------------------------------------------------------------------------
def seconds_p50_p95_max(values: Sequence[float]) -> str:
    if not values:
        return "– / – / –"
    p50, p95, top = np.percentile(values, [50, 95, 100])
    return f"{p50:.2f} / {p95:.2f} / {top:.2f}"


def per_student(idle: Idle, students: int) -> tuple[float, float, float]:
    """(follow fragment runs/s, whole lesson runs/s, server CPU s per student-minute) of one idle window."""
    student_seconds = students * max(idle.seconds, 1e-9)
    return (
        idle.fragment_runs / student_seconds,
        idle.whole_runs / student_seconds,
        idle.server_cpu / (student_seconds / 60),
    )


def report(setups: Sequence[Setup], args: argparse.Namespace) -> None:
    rows = []
    for setup in setups:
        runs, whole, cpu = per_student(setup.pacing, setup.students)
        _, _, peer_cpu = per_student(setup.peer, setup.students)
        answers = setup.pacing.answers / (setup.students * max(setup.pacing.seconds, 1e-9) / 60)
        rows.append(
            [
                setup.follow,
                setup.store,
                setup.replicas,
                setup.students,
                f"{setup.followed} / {setup.asked}",
                seconds_p50_p95_max(setup.latencies),
                seconds_p50_p95_max(setup.own_runs),
                f"{runs + whole:.3f}",
                f"{answers:.1f}",
                f"{cpu - peer_cpu:.3f}",
                " / ".join(str(runs) for runs in setup.per_replica),
                f"{setup.lead_load}; {setup.pacing.load}",
            ]
        )
    print_table(
        f"The teacher's Next to the students' step ({args.steps} Nexts), and what following costs ({args.idle:.0f} s "
        "idle)",
        [
            "follow",
            "store",
            "replicas",
            "students",
            f"followed within {FOLLOW_TIMEOUT_S:.0f} s (student × Next)",
            "Next's run finished → step shown: p50 / p95 / max (s)",
            "of which the student's own run: request → step shown, p50 / p95 / max (s)",
            "lesson runs/s per student, following",
            "/api/pace answers per student-minute",
            "replicas' CPU s per student-minute, following − peer",
            "lesson runs per replica while led",
            "load average (led; idle)",
        ],
        rows,
        "before: a student's page looks every 2 s by a run, so the wait is spread over 0–2 s, plus the whole run "
        "of the new step; after: the listener hears of the Next within about 0.2 s (the route's read of the store), "
        "plus the same whole run. Every student asks for that run at once, on 2 shared cores with the scripted "
        "clients (one Python process); CPU from /proc over the idle window (nginx and the store not counted), "
        "minus the same students alone on the lesson (the peer).",
    )


# -- command line ---------------------------------------------------------------------------------
def parser() -> argparse.ArgumentParser:
    from devtools import app_server

    made = argparse.ArgumentParser(
        prog="python -m devtools.pace_bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    made.add_argument("--replicas", nargs="+", type=positive_int, default=[1, 2], help="replica counts (default 1 2)")
    made.add_argument(
        "--follow",
        nargs="+",
        choices=list(FOLLOWS),
        default=["after"],
        help="before: the lesson polls by a run every 2 s (NBCORE_FOLLOW=poll); after: the pace listener "
        "(default after)",
    )
    made.add_argument(
        "--students", nargs="+", type=positive_int, default=[60], help="class sizes, one class each (default 60)"
    )
    made.add_argument(
        "--steps",
        type=positive_int,
        default=3,
        help="the teacher's Nexts (default 3, at most one fewer than the steps)",
    )
    made.add_argument("--idle", type=float, default=20.0, help="seconds of each idle window (default 20)")
    made.add_argument("--stores", nargs="+", choices=STORES, default=["sqlite"], help="class stores (default sqlite)")
    made.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / "pace-bench", help="the servers' logs")
    # as devtools.load_protocol: a room's students are other devices, so the scripted clients can be kept off the
    # server's CPUs (on 2 cores: --server-cpus 1 --client-cpus 0)
    made.add_argument("--server-cpus", help="taskset CPU list for the app process(es), e.g. 1")
    made.add_argument("--client-cpus", help="CPU list for the scripted students (this process), e.g. 0")
    app_server.add_data_arguments(made)
    return made


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The checked arguments (``SystemExit`` with a sentence for bad ones)."""
    made = parser()
    args = made.parse_args(argv)
    from lab.lesson_steps import STEPS

    if args.steps > len(STEPS) - 1:  # the teacher starts on step 1
        made.error(f"--steps {args.steps}: at most {len(STEPS) - 1} (the lesson has {len(STEPS)} steps)")
    if not 1 <= args.idle <= 600:
        made.error(f"--idle {args.idle}: give 1 to 600 seconds")
    if max(args.students) > 2000:
        made.error(f"--students {max(args.students)}: at most 2000")
    for option, cpus in (("--server-cpus", args.server_cpus), ("--client-cpus", args.client_cpus)):
        if cpus is not None and not re.fullmatch(r"\d+(,\d+)*", cpus):
            made.error(f"{option} {cpus}: give CPU numbers separated by commas, e.g. 1 or 0,1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.client_cpus:  # before any client thread starts; the servers get theirs by taskset
        os.sched_setaffinity(0, {int(cpu) for cpu in args.client_cpus.split(",")})
    from devtools import app_server
    from devtools.redis_server import redis_binary
    from devtools.replicas import nginx_binary

    if nginx_binary() is None:
        print("nginx is not installed (apt-get install nginx)", file=sys.stderr)
        return 2
    if "redis" in args.stores and redis_binary() is None:
        print("redis-server is not installed (apt-get install redis-server)", file=sys.stderr)
        return 2
    started = time.monotonic()
    say(f"load average at the start: {load_averages()}")
    args.log_dir.mkdir(parents=True, exist_ok=True)
    setups = []
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nb-pace-bench-")))
        data_dir, _ = stack.enter_context(app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-pace-data-"))
        for follow in args.follow:
            for kind in args.stores:
                for replicas in args.replicas:
                    setups += measure(follow, kind, replicas, args, folder, data_dir)
    report(setups, args)
    say(f"load average at the end: {load_averages()}; {time.monotonic() - started:.0f} s")
    return 1 if any(setup.followed < setup.asked for setup in setups) else 0


if __name__ == "__main__":
    sys.exit(main())
