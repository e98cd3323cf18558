"""Browser harness shared by the end-to-end tests (tests/e2e) and scripts/ (latency bench, screenshots).

* ``StreamlitServer``: ``streamlit run app.py`` on a free loopback port, in its own process
  group (stopped as a group), with its output captured to a log file.
* ``launch_chromium``: the Debian Chromium driven by Playwright (never ``playwright install``).
* Page helpers: wait for a script run to finish, find the app's pages, draw strokes with the
  mouse on the Draw page's canvas, read the "Naive Bayes prediction" metric.

Nothing here depends on pytest.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 900}


# The screens the lab is used on: Playwright context options for each (a 150 % zoom of 1280x800 is
# what the page sees as 853x533 CSS pixels at a device scale of 1.5).
SCREENS = {
    "projector 1024x768": dict(viewport={"width": 1024, "height": 768}),
    "laptop 1366x768": dict(viewport={"width": 1366, "height": 768}),
    "laptop 1366x768, dark": dict(viewport={"width": 1366, "height": 768}, color_scheme="dark"),
    "phone 390x844 (touch)": dict(
        viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True
    ),
}
PREDICTION_LABEL = "Naive Bayes prediction"
BLANK_PROMPT = "Draw a digit on the black canvas"  # the st.info starting "✏️ Draw a digit" (emoji may render as an icon)
CANVAS_SIZE = 280
# What lab/shell.py logs after each script run when NBCORE_LOG_RERUN_MS=1: the page, milliseconds, the outcome.
RERUN_LINE = re.compile(r"^NBCORE_RERUN page=(\S+) ms=([0-9.]+) outcome=(\S+)", re.MULTILINE)

Point = tuple[float, float]


def playwright_available() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


def chromium_available() -> bool:
    return CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


SHARED = REPO.parent / "shared"


def make_scratch_data_dir(
    target: Path, mnist_source: Path | None = None, sms_source: Path | None = SHARED / "sms-spam" / "SMSSpamCollection"
) -> Path:
    """A fresh NBCORE_DATA_DIR: the four MNIST *-ubyte.gz files (+ the SMS Spam Collection if found).

    ``mnist_source`` defaults to $NBCORE_DATA_DIR, else ../shared/mnist. Only copies, never writes
    into the sources.
    """
    source = Path(mnist_source or os.environ.get("NBCORE_DATA_DIR") or SHARED / "mnist")
    gz_files = sorted(source.glob("*-ubyte.gz"))
    if len(gz_files) != 4:
        raise FileNotFoundError(f"expected the four MNIST *-ubyte.gz files in {source}")
    target.mkdir(parents=True, exist_ok=True)
    for gz in gz_files:
        shutil.copy(gz, target / gz.name)
    for sms in (source / "SMSSpamCollection", sms_source):
        if sms is not None and Path(sms).is_file():
            shutil.copy(sms, target / "SMSSpamCollection")
            break
    return target


# -- the scripts' common parts ------------------------------------------------------------------
def add_data_arguments(parser: argparse.ArgumentParser, mnist_source: bool = True, data_dir_note: str = "") -> None:
    """The scripts' data flags: ``--data-dir DIR`` and, with ``mnist_source``, ``--mnist-source DIR`` instead.

    See ``script_data_dir``: a given data directory is used as it is, anything else is a scratch copy.
    """
    group = parser.add_mutually_exclusive_group()
    if mnist_source:
        group.add_argument(
            "--mnist-source",
            type=Path,
            help="folder with the four MNIST *-ubyte.gz files, copied to a scratch data directory "
            "(default: $NBCORE_DATA_DIR, else ../shared/mnist; SMSSpamCollection from there "
            "or ../shared/sms-spam)",
        )
    group.add_argument(
        "--data-dir",
        type=Path,
        help=f"use this NBCORE_DATA_DIR as it is{data_dir_note} (default: a scratch copy of the MNIST "
        "files, removed at the end)",
    )


def exit_unless_browser() -> None:
    """A script's first check: exit code 2 with the reason on stderr when this machine cannot drive Chromium."""
    if not (playwright_available() and chromium_available()):
        print(f"needs the playwright package and Chromium at {CHROMIUM}", file=sys.stderr)
        raise SystemExit(2)


