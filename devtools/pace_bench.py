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
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from devtools.bench_harness import (
    add_cpu_arguments,
    add_log_dir,
    bench_span,
    groups_cpu_seconds,
    pin_clients,
    require_programs,
    store_replicas,
    taskset_prefix,
)
from devtools.bench_report import load, positive_int, print_table, say
from devtools.pace_students import RUN_TIMEOUT, Following, Student, open_students, step_shown
from devtools.rerun_log import RerunLog
from devtools.streamlit_client import StreamlitClient, loopback_address

STORES = ("sqlite", "redis")
FOLLOWS = {"before": "poll", "after": "listen"}  # --follow: NBCORE_FOLLOW for the replicas
FOLLOW_TIMEOUT_S = 60.0  # a student not on the teacher's step this long after Next has not followed
SETTLE_S = 2.0  # between the last student following and the teacher's next Next
LEAD_KEY, NEXT_KEY = "lesson_pace_lead", "lesson_next_top"


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

    def cpu() -> float:
        return groups_cpu_seconds(pgids)

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
    from nbcore.classroom import open_store

    name = f"pace-{follow}-{kind}-{replicas}"
    setups = []
    env = {"NBCORE_FOLLOW": FOLLOWS[follow]}
    prefix = taskset_prefix(args.server_cpus)
    with store_replicas(kind, replicas, folder, data_dir, args.log_dir, name, env, prefix) as served:
        logs = [RerunLog([server.log_path]) for server in served.servers]
        for count in args.students:
            setup = Setup(follow, kind, replicas, count)
            made = open_store(served.setting).create_class()  # a class of its own for each count
            setups.append(class_of(setup, made.info.code, made.teacher_key, served.url, served.pgids, logs, args))
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
    add_log_dir(made, "pace-bench", help="the servers' logs")
    # as devtools.load_protocol: a room's students are other devices, so the scripted clients can be kept off the
    # server's CPUs (on 2 cores: --server-cpus 1 --client-cpus 0)
    add_cpu_arguments(
        made,
        "taskset CPU list for the app process(es), e.g. 1",
        "CPU list for the scripted students (this process), e.g. 0",
    )
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
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    pin_clients(args.client_cpus)  # before any client thread starts; the servers get theirs by taskset
    from devtools import app_server

    require_programs(nginx=True, redis="redis" in args.stores)
    args.log_dir.mkdir(parents=True, exist_ok=True)
    setups = []
    with bench_span(), contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nb-pace-bench-")))
        data_dir, _ = stack.enter_context(app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-pace-data-"))
        for follow in args.follow:
            for kind in args.stores:
                for replicas in args.replicas:
                    setups += measure(follow, kind, replicas, args, folder, data_dir)
        report(setups, args)
    return 1 if any(setup.followed < setup.asked for setup in setups) else 0


if __name__ == "__main__":
    sys.exit(main())
