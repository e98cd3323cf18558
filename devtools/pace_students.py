"""A lesson's scripted students: each a protocol session (devtools/streamlit_client.py) on /lesson from a loopback
address of its own, running what a browser runs on that page (its timers, and the pace listener's held request to
``/api/pace``), noting when each step arrived. Used by devtools/pace_bench.py."""

from __future__ import annotations

import http.client
import json
import queue
import secrets
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from devtools.protocol_run import RunResult
from devtools.streamlit_client import StreamlitClient, loopback_address

RUN_TIMEOUT = 180.0  # s a run may take (120 students joining at once on 2 shared cores)
JOINING_AT_ONCE = 8  # students opening the lesson at the same time (a class does not arrive in one instant)
SECRET_KEY = "browser_memory_student"  # the browser's answer with the student's secret (lab/classroom)
LISTENER_NAME = "naive_bayes_lab_pace_listener"  # lab/pace_listener.py's component


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