@contextlib.contextmanager
def script_data_dir(
    data_dir: Path | None, mnist_source: Path | None, prefix: str
) -> Iterator[tuple[Path, Path | None]]:
    """The scripts' data directory: ``data_dir`` as given, else a fresh scratch copy, removed when the block ends.

    Yields ``(data_dir, scratch)``, ``scratch`` being the temporary folder (None for a given ``data_dir``).
    No MNIST to copy: the reason on stderr and exit code 2 (SystemExit), no traceback.
    """
    scratch = None
    if not data_dir:
        scratch = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        if scratch:
            try:
                data_dir = make_scratch_data_dir(scratch / "data", mnist_source)
            except FileNotFoundError as error:
                print(error, file=sys.stderr)
                raise SystemExit(2) from None
        yield data_dir, scratch
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


# -- the server ------------------------------------------------------------------------------
def spawn_logged(command: list[str], log_path: Path, **popen) -> subprocess.Popen:
    """Start ``command`` with stdout and stderr to ``log_path``, no stdin, as the leader of its own process
    group (so that stopping it can signal the group: a server and everything it started)."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, **popen
        )


class ServerError(RuntimeError):
    pass


class StreamlitServer:
    """``python -m streamlit run app.py`` on 127.0.0.1 with NBCORE_DATA_DIR set; use as a context manager."""

    def __init__(
        self,
        data_dir: Path | str,
        log_path: Path | str,
        port: int | None = None,
        app: str = "app.py",
        extra_env: dict[str, str] | None = None,
        ready_timeout: float = 60.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.ready_timeout = ready_timeout  # seconds serve() and ``with`` wait for the health check
        self.log_path = Path(log_path)
        self.port = port or free_port()
        self.app = app
        self.extra_env = extra_env or {}
        self.process: subprocess.Popen | None = None
        self.started_at: float | None = None  # time.perf_counter() just before Popen

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            self.app,
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            # other people edit this working tree while tests run: never rerun on their saves
            "--server.fileWatcherType",
            "none",
            "--server.runOnSave",
            "false",
        ]

    def start(self) -> StreamlitServer:
        env = {**os.environ, "NBCORE_DATA_DIR": str(self.data_dir), "PYTHONUNBUFFERED": "1", **self.extra_env}
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.started_at = time.perf_counter()
        self.process = spawn_logged(self.command(), self.log_path, cwd=REPO, env=env)
        return self

    def wait_ready(self, timeout: float = 60.0) -> float:
        """Block until /_stcore/health answers ok; return seconds since start()."""
        assert self.process is not None and self.started_at is not None, "start() first"
        deadline = time.monotonic() + timeout
        health = f"{self.url}/_stcore/health"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(
                    f"streamlit exited with code {self.process.returncode} before serving; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(health, timeout=2) as response:
                    if response.status == 200 and response.read().strip() == b"ok":
                        return time.perf_counter() - self.started_at
            except OSError:
                pass
            time.sleep(0.05)
        raise ServerError(
            f"streamlit did not answer {health} within {timeout:.0f} s; log {self.log_path}:\n{self.log_tail()}"
        )

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM the server's process group, SIGKILL it if it lingers."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(grace)
        else:  # the leader is gone; children of the group may not be
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def serve(self) -> StreamlitServer:
        """start(), then wait_ready(ready_timeout); stopped again if it never answers."""
        self.start()
        try:
            self.wait_ready(self.ready_timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def __enter__(self) -> StreamlitServer:
        return self.serve()

    def __exit__(self, *exc) -> None:
        self.stop()


# -- the browser -----------------------------------------------------------------------------
def launch_chromium(playwright, **kwargs):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, **kwargs)


# the app's page links in the sidebar (lab/shell.py's navigation, in the container keyed presentation.NAVIGATION_KEY)
NAVIGATION_LINKS = ".st-key-lab_navigation a"


def sidebar_page_paths(page, base_url: str) -> list[str]:
    """URL paths ('' for home) of the page links in the sidebar navigation, in order."""
    page.locator(NAVIGATION_LINKS).first.wait_for(timeout=30_000)
    hrefs = page.locator(NAVIGATION_LINKS).evaluate_all("els => els.map(e => e.href)")
    paths = []
    for href in hrefs:
        path = href.removeprefix(base_url).split("?")[0].split("#")[0].strip("/")
        if path not in paths:
            paths.append(path)
    return paths


# Arms a flag for the next script run: set once the page's script state has been "running".
RUN_STARTED_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    window.__runStarted = false;
    new MutationObserver((records, observer) => {
        // a quick run can go running -> notRunning before this callback: the records keep the old value
        if (app.getAttribute('data-test-script-state') === 'running'
                || records.some(record => record.oldValue === 'running')) {
            window.__runStarted = true;
            observer.disconnect();
        }
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
}"""


