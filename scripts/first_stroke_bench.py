"""The first stroke of a visit against the later ones, in Chromium against a real server, in the same run.

    python scripts/first_stroke_bench.py [--mnist-source DIR | --data-dir DIR] [--sessions 3] [--strokes 5]

One fresh ``streamlit run`` (started before the class, as a teacher's is: entered once its health check
answers and it has gone idle), then ``--sessions`` visitors in turn, each a fresh browser context (nothing
cached) opening /draw from a link and drawing ``--strokes`` strokes (digits 1, 7, 4, 0, 3 as
scripts/latency_bench.py draws them, the canvas cleared between digits). The first visitor is the server
process's first; the others find the server warm but bring a fresh browser. Per stroke: mouse-up to the
prediction updated on screen (latency_bench's probe) and the server's longest Draw run meanwhile
(NBCORE_LOG_RERUN_MS). No warm-up stroke: the first one is what is measured.

Prints a line per stroke, then a markdown table: the first stroke of each visit against the later
strokes (median and max of each) and their ratio, with the load average. Target: the first stroke within
300 ms, like the later ones. On a shared machine read the figures beside the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import latency_bench  # noqa: E402

from devtools import harness  # noqa: E402

TARGET_MS = 300.0


def wait_idle(server: harness.StreamlitServer, below: float = 0.05, window: float = 1.0, timeout: float = 120.0):
    """Wait until the server process used under ``below`` of a core over ``window`` s (or ``timeout`` passed)."""
    import psutil  # noqa: PLC0415 (a development dependency)

    assert server.process is not None
    process = psutil.Process(server.process.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = sum(process.cpu_times()[:2])
        time.sleep(window)
        if sum(process.cpu_times()[:2]) - before < below * window:
            return


def visit(browser, server, number: int, strokes: int) -> list[tuple[float, float]]:
    """One visitor: open /draw, draw ``strokes`` strokes; per stroke (ms on screen, ms of the server's run), NaN
    for a stroke that brought no run."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: PLC0415

    install = latency_bench.INSTALL_PROBE_JS.replace("SIGNATURE", harness.DRAW_SIGNATURE_JS)
    context = browser.new_context(viewport=harness.VIEWPORT)
    page = context.new_page()
    page.goto(server.url + "/draw", timeout=180_000)
    harness.wait_for_run(page, timeout=300, settle=0.3)
    wait_idle(server)  # the page's own loading (a first visit trains the models) is over before the first stroke
    page.wait_for_timeout(1000)  # a student looks before drawing
    origin = harness.canvas_origin(page)
    times = []
    for n, (digit, index, _count, points) in enumerate(latency_bench.strokes_in_order(strokes)):
        if index == 0 and n > 0:  # a new digit on a clean canvas
            origin = harness.clear_canvas(page)
        page.evaluate(install, harness.draw_signature(page))
        runs_before = len(latency_bench.server_run_ms(server))
        harness.stroke(page, points, origin)
        try:
            page.wait_for_function(
                "() => { const b = window.__bench; return b.done !== null && "
                "(b.update !== null || performance.now() - b.done > 1000); }",
                timeout=60_000,
                polling=20,
            )
        except PlaywrightTimeout:  # no run seen (a loaded machine): counted out, said, and the visit goes on
            print(f"  visitor {number} stroke {n + 1}: lost (no run within 60 s), left out", flush=True)
            harness.wait_for_run(page, timeout=120, charts=True)
            times.append((float("nan"), float("nan")))
            continue
        bench = page.evaluate("window.__bench")
        update = (bench["update"] if bench["update"] is not None else bench["done"]) - bench["up"]
        harness.wait_for_run(page, charts=True)
        server_ms = max(latency_bench.server_run_ms(server)[runs_before:], default=float("nan"))
        times.append((update, server_ms))
        print(
            f"  visitor {number} stroke {n + 1} (digit {digit}): {update:5.0f} ms on screen, "
            f"server run {server_ms:5.0f} ms  (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    context.close()
    return times


def summary(label: str, values: list[float]) -> str:
    return f"{label}: median {latency_bench.percentile(values, 50):.0f} ms, max {max(values):.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    harness.add_data_arguments(parser)
    parser.add_argument("--sessions", type=int, default=3, help="visitors, each a fresh browser context")
    parser.add_argument("--strokes", type=int, default=5, help="strokes per visitor (at least 2)")
    parser.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / "first-stroke-bench")
    args = parser.parse_args()
    if args.sessions < 1 or args.strokes < 2:
        parser.error("needs at least one session of at least two strokes")

    harness.exit_unless_browser()
    args.log_dir.mkdir(parents=True, exist_ok=True)
    with harness.script_data_dir(args.data_dir, args.mnist_source, "nb-first-stroke-") as (data_dir, _):
        from playwright.sync_api import sync_playwright

        load_before = os.getloadavg()
        with sync_playwright() as playwright:
            browser = harness.launch_chromium(playwright)
            print(f"data dir: {data_dir}; server log in {args.log_dir}", flush=True)
            with harness.StreamlitServer(
                data_dir, args.log_dir / "server.log", extra_env={"NBCORE_LOG_RERUN_MS": "1"}, ready_timeout=180
            ) as server:
                wait_idle(server)  # start-up work (MNIST, imports) done, as on a server started before the class
                sessions = [visit(browser, server, number + 1, args.strokes) for number in range(args.sessions)]
            browser.close()
        load_after = os.getloadavg()

    server_first = sessions[0][0]  # the first stroke the server process ever took
    sessions = [times for times in sessions if times[0][0] == times[0][0]]  # a lost first stroke: no pair
    if not sessions:
        print("every first stroke was lost: no figures", file=sys.stderr)
        return 1
    first = [times[0][0] for times in sessions]
    later = [update for times in sessions for update, _ in times[1:] if update == update]
    first_server = [times[0][1] for times in sessions]
    later_server = [server for times in sessions for _, server in times[1:]]
    median_later = latency_bench.percentile(later, 50)

    def row(label: str, values: list[float], runs: list[float]) -> str:
        runs = [ms for ms in runs if ms == ms]  # a stroke with no run logged is NaN
        server_median = f"{latency_bench.percentile(runs, 50):.0f} ms" if runs else "–"
        return (
            f"| {label} | {len(values)} | {latency_bench.percentile(values, 50):.0f} ms | {max(values):.0f} ms "
            f"| {server_median} |"
        )

    print()
    print(
        f"First stroke against later strokes: {args.sessions} fresh visitors of one fresh server, {args.strokes} "
        f"strokes each; {os.cpu_count()} CPUs, load average {load_before[0]:.1f} / {load_before[1]:.1f} (1 / 5 min) "
        f"before, {load_after[0]:.1f} / {load_after[1]:.1f} after; server and Chromium on the same machine"
    )
    print()
    print("| strokes | n | median (mouse-up → prediction on screen) | max | server run, median |")
    print("|---|---:|---:|---:|---:|")
    print(row("first of a visit", first, first_server))
    if server_first[0] == server_first[0]:
        print(row("first of the server's first visit", [server_first[0]], [server_first[1]]))
    print(row("later", later, later_server))
    print()
    print(
        f"ratio first / later: medians {latency_bench.percentile(first, 50) / median_later:.2f}, "
        f"max of the first strokes / median of the later {max(first) / median_later:.2f}; "
        f"first strokes within {TARGET_MS:.0f} ms: {sum(ms <= TARGET_MS for ms in first)} of {len(first)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
