"""Every page opened by its link on a fresh server, beside two peers that are not the lab: a student's first visit
(a new browser context) and a returning browser's (one that opened every page before), to fully drawn."""

from __future__ import annotations

from dataclasses import dataclass

from devtools import app_server
from devtools.bench_harness import BenchServer
from devtools.bench_report import load, markdown_table
from devtools.drawn_probe import new_context, open_drawn
from devtools.page_links import PageLink
from devtools.prepared_folder import Bench
from devtools.rerun_log import whole_run_seconds

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


def visit(
    browser, bench: Bench, server: BenchServer, path: str, returning
) -> tuple[float, int, float, float, float | None]:
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
    with bench.server("page-warm-up", port) as server:  # the returning browser's earlier visits
        for link in links:
            open_drawn(browser, bench.viewport, server.url + link.path, returning)
    for key, (label, source) in PEERS.items():
        script = bench.log_dir / f"peer_{key}.py"
        script.write_text(source)
        with bench.server(f"peer-{key}", port, app=str(script)) as server:
            open_drawn(browser, bench.viewport, server.url + "/", returning)  # the returning browser's earlier visit
            first, charts, server_s, again, _ = visit(browser, bench, server, "/", returning)
        peers[key] = PageResult(label, charts, first, server_s, again, None)
        print(f"{label:<48} first visit {first:5.2f} s, returning browser {again:5.2f} s", flush=True)
    for number, link in enumerate(links, 1):
        with bench.server(f"page-{link.key}", port) as server:
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
