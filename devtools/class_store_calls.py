"""The class store's calls timed in this process, no Streamlit: a send's store work (one process, then several at
once), a teacher's refresh of the gallery's drawings, pacing's polls; ``store_part`` prints their tables.

``python -m devtools.class_store_bench --part store`` runs it (see that module's docstring for the method).
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import queue
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from devtools.bench_report import load, ms, print_table, say
from devtools.class_stores import fresh_store
from nbcore.classroom import OPERATOR, ClassStore, open_store, student_id

SENDS_PER_SESSION = 10  # lab/classroom.SENDS_PER_STUDENT: what one student may send in a minute
STUDENT_LIMIT, ADDRESS_LIMIT, MINUTE = 10, 120, 60.0  # lab/classroom's send budgets (the cost is the same at any limit)
GALLERY_DRAWINGS = 300
SHOWN_TILES = 60  # pages/gallery.py's SHOWN
RUN_TIMEOUT = 120.0
TARGET_SEND_MS, TARGET_REFRESH_MS = 5.0, 200.0
PACED_STUDENTS, PACING_ROUNDS = 60, 10  # the class of 60 scripted students; rounds of polls timed


@dataclass
class SendTimes:
    """Per send: the two budget calls, ``add_drawing``, both (seconds); this process's CPU and the wall time."""

    budgets: list[float] = field(default_factory=list)
    add: list[float] = field(default_factory=list)
    total: list[float] = field(default_factory=list)
    cpu: float = 0.0
    started: float = 0.0  # time.monotonic(), shared by the processes of one machine
    ended: float = 0.0

    def merge(self, other: SendTimes) -> None:
        self.budgets += other.budgets
        self.add += other.add
        self.total += other.total
        self.cpu += other.cpu
        self.started, self.ended = min(self.started, other.started), max(self.ended, other.ended)


def posterior(rng: np.random.Generator, digit: int) -> np.ndarray:
    weights = rng.random(10)
    weights[digit] += 5.0
    return weights / weights.sum()


def store_sends(store: ClassStore, code: str, sends: int, first_student: int, seed: int = 0) -> SendTimes:
    """``sends`` sends into class ``code`` as lab/classroom.send_drawing makes them, timed one by one.

    Students are numbered from ``first_student``, ``SENDS_PER_SESSION`` sends each, each from its own address.
    """
    rng = np.random.default_rng(seed)
    times = SendTimes(started=time.monotonic())
    cpu = time.process_time()
    for index in range(sends):
        number = first_student + index // SENDS_PER_SESSION
        student, address = f"{number:016x}", f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}"
        frame = rng.integers(0, 256, (28, 28), dtype=np.uint8)
        meant = int(rng.integers(10))
        bayes, softmax = posterior(rng, meant), posterior(rng, meant)
        started = time.perf_counter()
        store.take(f"send:student:{code}:{student}", STUDENT_LIMIT, MINUTE)
        store.take(f"send:address:{address}", ADDRESS_LIMIT, MINUTE)
        budgeted = time.perf_counter()
        store.add_drawing(code, student, frame, meant, bayes, softmax)
        done = time.perf_counter()
        times.budgets.append(budgeted - started)
        times.add.append(done - budgeted)
        times.total.append(done - started)
    times.cpu, times.ended = time.process_time() - cpu, time.monotonic()
    return times


def contending_sender(setting: str, code: str, sends: int, first_student: int, barrier, results) -> None:
    """One of several processes sending at once (multiprocessing target): its times go to ``results``."""
    store = open_store(setting)
    store.class_info(code)  # connected before the start
    barrier.wait(RUN_TIMEOUT)  # a sibling that died before it breaks the barrier instead of hanging this one
    results.put(store_sends(store, code, sends, first_student, seed=first_student))


