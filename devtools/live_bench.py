"""The Draw canvas's live reading (issue 32): what it costs in the browser, and what it changes on the server.

    python -m devtools.live_bench [--before CHECKOUT] [--rounds 3] [--cpu-slowdown 1 4] [--parity 2000] [--parts 1 2 4]

Parts (each prints a table):

1. pointer move -> live verdict, in Chromium on /draw: the mouse draws the browser tests' digits (moves every 12 px,
   a quick 60 Hz stroke), ``--rounds`` times; the canvas keeps, per live update, the script time (read the canvas
   back, frame, score both models, draw the panel) and the time from the first pointer event it answers to the
   end of that script (canvas.liveTimes, lab/digit_canvas.js). p50 / p95 per CPU slowdown (DevTools throttling,
   4 = a slow phone).
2. server runs per drawn digit, before (``--before``: another checkout, e.g. this branch's base,
   ``git archive $(git merge-base HEAD main) | tar -x -C DIR``)
   and after (this one): the NBCORE_RERUN lines (lab/runs.py) each server logs while Chromium draws the same digits,
   and their median time.
3. bytes a browser receives (devtools/streamlit_client.py keeping messages as the browser does): opening /draw, each
   recorded drawing sent, an alpha change and back, Clear; before and after. And the models' payload (what
   lab/live_models.py sends per settings change): JSON bytes, gzip'd, deflated (the websocket's compression, when on).
4. parity: devtools/live_reading.measure_parity over ``--parity`` MNIST test digits drawn back (the test uses 400).

Students per process at p95 <= 300 ms: devtools/load_protocol with ``--message-cache`` and ``--app`` (see
docs/benchmarks.md). Needs Chromium, MNIST ($NBCORE_DATA_DIR or ../shared/mnist).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
import zlib
from pathlib import Path

from devtools import app_server, async_draw, chromium, draw_page, live_reading
from devtools.app_server import REPO
from devtools.bench_report import markdown_table, percentile
from devtools.streamlit_client import StreamlitClient

RECORDED = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
SHAPES = {**{f"{d}": s for d, s in draw_page.DIGITS.items()}, **{f"{d}'": s for d, s in async_draw.DIGITS.items()}}
RERUN = re.compile(r"NBCORE_RERUN page=(\S+) ms=([0-9.]+) outcome=(\S+) scope=(\S+)")


def clear(page) -> None:
    """Press Clear and wait for the blank canvas's prompt (generous: a throttled CPU on a loaded machine)."""
    chromium.run_after(
        page,
        lambda: page.get_by_role("button", name="Clear").click(),
        shown_js=f"() => document.body.innerText.includes({draw_page.BLANK_PROMPT!r})",
        timeout=240,
        charts=False,
    )


def draw_digits(page, rounds: int) -> int:
    """Draw every shape ``rounds`` times with the mouse, Clear between digits; the number of digits drawn."""
    drawn = 0
    for _ in range(rounds):
        for strokes in SHAPES.values():
            origin = draw_page.canvas_origin(page)
            for points in strokes:
                draw_page.stroke(page, points, origin, step_px=async_draw.STROKE_STEP_PX)
            draw_page.wait_for_prediction(page, timeout=60)
            drawn += 1
            clear(page)
    return drawn


def live_timing(browser, url: str, rounds: int, slowdown: float) -> dict:
    """Part 1 for one CPU slowdown: p50/p95 of the script time per live update and of pointer -> verdict."""
    page = browser.new_page(viewport=chromium.VIEWPORT)
    try:
        if slowdown != 1:
            page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
        page.goto(f"{url}/draw", timeout=180_000)
        chromium.wait_for_run(page, timeout=180)
        times: list[dict] = []
        collect = "c => { const t = c.liveTimes || []; c.liveTimes = []; return t; }"
        for _ in range(rounds):
            for strokes in SHAPES.values():
                origin = draw_page.canvas_origin(page)
                for points in strokes:
                    draw_page.stroke(page, points, origin, step_px=async_draw.STROKE_STEP_PX)
                page.wait_for_timeout(100)
                times += draw_page.canvas_locator(page).evaluate(collect)
                draw_page.wait_for_prediction(page, timeout=60)
                clear(page)
        script = [t["script"] for t in times]
        since = [t["sinceMove"] for t in times if t["sinceMove"] is not None]
        return {
            "slowdown": slowdown,
            "updates": len(times),
            "script_p50": percentile(script, 50),
            "script_p95": percentile(script, 95),
            "since_p50": percentile(since, 50),
            "since_p95": percentile(since, 95),
        }
    finally:
        page.close()