def run_after(
    page, action: Callable[[], object], shown_js: str | None = None, timeout: float = 60.0, charts: bool = True
) -> None:
    """Do ``action()`` (a click, a key) and wait until the script run it causes has ended.

    The run has begun once the page has said "running", or once ``shown_js`` (a JS predicate for
    what the run puts on the page) holds; then wait until the page is idle. Both signals are needed:
    for 100-200 ms after the action the page still says "notRunning" (the server has not started the
    run), and a run of a few ms (a fragment's) can start and end within one render, so that the page
    never says "running" at all (11 of 40 input switches on Draw).
    """
    page.evaluate(RUN_STARTED_JS)
    action()
    page.wait_for_function(run_begun_js(shown_js), timeout=timeout * 1000, polling=50)
    wait_for_run(page, timeout=timeout, charts=charts)


def run_begun_js(shown_js: str | None = None) -> str:
    """After ``RUN_STARTED_JS`` and an action, a JS predicate: the page has said "running", or ``shown_js`` holds."""
    return f"() => window.__runStarted || ({shown_js or '() => false'})()"


def title_shown_js(text: str) -> str:
    """A JS predicate for ``run_after``: the page's title (its h1) contains ``text``."""
    return f"() => [...document.querySelectorAll('h1')].some(h => h.innerText.includes({text!r}))"


def wait_for_run(page, timeout: float = 60.0, settle: float = 0.0, charts: bool = True) -> None:
    """Wait until the app is connected, its script is not running, and the main area has content.

    ``settle``: first give a just-triggered rerun this many seconds to start. ``charts``: also wait
    until no element shows a loading skeleton (Plotly's code loads lazily, ~2 s the first time).
    """
    if settle:
        page.wait_for_timeout(settle * 1000)
    page.wait_for_function(
        """charts => {
            const app = document.querySelector('[data-testid="stApp"]');
            if (!app || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
            if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
            const status = document.querySelector('[data-testid="stStatusWidget"]');
            if (status && /Running/i.test(status.innerText)) return false;
            const main = document.querySelector('[data-testid="stMainBlockContainer"]');
            return !!main && main.innerText.trim().length > 0
                && !(charts && main.querySelector('[data-testid="stSkeleton"]'));
        }""",
        arg=charts,
        timeout=timeout * 1000,
        polling=50,
    )


PAGE_PROBLEMS_JS = """() => {
    const out = [];
    for (const el of document.querySelectorAll(
            '[data-testid="stException"], [data-testid="stAlertContentError"], [data-testid="stError"]')) {
        out.push(el.getAttribute('data-testid') + ': ' + el.innerText.trim().slice(0, 2000));
    }
    return out;
}"""


def page_problems(page) -> list[str]:
    """Text of every exception box and error alert on the page."""
    return page.evaluate(PAGE_PROBLEMS_JS)


# -- the Draw page ---------------------------------------------------------------------------
CANVAS_SELECTOR = "canvas.digit-canvas"  # lab/canvas.py; Playwright's CSS pierces the component's shadow root
READY_CANVAS_SELECTOR = CANVAS_SELECTOR + '[data-ready="true"]'  # its script listens (lab/digit_canvas.js)


def canvas_locator(page):
    """The Draw page's drawing canvas."""
    return page.locator(CANVAS_SELECTOR).first


def canvas_origin(page, timeout: float = 30.0) -> Point:
    """Top-left corner of the canvas on the page, once there is only one and its script listens.

    Clear swaps in a new canvas (a new key), and the old one stays in the page until the run that
    replaced it ends; a canvas re-created by a rerun takes a moment to get its listeners. A stroke
    on either would be lost.
    """
    from playwright.sync_api import expect

    expect(page.locator(CANVAS_SELECTOR)).to_have_count(1, timeout=timeout * 1000)
    expect(page.locator(READY_CANVAS_SELECTOR)).to_have_count(1, timeout=timeout * 1000)
    canvas = page.locator(READY_CANVAS_SELECTOR)
    canvas.wait_for(state="visible", timeout=timeout * 1000)
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    assert box and round(box["width"]) == CANVAS_SIZE, f"unexpected canvas box {box}"
    return box["x"], box["y"]


