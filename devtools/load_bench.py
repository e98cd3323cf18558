"""A classroom at once: N students on the Draw page of one server, measured.

    python -m devtools.load_bench [--sessions 10 30 60] [--duration 60] [--stagger 1] [--think 2 5] [--step-px 12]

For each N: a fresh ``streamlit run app.py`` (with NBCORE_LOG_RERUN_MS=1) that one visitor warms
up (MNIST loaded, models trained), then N browser sessions: Playwright contexts on ONE Chromium,
driven concurrently from one asyncio loop, started ``--stagger`` seconds apart, each going
straight to /draw (as a link handed out in class would) and, until ``--duration`` seconds after
the last one has loaded, repeating:

  draw a digit (1, 7, 0, 3, 2 in turn, one stroke each) -> wait for the prediction;   think;
  move the sidebar's alpha slider one stop (right, next time left) -> wait for the run;   think;
  Clear -> wait for the blank prompt;   think   (think = uniform in ``--think`` seconds).

A stroke is Playwright mouse moves every ``--step-px`` pixels (12 by default, what a 60 Hz pointer reports
on a quick stroke; until 23 Nov 2026 it was 5, which cost each page about 230 ms of main-thread time per
stroke on this machine's shared cores).

Reported per N, over the steady part (actions started after every session had loaded):

* errors: an exception box or st.error on a page, a prediction / run / page load that did not
  come within ``--timeout``, a lost connection, any Playwright error (first few printed);
* stroke latency p50 / p95: the browser's pointerup to the animation frame after the prediction
  area changed, timed in the page (performance.now). Also how many predictions differed from the digit drawn;
* slider latency: the keydown to the end of the run it caused (the sidebar shows the new alpha);
* server RSS: VmRSS summed over the server's process group (/proc, no psutil) after warm-up
  (baseline) and at its peak; per session = (peak - baseline) / N;
* the server's own time per script run (app.py's wall time, from its NBCORE_RERUN log lines)
  and its CPU time per run (utime + stime of the process group / runs in the window).

Everything runs on this machine: the browser's CPU competes with the server's, so latencies are
an upper bound for a server with students on their own computers. Exit code 0 when the targets
hold (zero errors at every N, p95 <= 1.5 s at 30, RSS <= 2 GB at the largest N).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from devtools import app_server, chromium, page_checks, rerun_log
from devtools.app_server import REPO
from devtools.async_draw import (
    PAGE_STATE_JS,
    STROKE_STEP_PX,
    clear,
    draw_and_time,
    move_alpha_and_time,
    open_draw_page,
)
from devtools.bench_report import load, load_averages, markdown_table, percentile
from devtools.procfs import RssSampler, group_cpu_seconds, group_pids, group_rss_mb, set_nice
from nbcore.models.softmax_cache import load_or_train_softmax

# the ones whose stroke starts in the canvas's left half, which is on screen even at a narrow viewport
DIGIT_CYCLE = (1, 7, 0, 3, 2)
VIEWPORT = {"width": 1000, "height": 700}
TARGETS = {"p95_at_30_s": 1.5, "rss_gb": 2.0}


# -- one student ------------------------------------------------------------------------------
@dataclass
class Record:
    session: int
    kind: str  # "stroke", "slider", "load"
    started: float  # time.monotonic()
    seconds: float
    digit: int | None = None
    shown: str | None = None


@dataclass
class Phase:
    sessions: int
    records: list[Record] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    loaded: int = 0
    all_loaded: asyncio.Event = field(default_factory=asyncio.Event)
    steady_from: float = math.inf  # monotonic s: once every session has loaded
    end_at: float = math.inf  # monotonic s: steady_from + the duration

    timeouts: list[str] = field(default_factory=list)

    def error(self, session: int, what: str) -> None:
        self.errors.append(f"session {session}: {what}")

    def failed(self, session: int, where: str, error: Exception) -> None:
        """A Playwright timeout is the client giving up (this machine's browser may be starved); the rest are errors."""
        text = f"{where}{type(error).__name__}: {str(error).splitlines()[0][:200]}"
        if type(error).__name__ == "TimeoutError":
            self.timeouts.append(f"session {session}: {text}")
        else:
            self.error(session, text)


async def check_page(page, phase: Phase, index: int, where: str) -> bool:
    problems = await page.evaluate(page_checks.PAGE_PROBLEMS_JS)
    state = await page.evaluate(PAGE_STATE_JS)
    if problems:
        phase.error(index, f"{where}: " + " | ".join(problems)[:300])
    if state["connection"] != "CONNECTED":
        phase.error(index, f"{where}: connection {state['connection']}")
    return not problems and state["connection"] == "CONNECTED"


async def student(browser, url: str, index: int, phase: Phase, args) -> None:
    rng = random.Random(index)
    timeout_ms = args.timeout * 1000
    await asyncio.sleep(index * args.stagger)
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(timeout_ms)
    page = await context.new_page()
    page.on("pageerror", lambda error: phase.error(index, f"page error: {error}"[:300]))
    try:
        started = time.monotonic()
        try:
            origin = await open_draw_page(page, url, max(timeout_ms, args.load_timeout * 1000))
            phase.records.append(Record(index, "load", started, time.monotonic() - started))
        except Exception as error:  # noqa: BLE001 - every failure is counted
            phase.failed(index, "page load: ", error)
            return
        finally:
            phase.loaded += 1
            if phase.loaded == phase.sessions:
                phase.all_loaded.set()
        await phase.all_loaded.wait()
        step = rng.randrange(len(DIGIT_CYCLE))
        right = True
        while time.monotonic() < phase.end_at:
            digit = DIGIT_CYCLE[step % len(DIGIT_CYCLE)]
            step += 1
            try:
                began = time.monotonic()
                seconds, shown = await draw_and_time(page, digit, origin, timeout_ms, args.step_px)
                phase.records.append(Record(index, "stroke", began, seconds, digit, shown))
                if not await check_page(page, phase, index, f"after drawing a {digit}"):
                    return
                await asyncio.sleep(rng.uniform(*args.think))
                began = time.monotonic()
                seconds = await move_alpha_and_time(page, right, timeout_ms)
                right = not right
                phase.records.append(Record(index, "slider", began, seconds))
                if not await check_page(page, phase, index, "after moving alpha"):
                    return
                await asyncio.sleep(rng.uniform(*args.think))
                await clear(page, timeout_ms)
                if not await check_page(page, phase, index, "after Clear"):
                    return
                await asyncio.sleep(rng.uniform(*args.think))
            except Exception as error:  # noqa: BLE001
                phase.failed(index, "", error)
                return
    finally:
        await context.close()


# -- one N ------------------------------------------------------------------------------------


async def warm_up(browser, url: str, step_px: float) -> None:
    """One visitor: loads MNIST and the models, draws a digit, moves alpha both ways, clears."""
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    origin = await open_draw_page(page, url, 300_000)
    await draw_and_time(page, 1, origin, 120_000, step_px)
    await move_alpha_and_time(page, True, 120_000)
    await move_alpha_and_time(page, False, 120_000)
    await clear(page, 120_000)
    await context.close()


async def run_phase(browser, data_dir: Path, log_dir: Path, sessions: int, args) -> dict:
    log_path = log_dir / f"server-{sessions}.log"
    server = app_server.StreamlitServer(data_dir, log_path, extra_env={"NBCORE_LOG_RERUN_MS": "1"})
    server.start()
    try:
        if args.client_nice:  # the server runs at normal priority, the browser below it
            set_nice(group_pids(server.pid), 0)
        server.wait_ready(timeout=120)
        await warm_up(browser, server.url, args.step_px)
        await asyncio.sleep(3)
        pgid = server.pid  # start_new_session: the leader's pid is the group id
        baseline = group_rss_mb(pgid)
        sampler = RssSampler(pgid, client_nice=args.client_nice)
        sampler.start()
        phase = Phase(sessions, all_loaded=asyncio.Event())
        load_before = load()

        async def mark_steady() -> tuple[int, float]:
            await phase.all_loaded.wait()
            phase.steady_from = time.monotonic()
            phase.end_at = phase.steady_from + args.duration
            return len(server.log_text()), group_cpu_seconds(pgid)

        marker = asyncio.create_task(mark_steady())
        phase.end_at = time.monotonic() + 10**6  # set for real once everyone has loaded
        began = time.monotonic()
        await asyncio.gather(*(student(browser, server.url, index, phase, args) for index in range(sessions)))
        log_from, cpu_from = await marker
        log_text, cpu_to, ended = server.log_text(), group_cpu_seconds(pgid), time.monotonic()
        sampler.stop()
        after = group_rss_mb(pgid)
        load_after = load()
    finally:
        server.stop()

    steady = [record for record in phase.records if record.started >= phase.steady_from]
    strokes = [record.seconds for record in steady if record.kind == "stroke"]
    sliders = [record.seconds for record in steady if record.kind == "slider"]
    loads = [record.seconds for record in phase.records if record.kind == "load"]
    wrong = [record for record in steady if record.kind == "stroke" and record.shown != str(record.digit)]
    for line in log_text.splitlines():
        if "Traceback" in line or "Uncaught app exception" in line:
            phase.error(-1, f"server log: {line[:200]}")
    runs = [(run.page, run.ms, run.outcome) for run in rerun_log.parse_runs(log_text[log_from:])]
    run_ms = [ms for _, ms, _ in runs]
    return {
        "sessions": sessions,
        "errors": len(phase.errors),
        "error_samples": phase.errors[:8],
        "client_timeouts": len(phase.timeouts),
        "timeout_samples": phase.timeouts[:8],
        "steady_seconds": ended - phase.steady_from,
        "ramp_seconds": phase.steady_from - began,
        "strokes": len(strokes),
        "stroke_p50": percentile(strokes, 50),
        "stroke_p95": percentile(strokes, 95),
        "stroke_max": max(strokes, default=float("nan")),
        "wrong_predictions": len(wrong),
        "wrong_samples": [(r.digit, r.shown) for r in wrong[:8]],
        "sliders": len(sliders),
        "slider_p50": percentile(sliders, 50),
        "slider_p95": percentile(sliders, 95),
        "load_p50": percentile(loads, 50),
        "load_p95": percentile(loads, 95),
        "rss_baseline_mb": baseline,
        "rss_peak_mb": sampler.peak,
        "rss_after_mb": after,
        "rss_per_session_mb": (sampler.peak - baseline) / sessions,
        "server_runs": len(runs),
        "server_run_ms_p50": percentile(run_ms, 50),
        "server_run_ms_p95": percentile(run_ms, 95),
        "server_run_ms_mean": statistics.fmean(run_ms) if run_ms else float("nan"),
        "server_cpu_ms_per_run": (cpu_to - cpu_from) * 1000 / max(len(runs), 1),
        "server_cpu_cores": (cpu_to - cpu_from) / max(ended - phase.steady_from, 1e-9),
        "run_outcomes": {outcome: sum(1 for _, _, o in runs if o == outcome) for outcome in {o for *_, o in runs}},
        "load_average": [load_before, load_after],
    }


def print_table(results: list[dict]) -> None:
    print()
    headers = [
        "sessions",
        "errors",
        "client timeouts",
        "strokes",
        "stroke p50",
        "stroke p95",
        "slider p50 / p95",
        "server RSS (idle → peak)",
        "RSS per session",
        "server ms per run p50 / p95",
        "server CPU ms per run",
        "page load p95",
    ]
    rows = [
        [
            r["sessions"],
            r["errors"],
            r["client_timeouts"],
            r["strokes"],
            f"{r['stroke_p50']:.2f} s",
            f"{r['stroke_p95']:.2f} s",
            f"{r['slider_p50']:.2f} / {r['slider_p95']:.2f} s",
            f"{r['rss_baseline_mb']:.0f} → {r['rss_peak_mb']:.0f} MB",
            f"{r['rss_per_session_mb']:.1f} MB",
            f"{r['server_run_ms_p50']:.0f} / {r['server_run_ms_p95']:.0f} ms",
            f"{r['server_cpu_ms_per_run']:.0f} ms",
            f"{r['load_p95']:.1f} s",
        ]
        for r in results
    ]
    print(markdown_table(headers, rows, right=[True] * len(headers)))
    if len(results) >= 2:
        first, last = results[0], results[-1]
        slope = (last["rss_peak_mb"] - first["rss_peak_mb"]) / (last["sessions"] - first["sessions"])
        print(
            f"\nmemory per extra session (peak RSS, {first['sessions']} → {last['sessions']} sessions): {slope:.1f} MB"
        )


async def main_async(args, data_dir: Path) -> list[dict]:
    from playwright.async_api import async_playwright

    results = []
    async with async_playwright() as playwright:
        browser = await chromium.launch_chromium(playwright)
        try:
            for sessions in args.sessions:
                print(f"-- {sessions} sessions: starting a fresh server …", flush=True)
                result = await run_phase(browser, data_dir, args.log_dir, sessions, args)
                results.append(result)
                print(json.dumps(result, indent=None, default=str), flush=True)
        finally:
            await browser.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.load_bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, nargs="+", default=[10, 30, 60])
    parser.add_argument("--duration", type=float, default=60.0, help="steady seconds after the last session loaded")
    parser.add_argument("--stagger", type=float, default=1.0, help="seconds between session starts")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(2.0, 5.0),
        metavar=("MIN", "MAX"),
        help="pause after each action, uniform in [MIN, MAX] seconds",
    )
    parser.add_argument(
        "--step-px",
        type=float,
        default=STROKE_STEP_PX,
        help="pointer moves every this many px along a stroke (12: a 60 Hz pointer at 720 px/s, "
        "a quick stroke; each synthetic move costs this machine's shared CPU)",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a wait counts as an error")
    parser.add_argument(
        "--load-timeout",
        type=float,
        default=180.0,
        help="seconds a session may take to open /draw while the others are loading too",
    )
    app_server.add_data_arguments(parser)
    parser.add_argument(
        "--client-nice",
        type=int,
        default=10,
        help="run the browser (and this script) at this niceness and the server at 0, so that "
        "the server's numbers are not set by the browser's CPU use (0: leave priorities)",
    )
    parser.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / "load-bench")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    chromium.exit_unless_browser()
    args.log_dir.mkdir(parents=True, exist_ok=True)
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-load-") as (data_dir, _):
        # train the softmax regression once, into the data dir's disk cache, so that every server
        # below starts the same way (a server that has to train first peaks higher: see the README)
        import nbcore

        train_images, train_labels = nbcore.load_mnist(True, root=data_dir, download=False)
        load_or_train_softmax(train_images, train_labels, cache_dir=data_dir / "models")
        del train_images, train_labels
        print(
            f"data dir {data_dir}; server logs in {args.log_dir}; load average {load_averages()}",
            flush=True,
        )
        if args.client_nice:
            os.nice(args.client_nice)  # inherited by the Playwright driver and Chromium
        results = asyncio.run(main_async(args, data_dir))
    print_table(results)
    for r in results:
        for line in r["error_samples"]:
            print(f"  N={r['sessions']} error: {line}")
        for line in r["timeout_samples"]:
            print(f"  N={r['sessions']} client timeout: {line}")
        if r["wrong_predictions"]:
            print(
                f"  N={r['sessions']}: {r['wrong_predictions']} predictions differ from the digit drawn "
                f"(drawn, shown): {r['wrong_samples']}"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    ok = all(r["errors"] == 0 for r in results)
    ok &= all(r["stroke_p95"] <= TARGETS["p95_at_30_s"] for r in results if r["sessions"] == 30)
    ok &= results[-1]["rss_peak_mb"] <= TARGETS["rss_gb"] * 1024
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
