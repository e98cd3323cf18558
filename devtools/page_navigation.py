"""Navigation: on one fresh server, one visitor clicks every page in the sidebar in turn (the guided lesson's steps
by its Next button), as a class moves through the lab: click to fully drawn, each page's first visit there."""

from __future__ import annotations

from dataclasses import dataclass

from devtools import chromium
from devtools.bench_report import load, markdown_table, verdict
from devtools.drawn_probe import click_to_drawn, new_context, wait_drawn
from devtools.page_links import PageLink
from devtools.prepared_folder import Bench

TARGET_S = 1.5  # a page's click to fully drawn


@dataclass
class NavigationResult:
    label: str
    charts: int
    drawn: float  # seconds from the click to fully drawn
    server: float  # seconds of whole runs on the server over that time


# the lesson's counter ("Step 3 of 10") shows the step a Next click brought
STEP_SHOWN_JS = """() => [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .some(block => block.innerText.trim().startsWith('Step %d of'))"""


def measure_navigation(browser, bench: Bench, links: list[PageLink]) -> list[NavigationResult]:
    """On one fresh server, one visitor: Home by its link, then every page of ``links`` by a click in the sidebar, in
    page order (a lesson step by Next from the step before, the clicks to reach it untimed)."""
    results = []
    with bench.server("navigation") as server:
        context = new_context(browser, bench.viewport)
        try:
            page = context.new_page()
            start = "/xor" if links[0].key == "home" else "/"  # a click must lead to another page
            page.goto(server.url + start, timeout=180_000)
            wait_drawn(page)
            page.wait_for_timeout(1000)  # a student reads before moving on; the browser's idle loading has its turn
            step = 0  # the lesson step on screen (0: not in the lesson)
            for link in links:
                target = int(link.key.split("-")[1]) if link.key.startswith("lesson-") else None
                if target is None or step == 0 or target < step:
                    title = link.label.split(",")[0]
                    sidebar = page.locator(chromium.NAVIGATION_LINKS, has_text=title).first
                    path = link.path.split("?")[0]
                    timed = click_to_drawn(page, server, sidebar.click, f"() => location.pathname.endsWith({path!r})")
                    step = 1 if target is not None else 0
                while target is not None and step < target:
                    step += 1
                    timed = click_to_drawn(
                        page,
                        server,
                        page.get_by_role("button", name="Next").first.click,
                        STEP_SHOWN_JS % step,
                    )
                drawn, probe, server_s = timed
                charts = probe["charts"]
                results.append(NavigationResult(link.label, charts, drawn, server_s))
                print(
                    f"click → {link.label:<44} {drawn:5.2f} s (server runs {server_s:5.2f} s), {charts} charts"
                    f"  (load {load():.1f})",
                    flush=True,
                )
        finally:
            context.close()
    return results


def navigation_table(results: list[NavigationResult]) -> list[str]:
    headers = [
        "page, by a click in the app (its first visit on the server)",
        "charts",
        "click → fully drawn",
        "of which the server's run",
        "target",
        "",
    ]
    rows = [
        [
            result.label,
            result.charts,
            f"{result.drawn:.2f} s",
            f"{result.server:.2f} s",
            f"≤ {TARGET_S} s",
            verdict(result.drawn, TARGET_S),
        ]
        for result in results
    ]
    return markdown_table(headers, rows, right=[False, True, True, True, True, False]).splitlines()
