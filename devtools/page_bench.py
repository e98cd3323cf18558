"""Every page on a fresh server after ``python -m nbcore prepare``, by link and by a click in the app, beside two
peers; the Deskew switch; the first stroke.

    python -m devtools.page_bench [--mnist-source DIR | --data-dir DIR] [--pages draw,compare,lesson-3]
                                 [--skip navigation,deskew,strokes] [--no-prepare] [--strokes 6] [--rounds 3]
                                 [--viewport 1024x768]

1. ``python -m nbcore prepare`` on the data directory (a fresh scratch copy of the MNIST *.gz files and
   the SMS file by default), timed, then once more (everything already there); its own lines pass through.
   What the folder holds then is what every server below starts from: in a scratch folder, whatever an
   earlier server wrote into it (a model trained in front of the class) is listed and removed before the
   next server starts, so each page is measured as a teacher's server would serve it after ``prepare``.
2. Pages: for each page in ``lab/shell.py``'s ``PAGES`` and each guided-lesson step (``?lesson=N``), a fresh
   ``streamlit run`` (entered once it answers its health check and its start-up work is done, as a server
   started before the class), then a new browser context opens the page's link. Time from navigation start
   to *fully drawn*: connected, the script run ended, no loading skeleton or spinner, every Plotly chart's
   SVG in the page, every image loaded, and then nothing in the page changing for ``QUIET_MS`` (the time
   reported is when that quiet began); and the server's own run time (its NBCORE_LOG_RERUN_MS lines). Then
   the same link in a tab of a *returning* browser, one that opened every measured page before (all
   servers use one port, so one origin and one cache): what is left once the browser has the app's code.
   Beside them, measured the same way, two peers that are not the lab (``PEERS``): a page of Streamlit with a
   title and a line of text, and the same with one Plotly chart. They are what Streamlit's front end and
   Plotly's code cost this browser on this machine before the lab does anything; each page's time is given
   over its peer (the Plotly one for a page with charts), which is what the lab adds.
3. Navigation: on one fresh server, one visitor opens Home by its link, then clicks every page in the sidebar
   in turn (the guided lesson's steps by its Next button), as a class moves through the lab: click to fully
   drawn, each page's first visit on that server. This is the page's own time, with Streamlit's front end and
   Plotly's code already in the browser; it is what the page target is checked against.
4. Deskew: on a fresh server, /draw fully drawn with Deskew off; then a click on Deskew *on* in the
   sidebar, timed from the click to fully drawn again. Recorded once per animation frame over the switch:
   how far the drawing canvas moved, how long a progress bar showed, whether the main area was ever empty.
5. Strokes: on a fresh server, visitors (browser contexts) in turn draw ``--strokes`` strokes each on
   Draw, ``--rounds`` of each kind: one opens /draw from a link, the other comes from Heatmaps (whose
   charts have loaded Plotly's code in the browser) through the sidebar. Per stroke, mouse-up to the
   prediction updated on screen (as devtools/latency_bench.py measures it) and the server's longest run
   meanwhile. The first stroke of each visit against the later ones.

Prints a line per measurement, then markdown tables with the targets, and the load average at the start
and the end. Timings on a shared machine are noisy: read them beside the load average printed with them.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from devtools import app_server, chromium, draw_page, latency_bench, page_checks, procfs
from devtools.app_server import REPO
from devtools.bench_report import load, load_averages, markdown_table, percentile, verdict

TARGETS = {"page": 1.5, "deskew": 1.0, "stroke": 300.0}  # seconds, seconds, milliseconds
QUIET_MS = 800  # the page counts as drawn once nothing in it has changed for this long
PARTS = ("pages", "navigation", "deskew", "strokes")
# Streamlit pages that are not the lab, opened like its pages: what the front end and Plotly's code cost on their
# own. Same server flags and .streamlit/config.toml (theme, fonts) as the lab.
PEERS = {
    "bare": (
        "peer: Streamlit, a title and a line of text",
        'import streamlit as st\n\nst.title("A peer page")\nst.write("Streamlit with nothing of the lab.")\n',
    ),
    "plotly": (
        "peer: the same and one Plotly chart",
        "import plotly.graph_objects as go\nimport streamlit as st\n\n"
        'st.title("A peer page")\nst.write("Streamlit with nothing of the lab.")\n'
        "st.plotly_chart(go.Figure(go.Bar(x=list(range(10)), y=list(range(10)))), config={'displayModeBar': False})\n",
    ),
}
# lab/runs.py's line per script run with NBCORE_LOG_RERUN_MS=1 (a line without scope is a whole run)
RUN_LINE = re.compile(r"^NBCORE_RERUN page=(\S+) ms=([0-9.]+) outcome=(\S+)(?: scope=(\S+))?", re.MULTILINE)


# -- what is measured ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PageLink:
    """A page to open: ``key`` names it on the command line (``draw``, ``lesson-3``), ``path`` is its link."""

    key: str
    label: str
    path: str


def page_links() -> list[PageLink]:
    """Every page of ``lab/shell.py``'s ``PAGES`` in its order, the guided lesson as one link per step."""
    from lab.lesson_steps import STEPS
    from lab.shell import PAGES

    links = []
    for pages in PAGES.values():
        for file, title, _icon in pages:
            stem = Path(file).stem
            if stem == "lesson":
                links += [
                    PageLink(f"lesson-{number}", f"{title}, step {number}: {step.title}", f"/lesson?lesson={number}")
                    for number, step in enumerate(STEPS, 1)
                ]
            else:
                links.append(PageLink(stem, title, "/" if stem == "home" else f"/{stem}"))
    return links


