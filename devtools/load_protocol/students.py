"""The simulated students: Locust users, each holding one protocol session on /draw (draw, alpha, Clear, thinking
between), and what they record for the phase being measured (``TALLY``, ``new_tally``)."""

from __future__ import annotations

import json
import random
import time
import uuid
from dataclasses import dataclass, field

import gevent
from locust import User, events, task

from devtools import draw_page
from devtools.app_server import REPO
from devtools.protocol_run import ProtocolError, RunResult
from devtools.streamlit_client import StreamlitClient
from lab.canvas import REST_MS

DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
PREDICTION = "Naive Bayes prediction"
ALPHA_KEY, ALPHA_STOPS = "alpha", ("1", "2")  # the default stop and the next (lab/settings.py), name in the link
CLEAR_KEY = "draw_clear"  # the Streamlit button Clear was before issue 40
SENDS = ("rested", "stroke")  # --send: the page since issue 40 (a run per rested pen), and before it (per stroke)


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


def new_tally() -> Tally:
    """A fresh ``TALLY`` for the next phase: what every student records from now on."""
    global TALLY
    TALLY = Tally()
    return TALLY


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
