"""The first strokes of a visit to Draw: visitors in turn draw recorded strokes, one opening /draw from a link, the
other coming from Heatmaps (Plotly's code already loaded) through the sidebar; per stroke, mouse-up to the
prediction updated on screen (as devtools/latency_bench.py measures it) and the server's longest run meanwhile."""

from __future__ import annotations

import math

from devtools import chromium, draw_page, latency_bench
from devtools.bench_report import load, markdown_table, percentile, verdict
from devtools.prepared_folder import Bench

TARGET_MS = 300.0  # the first stroke of a visit, mouse-up to the prediction on screen

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
    with bench.server("strokes") as server:
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
        mark = verdict(max(update for update, _ in first), TARGET_MS) if first else ""
        rows.append(
            [
                f"{len(kind)} × {label}",
                sum(len(times) for times in kind),
                cell(first),
                cell(later),
                lost,
                f"≤ {TARGET_MS:.0f} ms",
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
