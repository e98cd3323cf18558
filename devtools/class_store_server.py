"""The class store seen through the app: replicas behind nginx on a fresh store, protocol clients as students
(a send against the same run without the store's work, sends/s of a class at once) and as the teacher (the
gallery of 300 drawings against an empty one); ``server_part`` prints their tables.

``python -m devtools.class_store_bench --part server`` runs it (see that module's docstring for the method).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from devtools.app_server import REPO
from devtools.bench_harness import groups_cpu_seconds, store_replicas
from devtools.bench_report import load, ms, print_table, say
from devtools.class_store_calls import (
    GALLERY_DRAWINGS,
    RUN_TIMEOUT,
    SENDS_PER_SESSION,
    SHOWN_TILES,
    TARGET_REFRESH_MS,
    TARGET_SEND_MS,
)
from devtools.draw_page import canvas_key
from devtools.rerun_log import RerunLog
from devtools.streamlit_client import StreamlitClient, loopback_address
from nbcore.classroom import ClassStore, open_store

DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
SENT, ALREADY = "Sent: your", "is already in class"


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
        return groups_cpu_seconds(pgids), groups_cpu_seconds([store_pgid] if store_pgid else [])

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
    say(f"[server] {GALLERY_DRAWINGS} MNIST test digits for the teacher's gallery ...")
    filling = gallery_frames(data_dir, GALLERY_DRAWINGS)
    results: list[tuple[str, int, ServerFigures]] = []
    for kind, replicas in itertools.product(args.stores, args.replicas):
        name = f"server-{kind}-{replicas}"
        with store_replicas(kind, replicas, folder, data_dir, args.log_dir, name) as served:
            store = open_store(served.setting)
            log = RerunLog([server.log_path for server in served.servers])
            say(f"[{name}] {args.server_sends} sends, each then pressed again, one client at a time ...")
            figures = ServerFigures()
            measure_pairs(served.url, store, log, args.server_sends, figures)
            say(f"[{name}] {args.clients} students sending at once for {args.duration:.0f} s ...")
            measure_throughput(served.url, store, args.clients, args.duration, served.pgids, served.store_pgid, figures)
            say(f"[{name}] the teacher's gallery, 0 and {GALLERY_DRAWINGS} drawings, {args.refreshes} times ...")
            measure_gallery(served.url, store, log, args.refreshes, filling, figures)
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
