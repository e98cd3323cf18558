"""Latency of the Draw page and cold start of the app, measured in Chromium against a real server.

    python -m devtools.latency_bench [--mnist-source DIR | --data-dir DIR] [--strokes 20]

* Stroke latency: on /draw, ``--strokes`` mouse strokes (digits 1, 7, 4, 0, 3 in turn, the
  canvas cleared between digits, so that every stroke changes the drawing). Per stroke: from
  the browser's ``pointerup`` event (the mouse button released) to the first animation frame
  after the prediction area (the "Naive Bayes prediction" metric and the captions under it)
  changed on screen, timed in
  the page (``performance.now()``, a MutationObserver, requestAnimationFrame). Also reported:
  mouse-up to the end of that script run. Two untimed warm-up strokes come first.
* Cold start: from ``streamlit run`` (process start) to the Home page's "Test accuracy" metric
  on screen and to the first run fully drawn (the target applies to this), both timed in the
  page, in a browser that is already running, three times, each with a fresh server process:
  1. MNIST as the *.gz files only (a fresh scratch copy; with ``--data-dir`` whatever that folder
     holds): the server extracts them and decodes them with torchvision;
  2. the data on disk as the first start left it (extracted files, decoded arrays), the trained-model
     cache (``models/``) deleted;
  3. everything cached, as the second start left it.

Prints a markdown table. Targets: stroke p95 <= 300 ms, cold start with the data on disk <= 8 s, cached
<= 5 s. The first start from the *.gz files is reported without a target: it decodes MNIST once per data
folder (like a download), and importing torch + torchvision for that alone takes over 5 s here.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from devtools import app_server, bench_harness, chromium, draw_page, page_checks, rerun_log
from devtools.app_server import REPO
from devtools.bench_report import load_averages, markdown_table, percentile, verdict

STROKE_PLAN = (1, 7, 4, 0, 3)
TARGETS = {"stroke": 300.0, "cold": 8.0, "cached": 5.0}

INSTALL_PROBE_JS = """sig => {
    window.__bench = {up: null, update: null, done: null, sawRunning: false, baseline: sig};
    const app = document.querySelector('[data-testid="stApp"]');
    if (!window.__benchInstalled) {
        window.__benchInstalled = true;
        window.addEventListener('pointerup', () => {
            const b = window.__bench;
            if (b && b.up === null) b.up = performance.now();
        }, true);
        new MutationObserver(records => {
            const b = window.__bench;
            if (!b || b.up === null) return;
            const state = app.getAttribute('data-test-script-state');
            // a quick run can go running -> notRunning before this callback: the records keep the old value
            if (state === 'running' || records.some(record => record.oldValue === 'running')) b.sawRunning = true;
            if (state === 'notRunning' && b.sawRunning && b.done === null) b.done = performance.now();
        }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
        new MutationObserver(() => {
            const b = window.__bench;
            if (!b || b.up === null || b.update !== null || b.pending) return;
            const now = (SIGNATURE)();
            if (now !== b.baseline && now.includes('Naive Bayes prediction')) {
                b.pending = true;
                requestAnimationFrame(() => { b.update = performance.now(); b.signature = now; });
            }
        }).observe(document.body, {subtree: true, childList: true, characterData: true});
    }
}"""


def strokes_in_order(total: int):
    """(digit, stroke index, strokes of that digit, points), cycling through STROKE_PLAN."""
    count = 0
    while True:
        for digit in STROKE_PLAN:
            strokes = draw_page.DIGITS[digit]
            for index, points in enumerate(strokes):
                yield digit, index, len(strokes), points
                count += 1
                if count == total:
                    return


def measure_strokes(browser, server, total: int, warmup: int = 2) -> dict[str, list[float]]:
    context = browser.new_context(viewport=chromium.VIEWPORT)
    page = context.new_page()
    page.goto(server.url + "/draw", timeout=60_000)
    chromium.wait_for_run(page, timeout=180, settle=0.3)
    install = INSTALL_PROBE_JS.replace("SIGNATURE", draw_page.DRAW_SIGNATURE_JS)
    results: dict[str, list[float]] = {"update": [], "done": [], "warmup": [], "server": []}
    origin = draw_page.canvas_origin(page)
    for n, (digit, index, count, points) in enumerate(strokes_in_order(total + warmup)):
        if index == 0 and n > 0:  # a new digit on a clean canvas
            origin = draw_page.clear_canvas(page)
        page.evaluate(install, draw_page.draw_signature(page))
        runs_before = len(server_run_ms(server))
        draw_page.stroke(page, points, origin)
        # the run has finished and the prediction area changed (or nothing changed a second after the run)
        page.wait_for_function(
            "() => { const b = window.__bench; return b.done !== null && "
            "(b.update !== null || performance.now() - b.done > 1000); }",
            timeout=60_000,
            polling=20,
        )
        bench = page.evaluate("window.__bench")
        done = bench["done"] - bench["up"]
        if bench["update"] is None:  # same text as before: count the end of the run instead
            bench["update"], bench["signature"] = bench["done"], "(no visible change; run end used) "
        update = bench["update"] - bench["up"]
        chromium.wait_for_run(page, charts=False)
        runs = server_run_ms(server)[runs_before:]
        if n < warmup:
            results["warmup"].append(update)
            label = "warm-up"
        else:
            results["update"].append(update)
            results["done"].append(done)
            if runs:
                results["server"].append(max(runs))
            label = f"stroke {n - warmup + 1:2d}"
        print(
            f"  {label}: digit {digit} stroke {index + 1}/{count}: update {update:6.0f} ms, "
            f"run done {done:6.0f} ms, server run(s) {runs} ms  [{bench['signature'][:60]}…]",
            flush=True,
        )
    context.close()
    return results


def server_run_ms(server) -> list[float]:
    """Durations of the Draw page's script runs so far, from the server log (NBCORE_LOG_RERUN_MS=1 lines)."""
    return [run.ms for run in rerun_log.parse_runs(server.log_text()) if run.page == "draw"]


# Installed before any page script: wall-clock times (ms since the epoch, the same clock as the
# server's start time) of the first animation frame after Home's "Test accuracy" metric is in the
# page, and after the run is fully drawn (chromium.wait_for_run's condition, charts included).
# Timed in the page, so Playwright's own polling adds nothing.
COLD_PROBE_JS = """(() => {
    window.__cold = {metric: null, drawn: null};
    const metricShown = () => [...document.querySelectorAll('[data-testid="stMetric"]')]
        .some(m => m.textContent.includes('Test accuracy'));
    const fullyDrawn = () => {
        const app = document.querySelector('[data-testid="stApp"]');
        const main = document.querySelector('[data-testid="stMainBlockContainer"]');
        return !!app && !!main && app.getAttribute('data-test-connection-state') === 'CONNECTED'
            && app.getAttribute('data-test-script-state') === 'notRunning'
            && !main.querySelector('[data-testid="stSkeleton"]');
    };
    const stamp = key => requestAnimationFrame(() => { window.__cold[key] = Date.now(); });
    const check = () => {
        const cold = window.__cold;
        if (cold.metric === null && !cold.metricSeen && metricShown()) { cold.metricSeen = true; stamp('metric'); }
        if (cold.metricSeen && !cold.drawnSeen && fullyDrawn()) { cold.drawnSeen = true; stamp('drawn'); }
    };
    new MutationObserver(check).observe(document, {subtree: true, childList: true, characterData: true,
                                                   attributes: true});
})()"""


def measure_cold_start(browser, data_dir: Path, log_path: Path) -> dict[str, float]:
    """Seconds from process start to: health ok, "Test accuracy" on screen, the Home run fully drawn."""
    context = browser.new_context(viewport=chromium.VIEWPORT)
    context.add_init_script(COLD_PROBE_JS)
    page = context.new_page()
    started_wall = time.time()
    server = app_server.StreamlitServer(data_dir, log_path).start()
    try:
        healthy = server.wait_ready(timeout=120)
        page.goto(server.url + "/", timeout=120_000)
        page.wait_for_function(
            "() => window.__cold.drawn !== null || !!document.querySelector('[data-testid=\"stException\"]')",
            timeout=300_000,
        )
        problems = page_checks.page_problems(page)
        if problems:
            raise RuntimeError(f"the first page failed: {problems}; server log {log_path}")
        cold = page.evaluate("() => window.__cold")
    finally:
        context.close()
        server.stop()
    return {
        "health": healthy,
        "metric": cold["metric"] / 1000 - started_wall,
        "drawn": cold["drawn"] / 1000 - started_wall,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.latency_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    app_server.add_data_arguments(parser, data_dir_note=" (then the first cold start may already find extracted files)")
    parser.add_argument("--strokes", type=int, default=20)
    parser.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / "latency-bench")
    args = parser.parse_args()

    chromium.exit_unless_browser()
    args.log_dir.mkdir(parents=True, exist_ok=True)
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-latency-") as (data_dir, _):
        load_before = load_averages()
        with bench_harness.launched_chromium() as browser:
            print(f"data dir: {data_dir}; server logs in {args.log_dir}", flush=True)
            first = measure_cold_start(browser, data_dir, args.log_dir / "cold-1.log")
            print(f"cold start (MNIST as *.gz only): {first}", flush=True)
            shutil.rmtree(data_dir / "models", ignore_errors=True)  # trained-model caches (the softmax weights)
            cold = measure_cold_start(browser, data_dir, args.log_dir / "cold-2.log")
            print(f"cold start (data on disk, no model cache): {cold}", flush=True)
            cached = measure_cold_start(browser, data_dir, args.log_dir / "cold-3.log")
            print(f"cold start (caches on disk): {cached}", flush=True)
            with app_server.StreamlitServer(
                data_dir, args.log_dir / "strokes.log", extra_env={"NBCORE_LOG_RERUN_MS": "1"}
            ) as server:
                warm = browser.new_context(viewport=chromium.VIEWPORT)  # train the default model first
                warm_page = warm.new_page()
                warm_page.goto(server.url + "/", timeout=120_000)
                warm_page.locator('[data-testid="stMetric"]').first.wait_for(timeout=300_000)
                warm.close()
                strokes = measure_strokes(browser, server, args.strokes)
            browser.close()

    update, done = strokes["update"], strokes["done"]

    print()
    print(
        f"Naive Bayes Lab latency ({len(update)} strokes after {len(strokes['warmup'])} warm-up; "
        f"load average {load_before} before, {load_averages()} after; "
        f"server and Chromium on the same machine)"
    )
    print()
    rows: list[list[object]] = [
        [
            "stroke: mouse-up → prediction updated on screen",
            f"{percentile(update, 50):.0f} ms",
            f"{percentile(update, 95):.0f} ms",
            f"{max(update):.0f} ms",
            f"p95 ≤ {TARGETS['stroke']:.0f} ms",
            verdict(percentile(update, 95), TARGETS["stroke"]),
        ],
        [
            "stroke: mouse-up → script run finished",
            f"{percentile(done, 50):.0f} ms",
            f"{percentile(done, 95):.0f} ms",
            f"{max(done):.0f} ms",
            "",
            "",
        ],
    ]
    server_runs = strokes["server"]
    if server_runs:
        rows.append(
            [
                "of which: Draw script run on the server (NBCORE_LOG_RERUN_MS)",
                f"{percentile(server_runs, 50):.0f} ms",
                f"{percentile(server_runs, 95):.0f} ms",
                f"{max(server_runs):.0f} ms",
                "",
                "",
            ]
        )
    # the start-up figures below, in the same table: their own header row after an empty one
    rows.append([""] * 6)
    rows.append(["measurement", "health ok", "metric visible", "page fully drawn", "target", ""])
    starts = [
        ("first start ever: MNIST as the four *.gz files only (extract, decode with torchvision, once)", first, None),
        ("cold start, data on disk (extracted and decoded), no trained-model cache", cold, TARGETS["cold"]),
        ("cold start, disk caches written", cached, TARGETS["cached"]),
    ]
    for label, start, target in starts:
        rows.append(
            [
                label,
                f"{start['health']:.1f} s",
                f"{start['metric']:.1f} s",
                f"**{start['drawn']:.1f} s**",
                "one-off" if target is None else f"≤ {target:.0f} s",
                "" if target is None else verdict(start["drawn"], target),
            ]
        )
    headers = ["measurement", "p50", "p95", "max", "target", ""]
    print(markdown_table(headers, rows, right=[False, True, True, True, True, False]))
    print()
    print(
        'Cold start = process start of `streamlit run app.py` → Home\'s "Test accuracy" metric visible, and '
        '→ "fully drawn" (the run finished and every chart rendered; the targets apply to this one).'
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