def clear_canvas(page) -> Point:
    """Click Draw's Clear, wait for the blank-canvas prompt and the run's end; the new canvas's top-left corner."""
    page.get_by_role("button", name="Clear").click()
    page.locator('[data-testid="stAlert"]', has_text=BLANK_PROMPT).wait_for(timeout=30_000)
    wait_for_run(page, settle=0.2, charts=False)
    return canvas_origin(page)


def stroke(page, points: Sequence[Point], origin: Point | None = None, step_px: float = 5.0) -> None:
    """One pen stroke: mouse down at points[0], move through the points in small steps, mouse up.

    Points are canvas coordinates (0..280).
    """
    ox, oy = origin or canvas_origin(page)
    x, y = points[0]
    page.mouse.move(ox + x, oy + y)
    page.mouse.down()
    for nx, ny in points[1:]:
        steps = max(1, math.ceil(math.hypot(nx - x, ny - y) / step_px))
        page.mouse.move(ox + nx, oy + ny, steps=steps)
        x, y = nx, ny
    page.mouse.up()


def touch_stroke(page, points: Sequence[Point], origin: Point | None = None, step_px: float = 5.0) -> None:
    """One finger stroke (touch events through the DevTools protocol), as ``stroke`` draws with the mouse."""
    ox, oy = origin or canvas_origin(page)
    session = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        session.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": ox + x, "y": oy + y}]},
        )

    x, y = points[0]
    touch("touchStart", x, y)
    for nx, ny in points[1:]:
        steps = max(1, math.ceil(math.hypot(nx - x, ny - y) / step_px))
        for step in range(1, steps + 1):
            touch("touchMove", x + (nx - x) * step / steps, y + (ny - y) * step / steps)
        x, y = nx, ny
    touch("touchEnd", x, y)
    session.detach()


def ellipse(cx: float, cy: float, rx: float, ry: float, n: int = 40, start: float = -math.pi / 2) -> list[Point]:
    return [
        (cx + rx * math.cos(start + 2 * math.pi * i / n), cy + ry * math.sin(start + 2 * math.pi * i / n))
        for i in range(n + 1)
    ]


# Plainly drawn digits, each a list of strokes in canvas coordinates.
DIGITS: dict[int, list[list[Point]]] = {
    1: [[(140, 45), (140, 235)]],
    0: [ellipse(140, 140, 62, 95)],
    7: [[(75, 55), (205, 55), (125, 235)]],
    4: [[(170, 45), (85, 165), (205, 165)], [(170, 95), (170, 240)]],
    3: [[(85, 60), (190, 60), (130, 130), (190, 170), (175, 225), (85, 230)]],
}


def draw_digit(page, digit: int, origin: Point | None = None, touch: bool = False) -> None:
    origin = origin or canvas_origin(page)
    for points in DIGITS[digit]:
        (touch_stroke if touch else stroke)(page, points, origin)


def prediction_locator(page):
    return page.locator('[data-testid="stMetric"]').filter(has_text=PREDICTION_LABEL)


def read_prediction(page) -> tuple[str, str] | None:
    """(value, delta text) of the "Naive Bayes prediction" metric, or None when it is not shown."""
    metric = prediction_locator(page)
    if metric.count() == 0:
        return None
    value = metric.first.locator('[data-testid="stMetricValue"]').inner_text().strip()
    delta = metric.first.locator('[data-testid="stMetricDelta"]')
    return value, (delta.inner_text().strip() if delta.count() else "")


# Everything the Draw page prints about the current input: the metric (digit and "p = …"),
# the "what the model sees" title, and the evidence caption ("… they sum to X nats …").
DRAW_SIGNATURE_JS = """() => {
    const main = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (!main) return '';
    const parts = [];
    for (const m of main.querySelectorAll('[data-testid="stMetric"]')) parts.push(m.innerText);
    for (const c of main.querySelectorAll('[data-testid="stCaptionContainer"]')) parts.push(c.innerText);
    for (const a of main.querySelectorAll('[data-testid="stAlert"]')) parts.push(a.innerText);
    return parts.join(' | ').replace(/\\s+/g, ' ').trim();
}"""


def draw_signature(page) -> str:
    return page.evaluate(DRAW_SIGNATURE_JS)