def split_names(values: list[str] | None) -> list[str]:
    """``["draw,compare", "xor"]`` -> ``["draw", "compare", "xor"]`` (lower case, blanks dropped)."""
    return [name.strip().lower() for value in values or [] for name in value.split(",") if name.strip()]


def select_pages(links: list[PageLink], names: list[str]) -> list[PageLink]:
    """The links ``names`` ask for, in page order: a page's key (``lesson`` takes every step, ``lesson-3``
    one), or the start of its title (``gaussian``). No names: all. A name matching nothing: ValueError."""
    if not names:
        return list(links)

    def matches(link: PageLink, name: str) -> bool:
        return link.key == name or link.key.startswith(name + "-") or link.label.lower().startswith(name)

    unknown = [name for name in names if not any(matches(link, name) for link in links)]
    if unknown:
        keys = ", ".join(dict.fromkeys(link.key.split("-")[0] for link in links))
        steps = sum(link.key.startswith("lesson-") for link in links)
        raise ValueError(f"no page called {', '.join(unknown)}; pages: {keys} (lesson-1 to lesson-{steps}: one step)")
    return [link for link in links if any(matches(link, name) for name in names)]


@dataclass(frozen=True)
class Run:
    """One NBCORE_RERUN line: the page, milliseconds, how it ended, ``app`` (a whole run) or ``fragment``."""

    page: str
    ms: float
    outcome: str
    scope: str


def parse_runs(log_text: str) -> list[Run]:
    """Every script run a server logged, in order."""
    return [
        Run(match.group(1), float(match.group(2)), match.group(3), match.group(4) or "app")
        for match in RUN_LINE.finditer(log_text)
    ]


def whole_run_seconds(runs: list[Run]) -> float:
    """Seconds the server spent in whole-page runs (a page may rerun itself once, e.g. to settle its link)."""
    return sum(run.ms for run in runs if run.scope == "app") / 1000


