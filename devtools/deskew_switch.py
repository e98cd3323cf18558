"""The Deskew switch: on a fresh server, /draw fully drawn with Deskew off, then a click on Deskew *on*, timed to
fully drawn again; per animation frame over the switch, how far the canvas moved, how long a progress bar showed,
whether the main area was ever empty."""

from __future__ import annotations

from dataclasses import dataclass

from devtools.bench_report import markdown_table, verdict
from devtools.drawn_probe import click_to_drawn, new_context, settled_ms, wait_drawn
from devtools.prepared_folder import Bench

TARGET_S = 1.0  # the click to fully drawn again


@dataclass
class DeskewResult:
    open: float  # seconds: /draw fully drawn with Deskew off
    switch: float  # seconds: click on "on" -> fully drawn again
    server: float  # seconds of whole runs on the server after the click
    progress: float  # seconds a progress bar showed over the switch
    canvas_moved: float  # px, the most the canvas moved from where it was at the click
    empty_main: bool  # the main area was empty at some frame


def measure_deskew(browser, bench: Bench) -> DeskewResult:
    with bench.server("deskew-switch") as server:
        context = new_context(browser, bench.viewport)
        try:
            page = context.new_page()
            page.goto(server.url + "/draw", timeout=180_000)
            before = wait_drawn(page)
            radio = page.locator('[data-testid="stSidebar"] [data-testid="stRadio"]').filter(has_text="Deskew")
            option = radio.get_by_text("on", exact=True)
            option.scroll_into_view_if_needed()
            # over the switch, per animation frame: the canvas's movement, a progress bar's time, an empty page
            page.evaluate(
                "() => Object.assign(window.__drawn, {watching: true, canvasTop: null, canvasMoved: 0, "
                "progressMs: 0, emptyMain: false})"
            )
            switch, after, server_s = click_to_drawn(page, server, option.click)
        finally:
            context.close()
    return DeskewResult(
        open=settled_ms(before) / 1000,
        switch=switch,
        server=server_s,
        progress=after["progressMs"] / 1000,
        canvas_moved=after["canvasMoved"],
        empty_main=after["emptyMain"],
    )


def deskew_table(result: DeskewResult) -> list[str]:
    rows = [
        [
            "click → fully drawn (the server's run)",
            f"{result.switch:.2f} s ({result.server:.2f} s)",
            f"≤ {TARGET_S} s",
            verdict(result.switch, TARGET_S),
        ],
        ["a progress bar showed", f"yes, {result.progress:.2f} s" if result.progress else "no", "only past 1 s", ""],
        ["the canvas moved", f"{result.canvas_moved:.0f} px", "0 px", verdict(result.canvas_moved, 0)],
        [
            "the main area empty at some frame",
            "yes" if result.empty_main else "no",
            "no",
            verdict(float(result.empty_main), 0),
        ],
    ]
    headers = ["Deskew switched on (Draw, opened with it off)", "measured", "target", ""]
    return markdown_table(headers, rows, right=[False, True, True, False]).splitlines()
