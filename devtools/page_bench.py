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
import re
import sys

from devtools import app_server, chromium
from devtools.bench_harness import add_log_dir, launched_chromium
from devtools.bench_report import load_averages
from devtools.deskew_switch import DeskewResult, deskew_table, measure_deskew
from devtools.first_strokes import Stroke, measure_strokes, stroke_table
from devtools.page_first_visits import PageResult, measure_pages, page_table
from devtools.page_links import page_links, select_pages, split_names
from devtools.page_navigation import NavigationResult, measure_navigation, navigation_table
from devtools.prepared_folder import Bench, PreparedFolder, brief, run_prepare

PARTS = ("pages", "navigation", "deskew", "strokes")


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
    add_log_dir(parser, "page-bench")
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
    pages: list[PageResult] | None = None
    navigation: list[NavigationResult] | None = None
    deskew: DeskewResult | None = None
    strokes: list[tuple[str, list[Stroke]]] | None = None
    peers: dict[str, PageResult] = {}
    prepare_s = again_s = None
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-page-bench-") as (data_dir, scratch):
        print(f"data folder {data_dir}; server logs in {args.log_dir}", flush=True)
        if not args.no_prepare:
            prepare_s = run_prepare(data_dir)
            again_s = run_prepare(data_dir)
            print(f"prepare: {prepare_s:.1f} s; again, everything there: {again_s:.1f} s", flush=True)
        bench = Bench(data_dir, args.log_dir, args.viewport, PreparedFolder(data_dir) if scratch else None)
        with launched_chromium() as browser:
            if "pages" not in args.skip:
                pages, peers = measure_pages(browser, bench, args.pages)
            if "navigation" not in args.skip:
                navigation = measure_navigation(browser, bench, args.pages)
            if "deskew" not in args.skip:
                deskew = measure_deskew(browser, bench)
                print(f"Deskew switch: {deskew}", flush=True)
            if "strokes" not in args.skip:
                strokes = measure_strokes(browser, bench, args.strokes, args.rounds)
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
