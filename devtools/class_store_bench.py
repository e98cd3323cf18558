"""The class store's figures: what it adds to a student's send and to the teacher's refresh, SQLite and Redis.

    python -m devtools.class_store_bench [--part store server] [--stores sqlite sqlite-held redis]
        [--replicas 1 2] [--sends 300] [--processes 1 2 4] [--reads 30] [--server-sends 30] [--clients 6]
        [--duration 20] [--refreshes 15] [--data-dir DIR | --mnist-source DIR] [--log-dir DIR]

Targets (the class store's issue): the store adds at most 5 ms to a send; a teacher's refresh of 300
drawings takes at most 200 ms server-side. Every figure is set against a peer measured in the same run,
since the machine may be shared; each table gives the load average. Everything runs on loopback and is
stopped at the end; the defaults take 8-11 minutes on a loaded 2-core machine. Tables are printed in
Markdown (docs/benchmarks-class-store.md holds them, with the method).

Stores: ``sqlite`` (a fresh file, as NBCORE_CLASS_STORE=sqlite:///path gives it), ``sqlite-held`` (the same
with this process holding one more connection to the file all along: no connection the store closes is
then the file's last, whose close checkpoints the write-ahead log and syncs it), ``redis`` (a
``redis-server`` started on a free loopback port, devtools/redis_server.py).

``store`` (in this process, no Streamlit):

* a send's store work as ``lab/classroom.send_drawing`` does it: two budget ``take`` calls (the student's
  and the address's), then ``add_drawing``; --sends of them back to back (students of 10 sends each);
* the same from each of --processes processes at once into one class: SQLite serializes writers on
  its file's lock, Redis in its single thread;
* a teacher's refresh of the 300 drawings without Streamlit's runtime: ``drawings(code)`` (the store),
  the arrays and confusion matrices, the 60 newest tiles encoded as ``st.image`` encodes an RGB array
  (JPEG, quality 100), the two confusion figures serialized as ``st.plotly_chart`` does
  (``plotly.io.to_json``); --reads times;
* pacing's store work: 60 students each polling in turn, a poll being ``class_info`` (the step the teacher
  leads to) then ``check_in`` (the student's step), and after each round the teacher's Next (``set_pace``)
  and look at where students are (``presence``); 10 rounds.

``server`` (for each store and each --replicas count: that many ``streamlit run app.py`` behind nginx,
``devtools/replicas.py``, sharing one SQLite file or one redis-server; NBCORE_LOG_RERUN_MS=1): protocol
clients (``devtools/streamlit_client.py``), each student a session of its own on /draw?class=CODE from a
loopback address of its own (127.10.x.y: each device of a classroom has its own, so the per-address
budget is not what is measured), sending recorded drawings (devtools/drawings.json):

* a send's run against the same run without the store's work: the send button pressed again on the
  same drawing, which the page answers "already in the gallery" without ``take`` or ``add_drawing``;
  --server-sends pairs from one client at a time, server-side times from the replicas' log lines;
* sends/s: --clients students at once for --duration s, no pause; each session opens Draw, sends 10
  drawings (a student's budget for a minute; a stroke's run then a send's run each), and the next
  student takes its place. Server and load generator CPU say which of them was the limit;
* the teacher's /gallery?class=CODE with 300 drawings against a class with none, alternated
  --refreshes times: the page's whole run (server-side, from the log) and the live fragment's refresh
  that the browser asks for every 3 s (client-side: request to ``script_finished``, protocol included;
  the fragment writes no log line).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import multiprocessing
import queue
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from devtools.app_server import REPO
from devtools.bench_report import load, load_averages, ms, positive_int, print_table, say
from devtools.class_stores import STORES, fresh_store
from devtools.draw_page import canvas_key
from devtools.rerun_log import RerunLog
from devtools.streamlit_client import StreamlitClient, loopback_address
from nbcore.classroom import OPERATOR, ClassStore, open_store, student_id

DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
PARTS = ("store", "server")
SENDS_PER_SESSION = 10  # lab/classroom.SENDS_PER_STUDENT: what one student may send in a minute
STUDENT_LIMIT, ADDRESS_LIMIT, MINUTE = 10, 120, 60.0  # lab/classroom's send budgets (the cost is the same at any limit)
GALLERY_DRAWINGS = 300
SHOWN_TILES = 60  # pages/gallery.py's SHOWN
RUN_TIMEOUT = 120.0
SENT, ALREADY = "Sent: your", "is already in class"
TARGET_SEND_MS, TARGET_REFRESH_MS = 5.0, 200.0
PACED_STUDENTS, PACING_ROUNDS = 60, 10  # the class of 60 scripted students; rounds of polls timed


# -- store level ----------------------------------------------------------------------------------
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


# -- server level ---------------------------------------------------------------------------------
def join_class(url: str, code: str, address: str):
    """A student's session on /draw?class=CODE with a fresh browser secret; the client."""
    client = StreamlitClient(url, timeout=RUN_TIMEOUT, source_address=address)
    try:
        client.connect(page="draw", query_string=f"class={code}")
        run = client.set_widget("browser_memory_student", "json_value", {"value": secrets.token_hex(16)})
        if run is None or run.errors:
            raise RuntimeError(f"/draw?class={code} failed: {run.errors if run else 'no run'}")
    except BaseException:
        client.close()
        raise
    return client