def wait_for_prediction(
    page, expect_change_from: tuple[str, str] | None | str = "any", timeout: float = 30.0
) -> tuple[str, str]:
    """Wait for the prediction metric (different from ``expect_change_from`` unless "any") and a finished run."""
    deadline = time.monotonic() + timeout
    while True:
        current = read_prediction(page)
        if current is not None and (expect_change_from == "any" or current != expect_change_from):
            wait_for_run(page, timeout=max(1.0, deadline - time.monotonic()), charts=False)
            current = read_prediction(page)
            if current is not None:
                return current
        if time.monotonic() > deadline:
            raise TimeoutError(f"no new prediction within {timeout:.0f} s (last seen: {current!r})")
        page.wait_for_timeout(50)


def canvas_ink_pixels(page) -> int:
    """How many pixels of the drawing canvas are bright (the user's white ink)."""
    return canvas_locator(page).evaluate(
        """c => {
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] > 128 && d[i + 3] > 128) n++;
            return n;
        }"""
    )


def iter_points(strokes: Iterable[Sequence[Point]]) -> Iterable[Point]:
    for points in strokes:
        yield from points


# -- layout checks (the screens of SCREENS) ----------------------------------------------------
# What a page must never do on any screen: scroll sideways, clip a title or a label, push a
# chart's text out of its chart, or draw two chart texts over each other.
LAYOUT_PROBLEMS_JS = """() => {
    const problems = [];
    for (const el of [document.documentElement, document.querySelector('[data-testid="stMain"]')]) {
        if (el && el.scrollWidth > el.clientWidth + 1)
            problems.push(`scrolls sideways: ${el.getAttribute('data-testid') || el.tagName} is ${el.scrollWidth} px wide in ${el.clientWidth}`);
    }
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main) return ['no main area'];
    const texts = main.querySelectorAll('h1, h2, h3, [data-testid="stMetricLabel"] *, [data-testid="stMetricValue"] *, '
        + '[data-testid="stWidgetLabel"] p, [data-testid="stCaptionContainer"] p, button p, '
        + '[data-testid="stPageLink"] p');
    for (const el of texts) {
        if (getComputedStyle(el).display === 'inline' || el.clientWidth === 0) continue;
        if (el.scrollWidth > el.clientWidth + 1)
            problems.push(`text clipped: "${el.innerText.trim().slice(0, 60)}" (${el.scrollWidth} px in ${el.clientWidth})`);
    }
    for (const plot of main.querySelectorAll('.js-plotly-plot')) {
        const svg = plot.querySelector('.main-svg');
        if (!svg) continue;
        const chart = svg.getBoundingClientRect();
        const boxes = [...plot.querySelectorAll('.gtitle, .annotation-text, .g-xtitle text, .g-ytitle text, .cbtitle text')]
            .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([text, b]) => text && b.width > 0)
            .concat([...plot.querySelectorAll('.cbfills')].map(bar => ['(a colour bar)', bar.getBoundingClientRect()]));
        for (const [text, b] of boxes) {
            if (b.left < chart.left - 1 || b.right > chart.right + 1 || b.top < chart.top - 1 || b.bottom > chart.bottom + 1)
                problems.push(`chart text outside its chart: "${text.slice(0, 60)}"`);
        }
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [a, p] = boxes[i], [b, q] = boxes[j];
            const dx = Math.min(p.right, q.right) - Math.max(p.left, q.left);
            const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
            if (dx > 2 && dy > 2) problems.push(`chart texts overlap: "${a.slice(0, 40)}" and "${b.slice(0, 40)}"`);
        }
        // panel titles side by side need a gap: touching, two read as one ("What the model seesSeen + filled in")
        const titles = [...plot.querySelectorAll('.annotation-text')]
            .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([text, b]) => text && b.width > 0);
        for (let i = 0; i < titles.length; i++) for (let j = i + 1; j < titles.length; j++) {
            const [a, p] = titles[i], [b, q] = titles[j];
            const gap = Math.max(p.left, q.left) - Math.min(p.right, q.right);
            const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
            if (dy > 2 && gap < 4) problems.push(`panel titles run together: "${a.slice(0, 40)}" and "${b.slice(0, 40)}"`);
        }
    }
    return problems.concat(lowContrast(main), lowContrast(document.querySelector('[data-testid="stSidebar"]')));
}"""

