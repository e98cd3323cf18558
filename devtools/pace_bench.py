"""A class led through the guided lesson: how soon students follow the teacher's Next, and what following costs.

    python -m devtools.pace_bench [--replicas 1 2] [--students 60] [--steps 4] [--idle 30]
        [--stores sqlite redis] [--data-dir DIR | --mnist-source DIR] [--log-dir DIR]

For each store and each --replicas count: that many ``streamlit run app.py`` behind nginx
(``devtools/replicas.py``; 1 = one app process) on a fresh class store, NBCORE_LOG_RERUN_MS=1.
--students protocol clients (``devtools/streamlit_client.py``), each a session of its own from a
loopback address of its own (each device of a classroom has one), with its own browser secret (the
``browser_memory_student`` answer a browser gives):

1. peer: the students on /lesson alone (no class), doing nothing for --idle s;
2. the class (made through nbcore's store, with its teacher key): the students open /lesson?class=CODE
   and run the page's timers as a browser does (``StreamlitClient.run_auto_reruns``: the follow fragment,
   ``lab/lesson_frame._follow_teacher``, every ``lab/class_period.FOLLOW_SECONDS``); the teacher opens
   /lesson?class=CODE&key=KEY, presses *Lead: students follow my step*, then Next --steps times. For each
   Next and student: the time from the teacher's Next run finishing (its ``script_finished`` received) to the
   student's page showing the new step (the header "N. ..." arriving). A student who has not shown it
   within ``FOLLOW_TIMEOUT_S`` counts as not followed;
3. the class idle-following for --idle s (the teacher does nothing): the follow fragment's runs per second
   per student (the replicas' NBCORE_RERUN lines) and the replicas' CPU seconds per student-minute
   (/proc, devtools/procfs.py), against the peer's.

Everything runs on loopback and is stopped at the end; the defaults (SQLite) take about 5 minutes on a loaded 2-core
machine. Tables are printed in Markdown (docs/benchmarks-class-store.md holds them, with the method).
"""

from __future__ import annotations

import argparse
import contextlib
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
RUN_TIMEOUT = 180.0  # s a run may take (60 students joining at once on 2 shared cores)
FOLLOW_TIMEOUT_S = 60.0  # a student not on the teacher's step this long after Next has not followed
SETTLE_S = 2.0  # between the last student following and the teacher's next Next
JOINING_AT_ONCE = 8  # students opening the lesson at the same time (a class does not arrive in one instant)
SECRET_KEY = "browser_memory_student"  # the browser's answer with the student's secret (lab/classroom)
LEAD_KEY, NEXT_KEY = "lesson_pace_lead", "lesson_next_top"


# -- the students ---------------------------------------------------------------------------------
def open_lesson(url: str, number: int, query: str) -> StreamlitClient:
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
    return client


def open_students(url: str, count: int, query: str, first_number: int) -> list[StreamlitClient]:
    with ThreadPoolExecutor(JOINING_AT_ONCE) as pool:
        return list(pool.map(lambda n: open_lesson(url, first_number + n, query), range(count)))


def step_shown(run: RunResult) -> tuple[int, float] | None:
    """The lesson step whose header ("N. Title") the run showed, and when it arrived; None if none."""
    for element in run.of_kind("heading"):
        number, dot, _ = element.proto.body.partition(". ")
        if dot and number.isdigit():
            return int(number), element.received_at
    return None


@dataclass
class Following:
    """What the class's students showed while following: (student, step) -> when the step first arrived."""

    seen: dict[tuple[int, int], float] = field(default_factory=dict)
    own_run: dict[tuple[int, int], float] = field(default_factory=dict)  # s, the run's request -> the step shown
    runs: int = 0
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self, students: Sequence[StreamlitClient], until: float) -> None:
        """Each student runs its page's timers in a thread of its own until ``until`` or ``finish``."""
        self.threads = [
            threading.Thread(target=self.follow, args=(number, client, until), daemon=True)
            for number, client in enumerate(students)
        ]
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        """Stop the students after their current run (a timer's interval and a run at most) and wait for them."""
        self.stop.set()
        for thread in self.threads:
            thread.join(RUN_TIMEOUT)

    def follow(self, number: int, client: StreamlitClient, until: float) -> None:
        """Student ``number`` runs its page's timers until ``stop`` or ``until``, noting each step shown."""

        def each(run: RunResult) -> bool:
            shown = step_shown(run)
            with self.lock:
                self.runs += 1
                if shown is not None and (number, shown[0]) not in self.seen:
                    self.seen[number, shown[0]] = shown[1]
                    self.own_run[number, shown[0]] = shown[1] - run.sent_at
                if run.errors:
                    self.failures.append(f"student {number}: {run.errors}")
            return self.stop.is_set()

        try:
            client.run_auto_reruns(until, each)
        except Exception as error:  # a lost connection or a run past its timeout: counted, the others go on
            with self.lock:
                self.failures.append(f"student {number}: {type(error).__name__}: {error}")

    def followed(self, students: int, step: int) -> int:
        with self.lock:
            return sum((number, step) in self.seen for number in range(students))