def stroke_and_send(client, index: int):
    """Draw recorded drawing ``index``, pick its digit as meant and press send: (the stroke's run, the send's)."""
    entry = DRAWINGS[index % len(DRAWINGS)]
    stroke = client.component(canvas_key(client.widget_ids), json.loads(entry["json_value"]))
    client.set_widget("class_meant", "string_array_value", [str(entry["digit"])], run=False)
    return stroke, client.click("class_send_button")


def said(run, text: str) -> bool:
    return any(text in shown for shown in run.texts())


@dataclass
class ServerFigures:
    """One server setup's figures (seconds unless named _ms)."""

    send_ms: list[float] = field(default_factory=list)  # server-side, the send's run
    again_ms: list[float] = field(default_factory=list)  # server-side, the same run pressed again
    send_client: list[float] = field(default_factory=list)
    again_client: list[float] = field(default_factory=list)
    paired_ms: list[float] = field(default_factory=list)  # send − again, each pair
    pairs_load: str = ""
    sent: int = 0
    refused: int = 0
    failed: int = 0
    throughput_seconds: float = 0.0
    runs: int = 0
    loaded_send_client: list[float] = field(default_factory=list)
    server_cores: float = 0.0
    store_cores: float = 0.0
    generator_cores: float = 0.0
    throughput_load: str = ""
    gallery_ms: dict[int, list[float]] = field(default_factory=lambda: {0: [], GALLERY_DRAWINGS: []})
    refresh_client: dict[int, list[float]] = field(default_factory=lambda: {0: [], GALLERY_DRAWINGS: []})
    gallery_load: str = ""