# Text whose contrast with what is behind it is under 4.5:1 (WCAG AA), one line per colour pair.
LOW_CONTRAST_JS = """function lowContrast(root) {
    if (!root) return [];
    const parse = (c) => { const m = c.match(/[\\d.]+/g) || []; return m.length >= 3 ? [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1] : null; };
    const over = (top, bottom) => top.slice(0, 3).map((v, i) => v * top[3] + bottom[i] * (1 - top[3])).concat([1]);
    const background = (el) => {
        const layers = [];
        for (let e = el; e && e.nodeType === 1; e = e.parentElement || (e.getRootNode && e.getRootNode().host)) {
            const c = parse(getComputedStyle(e).backgroundColor);
            if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
        }
        return layers.reverse().reduce((bottom, top) => over(top, bottom), [255, 255, 255, 1]);
    };
    const luminance = (c) => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const found = new Map();
    const texts = root.querySelectorAll('p, li, label, h1, h2, h3, [data-testid="stMetricValue"] div, '
        + '[data-testid="stPageLink"] span, .xtick text, .ytick text, .gtitle, .annotation-text, .legendtext, .g-xtitle text, .g-ytitle text');
    for (const el of texts) {
        if (!el.textContent.trim() || el.getBoundingClientRect().width === 0) continue;
        // icons are pictures (3:1 suffices), a slider's value floats above its thumb, not on it
        if (el.closest('[data-testid="stIconMaterial"], [data-testid="stSliderThumbValue"], [data-testid="stSliderTickBarMin"], [data-testid="stSliderTickBarMax"]')) continue;
        const style = getComputedStyle(el);
        const bg = background(el);
        const fg = over(parse(el instanceof SVGElement ? style.fill : style.color) || [0, 0, 0, 1], bg);
        const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
        const ratio = (hi + 0.05) / (lo + 0.05);
        const pair = `rgb(${fg.slice(0, 3).map(Math.round)}) on rgb(${bg.slice(0, 3).map(Math.round)})`;
        if (ratio < 4.5 && !found.has(pair)) found.set(pair, `low contrast ${ratio.toFixed(2)}:1, ${pair}: "${el.textContent.trim().slice(0, 40)}"`);
    }
    return [...found.values()];
}"""
LAYOUT_PROBLEMS_JS = LAYOUT_PROBLEMS_JS.replace("() => {", "() => {\n" + LOW_CONTRAST_JS, 1)


def layout_problems(page) -> list[str]:
    return page.evaluate(LAYOUT_PROBLEMS_JS)


# Points of a grid over the canvas (inside the viewport) where something else is on top of it.
CANVAS_COVERED_JS = """(grid) => {
    const find = (root) => {
        for (const el of root.querySelectorAll('*')) {
            if (el.matches('canvas.digit-canvas')) return el;
            if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; }
        }
        return null;
    };
    const canvas = find(document);
    if (!canvas) return ['no canvas'];
    const box = canvas.getBoundingClientRect();
    const covered = [];
    for (let i = 0; i < grid; i++) for (let j = 0; j < grid; j++) {
        const x = box.left + 4 + (box.width - 8) * i / (grid - 1), y = box.top + 4 + (box.height - 8) * j / (grid - 1);
        if (y < 0 || y >= window.innerHeight || x < 0 || x >= window.innerWidth) continue;
        let el = document.elementFromPoint(x, y);
        while (el && el.shadowRoot) {
            const inner = el.shadowRoot.elementFromPoint(x, y);
            if (!inner || inner === el) break;
            el = inner;
        }
        if (el !== canvas) covered.push(`(${Math.round(x - box.left)}, ${Math.round(y - box.top)}) under `
            + (el ? (el.getAttribute('data-testid') || el.tagName) + ' ' + (el.innerText || '').trim().slice(0, 40) : 'nothing'));
    }
    return covered;
}"""


def canvas_covered_points(page, grid: int = 8) -> list[str]:
    """Where a grid of points over the canvas hits another element (an empty list: the whole canvas draws)."""
    return page.evaluate(CANVAS_COVERED_JS, grid)


def in_viewport(page, locator) -> bool:
    """Whether the element is wholly inside the viewport and its centre is not under another element."""
    return locator.evaluate("""el => {
        const b = el.getBoundingClientRect();
        if (b.top < 0 || b.left < 0 || b.bottom > window.innerHeight || b.right > window.innerWidth) return false;
        const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
        return !!hit && (el === hit || el.contains(hit));
    }""")