# -- the server's side ----------------------------------------------------------------------------
@dataclass
class Idle:
    """One idle window: seconds, the replicas' CPU seconds, lesson runs by scope, this process's CPU seconds."""

    seconds: float = 0.0
    server_cpu: float = 0.0
    fragment_runs: int = 0
    whole_runs: int = 0
    per_replica: list[int] = field(default_factory=list)  # follow runs in each replica's log
    generator_cpu: float = 0.0
    load: str = ""


def idle_window(seconds: float, pgids: Sequence[int], logs: Sequence[RerunLog]) -> Idle:
    """Nothing asked of the students for ``seconds`` (their timers run in their threads): what the server did."""
    from devtools import procfs

    def cpu() -> float:
        return sum(procfs.group_cpu_seconds(pgid) for pgid in pgids)

    for log in logs:
        log.skip()
    before_load, server, own, started = load(), cpu(), time.process_time(), time.monotonic()
    time.sleep(seconds)
    idle = Idle(time.monotonic() - started, cpu() - server, generator_cpu=time.process_time() - own)
    for log in logs:
        lines = [scope for page, _, _, scope in log.read() if page == "lesson"]
        idle.per_replica.append(lines.count("fragment"))
        idle.whole_runs += lines.count("app")
    idle.fragment_runs = sum(idle.per_replica)
    idle.load = f"{before_load:.1f}–{load():.1f}"
    return idle


@dataclass
class Setup:
    """One server setup's figures."""

    store: str
    replicas: int
    students: int
    latencies: list[float] = field(default_factory=list)  # s, Next's run finished -> a student's step shown
    from_click: list[float] = field(default_factory=list)  # s, Next pressed -> a student's step shown
    own_runs: list[float] = field(default_factory=list)  # s, the student's run that moved it: request -> step shown
    asked: int = 0  # (student, Next) pairs
    followed: int = 0
    failures: list[str] = field(default_factory=list)
    lead_load: str = ""
    peer: Idle = field(default_factory=Idle)
    pacing: Idle = field(default_factory=Idle)