def measure_pairs(url: str, store: ClassStore, log: RerunLog, pairs: int, figures: ServerFigures) -> None:
    """Send then press send again, ``pairs`` times, one client at a time; server-side times from ``log``."""
    code = store.create_class().info.code
    before = load()
    for number in range((pairs + SENDS_PER_SESSION - 1) // SENDS_PER_SESSION):
        with join_class(url, code, loopback_address(number)) as client:
            for turn in range(min(SENDS_PER_SESSION, pairs - number * SENDS_PER_SESSION)):
                log.skip()
                stroke, send = stroke_and_send(client, number + turn)
                send_line = log.wait(2)[-1]
                again = client.click("class_send_button")
                again_line = log.wait(1)[-1]
                if not said(send, SENT) or not said(again, ALREADY) or stroke.errors:
                    raise RuntimeError(f"send {turn}: {send.texts()[:2]} then {again.texts()[:2]}")
                if {send_line[0], again_line[0]} != {"draw"} or {send_line[3], again_line[3]} != {"fragment"}:
                    raise RuntimeError(f"unexpected log lines {send_line}, {again_line}")
                figures.send_ms.append(send_line[1])
                figures.again_ms.append(again_line[1])
                figures.paired_ms.append(send_line[1] - again_line[1])
                figures.send_client.append(send.seconds)
                figures.again_client.append(again.seconds)
    figures.pairs_load = f"{before:.1f}–{load():.1f}"


def measure_throughput(
    url: str,
    store: ClassStore,
    clients: int,
    duration: float,
    pgids: Sequence[int],
    store_pgid: int | None,
    figures: ServerFigures,
) -> None:
    """``clients`` students at once for ``duration`` s, each session 10 sends; counts and CPU."""
    from devtools import procfs

    code = store.create_class().info.code
    numbers = itertools.count(1000)
    lock = threading.Lock()
    deadline = 0.0

    def student_loop() -> None:
        while time.monotonic() < deadline:
            with lock:
                number = next(numbers)
            try:
                with join_class(url, code, loopback_address(number)) as client:
                    for turn in range(SENDS_PER_SESSION):
                        if time.monotonic() >= deadline:
                            break
                        stroke, send = stroke_and_send(client, number + turn)
                        with lock:
                            figures.runs += 2
                            if said(send, SENT):
                                figures.sent += 1
                                figures.loaded_send_client.append(send.seconds)
                            elif send.errors or stroke.errors:
                                figures.failed += 1
                            else:
                                figures.refused += 1
            except Exception as error:  # a lost connection or a run past its timeout: counted, and on
                with lock:
                    figures.failed += 1
                say(f"  a student failed: {type(error).__name__}: {error}")

    def cpu() -> tuple[float, float]:
        return sum(procfs.group_cpu_seconds(pgid) for pgid in pgids), (
            procfs.group_cpu_seconds(store_pgid) if store_pgid else 0.0
        )

    before_load, (server_cpu, store_cpu), own_cpu = load(), cpu(), time.process_time()
    started = time.monotonic()
    deadline = started + duration
    threads = [threading.Thread(target=student_loop) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    server_after, store_after = cpu()
    figures.throughput_seconds = wall
    figures.server_cores = (server_after - server_cpu) / wall
    figures.store_cores = (store_after - store_cpu) / wall
    figures.generator_cores = (time.process_time() - own_cpu) / wall
    figures.throughput_load = f"{before_load:.1f}–{load():.1f}"


def gallery_frames(data_dir: Path, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` MNIST test images, their labels and naive Bayes's posteriors (model fit on the training set)."""
    from nbcore import BernoulliNB, binarize, load_mnist

    train_images, train_labels = load_mnist(True, root=data_dir, download=False)
    images, labels = load_mnist(False, root=data_dir, download=False)
    model = BernoulliNB().fit(binarize(train_images, 128), train_labels)
    return images[:count], labels[:count], model.predict_proba(binarize(images[:count], 128))


def fill_gallery(store: ClassStore, code: str, frames, labels, posteriors) -> None:
    """The drawings of 15 students, 20 each (a student's most): MNIST digits with naive Bayes's reading."""
    for index, (frame, label, probabilities) in enumerate(zip(frames, labels, posteriors)):
        store.add_drawing(code, f"{index // 20 + 1:016x}", frame, int(label), probabilities, probabilities)


def measure_gallery(
    url: str, store: ClassStore, log: RerunLog, refreshes: int, filling: tuple, figures: ServerFigures
) -> None:
    """The teacher's page with 0 and with 300 drawings, alternated: whole runs (server) and refreshes (client)."""
    from devtools.streamlit_client import StreamlitClient

    classes = {}
    for count in (0, GALLERY_DRAWINGS):
        made = store.create_class()
        if count:
            fill_gallery(store, made.info.code, *filling)
        classes[count] = made
    before = load()
    with contextlib.ExitStack() as stack:
        teachers, fragments = {}, {}
        for count, made in classes.items():
            teacher = stack.enter_context(StreamlitClient(url, timeout=RUN_TIMEOUT))
            first = teacher.connect(page="gallery", query_string=f"class={made.info.code}&key={made.teacher_key}")
            shown = first.metric_element("Drawings")
            if shown is None or shown.proto.body != str(count) or first.errors:
                raise RuntimeError(f"the gallery of {count} drawings: {first.errors or first.texts()[:4]}")
            teachers[count], fragments[count] = teacher, shown.fragment_id
        log.skip()
        for _ in range(refreshes):
            for count, teacher in teachers.items():
                whole = teacher.rerun()
                line = log.wait(1)[-1]
                refresh = teacher.rerun(fragment_id=fragments[count])
                if whole.metric("Drawings") != str(count) or refresh.metric("Drawings") != str(count):
                    raise RuntimeError(f"the gallery of {count} drawings showed {refresh.texts()[:4]}")
                if line[0] != "gallery" or line[3] != "app":
                    raise RuntimeError(f"unexpected log line {line}")
                figures.gallery_ms[count].append(line[1])
                figures.refresh_client[count].append(refresh.seconds)
    figures.gallery_load = f"{before:.1f}–{load():.1f}"


def server_part(args: argparse.Namespace, folder: Path, data_dir: Path) -> None:
    from devtools.replicas import ClassServer
    from nbcore.classroom.backends import SETTING

    say(f"[server] {GALLERY_DRAWINGS} MNIST test digits for the teacher's gallery ...")
    filling = gallery_frames(data_dir, GALLERY_DRAWINGS)
    results: list[tuple[str, int, ServerFigures]] = []
    for kind, replicas in itertools.product(args.stores, args.replicas):
        name = f"server-{kind}-{replicas}"
        with fresh_store(kind, folder, name) as (setting, redis_server):
            log_dir = args.log_dir / name
            log_dir.mkdir(parents=True, exist_ok=True)
            env = {SETTING: setting, "NBCORE_LOG_RERUN_MS": "1"}
            say(f"[{name}] starting {replicas} replica(s) behind nginx (load average {load():.1f}) ...")
            with ClassServer(replicas, data_dir, log_dir=log_dir, extra_env=env) as served:
                store = open_store(setting)
                log = RerunLog([server.log_path for server in served.servers])
                pgids = [server.process.pid for server in served.servers if server.process]
                store_pgid = getattr(getattr(redis_server, "process", None), "pid", None)
                say(f"[{name}] {args.server_sends} sends, each then pressed again, one client at a time ...")
                figures = ServerFigures()
                measure_pairs(served.url, store, log, args.server_sends, figures)
                say(f"[{name}] {args.clients} students sending at once for {args.duration:.0f} s ...")
                measure_throughput(served.url, store, args.clients, args.duration, pgids, store_pgid, figures)
                say(f"[{name}] the teacher's gallery, 0 and {GALLERY_DRAWINGS} drawings, {args.refreshes} times ...")
                measure_gallery(served.url, store, log, args.refreshes, filling, figures)
                problems = [server.log_path for server in served.servers if "Traceback" in server.log_text()]
                if problems:
                    say(f"[{name}] tracebacks in {', '.join(map(str, problems))}")
                results.append((kind, replicas, figures))
    report_server(args, results)


def report_server(args: argparse.Namespace, results: Sequence[tuple[str, int, ServerFigures]]) -> None:
    rows = []
    for kind, replicas, figures in results:
        rows.append(
            [
                kind,
                replicas,
                len(figures.send_ms),
                ms(figures.send_ms, unit=1e-3),
                ms(figures.again_ms, unit=1e-3),
                ms(figures.paired_ms, unit=1e-3),
                ms(figures.send_client),
                ms(figures.again_client),
                figures.pairs_load,
            ]
        )
    print_table(
        "Server: a send's run against the same run without the store's work (one client at a time)",
        [
            "store",
            "replicas",
            "pairs",
            "send's run, server: p50 / p95 (ms)",
            "pressed again (no store work), server: p50 / p95 (ms)",
            f"send − again, each pair: p50 / p95 (ms; target ≤ {TARGET_SEND_MS:.0f})",
            "send's run, client: p50 / p95 (ms)",
            "again, client: p50 / p95 (ms)",
            "load average",
        ],
        rows,
        "the Draw fragment's own work (the two models, the evidence map and its figures, the student's own "
        "drawings under the form) runs in both; the difference is the two budget calls, add_drawing and "
        "the success sentence. With the machine shared, single runs vary by tens of ms: compare medians.",
    )
    rows = []
    for kind, replicas, figures in results:
        wall = figures.throughput_seconds or float("nan")
        rows.append(
            [
                kind,
                replicas,
                args.clients,
                f"{figures.sent} / {figures.refused} / {figures.failed}",
                f"{figures.sent / wall:.1f}",
                f"{figures.runs / wall:.1f}",
                ms(figures.loaded_send_client, 0),
                f"{figures.server_cores:.2f}",
                f"{figures.server_cores * wall / max(figures.sent, 1) * 1000:.0f}",
                f"{figures.store_cores:.2f}" if kind == "redis" else "(in the replicas)",
                f"{figures.generator_cores:.2f}",
                figures.throughput_load,
            ]
        )
    print_table(
        f"Server: sends/s, {args.clients} students at once for {args.duration:.0f} s",
        [
            "store",
            "replicas",
            "students at once",
            "sent / refused / failed",
            "sends/s",
            "runs/s (stroke + send)",
            "send's run, client: p50 / p95 (ms)",
            "replicas' CPU (cores)",
            "replicas' CPU per send (ms)",
            "redis-server CPU (cores)",
            "load generator CPU (cores)",
            "load average",
        ],
        rows,
        "the replicas' share of the CPU: each send needs a stroke's run and a send's run of the Draw fragment "
        "(tens of ms of Python each; a new student's first visit to Draw is counted in the CPU per send too), "
        "on 2 cores shared with the load generator (its CPU is listed) and with other work (the load average): "
        "a figure near 2 cores would mean the machine is full. The store's share of a send is the first tables'.",
    )
    rows = []
    for kind, replicas, figures in results:
        rows.append(
            [
                kind,
                replicas,
                ms(figures.gallery_ms[0], 0, unit=1e-3),
                ms(figures.gallery_ms[GALLERY_DRAWINGS], 0, unit=1e-3),
                ms(figures.refresh_client[0], 0),
                ms(figures.refresh_client[GALLERY_DRAWINGS], 0),
                figures.gallery_load,
            ]
        )
    print_table(
        f"Server: the teacher's gallery, 0 against {GALLERY_DRAWINGS} drawings ({args.refreshes} times each)",
        [
            "store",
            "replicas",
            "whole page, 0 drawings, server: p50 / p95 (ms)",
            f"whole page, {GALLERY_DRAWINGS} drawings, server: p50 / p95 (ms; target ≤ {TARGET_REFRESH_MS:.0f})",
            "live refresh, 0 drawings, client: p50 / p95 (ms)",
            f"live refresh, {GALLERY_DRAWINGS} drawings, client: p50 / p95 (ms)",
            "load average",
        ],
        rows,
        "one replica's Python: the whole page's run includes the frame, the teacher check and the live fragment "
        f"(the store's read, {SHOWN_TILES} tiles encoded as images, two Plotly figures, a table); the refresh is "
        "the fragment alone, timed by the client (protocol and websocket included). Nothing else ran on the "
        "server meanwhile; the machine's other load did.",
    )


# -- command line ---------------------------------------------------------------------------------
def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"{value} s: give more than 0 and at most 600")
    return value


def parser() -> argparse.ArgumentParser:
    from devtools import app_server

    made = argparse.ArgumentParser(
        prog="python -m devtools.class_store_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    made.add_argument("--part", nargs="+", choices=PARTS, default=list(PARTS), help="what to measure (default both)")
    made.add_argument("--stores", nargs="+", choices=STORES, default=list(STORES), help="back ends (default all three)")
    made.add_argument("--replicas", nargs="+", type=positive_int, default=[1, 2], help="replica counts (default 1 2)")
    made.add_argument("--sends", type=positive_int, default=GALLERY_DRAWINGS, help="store-level sends (default 300)")
    made.add_argument(
        "--processes", nargs="+", type=positive_int, default=[1, 2, 4], help="processes sending at once (default 1 2 4)"
    )
    made.add_argument("--reads", type=positive_int, default=30, help="store-level refreshes timed (default 30)")
    made.add_argument("--server-sends", type=positive_int, default=30, help="send pairs per server (default 30)")
    made.add_argument("--clients", type=positive_int, default=6, help="students sending at once (default 6)")
    made.add_argument("--duration", type=positive_seconds, default=20.0, help="seconds of sending at once (default 20)")
    made.add_argument("--refreshes", type=positive_int, default=15, help="gallery runs of each kind (default 15)")
    made.add_argument(
        "--log-dir", type=Path, default=REPO / "test-artifacts" / "class-store-bench", help="the servers' logs"
    )
    app_server.add_data_arguments(made)
    return made


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The checked arguments (``SystemExit`` with a sentence for bad ones)."""
    made = parser()
    args = made.parse_args(argv)
    if args.refreshes > 35:  # one teacher session's runs stay within lab/rate_limit.py's burst
        made.error(f"--refreshes {args.refreshes}: at most 35 (one session's whole runs stay within its run budget)")
    if args.sends < max(args.processes):
        made.error(f"--sends {args.sends} is fewer than --processes {max(args.processes)}: each needs one")
    if args.sends < GALLERY_DRAWINGS and "store" in args.part:
        say(f"note: --sends {args.sends}: drawings() then reads {args.sends} drawings, not {GALLERY_DRAWINGS}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    from devtools import app_server

    needs: list[tuple[Callable[[], object], str]] = []
    if "redis" in args.stores:
        from devtools.redis_server import redis_binary

        needs.append((redis_binary, "redis-server is not installed (apt-get install redis-server)"))
    if "server" in args.part:
        from devtools.replicas import nginx_binary

        needs.append((nginx_binary, "nginx is not installed (apt-get install nginx)"))
    for found, missing in needs:
        if not found():
            print(missing, file=sys.stderr)
            return 2
    started = time.monotonic()
    say(f"load average at the start: {load_averages()}")
    with tempfile.TemporaryDirectory(prefix="nb-store-bench-") as scratch:
        folder = Path(scratch)
        if "store" in args.part:
            store_part(args, folder)
        if "server" in args.part:
            args.log_dir.mkdir(parents=True, exist_ok=True)
            with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-store-bench-data-") as (data_dir, _):
                server_part(args, folder, data_dir)
    say(f"load average at the end: {load_averages()}; {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
