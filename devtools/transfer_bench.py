"""What a student's first visit moves over the classroom's network: straight from a replica, and through nginx.

    python -m devtools.transfer_bench [--mnist-source DIR | --data-dir DIR] [--pages / /draw /compare]
                                     [--mbits 10] [--rounds 2]

One replica behind nginx (``devtools.replicas.ClassServer``, deploy/nginx.conf). Each page is opened cold (a new
browser context, nothing cached) in Chromium at 1024×768, once at the replica's own address and once through
nginx, which serves Streamlit's front end (``/static/``) from disk, compressed ahead. Per visit, from the
browser's Resource Timing: the bytes on the wire (headers and bodies, the page and everything it loaded), the
requests a Python replica had to answer, and, with the browser's network held to ``--mbits`` Mbit/s (Chrome
DevTools' network emulation: a 600 Mbit/s classroom access point shared by 60 students gives each about 10),
the time from navigation to fully drawn (devtools/drawn_probe.py's definition). ``--rounds`` visits of each kind,
in turn; the median is printed. Bytes do not depend on the machine's load; the throttled times do, a little.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass

from devtools import app_server, chromium, replicas
from devtools.bench_harness import launched_chromium, require_programs
from devtools.bench_report import load_averages, markdown_table
from devtools.drawn_probe import new_context, settled_ms, wait_drawn

# every request the page made, its bytes on the wire and whether it went to Streamlit's front end (/static/)
RESOURCES_JS = """() => {
    const navigation = performance.getEntriesByType('navigation')[0];
    return [navigation, ...performance.getEntriesByType('resource')]
        .filter(entry => entry.name.startsWith(location.origin))
        .map(entry => ({path: new URL(entry.name).pathname, bytes: entry.transferSize}));
}"""


@dataclass
class Visit:
    bytes: int  # on the wire, headers included
    to_python: int  # HTTP requests a replica answered (the websocket not counted; /static/ through nginx is not)
    seconds: float  # navigation to fully drawn on the throttled network


def visit(browser, url: str, through_nginx: bool, mbits: float) -> Visit:
    context = new_context(browser, {"width": 1024, "height": 768})
    try:
        page = context.new_page()
        session = context.new_cdp_session(page)
        session.send("Network.enable")
        session.send(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 5, "downloadThroughput": mbits * 1e6 / 8, "uploadThroughput": -1},
        )
        page.goto(url, timeout=300_000)
        drawn = wait_drawn(page, timeout=300)
        entries = page.evaluate(RESOURCES_JS)
    finally:
        context.close()
    front_end = sum(entry["path"].startswith("/static/") for entry in entries)
    return Visit(
        bytes=sum(entry["bytes"] for entry in entries),
        to_python=len(entries) - (front_end if through_nginx else 0),
        seconds=settled_ms(drawn) / 1000,
    )


def median_visit(visits: list[Visit]) -> Visit:
    return Visit(
        bytes=int(statistics.median(visit.bytes for visit in visits)),
        to_python=int(statistics.median(visit.to_python for visit in visits)),
        seconds=statistics.median(visit.seconds for visit in visits),
    )


def table(rows: list[tuple[str, Visit, Visit]], mbits: float) -> list[str]:
    headers = [
        "page, first visit",
        "bytes: from the replica",
        "through nginx",
        "requests a replica answers: from it",
        "through nginx",
        f"fully drawn at {mbits:g} Mbit/s: from the replica",
        "through nginx",
    ]
    cells = [
        [
            path,
            f"{direct.bytes / 1e6:.2f} MB",
            f"{proxied.bytes / 1e6:.2f} MB",
            direct.to_python,
            proxied.to_python,
            f"{direct.seconds:.1f} s",
            f"{proxied.seconds:.1f} s",
        ]
        for path, direct, proxied in rows
    ]
    return markdown_table(headers, cells, right=[False] + [True] * 6).splitlines()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.transfer_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    app_server.add_data_arguments(parser)
    parser.add_argument(
        "--pages", nargs="+", default=["/", "/draw", "/compare"], help="paths (default / /draw /compare)"
    )
    parser.add_argument("--mbits", type=float, default=10.0, help="each browser's network, Mbit/s (default 10)")
    parser.add_argument("--rounds", type=int, default=2, help="visits of each kind per page (default 2)")
    args = parser.parse_args(argv)
    if args.mbits <= 0 or args.rounds < 1:
        parser.error("--mbits must be above 0 and --rounds at least 1")
    chromium.exit_unless_browser()
    require_programs(nginx=True)
    started = load_averages()
    rows = []
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-transfer-bench-") as (data_dir, _scratch):
        with replicas.ClassServer(1, data_dir) as served, launched_chromium() as browser:
            direct_url = served.servers[0].url
            for path in args.pages:
                direct, proxied = [], []
                for _ in range(args.rounds):
                    direct.append(visit(browser, direct_url + path, False, args.mbits))
                    proxied.append(visit(browser, served.url + path, True, args.mbits))
                rows.append((path, median_visit(direct), median_visit(proxied)))
                print(f"{path}: from the replica {rows[-1][1]}, through nginx {rows[-1][2]}", flush=True)
    ended = load_averages()
    print(
        f"\nA student's first visit, Chromium 1024×768 held to {args.mbits:g} Mbit/s, median of {args.rounds}; "
        f"load average {started} at the start, {ended} at the end.\n"
    )
    print("\n".join(table(rows, args.mbits)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