def server_runs(browser, app: str, data_dir: Path, log_dir: Path, name: str, rounds: int) -> dict:
    """Part 2 for one checkout: runs of the Draw page per digit drawn in Chromium, and their median ms."""
    log = log_dir / f"{name}.log"
    with app_server.StreamlitServer(
        data_dir, log, app=app, extra_env={"NBCORE_LOG_RERUN_MS": "1"}, ready_timeout=180
    ) as server:
        page = browser.new_page(viewport=chromium.VIEWPORT)
        try:
            page.goto(f"{server.url}/draw", timeout=180_000)
            chromium.wait_for_run(page, timeout=180)
            before = len(RERUN.findall(server.log_text()))
            drawn = draw_digits(page, rounds)
            runs = RERUN.findall(server.log_text())[before:]
        finally:
            page.close()
        bytes_seen = protocol_bytes(server.url)
    strokes_per_digit = sum(len(s) for s in SHAPES.values()) / len(SHAPES)
    stroke_runs = [float(ms) for page_name, ms, _, scope in runs if page_name == "draw" and scope == "fragment"]
    return {
        "name": name,
        "digits": drawn,
        "strokes_per_digit": strokes_per_digit,
        "runs_per_digit": len(runs) / drawn,  # strokes and Clear
        "run_ms_p50": statistics.median(stroke_runs) if stroke_runs else float("nan"),
        "bytes": bytes_seen,
    }


def protocol_bytes(url: str) -> dict:
    """Part 3: bytes received for each step by a client that caches messages as the browser does."""
    out: dict[str, list[int]] = {"open": [], "drawing": [], "alpha": [], "clear": []}
    with StreamlitClient(url, timeout=240, message_cache=True) as client:
        before = client.bytes_received
        client.connect(page="draw")
        out["open"].append(client.bytes_received - before)
        key = max((k for k in client.widget_ids if k.startswith("canvas_")), key=lambda k: int(k.split("_")[1]))
        for drawing in RECORDED:
            before = client.bytes_received
            client.component(key, json.loads(drawing["json_value"]))
            out["drawing"].append(client.bytes_received - before)
        for stop in ("2", "1"):
            before = client.bytes_received
            client.select_slider("alpha", stop)
            out["alpha"].append(client.bytes_received - before)
        before = client.bytes_received
        client.click("draw_clear")
        out["clear"].append(client.bytes_received - before)
    return out


def payload_bytes(mnist: dict, cache: Path) -> dict:
    """The models' payload for the default settings: JSON, gzip'd and raw-deflated sizes in bytes."""
    from lab.live_models import payload

    form, bayes, softmax = live_reading.parity_models(mnist, cache)["T=128"]
    text = json.dumps(payload(bayes, softmax, form)).encode()
    deflate = zlib.compressobj(wbits=-15)
    return {
        "json": len(text),
        "gzip": len(gzip.compress(text)),
        "deflate": len(deflate.compress(text) + deflate.flush()),
    }


