"""A classroom at once, small: five students on one fresh server, in Chromium, at the same time.

The server is started for this module and nobody opens "/" first: every student follows a link
straight to /draw, as a class would. Five browser contexts on one Chromium act concurrently
(Playwright's async API, one event loop in a worker thread, helpers from devtools/async_draw.py, as
devtools/load_bench.py uses them):

* every session gets the whole app (navigation and sidebar settings), not a bare page;
* one student sets the binarization threshold to 1, then all five draw different digits at
  once: each reads back its own digit, and only the first one's page says "≥ 1" (the others 128);
* one student moves alpha, the four others clear and redraw the same digit at the same time:
  their pages show exactly what they showed before (no setting leaked between sessions);
* no exception box or error alert on any page, no uncaught page error, no traceback in the
  server's log.

A failure names the step it happened in and saves a screenshot of every session and the
server log's tail. Missing Chromium or playwright: fails under CI=true, skipped elsewhere
(``e2e_tools``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re

import pytest

from devtools import app_server, async_draw, chromium, draw_page, page_checks, rerun_log
from tests.e2e.conftest import ARTIFACTS

STUDENTS = (1, 0, 7, 3, 6)  # the digit each session draws (one stroke each)
SLIDERS = async_draw.SIDEBAR_SLIDERS
TIMEOUT_MS = 120_000
# a canvas's ink pixels and where it sits on the page, for the report when a step fails
CANVAS_STATE_JS = """c => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 128) ink++;
    const box = c.getBoundingClientRect();
    return {ink, x: box.x, y: box.y, width: box.width};
}"""


@pytest.fixture(scope="module")
def classroom_server(e2e_tools, app_data_dir, tmp_path_factory):
    """A fresh ``streamlit run app.py`` that no one has visited yet."""
    log_path = tmp_path_factory.mktemp("classroom") / "streamlit-server.log"
    with app_server.StreamlitServer(
        app_data_dir, log_path, extra_env={"NBCORE_LOG_RERUN_MS": "1"}, ready_timeout=90
    ) as server:
        yield server


def run_in_worker(coroutine_function, *args):
    """asyncio.run in a thread of its own (the session's sync Playwright may own this thread's loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine_function(*args)).result()


async def canvas_state(page) -> dict | str:
    try:
        return await page.locator(draw_page.CANVAS_SELECTOR).first.evaluate(CANVAS_STATE_JS, timeout=5_000)
    except Exception as error:  # noqa: BLE001 - this only describes a failure already being reported
        return f"no canvas ({type(error).__name__})"


async def press_and_wait_for_run(page, control, key: str) -> None:
    """Press ``key`` on ``control`` and wait until the script run it causes has finished (as chromium.run_after).

    Waiting for "notRunning" alone is not enough: for 100-200 ms after the key the page still says
    so, until the server starts the run. A stroke begun in that gap lands while the run redraws the
    page, and a new threshold's spinners pushed the canvas 54 px down under it (now they show in
    the sidebar): the stroke then missed the canvas (no ink, no prediction: twice in fresh-clone CI
    and once in 23 local runs, always session 0, the one that had just changed the threshold).
    Seeing "running" is enough here: a new threshold's run binarizes and counts MNIST on this fresh
    server, so it lasts far longer than one render (chromium.run_after says why quick runs need more).
    """
    await page.evaluate(chromium.RUN_STARTED_JS)
    await control.focus(timeout=TIMEOUT_MS)
    await page.keyboard.press(key)
    await page.wait_for_function(chromium.run_begun_js(), timeout=TIMEOUT_MS, polling=50)
    await async_draw.wait_for_run(page, TIMEOUT_MS)


async def draw_own_digit(page, digit: int) -> str | None:
    """The load bench's draw_and_time on this page's one ready canvas; the digit shown."""
    origin = await async_draw.canvas_origin(page, TIMEOUT_MS)
    return (await async_draw.draw_and_time(page, digit, origin, TIMEOUT_MS))[1]