def contended(setting: str, processes: int, sends: int) -> SendTimes:
    """``sends`` sends split over ``processes`` processes started together, into one fresh class."""
    code = open_store(setting).create_class().info.code
    context = multiprocessing.get_context("spawn")  # each process opens its own connections
    barrier, results = context.Barrier(processes), context.Queue()
    share = [sends // processes + (1 if i < sends % processes else 0) for i in range(processes)]
    workers = [
        context.Process(target=contending_sender, args=(setting, code, n, 1_000_000 * (i + 1), barrier, results))
        for i, n in enumerate(share)
    ]
    for worker in workers:
        worker.start()
    parts: list[SendTimes] = []
    deadline = time.monotonic() + RUN_TIMEOUT * 5
    try:
        while len(parts) < processes:
            try:
                parts.append(results.get(timeout=1.0))
            except queue.Empty:
                failed = [worker.exitcode for worker in workers if worker.exitcode not in (None, 0)]
                if failed or time.monotonic() > deadline:
                    raise RuntimeError(f"sending processes ended with {failed or 'no answer in time'}") from None
    finally:
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.kill()
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    return merged


@dataclass
class RefreshTimes:
    """A teacher's refresh without Streamlit's runtime, per repetition (seconds)."""

    read: list[float] = field(default_factory=list)
    arrays: list[float] = field(default_factory=list)
    tiles: list[float] = field(default_factory=list)
    figures: list[float] = field(default_factory=list)
    total: list[float] = field(default_factory=list)
    count: int = 0


def refresh_pieces(store: ClassStore, code: str, reads: int) -> RefreshTimes:
    """What pages/gallery.py's live fragment computes for ``code``, timed in parts, ``reads`` times."""
    import plotly.io
    from PIL import Image

    from lab.figures import diagnostics, digits
    from nbcore.classroom.export import as_arrays
    from nbcore.metrics import class_errors, confusion_matrix

    times = RefreshTimes()
    for _ in range(reads):
        started = time.perf_counter()
        drawings = store.drawings(code)
        read = time.perf_counter()
        arrays = as_arrays(drawings)
        confusions = [confusion_matrix(arrays.meant, arrays.bayes), confusion_matrix(arrays.meant, arrays.softmax)]
        for matrix in confusions:
            class_errors(matrix)
        shown = as_arrays(drawings[::-1][:SHOWN_TILES])
        computed = time.perf_counter()
        tiles, _ = digits.drawing_tiles(shown.frames, shown.meant, shown.bayes, shown.softmax)
        for tile in tiles:
            Image.fromarray(tile).save(io.BytesIO(), format="JPEG", quality=100)
        tiled = time.perf_counter()
        for matrix, name in zip(confusions, ("naive Bayes", "softmax")):
            plotly.io.to_json(diagnostics.meant_confusion(matrix, name), validate=False)
        done = time.perf_counter()
        times.read.append(read - started)
        times.arrays.append(computed - read)
        times.tiles.append(tiled - computed)
        times.figures.append(done - tiled)
        times.total.append(done - started)
        times.count = len(drawings)
    return times


def store_part(args: argparse.Namespace, folder: Path) -> None:
    single_rows, contention_rows, refresh_rows, pacing_rows = [], [], [], []
    for kind in args.stores:
        with fresh_store(kind, folder, f"store-{kind}") as (setting, _):
            store = open_store(setting)
            code = store.create_class().info.code
            before = load()
            say(f"[store {kind}] {args.sends} sends back to back, one process (load average {before:.1f}) ...")
            store_sends(store, store.create_class().info.code, 20, 0)  # connections and caches warm
            times = store_sends(store, code, args.sends, 1)
            wall = times.ended - times.started
            say(f"[store {kind}] {args.reads} refreshes of {len(store.drawings(code))} drawings ...")
            refresh = refresh_pieces(store, code, args.reads)
            single_rows.append(
                [
                    kind,
                    ms(times.budgets, 2),
                    ms(times.add, 2),
                    ms(times.total, 2),
                    f"{times.cpu / len(times.total) * 1000:.2f}",
                    f"{len(times.total) / wall:.0f}",
                    ms(refresh.read, 1),
                    f"{before:.1f}–{load():.1f}",
                ]
            )
            refresh_rows.append(
                [
                    kind,
                    refresh.count,
                    ms(refresh.read),
                    ms(refresh.arrays),
                    ms(refresh.tiles),
                    ms(refresh.figures),
                    ms(refresh.total),
                ]
            )
            before = load()
            say(f"[store {kind}] {PACING_ROUNDS} rounds of {PACED_STUDENTS} students' pacing polls ...")
            pacing = pacing_pieces(store, store.create_class().info.code)
            pacing_rows.append(
                [
                    kind,
                    ms(pacing.polls, 2),
                    f"{len(pacing.polls) / pacing.wall:.0f}",
                    f"{pacing.cpu / len(pacing.polls) * 1000:.2f}",
                    ms(pacing.nexts, 2),
                    ms(pacing.looks, 2),
                    f"{before:.1f}–{load():.1f}",
                ]
            )
            for processes in args.processes:
                before = load()
                say(f"[store {kind}] {args.sends} sends from {processes} processes at once (load {before:.1f}) ...")
                times = contended(setting, processes, args.sends)
                contention_rows.append(
                    [
                        kind,
                        processes,
                        len(times.total),
                        f"{len(times.total) / (times.ended - times.started):.0f}",
                        ms(times.total, 2),
                        f"{times.cpu / len(times.total) * 1000:.2f}",
                        f"{before:.1f}–{load():.1f}",
                    ]
                )
    print_table(
        f"Store: a send's store work, one process ({args.sends} sends), and drawings() of {GALLERY_DRAWINGS}",
        [
            "store",
            "budgets, take ×2: p50 / p95 (ms)",
            "add_drawing: p50 / p95 (ms)",
            f"send's store work: p50 / p95 (ms; target ≤ {TARGET_SEND_MS:.0f})",
            "client CPU per send (ms)",
            "sends/s back to back",
            f"drawings(code) of {GALLERY_DRAWINGS}: p50 / p95 (ms)",
            "load average",
        ],
        single_rows,
        "one Python process doing one call after another: its CPU per send against the wall time per send "
        "says how much is Python (the client's work: arguments checked, arrays packed, the driver) and how "
        "much is waiting (SQLite's file lock and its write-ahead log; Redis's loopback round trips). The "
        "machine's other load slows both.",
    )
    print_table(
        f"Store: sends from several processes at once into one class ({args.sends} in all)",
        [
            "store",
            "processes",
            "sends",
            "sends/s, all processes",
            "send's store work: p50 / p95 (ms)",
            "client CPU per send (ms)",
            "load average",
        ],
        contention_rows,
        "SQLite lets one writer in at a time (each send's write is one BEGIN IMMEDIATE transaction on the "
        "file's lock); Redis runs one command or script at a time. Beyond 2 processes the 2 cores are shared "
        "with the clients' own Python, so the throughput says as much about the CPU as about the store.",
    )
    print_table(
        f"Store: a teacher's refresh of {GALLERY_DRAWINGS} drawings without Streamlit's runtime ({args.reads} times)",
        [
            "store",
            "drawings",
            "drawings(code): p50 / p95 (ms)",
            "arrays, confusions: p50 / p95 (ms)",
            f"{SHOWN_TILES} tiles made and JPEG-encoded: p50 / p95 (ms)",
            "2 confusion figures built, to JSON: p50 / p95 (ms)",
            f"all: p50 / p95 (ms; target ≤ {TARGET_REFRESH_MS:.0f} with Streamlit's)",
        ],
        refresh_rows,
        "Python's CPU in one process (numpy, Pillow, plotly); the store's share is the first column.",
    )
    print_table(
        f"Store: pacing, {PACED_STUDENTS} students polling in turn, {PACING_ROUNDS} rounds",
        [
            "store",
            "a student's poll, class_info + check_in: p50 / p95 (ms)",
            "polls/s back to back",
            "client CPU per poll (ms)",
            "teacher's Next, set_pace: p50 / p95 (ms)",
            f"teacher's look, presence() of {PACED_STUDENTS}: p50 / p95 (ms)",
            "load average",
        ],
        pacing_rows,
        "one Python process: a poll is a read and a write (SQLite: a connection and a BEGIN IMMEDIATE "
        "transaction; Redis: a read and a Lua script, two loopback round trips). The polls/s are what the "
        "store alone allows: students polling every few seconds use a small share of it.",
    )


@dataclass
class PacingTimes:
    """Pacing's store work (seconds): each student's poll, each teacher's Next and look; this process's CPU."""

    polls: list[float] = field(default_factory=list)
    nexts: list[float] = field(default_factory=list)
    looks: list[float] = field(default_factory=list)
    cpu: float = 0.0
    wall: float = 0.0


def paced_student(number: int) -> str:
    """The store's id of student ``number``, from a well-formed secret (32 hex digits)."""
    made = student_id(f"{number:032x}")
    if made is None:
        raise ValueError(f"student {number}: the secret is malformed")
    return made


def pacing_pieces(store: ClassStore, code: str, rounds: int = PACING_ROUNDS) -> PacingTimes:
    """``rounds`` rounds of ``PACED_STUDENTS`` polls, each round ended by the teacher's Next and look."""
    students = [paced_student(n) for n in range(PACED_STUDENTS)]
    times = PacingTimes()
    cpu, wall = time.process_time(), time.perf_counter()
    for step in range(1, rounds + 1):
        for student in students:
            started = time.perf_counter()
            info = store.class_info(code)
            store.check_in(code, student, info.pace if info is not None else None)
            times.polls.append(time.perf_counter() - started)
        started = time.perf_counter()
        store.set_pace(code, OPERATOR, step)
        moved = time.perf_counter()
        where = store.presence(code)
        times.nexts.append(moved - started)
        times.looks.append(time.perf_counter() - moved)
        assert len(where) == PACED_STUDENTS
    times.cpu, times.wall = time.process_time() - cpu, time.perf_counter() - wall
    return times
