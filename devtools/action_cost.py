"""What one student's action costs this machine, by process: the denominator behind the load benchmark.

    python -m devtools.action_cost [--data-dir DIR | --mnist-source DIR] [--cycles 8] [--step-px 12]

One browser session on /draw of a fresh ``streamlit run app.py`` repeats ``--cycles`` times: Clear, then
one stroke (a 1 or a 7), waiting for the prediction and the end of the run. Printed per cycle: CPU time
of the page's main thread (Chrome DevTools ``Performance.getMetrics`` TaskDuration), of all Chromium
processes, of Playwright's driver, of this Python client and of the server's process group. In the load
benchmark every simulated student pays the browser's share on the same two cores as the server; a real
student pays it on their own computer.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from devtools import app_server, bench_harness, chromium, draw_page
from devtools.app_server import REPO
from devtools.async_draw import STROKE_STEP_PX
from devtools.procfs import descendants, group_cpu_seconds, stat_fields


def cpu_seconds_by_program(pids: list[int]) -> dict[str, float]:
    """utime + stime of each process, summed by program name ("chromium", "node", ...)."""
    totals: dict[str, float] = {}
    for pid in pids:
        fields = stat_fields(f"/proc/{pid}/stat")
        try:
            with open(f"/proc/{pid}/comm") as handle:
                name = handle.read().strip()
        except OSError:
            continue
        if fields:
            program = "Chromium (all)" if "chrom" in name else "Playwright driver" if name.startswith("node") else name
            totals[program] = totals.get(program, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.action_cost", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    app_server.add_data_arguments(parser)
    parser.add_argument("--cycles", type=int, default=8)
    parser.add_argument("--step-px", type=float, default=STROKE_STEP_PX)
    args = parser.parse_args()
    chromium.exit_unless_browser()
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-cost-") as (data_dir, _):
        with (
            bench_harness.launched_chromium() as browser,
            app_server.StreamlitServer(data_dir, REPO / "test-artifacts" / "action-cost.log") as server,
        ):
            page = browser.new_context(viewport=chromium.VIEWPORT).new_page()
            page.goto(server.url + "/draw", timeout=180_000)
            chromium.wait_for_run(page, timeout=180)
            devtools = page.context.new_cdp_session(page)
            devtools.send("Performance.enable")

            def snapshot() -> dict[str, float]:
                metrics = {item["name"]: item["value"] for item in devtools.send("Performance.getMetrics")["metrics"]}
                server_group = os.getpgid(server.pid)
                return {
                    "page main thread (of Chromium)": metrics["TaskDuration"],
                    **cpu_seconds_by_program(descendants(os.getpid(), server_group)),
                    "this Python client": time.process_time(),
                    "server": group_cpu_seconds(server_group),
                }

            def cycle(digit: int) -> None:
                origin = draw_page.clear_canvas(page)  # the canvas's own Clear (no run since issue 40)
                draw_page.stroke(page, draw_page.DIGITS[digit][0], origin, step_px=args.step_px)
                draw_page.wait_for_prediction(page)
                chromium.wait_for_run(page)

            cycle(1)  # warm-up
            before, started = snapshot(), time.perf_counter()
            for index in range(args.cycles):
                cycle(7 if index % 2 else 1)
            after, wall = snapshot(), time.perf_counter() - started
            browser.close()
    print(f"CPU per action cycle (Clear + one stroke every {args.step_px:g} px), mean of {args.cycles}:")
    for name in before:
        print(f"  {name:<32} {(after[name] - before[name]) / args.cycles * 1000:6.0f} ms")
    print(f"  {'wall time':<32} {wall / args.cycles * 1000:6.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