def load_mnist_arrays(data_dir: Path) -> dict:
    from nbcore import load_mnist

    train_images, train_labels = load_mnist(True, root=data_dir, download=False)
    test_images, test_labels = load_mnist(False, root=data_dir, download=False)
    return {
        "train_images": train_images,
        "train_labels": train_labels,
        "test_images": test_images,
        "test_labels": test_labels,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.live_bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, help="another checkout of the app (its app.py) to compare against")
    parser.add_argument("--rounds", type=int, default=3, help="times each digit shape is drawn")
    parser.add_argument("--cpu-slowdown", type=float, nargs="+", default=[1.0, 4.0])
    parser.add_argument("--parity", type=int, default=2000, help="MNIST test digits drawn back for the parity table")
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 4], help="1, 2 (with 3) and 4: which to run")
    args = parser.parse_args()
    chromium.exit_unless_browser()
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory(prefix="live-bench-") as scratch,
        app_server.script_data_dir(None, None, "live-bench-data-") as (data_dir, _),
        sync_playwright() as playwright,
    ):
        mnist = load_mnist_arrays(data_dir)
        browser = chromium.launch_chromium(playwright)
        try:
            if 1 in args.parts:
                print_timing(browser, data_dir, Path(scratch), args)
            if 2 in args.parts or 3 in args.parts:
                print_runs_and_bytes(browser, data_dir, Path(scratch), mnist, args)
            if 4 in args.parts:
                print(f"\n4. parity over {args.parity} MNIST test digits drawn back, plus the recorded and test digits")
                models = live_reading.parity_models(mnist, Path(scratch) / "softmax")
                print(live_reading.measure_parity(browser, mnist, models, args.parity).table())
        finally:
            browser.close()
    return 0


def print_timing(browser, data_dir: Path, scratch: Path, args) -> None:
    """Part 1."""
    print("1. pointer move -> live verdict (ms), Chromium on /draw, mouse, moves every 12 px", flush=True)
    with app_server.StreamlitServer(data_dir, scratch / "timing.log", ready_timeout=180) as server:
        rows = [live_timing(browser, server.url, args.rounds, slowdown) for slowdown in args.cpu_slowdown]
    headers = ["CPU slowdown", "live updates", "script per update p50 / p95", "pointer event -> verdict p50 / p95"]
    cells = [
        [
            f"{r['slowdown']:g}x",
            r["updates"],
            f"{r['script_p50']:.1f} / {r['script_p95']:.1f}",
            f"{r['since_p50']:.1f} / {r['since_p95']:.1f}",
        ]
        for r in rows
    ]
    print(markdown_table(headers, cells, right=[True, True, False, False]))


def print_runs_and_bytes(browser, data_dir: Path, scratch: Path, mnist: dict, args) -> None:
    """Parts 2 and 3."""
    print("\n2-3. server runs per drawn digit and bytes received (browser-like message cache)", flush=True)
    checkouts = ([("before", str(args.before.resolve() / "app.py"))] if args.before else []) + [("after", "app.py")]
    results = [server_runs(browser, app, data_dir, scratch, name, args.rounds) for name, app in checkouts]
    headers = [
        "app",
        "digits drawn",
        "strokes per digit",
        "runs per digit (strokes + Clear)",
        "stroke run p50 (ms)",
        "open /draw",
        "per drawing sent (median)",
        "alpha change, and back",
        "Clear",
    ]
    cells = [
        [
            r["name"],
            r["digits"],
            f"{r['strokes_per_digit']:.2f}",
            f"{r['runs_per_digit']:.2f}",
            f"{r['run_ms_p50']:.0f}",
            f"{r['bytes']['open'][0]:,}",
            f"{statistics.median(r['bytes']['drawing']):,.0f}",
            f"{r['bytes']['alpha'][0]:,}, {r['bytes']['alpha'][1]:,}",
            f"{r['bytes']['clear'][0]:,}",
        ]
        for r in results
    ]
    print(markdown_table(headers, cells, right=[False, True, True, True, True, True, True, False, True]))
    sizes = payload_bytes(mnist, scratch / "softmax")
    print(
        f"\nmodels' payload per settings change: {sizes['json']:,} B as JSON, {sizes['gzip']:,} B gzip'd, "
        f"{sizes['deflate']:,} B deflated"
    )


if __name__ == "__main__":
    sys.exit(main())