def lead_the_class(
    url: str, code: str, key: str, students: list[StreamlitClient], steps: int, setup: Setup, until: float
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


def measure(kind: str, replicas: int, args: argparse.Namespace, folder: Path, data_dir: Path) -> Setup:
    from devtools.class_stores import fresh_store
    from devtools.replicas import ClassServer
    from nbcore.classroom import open_store
    from nbcore.classroom.backends import SETTING

    name = f"pace-{kind}-{replicas}"
    setup = Setup(kind, replicas, args.students)
    with fresh_store(kind, folder, name) as (setting, _):
        log_dir = args.log_dir / name
        log_dir.mkdir(parents=True, exist_ok=True)
        env = {SETTING: setting, "NBCORE_LOG_RERUN_MS": "1"}
        say(f"[{name}] starting {replicas} replica(s) behind nginx (load average {load():.1f}) ...")
        with ClassServer(replicas, data_dir, log_dir=log_dir, extra_env=env) as served:
            pgids = [server.process.pid for server in served.servers if server.process]
            logs = [RerunLog([server.log_path]) for server in served.servers]
            say(f"[{name}] peer: {args.students} students on the lesson alone, idle {args.idle:.0f} s ...")
            alone = open_students(served.url, args.students, "", 0)
            try:
                peer = Following()  # the same clients: any timer the lesson alone had would run too
                peer.start(alone, time.perf_counter() + args.idle + 1)
                setup.peer = idle_window(args.idle, pgids, logs)
                peer.finish()
            finally:
                for client in alone:
                    client.close()
            made = open_store(setting).create_class()
            say(f"[{name}] class {made.info.code}: {args.students} students join the lesson ...")
            students = open_students(served.url, args.students, f"class={made.info.code}", 1000)
            try:
                until = time.perf_counter() + args.steps * (FOLLOW_TIMEOUT_S + SETTLE_S) + args.idle + 120
                say(f"[{name}] the teacher leads, then Next {args.steps} times ...")
                following = lead_the_class(
                    served.url, made.info.code, made.teacher_key, students, args.steps, setup, until
                )
                say(f"[{name}] the class idle-following for {args.idle:.0f} s ...")
                setup.pacing = idle_window(args.idle, pgids, logs)
                following.finish()
                setup.failures = following.failures + peer.failures
            finally:
                for client in students:
                    client.close()
            problems = [server.log_path for server in served.servers if "Traceback" in server.log_text()]
            if problems:
                say(f"[{name}] tracebacks in {', '.join(map(str, problems))}")
    if setup.failures:
        say(f"[{name}] {len(setup.failures)} failures, the first: {setup.failures[:3]}")
    return setup


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
    from lab.class_period import FOLLOW_SECONDS

    rows = [
        [
            setup.store,
            setup.replicas,
            setup.students,
            f"{setup.followed} / {setup.asked}",
            seconds_p50_p95_max(setup.latencies),
            seconds_p50_p95_max(setup.from_click),
            seconds_p50_p95_max(setup.own_runs),
            " / ".join(
                str(round(runs * setup.students / max(setup.pacing.fragment_runs, 1)))
                for runs in setup.pacing.per_replica
            ),
            setup.lead_load,
        ]
        for setup in setups
    ]
    print_table(
        f"The teacher's Next to the students' step ({args.students} students, {args.steps} Nexts)",
        [
            "store",
            "replicas",
            "students",
            f"followed within {FOLLOW_TIMEOUT_S:.0f} s (student × Next)",
            "Next's run finished → step shown: p50 / p95 / max (s)",
            "Next pressed → step shown: p50 / p95 / max (s)",
            "of which the student's own run: request → step shown, p50 / p95 / max (s)",
            "students per replica (from their follow runs)",
            "load average",
        ],
        rows,
        f"by design a student looks every {FOLLOW_SECONDS} s (the follow fragment's timer), so the wait is spread "
        f"over 0–{FOLLOW_SECONDS} s plus the whole run of the new step that a student's page then makes; "
        f"{args.students} students moving at once each ask for that whole run within {FOLLOW_SECONDS} s, on "
        "2 shared cores with the scripted clients (one Python process) and other developers' tests.",
    )
    rows = []
    for setup in setups:
        peer_runs, peer_whole, peer_cpu = per_student(setup.peer, setup.students)
        runs, whole, cpu = per_student(setup.pacing, setup.students)
        rows.append(
            [
                setup.store,
                setup.replicas,
                setup.students,
                f"{runs:.3f}",
                f"{whole:.3f}",
                f"{peer_runs:.3f}",
                f"{cpu:.2f}",
                f"{peer_cpu:.2f}",
                f"{cpu - peer_cpu:.2f}",
                f"{setup.pacing.generator_cpu / setup.pacing.seconds:.2f}",
                f"{setup.pacing.load} (peer {setup.peer.load})",
            ]
        )
    print_table(
        f"What following costs the server, per student ({args.idle:.0f} s idle, against the same students alone)",
        [
            "store",
            "replicas",
            "students",
            "follow runs/s per student",
            "whole lesson runs/s per student",
            "peer (lesson alone): runs/s per student",
            "replicas' CPU s per student-minute, following",
            "peer: CPU s per student-minute",
            "following − peer (CPU s per student-minute)",
            "scripted clients' CPU (cores)",
            "load average",
        ],
        rows,
        "the replicas' CPU time over the idle window from /proc (nginx and the store not counted), divided among "
        "the students; the other developers' work does not count in it, but slows each run a little. The "
        "peer's open sessions cost nothing between runs: its CPU is the servers' own background.",
    )


# -- command line ---------------------------------------------------------------------------------
def parser() -> argparse.ArgumentParser:
    from devtools import app_server

    made = argparse.ArgumentParser(
        prog="python -m devtools.pace_bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    made.add_argument("--replicas", nargs="+", type=positive_int, default=[1, 2], help="replica counts (default 1 2)")
    made.add_argument("--students", type=positive_int, default=60, help="scripted students (default 60)")
    made.add_argument(
        "--steps",
        type=positive_int,
        default=4,
        help="the teacher's Nexts (default 4, at most one fewer than the steps)",
    )
    made.add_argument("--idle", type=float, default=30.0, help="seconds of each idle window (default 30)")
    made.add_argument("--stores", nargs="+", choices=STORES, default=["sqlite"], help="class stores (default sqlite)")
    made.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / "pace-bench", help="the servers' logs")
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
    if args.students > 2000:
        made.error(f"--students {args.students}: at most 2000")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
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
        for kind in args.stores:
            for replicas in args.replicas:
                setups.append(measure(kind, replicas, args, folder, data_dir))
    report(setups, args)
    say(f"load average at the end: {load_averages()}; {time.monotonic() - started:.0f} s")
    return 1 if any(setup.followed < setup.asked for setup in setups) else 0


if __name__ == "__main__":
    sys.exit(main())
