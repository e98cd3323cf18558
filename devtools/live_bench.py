"""The Draw canvas's live reading (issue 32): what it costs in the browser, and what it changes on the server.

    python -m devtools.live_bench [--before CHECKOUT] [--rounds 3] [--cpu-slowdown 1 4] [--parity 2000] [--parts 1 2 4]
                                 [--readings 200]

Parts (each prints a table):

1. pointer move -> live verdict, in Chromium on /draw: the mouse draws the browser tests' digits (moves every 12 px,
   a quick 60 Hz stroke), ``--rounds`` times; the canvas keeps, per live update, the script time (read the canvas
   back, frame, score both models, draw the panel) and the time from the first pointer event it answers to the
   end of that script (canvas.liveTimes, lab/digit_live_panel.js). p50 / p95 per CPU slowdown (DevTools throttling,
   4 = a slow phone).
2. server runs per drawn digit, before (``--before``: another checkout, e.g. this branch's base,
   ``git archive $(git merge-base HEAD main) | tar -x -C DIR``)
   and after (this one): the NBCORE_RERUN lines (lab/runs.py) each server logs while Chromium draws the same digits
   (a digit's strokes ``STROKE_GAP_MS`` apart, each digit then Clear), and their median time.
3. bytes a browser receives (devtools/streamlit_client.py keeping messages as the browser does): opening /draw, each
   recorded drawing sent, an alpha change and back, Clear; before and after. And the models' payload (what
   lab/live_models.py sends per settings change): JSON bytes, gzip'd, deflated (the websocket's compression, when on).
4. parity: devtools/live_reading.measure_parity over ``--parity`` MNIST test digits drawn back (the test uses 400).
5. the reading itself, before (the ``--before`` checkout's: its files of lab/canvas.py's READING_SCRIPTS, or its one
   lab/digit_reading.js from before the split) and after, in one blank Chromium page: ``--readings``
   readings of a fixed drawing each, the two alternating (same page, same load), as the canvas makes them on each
   live update (read the canvas back, frame, score both models; not the panel). Per drawing: p50 / p95 (ms) of each,
   their ratios, and whether the two readings were identical (framed digit, posteriors, evidence) every time.

Students per process at p95 <= 300 ms: devtools/load_protocol with ``--message-cache`` and ``--app`` (see
docs/benchmarks.md). Needs Chromium, MNIST ($NBCORE_DATA_DIR or ../shared/mnist).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import zlib
from pathlib import Path

from devtools import app_server, async_draw, bench_harness, chromium, draw_page, live_reading, rerun_log
from devtools.app_server import REPO
from devtools.bench_report import markdown_table, percentile
from devtools.streamlit_client import StreamlitClient
from lab import canvas

RECORDED = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
# digits as drawn in two strokes, beside the 4: a 5 with its top bar drawn last, a 7 crossed
TWO_STROKES: dict[str, list[list[draw_page.Point]]] = {
    "5''": [[(105, 55), (100, 130), (150, 120), (190, 160), (180, 215), (140, 235), (90, 220)], [(105, 55), (195, 55)]],
    "7''": [[(75, 55), (205, 55), (125, 235)], [(110, 145), (190, 145)]],
}
SHAPES: dict[str, list[list[draw_page.Point]]] = {
    **{f"{d}": s for d, s in draw_page.DIGITS.items()},
    **{f"{d}'": s for d, s in async_draw.DIGITS.items()},
    **TWO_STROKES,
}
# ms between the strokes of one digit in part 2: about the median pause within a handwritten symbol
# (devtools/stroke_gaps.py: 489 ms), shorter than the canvas's rest (lab/canvas.py's REST_MS)
STROKE_GAP_MS = 500


def clear(page) -> None:
    """Press Clear and wait for a blank canvas and no run (generous: a throttled CPU on a loaded machine)."""
    draw_page.clear_canvas(page, timeout=240)


def draw_digits(page, rounds: int, gap_ms: float = 0) -> int:
    """Draw every shape ``rounds`` times with the mouse, ``gap_ms`` between a digit's strokes and Clear between
    digits; the number of digits drawn."""
    drawn = 0
    for _ in range(rounds):
        for strokes in SHAPES.values():
            origin = draw_page.canvas_origin(page)
            for index, points in enumerate(strokes):
                if index:
                    page.wait_for_timeout(gap_ms)
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
            before = len(rerun_log.parse_runs(server.log_text()))
            drawn = draw_digits(page, rounds, STROKE_GAP_MS)
            runs = rerun_log.parse_runs(server.log_text())[before:]
        finally:
            page.close()
        bytes_seen = protocol_bytes(server.url)
    strokes_per_digit = sum(len(s) for s in SHAPES.values()) / len(SHAPES)
    stroke_runs = [run.ms for run in runs if run.page == "draw" and run.scope == "fragment"]
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
        key = draw_page.canvas_key(client.widget_ids)
        for drawing in RECORDED:
            before = client.bytes_received
            client.component(key, json.loads(drawing["json_value"]))
            out["drawing"].append(client.bytes_received - before)
        for stop in ("2", "1"):
            before = client.bytes_received
            client.select_slider("alpha", stop)
            out["alpha"].append(client.bytes_received - before)
        before = client.bytes_received
        if "draw_clear" in client.widget_ids:  # before issue 40 Clear was a Streamlit button; now the canvas's own
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
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 4], help="1, 2 (with 3), 4, 5: which to run")
    parser.add_argument("--readings", type=int, default=200, help="part 5: timed readings per drawing and code")
    args = parser.parse_args()
    if 5 in args.parts and not args.before:
        parser.error("part 5 compares with another checkout: give --before")
    chromium.exit_unless_browser()
    with (
        tempfile.TemporaryDirectory(prefix="live-bench-") as scratch,
        app_server.script_data_dir(None, None, "live-bench-data-") as (data_dir, _),
        bench_harness.launched_chromium() as browser,
    ):
        mnist = load_mnist_arrays(data_dir)
        try:
            if 1 in args.parts:
                print_timing(browser, data_dir, Path(scratch), args)
            if 2 in args.parts or 3 in args.parts:
                print_runs_and_bytes(browser, data_dir, Path(scratch), mnist, args)
            if 4 in args.parts:
                print(f"\n4. parity over {args.parity} MNIST test digits drawn back, plus the recorded and test digits")
                models = live_reading.parity_models(mnist, Path(scratch) / "softmax")
                print(live_reading.measure_parity(browser, mnist, models, args.parity).table())
            if 5 in args.parts:
                print_reading_times(browser, mnist, Path(scratch), args)
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


# ([drawing, n]) -> n timed readings of one drawing by the before code (window.before: the whole canvas read back,
# as it did) and this checkout's (window.after: the brush's region, InkRegion), alternating which goes first; a
# drawing is {"png": data URL} (a picture: the whole canvas is the region) or {"strokes", "brush"}
TIME_READINGS_JS = """async ([drawing, n, warmUp]) => {
    let canvas;
    if (drawing.png) {
        const blob = await (await fetch(drawing.png)).blob();
        const bitmap = await createImageBitmap(blob, {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
        canvas = document.createElement('canvas');
        canvas.width = bitmap.width; canvas.height = bitmap.height;
        canvas.getContext('2d', {willReadFrequently: true}).drawImage(bitmap, 0, 0);
    } else {
        canvas = (DRAW)([drawing.strokes, drawing.brush]);
    }
    const context = canvas.getContext('2d', {willReadFrequently: true});
    const {width, height} = canvas;
    const region = new window.after.InkRegion(width, height);
    if (drawing.png) region.addAll(); else drawing.strokes.flat().forEach((point) => region.add(point, drawing.brush));
    const readBefore = () => window.before.readDrawing(
        context.getImageData(0, 0, width, height).data, width, height, window.beforeModels);
    const readAfter = () => window.after.readCanvas(context, region, window.afterModels);
    const parts = (r) => [r.made.frame, r.bayes.posterior, r.bayes.evidence, r.softmax.posterior];
    const same = (a, b) => (a === null || b === null ? a === b : parts(a).every((x, j) => {
        const y = parts(b)[j];
        return x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
    }));
    const times = {before: [], after: []};
    let identical = true;
    for (let i = 0; i < warmUp + n; i++) {
        const order = i % 2 ? [['after', readAfter], ['before', readBefore]] : [['before', readBefore], ['after', readAfter]];
        const got = {};
        for (const [name, read] of order) {
            const started = performance.now();
            got[name] = read();
            const took = performance.now() - started;
            if (i >= warmUp) times[name].push(took);
        }
        identical = identical && same(got.before, got.after);
    }
    return {times, identical, region: [region.right - region.left, region.bottom - region.top]};
}""".replace("(DRAW)", f"({live_reading.DRAW_JS})")
WARM_UP = 30  # untimed readings of each code first: the JIT compiles both before the timing starts


def checkout_reading(checkout: Path) -> str:
    """The reading's script in another checkout: its files of lab/canvas.py's READING_SCRIPTS, joined in order (a
    checkout from before the reading was split into them holds it all in lab/digit_reading.js, its one file)."""
    files = [checkout / "lab" / path.name for path in canvas.READING_SCRIPTS]
    return canvas.joined([path for path in files if path.exists()])


def reading_times(browser, before: Path, mnist: dict, cache: Path, readings: int) -> list[dict]:
    """Part 5: per drawing, the before and after readings' times (ms) in one blank page, alternating."""
    from lab.live_models import payload

    form, bayes, softmax = live_reading.parity_models(mnist, cache)["T=128"]
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><html><body></body></html>")
        modules = {
            "before": (checkout_reading(before), "readDrawing, decodeModels"),
            "after": (live_reading.READING_JS, "readCanvas, InkRegion, decodeModels"),
        }
        for name, (code, exports) in modules.items():
            page.add_script_tag(content=f"{code}\nwindow.{name} = {{{exports}}};", type="module")
        page.wait_for_function("() => window.before && window.after")
        page.evaluate(
            "sent => { window.beforeModels = window.before.decodeModels(sent);"
            " window.afterModels = window.after.decodeModels(sent); }",
            payload(bayes, softmax, form),
        )
        seven = next(item for item in RECORDED if item["digit"] == 7)
        drawings = {
            "recorded 7 (a picture: the whole canvas)": {"png": json.loads(seven["json_value"])["drawing"]},
            "the tests' 7, brush 20 (strokes)": {"strokes": draw_page.DIGITS[7], "brush": 20},
        }
        rows = []
        for label, drawing in drawings.items():
            got = page.evaluate(TIME_READINGS_JS, [drawing, readings, WARM_UP])
            row = {"drawing": label, "identical": got["identical"], "region": got["region"]}
            for name in ("before", "after"):
                row[name] = (percentile(got["times"][name], 50), percentile(got["times"][name], 95))
            rows.append(row)
        return rows
    finally:
        page.close()


def print_reading_times(browser, mnist: dict, scratch: Path, args) -> None:
    """Part 5."""
    print(f"\n5. one reading (ms), {args.readings} per drawing and code, alternating, in one blank Chromium page")
    rows = reading_times(browser, args.before.resolve(), mnist, scratch / "softmax", args.readings)
    print(
        "| drawing | region read (px) | before p50 / p95 | after p50 / p95 | before / after, p50 and p95 | identical |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        (b50, b95), (a50, a95) = r["before"], r["after"]
        print(
            f"| {r['drawing']} | {r['region'][0]} x {r['region'][1]} | {b50:.2f} / {b95:.2f} | {a50:.2f} / {a95:.2f} "
            f"| {b50 / a50:.1f}x, {b95 / a95:.1f}x | {'yes' if r['identical'] else 'NO'} |"
        )


if __name__ == "__main__":
    sys.exit(main())