async def classroom(url: str) -> dict:
    from playwright.async_api import async_playwright

    report = {"page_errors": [], "problems": []}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(chromium.CHROMIUM), args=chromium.CHROMIUM_ARGS)
        try:
            pages = []
            for index in range(len(STUDENTS)):
                context = await browser.new_context(viewport=chromium.VIEWPORT)
                page = await context.new_page()
                page.on("pageerror", lambda error, index=index: report["page_errors"].append(f"{index}: {error}"))
                pages.append(page)

            async def check(where: str) -> None:
                for index, page in enumerate(pages):
                    problems = await page.evaluate(page_checks.PAGE_PROBLEMS_JS)
                    report["problems"] += [f"session {index}, {where}: {problem}" for problem in problems]

            try:
                report["step"] = "everyone opens /draw"
                await asyncio.gather(*(async_draw.open_draw_page(page, url, TIMEOUT_MS) for page in pages))
                report["sidebars"] = [await page.locator('[data-testid="stSidebar"]').inner_text() for page in pages]

                report["step"] = "student 0 sets the threshold to 1"
                await press_and_wait_for_run(pages[0], pages[0].locator(SLIDERS).first, "Home")
                report["thresholds"] = [
                    await page.locator(SLIDERS).first.get_attribute("aria-valuetext") for page in pages
                ]

                report["step"] = "everyone draws at once"
                drawn = await asyncio.gather(*(draw_own_digit(page, digit) for page, digit in zip(pages, STUDENTS)))
                await asyncio.gather(*(async_draw.wait_for_run(page, TIMEOUT_MS) for page in pages))
                report["first_predictions"] = list(drawn)
                report["first_signatures"] = [await page.evaluate(draw_page.DRAW_SIGNATURE_JS) for page in pages]
                await check("after drawing")

                report["step"] = "student 1 moves alpha, the others clear and redraw"

                async def redraw(index: int) -> str | None:
                    await async_draw.clear(pages[index], TIMEOUT_MS)
                    shown = await draw_own_digit(pages[index], STUDENTS[index])
                    await async_draw.wait_for_run(pages[index], TIMEOUT_MS)
                    return shown

                others = [index for index in range(len(STUDENTS)) if index != 1]
                _, *shown_again = await asyncio.gather(
                    async_draw.move_alpha_and_time(pages[1], True, TIMEOUT_MS), *(redraw(index) for index in others)
                )
                report["second_predictions"] = dict(zip(others, shown_again))
                report["second_signatures"] = [await page.evaluate(draw_page.DRAW_SIGNATURE_JS) for page in pages]
                report["alphas"] = [
                    await page.locator(SLIDERS).nth(1).get_attribute("aria-valuetext") for page in pages
                ]
                await check("after alpha and redrawing")
                report["step"] = "done"
            except Exception as error:  # noqa: BLE001 - reported with the step it happened in
                report["failure"] = f"{report['step']}: {type(error).__name__}: {str(error).splitlines()[0]}"
                report["canvases"] = [await canvas_state(page) for page in pages]
                ARTIFACTS.mkdir(exist_ok=True)
                for index, page in enumerate(pages):
                    shot = ARTIFACTS / f"classroom-session-{index}.png"
                    await page.screenshot(path=str(shot), full_page=True, timeout=30_000)
                    report["failure"] += f"\nscreenshot of session {index}: {shot}"
        finally:
            await browser.close()
    return report


def test_five_students_at_once_each_see_their_own_digit_and_settings(classroom_server):
    report = run_in_worker(classroom, classroom_server.url)
    everything = "\n".join(f"{key}: {value}" for key, value in report.items())
    assert "failure" not in report, f"{report['failure']}\n{everything}\n{classroom_server.log_tail()}"

    assert all("Model settings" in sidebar for sidebar in report["sidebars"]), (
        f"a session that followed a link to /draw did not get the app's sidebar:\n{everything}"
    )
    assert report["thresholds"] == ["1", "128", "128", "128", "128"], everything
    assert report["first_predictions"] == [str(digit) for digit in STUDENTS], everything
    # what each page says about binarization: "… pixel is ≥ T" (the Draw page's caption)
    thresholds_shown = [set(re.findall(r"≥ (\d+)", signature)) for signature in report["first_signatures"]]
    assert thresholds_shown == [{"1"}] + [{"128"}] * 4, f"{thresholds_shown}\n{everything}"

    assert report["alphas"] == ["1", "2", "1", "1", "1"], everything
    assert report["second_predictions"] == {index: str(STUDENTS[index]) for index in (0, 2, 3, 4)}, everything
    for index in (0, 2, 3, 4):  # same digit, same settings: same text apart from drawing-dependent numbers
        # (a stroke redrawn under load is sampled at slightly different points: p = 0.9825 vs 0.9830, and
        # the ink pixel count "153 of 784" can move by a pixel or two)
        first, second = (
            re.sub(r"\d+\.\d+|\d+ of 784", "#", report[key][index]) for key in ("first_signatures", "second_signatures")
        )
        assert second == first, f"session {index} changed although only session 1 moved alpha:\n{everything}"
    assert report["second_signatures"][1] != report["first_signatures"][1], "alpha changed nothing in session 1"

    assert not report["problems"], "\n".join(report["problems"])
    assert not report["page_errors"], "\n".join(report["page_errors"])
    log = classroom_server.log_text()
    assert not re.search(r"Traceback|Uncaught app exception", log), log[-3000:]
    runs = [(run.page, run.ms, run.outcome) for run in rerun_log.parse_runs(log)]
    # each student: the page and the drawing (Clear, and the same digit drawn again, cost no run since issue 40)
    assert len(runs) >= 2 * len(STUDENTS) and {page for page, _, _ in runs} == {"draw"}, runs