# -- the data folder ------------------------------------------------------------------------------------
class PreparedFolder:
    """What ``prepare`` left in a data folder, so that every server starts from that and nothing more."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files, self.dirs = self._scan()

    def _scan(self) -> tuple[dict[str, tuple[int, int]], set[str]]:
        files, dirs = {}, set()
        for path in self.root.rglob("*"):
            relative = path.relative_to(self.root).as_posix()
            if path.is_dir() and not path.is_symlink():
                dirs.add(relative)
            else:
                stat = path.lstat()
                files[relative] = (stat.st_size, stat.st_mtime_ns)
        return files, dirs

    def restore(self) -> tuple[list[str], list[str]]:
        """Remove what was written since (files, then folders left empty); (removed, changed) relative paths,
        ``changed`` being files ``prepare`` made that were rewritten since: kept as they are now (there is no copy
        to go back to), and said once."""
        files, dirs = self._scan()
        removed = sorted(set(files) - set(self.files))
        changed = sorted(path for path in set(files) & set(self.files) if files[path] != self.files[path])
        self.files.update({path: files[path] for path in changed})
        for relative in removed:
            (self.root / relative).unlink()
        for relative in sorted(dirs - self.dirs, key=lambda path: path.count("/"), reverse=True):
            try:
                (self.root / relative).rmdir()
            except OSError:  # not empty: a file in it was there before (cannot happen for a new folder)
                pass
        return removed, changed


def run_prepare(data_dir: Path) -> float:
    """``python -m nbcore prepare`` on ``data_dir``, its output passed through; seconds it took."""
    started = time.perf_counter()
    env = {**os.environ, "NBCORE_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    completed = subprocess.run([sys.executable, "-m", "nbcore", "prepare"], cwd=REPO, env=env)
    if completed.returncode != 0:
        raise SystemExit(f"prepare failed with exit code {completed.returncode}")
    return time.perf_counter() - started


# -- the browser side -----------------------------------------------------------------------------------
# Installed before any page script. window.__drawn.at: performance.now() (ms since navigation start) when the
# page last became fully drawn, null while it is not; .changed: the last change seen in the page. Over a
# watched action (.watching): per animation frame, the canvas's movement, a progress bar's time, an empty page.
DRAWN_PROBE_JS = """(() => {
    const probe = window.__drawn = {at: null, changed: 0, charts: 0, progressMs: 0, emptyMain: false,
                                    canvasMoved: 0, canvasTop: null, watching: false, canvasReady: null};
    const why = reason => { probe.why = reason; return false; };  // what the page still lacks
    const drawnNow = () => {
        const app = document.querySelector('[data-testid="stApp"]');
        const main = document.querySelector('[data-testid="stMainBlockContainer"]');
        if (!app || !main || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return why('connecting');
        if (app.getAttribute('data-test-script-state') !== 'notRunning') return why('script running');
        if (!main.innerText.trim()) return why('empty page');
        // (a progress bar may be part of a page, as the lesson's; one that waits for work goes when the run ends)
        const busy = document.querySelector('[data-testid="stSkeleton"], [data-testid="stSpinner"]');
        if (busy) return why(busy.getAttribute('data-testid'));
        const status = document.querySelector('[data-testid="stStatusWidget"]');
        if (status && /Running/i.test(status.innerText)) return why('status: running');
        const charts = [...main.querySelectorAll('[data-testid="stPlotlyChart"]')];
        if (charts.some(chart => !chart.querySelector('.main-svg'))) return why('a chart not drawn');
        if ([...main.querySelectorAll('img')].some(img => !img.complete)) return why('an image loading');
        probe.charts = charts.length;
        probe.why = null;
        return true;
    };
    // a loaded image changes nothing in the DOM: the state is checked every animation frame, changes are observed
    // in the app's own tree (what a visitor sees), not in <head> or <body> where a library loading in the
    // background (Plotly's code, preloaded on a page without charts) adds its styles and a hidden probe
    let observed = null;
    const observe = () => {
        const app = document.querySelector('[data-testid="stApp"]');
        if (!app || app === observed) return;
        observed = app;
        probe.changed = performance.now();
        new MutationObserver(() => { probe.changed = performance.now(); }).observe(app,
            {subtree: true, childList: true, characterData: true, attributes: true});
    };
    const find = root => {  // the drawing canvas lives in a component's shadow root
        for (const el of root.querySelectorAll('*')) {
            if (el.matches('canvas.digit-canvas')) return el;
            if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; }
        }
        return null;
    };
    const onDraw = () => /\\/draw\\/?$/.test(location.pathname);  // only Draw has a canvas: no search elsewhere
    let last = null;
    const frame = now => {
        observe();
        if (!drawnNow()) probe.at = null;
        else if (probe.at === null) probe.at = now;
        if (probe.canvasReady === null && onDraw()) {  // when a stroke would first be taken
            const canvas = find(document);
            if (canvas && canvas.getAttribute('data-ready') === 'true') probe.canvasReady = now;
        }
        if (probe.watching) {
            const canvas = onDraw() ? find(document) : null;
            if (canvas) {
                const top = canvas.getBoundingClientRect().top + window.scrollY;
                if (probe.canvasTop === null) probe.canvasTop = top;
                probe.canvasMoved = Math.max(probe.canvasMoved, Math.abs(top - probe.canvasTop));
            }
            if (document.querySelector('[data-testid="stProgress"]') && last !== null) probe.progressMs += now - last;
            const main = document.querySelector('[data-testid="stMainBlockContainer"]');
            if (main && !main.innerText.trim()) probe.emptyMain = true;
        }
        last = now;
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
})()"""

DRAWN_AND_QUIET_JS = f"""() => {{
    const probe = window.__drawn;
    return !!probe && probe.at !== null && performance.now() - Math.max(probe.at, probe.changed) > {QUIET_MS}
        || !!document.querySelector('[data-testid="stException"]');
}}"""


def settled_ms(probe: dict) -> float:
    """When the page reached the look it kept (ms since navigation): drawn, and its last change after that."""
    return max(probe["at"], probe["changed"])


def wait_drawn(page, timeout: float = 180.0) -> dict:
    """Wait until the page is fully drawn and quiet; the probe's record. An error box on the page: RuntimeError."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(DRAWN_AND_QUIET_JS, timeout=timeout * 1000, polling=50)
    except PlaywrightTimeout:
        probe = page.evaluate("() => window.__drawn")
        raise RuntimeError(f"{page.url}: not drawn after {timeout:.0f} s ({probe and probe.get('why')})") from None
    problems = page_checks.page_problems(page)
    if problems:
        raise RuntimeError(f"{page.url}: {problems}")
    return page.evaluate("() => window.__drawn")


def new_context(browser, viewport: dict):
    context = browser.new_context(viewport=viewport)
    context.add_init_script(DRAWN_PROBE_JS)
    return context


def open_drawn(browser, viewport: dict, url: str, context=None) -> tuple[float, int, float | None]:
    """Seconds from navigation start to fully drawn, the number of charts, and seconds to a drawing canvas
    ready for strokes (None without one): in a new browser context, or a new tab of ``context``."""
    own = context is None
    if own:
        context = new_context(browser, viewport)
    page = context.new_page()
    try:
        page.goto(url, timeout=180_000)
        drawn = wait_drawn(page)
        ready = drawn["canvasReady"]
        return settled_ms(drawn) / 1000, drawn["charts"], None if ready is None else ready / 1000
    finally:
        (context if own else page).close()


class Server(app_server.StreamlitServer):
    """A server on the bench's data folder logging its runs; entered once its health check answers and it has
    gone idle (its start-up work done, as a teacher's server started before the class). Once stopped, what it
    wrote into a scratch data folder is said and removed: the next server starts from what ``prepare`` left."""

    def __init__(self, bench: Bench, name: str, port: int | None = None, app: str = "app.py") -> None:
        super().__init__(
            bench.data_dir,
            bench.log_dir / f"{name}.log",
            port=port,
            app=app,
            extra_env={"NBCORE_LOG_RERUN_MS": "1"},
            ready_timeout=180.0,
        )
        self.bench = bench
        self.name = name

    def __enter__(self) -> Server:
        super().__enter__()
        try:
            self.wait_idle()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        self.bench.restore_data(self.name)

    def wait_idle(self, below: float = 0.05, window: float = 1.0, timeout: float = 60.0) -> None:
        """Until the server's processes used under ``below`` of a core over ``window`` s (or ``timeout`` s passed)."""
        assert self.process is not None
        group = self.process.pid  # started as the leader of its own process group
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            before = procfs.group_cpu_seconds(group)
            time.sleep(window)
            if procfs.group_cpu_seconds(group) - before < below * window:
                return

    def runs(self) -> list[Run]:
        return parse_runs(self.log_text())


@dataclass
class Bench:
    """Where the servers run and log, and the data folder's state after ``prepare`` (None: used as it is)."""

    data_dir: Path
    log_dir: Path
    viewport: dict
    prepared: PreparedFolder | None = None
    written: dict[str, list[str]] = field(default_factory=dict)  # server name -> what it left in the data folder

    def restore_data(self, server: str) -> None:
        """Remove what ``server`` (stopped) wrote into the data folder since ``prepare``, and say what it was."""
        if self.prepared is None:
            return
        removed, changed = self.prepared.restore()
        paths = removed + [f"{path} (rewritten)" for path in changed]
        if paths:
            self.written[server] = paths
            print(f"  server {server} wrote into the data folder: {brief(paths)}", flush=True)


def brief(paths: list[str], limit: int = 6) -> str:
    """A short list of paths for a line of text."""
    return ", ".join(paths[:limit]) + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


@dataclass
class PageResult:
    label: str
    charts: int
    first: float  # seconds from navigation start to fully drawn, a fresh browser context
    server: float  # seconds of whole runs on the server during that first visit
    returning: float  # the same in a tab of a browser that opened every page before
    canvas: float | None  # seconds to a drawing canvas ready for strokes (Draw only)
    peer: str | None = None  # the key in PEERS of the peer this page is compared with (None: a peer itself)


def peer_of(charts: int) -> str:
    """The peer a page is compared with: the one with a Plotly chart for a page that has charts."""
    return "plotly" if charts else "bare"


def visit(browser, bench: Bench, server: Server, path: str, returning) -> tuple[float, int, float, float, float | None]:
    """``path`` opened by its link in a fresh browser context, then in a tab of ``returning``: (first, charts,
    server's run seconds over the first visit, returning, canvas ready)."""
    first, charts, canvas = open_drawn(browser, bench.viewport, server.url + path)
    server_s = whole_run_seconds(server.runs())
    again, _, _ = open_drawn(browser, bench.viewport, server.url + path, returning)
    return first, charts, server_s, again, canvas


def measure_pages(browser, bench: Bench, links: list[PageLink]) -> tuple[list[PageResult], dict[str, PageResult]]:
    """Per page: a fresh server (one port for all, so one origin), the link opened in a new browser context
    (nothing cached: a student's first visit), then in a tab of a browser that opened the pages before. The same
    for each of ``PEERS``, before the pages; (pages, peers by key)."""
    results, peers = [], {}
    port = app_server.free_port()
    returning = new_context(browser, bench.viewport)  # kept across servers: same origin, so its cache is used
    with Server(bench, "page-warm-up", port) as server:  # the returning browser's earlier visits
        for link in links:
            open_drawn(browser, bench.viewport, server.url + link.path, returning)
    for key, (label, source) in PEERS.items():
        script = bench.log_dir / f"peer_{key}.py"
        script.write_text(source)
        with Server(bench, f"peer-{key}", port, app=str(script)) as server:
            open_drawn(browser, bench.viewport, server.url + "/", returning)  # the returning browser's earlier visit
            first, charts, server_s, again, _ = visit(browser, bench, server, "/", returning)
        peers[key] = PageResult(label, charts, first, server_s, again, None)
        print(f"{label:<48} first visit {first:5.2f} s, returning browser {again:5.2f} s", flush=True)
    for number, link in enumerate(links, 1):
        with Server(bench, f"page-{link.key}", port) as server:
            first, charts, server_s, again, canvas = visit(browser, bench, server, link.path, returning)
        result = PageResult(link.label, charts, first, server_s, again, canvas, peer_of(charts))
        print(
            f"[{number}/{len(links)}] {link.label:<44} first visit {first:5.2f} s (server runs {server_s:5.2f} s),"
            f" returning browser {again:5.2f} s, {charts} charts"
            + (f", canvas ready at {canvas:.2f} s" if canvas is not None else "")
            + f"  (load {load():.1f})",
            flush=True,
        )
        results.append(result)
    returning.close()
    return results, peers


@dataclass
class NavigationResult:
    label: str
    charts: int
    drawn: float  # seconds from the click to fully drawn
    server: float  # seconds of whole runs on the server over that time


# the lesson's counter ("Step 3 of 10") shows the step a Next click brought
STEP_SHOWN_JS = """() => [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .some(block => block.innerText.trim().startsWith('Step %d of'))"""
CLICKED_JS = """() => { Object.assign(window.__drawn, {clicked: null});
    window.addEventListener('click', () => { window.__drawn.clicked = performance.now(); },
                            {capture: true, once: true}); }"""


def click_to_drawn(page, server: Server, click, shown_js: str = "() => false") -> tuple[float, dict, float]:
    """``click()`` (a link or button that starts a run), then wait until the page is fully drawn and quiet again:
    (seconds from the click to fully drawn, the probe's record, the server's whole-run seconds since the click).
    ``shown_js``: a JS predicate for what the click brings (a quick run may never say "running")."""
    runs_before = len(server.runs())
    page.evaluate(CLICKED_JS)
    page.evaluate(chromium.RUN_STARTED_JS)
    click()
    # until then the old page counts as drawn
    page.wait_for_function(chromium.run_begun_js(shown_js), timeout=60_000, polling=20)
    drawn = wait_drawn(page)
    return (settled_ms(drawn) - drawn["clicked"]) / 1000, drawn, whole_run_seconds(server.runs()[runs_before:])


def measure_navigation(browser, bench: Bench, links: list[PageLink]) -> list[NavigationResult]:
    """On one fresh server, one visitor: Home by its link, then every page of ``links`` by a click in the sidebar, in
    page order (a lesson step by Next from the step before, the clicks to reach it untimed)."""
    results = []
    with Server(bench, "navigation") as server:
        context = new_context(browser, bench.viewport)
        try:
            page = context.new_page()
            start = "/xor" if links[0].key == "home" else "/"  # a click must lead to another page
            page.goto(server.url + start, timeout=180_000)
            wait_drawn(page)
            page.wait_for_timeout(1000)  # a student reads before moving on; the browser's idle loading has its turn
            step = 0  # the lesson step on screen (0: not in the lesson)
            for link in links:
                target = int(link.key.split("-")[1]) if link.key.startswith("lesson-") else None
                if target is None or step == 0 or target < step:
                    title = link.label.split(",")[0]
                    sidebar = page.locator(chromium.NAVIGATION_LINKS, has_text=title).first
                    path = link.path.split("?")[0]
                    timed = click_to_drawn(page, server, sidebar.click, f"() => location.pathname.endsWith({path!r})")
                    step = 1 if target is not None else 0
                while target is not None and step < target:
                    step += 1
                    timed = click_to_drawn(
                        page,
                        server,
                        page.get_by_role("button", name="Next").first.click,
                        STEP_SHOWN_JS % step,
                    )
                drawn, probe, server_s = timed
                charts = probe["charts"]
                results.append(NavigationResult(link.label, charts, drawn, server_s))
                print(
                    f"click → {link.label:<44} {drawn:5.2f} s (server runs {server_s:5.2f} s), {charts} charts"
                    f"  (load {load():.1f})",
                    flush=True,
                )
        finally:
            context.close()
    return results


@dataclass
class DeskewResult:
    open: float  # seconds: /draw fully drawn with Deskew off
    switch: float  # seconds: click on "on" -> fully drawn again
    server: float  # seconds of whole runs on the server after the click
    progress: float  # seconds a progress bar showed over the switch
    canvas_moved: float  # px, the most the canvas moved from where it was at the click
    empty_main: bool  # the main area was empty at some frame


def measure_deskew(browser, bench: Bench) -> DeskewResult:
    with Server(bench, "deskew-switch") as server:
        context = new_context(browser, bench.viewport)
        try:
            page = context.new_page()
            page.goto(server.url + "/draw", timeout=180_000)
            before = wait_drawn(page)
            radio = page.locator('[data-testid="stSidebar"] [data-testid="stRadio"]').filter(has_text="Deskew")
            option = radio.get_by_text("on", exact=True)
            option.scroll_into_view_if_needed()
            # over the switch, per animation frame: the canvas's movement, a progress bar's time, an empty page
            page.evaluate(
                "() => Object.assign(window.__drawn, {watching: true, canvasTop: null, canvasMoved: 0, "
                "progressMs: 0, emptyMain: false})"
            )
            switch, after, server_s = click_to_drawn(page, server, option.click)
        finally:
            context.close()
    return DeskewResult(
        open=settled_ms(before) / 1000,
        switch=switch,
        server=server_s,
        progress=after["progressMs"] / 1000,
        canvas_moved=after["canvasMoved"],
        empty_main=after["emptyMain"],
    )


STROKE_VISITS = (  # (label, page opened before Draw: None for a link to /draw)
    ("/draw opened from a link", None),
    ("Heatmaps first, then Draw in the sidebar", "/heatmaps"),
)
Stroke = tuple[float, float]  # (ms from mouse-up to the prediction on screen, the server's longest run meanwhile)


def measure_strokes(browser, bench: Bench, strokes: int, rounds: int) -> list[tuple[str, list[Stroke]]]:
    """Per visit (``rounds`` times each of ``STROKE_VISITS``, in turn, on one fresh server): its label and its
    strokes in order; a stroke that got no run within 30 s is (nan, nan)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    install = latency_bench.INSTALL_PROBE_JS.replace("SIGNATURE", draw_page.DRAW_SIGNATURE_JS)
    visits = []
    with Server(bench, "strokes") as server:
        for number, (label, first_page) in enumerate(STROKE_VISITS * rounds, 1):
            context = browser.new_context(viewport=bench.viewport)
            page = context.new_page()
            if first_page:  # the browser has Plotly's code before Draw asks for it
                page.goto(server.url + first_page, timeout=180_000)
                chromium.wait_for_run(page, timeout=180, settle=0.3)
                page.locator(chromium.NAVIGATION_LINKS, has_text="Draw").click()
                page.locator(draw_page.READY_CANVAS_SELECTOR).wait_for(timeout=60_000)
            else:
                page.goto(server.url + "/draw", timeout=180_000)
            chromium.wait_for_run(page, timeout=180, settle=0.3)
            page.wait_for_timeout(1000)  # a student looks before drawing: the page's own loading has ended
            origin = draw_page.canvas_origin(page)
            times: list[Stroke] = []
            for n, (digit, index, _count, points) in enumerate(latency_bench.strokes_in_order(strokes)):
                if index == 0 and n > 0:  # a new digit on a clean canvas
                    origin = draw_page.clear_canvas(page)
                page.evaluate(install, draw_page.draw_signature(page))
                runs_before = len(server.runs())
                draw_page.stroke(page, points, origin)
                try:
                    page.wait_for_function(
                        "() => { const b = window.__bench; return b.done !== null && "
                        "(b.update !== null || performance.now() - b.done > 1000); }",
                        timeout=30_000,
                        polling=20,
                    )
                except PlaywrightTimeout:  # counted out and said; the visit goes on
                    print(f"  visitor {number} ({label}): stroke {n + 1} lost (no run within 30 s)", flush=True)
                    chromium.wait_for_run(page, charts=True)
                    times.append((math.nan, math.nan))
                    continue
                bench_record = page.evaluate("window.__bench")
                end = bench_record["update"] if bench_record["update"] is not None else bench_record["done"]
                update = end - bench_record["up"]
                chromium.wait_for_run(page, charts=True)
                server_ms = max((run.ms for run in server.runs()[runs_before:]), default=math.nan)
                times.append((update, server_ms))
                print(
                    f"  visitor {number} ({label}): stroke {n + 1} (digit {digit}): {update:5.0f} ms on screen, "
                    f"server run {server_ms:5.0f} ms  (load {load():.1f})",
                    flush=True,
                )
            context.close()
            visits.append((label, times))
    return visits


# -- the tables -----------------------------------------------------------------------------------------
def page_table(results: list[PageResult], peers: dict[str, PageResult]) -> list[str]:
    """Pages opened by their link, each beside its peer: what the lab adds to Streamlit's and Plotly's own start."""
    rows: list[list[object]] = [
        [result.label, result.charts, f"{result.first:.2f} s", "", "", f"{result.returning:.2f} s", ""]
        for result in peers.values()
    ]
    for result in results:
        label = result.label + (f" (canvas ready {result.canvas:.2f} s)" if result.canvas is not None else "")
        peer = peers.get(result.peer or "")
        over, over_again = (
            (f"{result.first - peer.first:+.2f} s", f"{result.returning - peer.returning:+.2f} s") if peer else ("", "")
        )
        rows.append(
            [label, result.charts, f"{result.first:.2f} s", over, f"{result.server:.2f} s", f"{result.returning:.2f} s"]
            + [over_again]
        )
    headers = [
        "page (opened by its link)",
        "charts",
        "first visit, fully drawn",
        "over its peer",
        "of which the server's run",
        "returning browser",
        "over its peer",
    ]
    return markdown_table(headers, rows, right=[False] + [True] * 6).splitlines()


def navigation_table(results: list[NavigationResult]) -> list[str]:
    headers = [
        "page, by a click in the app (its first visit on the server)",
        "charts",
        "click → fully drawn",
        "of which the server's run",
        "target",
        "",
    ]
    rows = [
        [
            result.label,
            result.charts,
            f"{result.drawn:.2f} s",
            f"{result.server:.2f} s",
            f"≤ {TARGETS['page']} s",
            verdict(result.drawn, TARGETS["page"]),
        ]
        for result in results
    ]
    return markdown_table(headers, rows, right=[False, True, True, True, True, False]).splitlines()


def deskew_table(result: DeskewResult) -> list[str]:
    rows = [
        [
            "click → fully drawn (the server's run)",
            f"{result.switch:.2f} s ({result.server:.2f} s)",
            f"≤ {TARGETS['deskew']} s",
            verdict(result.switch, TARGETS["deskew"]),
        ],
        ["a progress bar showed", f"yes, {result.progress:.2f} s" if result.progress else "no", "only past 1 s", ""],
        ["the canvas moved", f"{result.canvas_moved:.0f} px", "0 px", verdict(result.canvas_moved, 0)],
        [
            "the main area empty at some frame",
            "yes" if result.empty_main else "no",
            "no",
            verdict(float(result.empty_main), 0),
        ],
    ]
    headers = ["Deskew switched on (Draw, opened with it off)", "measured", "target", ""]
    return markdown_table(headers, rows, right=[False, True, True, False]).splitlines()


def stroke_table(visits: list[tuple[str, list[Stroke]]]) -> list[str]:
    """Per kind of visit: first strokes against later ones, median and max, on screen and on the server."""

    def cell(strokes: list[Stroke]) -> str:
        if not strokes:
            return "–"
        screen = [update for update, _ in strokes]
        server = [run for _, run in strokes if not math.isnan(run)]
        return f"{percentile(screen, 50):.0f} ms, {max(screen):.0f} ms" + (
            f" ({percentile(server, 50):.0f} ms)" if server else ""
        )

    rows = []
    for label in dict.fromkeys(label for label, _ in visits):
        kind = [times for visit_label, times in visits if visit_label == label]
        first = [times[0] for times in kind if times and not math.isnan(times[0][0])]
        later = [stroke for times in kind for stroke in times[1:] if not math.isnan(stroke[0])]
        lost = sum(math.isnan(update) for times in kind for update, _ in times)
        mark = verdict(max(update for update, _ in first), TARGETS["stroke"]) if first else ""
        rows.append(
            [
                f"{len(kind)} × {label}",
                sum(len(times) for times in kind),
                cell(first),
                cell(later),
                lost,
                f"≤ {TARGETS['stroke']:.0f} ms",
                mark,
            ]
        )
    headers = [
        "visitors",
        "strokes",
        "first stroke of a visit: median, max (server run median)",
        "later strokes: median, max (server run median)",
        "lost",
        "target (first stroke)",
        "",
    ]
    return markdown_table(headers, rows, right=[False] + [True] * 5 + [False]).splitlines()


# -- the command ----------------------------------------------------------------------------------------
def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.page_bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    app_server.add_data_arguments(parser, data_dir_note=" and not reset between servers")
    parser.add_argument(
        "--pages",
        nargs="+",
        help="only these pages, by name (draw,compare; lesson for every step, lesson-3 for one; "
        "the start of a title also works); default: all",
    )
    parser.add_argument("--skip", nargs="+", help=f"leave out parts: {','.join(PARTS)}")
    parser.add_argument("--no-prepare", action="store_true", help="do not run prepare first (measure without it)")
    parser.add_argument("--strokes", type=int, default=6, help="strokes per visitor (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="visitors of each kind, in turn (default 3)")
    parser.add_argument("--viewport", default="1024x768", help="WIDTHxHEIGHT (default 1024x768, a projector)")
    parser.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / "page-bench")
    args = parser.parse_args(argv)
    args.skip = split_names(args.skip)
    unknown = sorted(set(args.skip) - set(PARTS))
    if unknown:
        parser.error(f"--skip takes {', '.join(PARTS)}, not {', '.join(unknown)}")
    if args.strokes < 1 or args.rounds < 1:
        parser.error("--strokes and --rounds must be at least 1")
    match = re.fullmatch(r"(\d{3,4})x(\d{3,4})", args.viewport.lower())
    if not match:
        parser.error(f"--viewport takes WIDTHxHEIGHT in pixels such as 1024x768, not {args.viewport!r}")
    args.viewport = {"width": int(match.group(1)), "height": int(match.group(2))}
    if "pages" not in args.skip or "navigation" not in args.skip:
        try:
            args.pages = select_pages(page_links(), split_names(args.pages))
        except ValueError as error:
            parser.error(str(error))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    chromium.exit_unless_browser()
    args.log_dir.mkdir(parents=True, exist_ok=True)
    started = load_averages()
    print(f"load average at the start: {started}", flush=True)
    pages = navigation = deskew = strokes = None
    peers: dict[str, PageResult] = {}
    prepare_s = again_s = None
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-page-bench-") as (data_dir, scratch):
        print(f"data folder {data_dir}; server logs in {args.log_dir}", flush=True)
        if not args.no_prepare:
            prepare_s = run_prepare(data_dir)
            again_s = run_prepare(data_dir)
            print(f"prepare: {prepare_s:.1f} s; again, everything there: {again_s:.1f} s", flush=True)
        bench = Bench(data_dir, args.log_dir, args.viewport, PreparedFolder(data_dir) if scratch else None)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = chromium.launch_chromium(playwright)
            try:
                if "pages" not in args.skip:
                    pages, peers = measure_pages(browser, bench, args.pages)
                if "navigation" not in args.skip:
                    navigation = measure_navigation(browser, bench, args.pages)
                if "deskew" not in args.skip:
                    deskew = measure_deskew(browser, bench)
                    print(f"Deskew switch: {deskew}", flush=True)
                if "strokes" not in args.skip:
                    strokes = measure_strokes(browser, bench, args.strokes, args.rounds)
            finally:
                browser.close()
    ended = load_averages()

    width, height = args.viewport["width"], args.viewport["height"]
    print()
    print(
        f"Naive Bayes Lab: every page on a fresh server {'after `prepare`' if prepare_s is not None else 'without `prepare`'}"
        f" ({width}×{height}; server and Chromium on the same machine). "
        f"Load average at the start {started}, at the end {ended}."
    )
    if prepare_s is not None:
        print(f"\n`python -m nbcore prepare` on a fresh data folder: {prepare_s:.1f} s; again: {again_s:.1f} s")
    if pages:
        print()
        print("\n".join(page_table(pages, peers)))
    if navigation:
        print()
        print("\n".join(navigation_table(navigation)))
    if deskew:
        print()
        print("\n".join(deskew_table(deskew)))
    if strokes:
        print()
        print("\n".join(stroke_table(strokes)))
    if bench.written:
        print("\nWhat servers wrote into the data folder after `prepare` (removed before the next server):")
        for name, paths in bench.written.items():
            print(f"- {name}: {brief(paths)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
