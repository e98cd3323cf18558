"""The rooms the lab is built for: every page on every screen of ``harness.SCREENS``, and links opened cold.

On each screen (a 1024x768 projector with the sidebar open, the same in presenter mode with the
sidebar folded, a 1366x768 laptop in the light and in the dark theme, a 1920x1080 desktop, a 150 % zoom of 1280x800, and a 390x844
phone drawn on by touch), every page of the navigation:

* shows no exception or error box, does not scroll sideways, clips no title, label or caption, and
  keeps every chart's title, axis titles and annotations inside the chart and apart;
* on Draw: a grid of points over the canvas hits the canvas (before and after a prediction), and
  right after a stroke the "Naive Bayes prediction" metric is inside the viewport, uncovered;
* in presenter mode: axis numbers of at least 16 px, the sidebar folded, and the page's first
  figure (chart, picture, metric or canvas) starting within the first screen.

The keyboard reaches every control of Draw and the sidebar, and charts add no tab stops.

A fresh server whose first visits are links to /xor and /spam, and every page opened by its link in
a new session, show the whole app (sections, every page link, the model settings); a reload keeps
the page.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from devtools import harness
from lab.shell import PAGES
from tests.e2e.conftest import ARTIFACTS

PATHS = [Path(path).stem for pages in PAGES.values() for path, _, _ in pages]  # URL paths, "home" is "/"
URL_PATHS = ["" if stem == "home" else stem for stem in PATHS]
CASES = [
    ("projector 1024x768", False),
    ("projector 1024x768", True),
    ("laptop 1366x768", False),
    ("laptop 1366x768, dark", False),
    ("desktop 1920x1080", False),
    ("150% zoom of 1280x800", False),
    ("phone 390x844 (touch)", False),
]
MIN_PRESENTER_AXIS_PX = 16

PRESENTER_JS = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const ticks = [...main.querySelectorAll('.xtick text, .ytick text')].map(t => parseFloat(getComputedStyle(t).fontSize));
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    const figure = main.querySelector('.js-plotly-plot, [data-testid="stImage"], [data-testid="stMetric"], '
        + '[data-testid="stTable"], .st-key-draw_source');
    return {smallest_tick: ticks.length ? Math.min(...ticks) : null,
            sidebar_expanded: sidebar ? sidebar.getAttribute('aria-expanded') : null,
            figure_top: figure ? figure.getBoundingClientRect().top : null, height: window.innerHeight};
}"""


def open_path(page, base_url: str, path: str, query: str = "") -> None:
    page.goto(f"{base_url}/{path}{query}", timeout=60_000)
    harness.wait_for_run(page, timeout=180, settle=0.3)


def save_screenshot(page, name: str) -> str:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"screen-{name}.png"
    page.screenshot(path=str(shot))
    return str(shot)


def draw_page_problems(page, touch: bool) -> list[str]:
    """The canvas wholly drawable before and after a stroke, and the prediction in view right after it."""
    problems = [f"canvas covered before drawing at {point}" for point in harness.canvas_covered_points(page)]
    origin = harness.canvas_origin(page)
    harness.draw_digit(page, 7, origin, touch=touch)
    value, _ = harness.wait_for_prediction(page)
    if value != "7":
        problems.append(f"a drawn 7 was read as {value}")
    if not harness.in_viewport(page, harness.prediction_locator(page).first):
        problems.append("the prediction is not in view right after the stroke")
    problems += [f"canvas covered after the prediction at {point}" for point in harness.canvas_covered_points(page)]
    return problems


@pytest.mark.parametrize(
    "screen, presenting", CASES, ids=[f"{screen}{', presenter' if presenting else ''}" for screen, presenting in CASES]
)
def test_every_page_holds_its_layout_on_this_screen(browser, warm_app, screen, presenting):
    context = browser.new_context(**harness.SCREENS[screen])
    context.set_default_timeout(30_000)
    page = context.new_page()
    failures = {}
    try:
        for path in URL_PATHS:
            open_path(page, warm_app.url, path, "?presenter=1" if presenting else "")
            problems = harness.page_problems(page) + harness.layout_problems(page)
            if presenting:
                shown = page.evaluate(PRESENTER_JS)
                if shown["smallest_tick"] is not None and shown["smallest_tick"] < MIN_PRESENTER_AXIS_PX:
                    problems.append(f"axis numbers of {shown['smallest_tick']} px in presenter mode")
                if shown["sidebar_expanded"] == "true":
                    problems.append("the sidebar is open in presenter mode")
                if shown["figure_top"] is None or shown["figure_top"] > shown["height"] - 100:
                    problems.append(f"the first figure starts at {shown['figure_top']} px, below the first screen")
            if path == "draw":
                problems += draw_page_problems(page, touch=harness.SCREENS[screen].get("has_touch", False))
                problems += harness.layout_problems(page)
            if problems:
                failures[f"/{path}"] = (problems, save_screenshot(page, f"{screen}-{path or 'home'}".replace(" ", "_")))
    finally:
        context.close()
    assert not failures, f"{screen}{' (presenter)' if presenting else ''}:\n" + "\n".join(
        f"{where} (screenshot {shot}):\n  " + "\n  ".join(problems) for where, (problems, shot) in failures.items()
    )


@pytest.fixture(scope="module")
def fresh_server(e2e_tools, app_data_dir, tmp_path_factory):
    """A ``streamlit run app.py`` that nobody has visited yet."""
    log_path = tmp_path_factory.mktemp("fresh") / "server.log"
    with harness.StreamlitServer(app_data_dir, log_path, ready_timeout=90) as server:
        yield server


def whole_app_problems(page) -> list[str]:
    """What is missing of the app's frame: both sections, every page link, the model settings, a title."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    problems = [
        f"no section {section!r} in the navigation"
        for section in PAGES
        if sidebar.get_by_text(section, exact=True).count() == 0
    ]
    links = page.locator('[data-testid="stSidebarNav"] a').count()
    if links != len(URL_PATHS):
        problems.append(f"{links} page links in the navigation, not {len(URL_PATHS)}")
    if sidebar.get_by_text("Model settings", exact=True).count() == 0:
        problems.append("no model settings in the sidebar")
    if page.locator('[data-testid="stMainBlockContainer"] h1').count() == 0:
        problems.append("no page title")
    return problems + harness.page_problems(page)


def link_problems(browser, url: str, reload: bool = False) -> list[str]:
    """Open ``url`` in a new session (a link followed from an e-mail): what is missing of the whole app."""
    context = browser.new_context(viewport=harness.VIEWPORT)
    page = context.new_page()
    try:
        page.goto(url, timeout=60_000)
        harness.wait_for_run(page, timeout=180, settle=0.3)
        page.locator('[data-testid="stSidebarNav"] a').first.wait_for(timeout=30_000)
        problems = whole_app_problems(page)
        if reload:  # a reload stays on the page, in the whole app
            title = page.locator("h1").first.inner_text()
            page.reload()
            harness.wait_for_run(page, timeout=60, settle=0.3)
            if page.locator("h1").first.inner_text() != title:
                problems.append("a reload left the page")
            problems += whole_app_problems(page)
        if problems:
            problems.append(f"screenshot {save_screenshot(page, 'link-' + urlparse(url).path.strip('/'))}")
        return problems
    finally:
        context.close()


def test_links_opened_cold_on_a_fresh_server_show_the_whole_app(browser, fresh_server):
    """/xor and /spam as the very first visits to a fresh server (Streamlit once ran such a page alone, without the frame)."""
    failures = {
        path: link_problems(browser, f"{fresh_server.url}/{path}", reload=path == "xor") for path in ("xor", "spam")
    }
    assert not any(failures.values()), failures


def test_every_page_opened_by_its_link_shows_the_whole_app(browser, warm_app):
    failures = {path: link_problems(browser, f"{warm_app.url}/{path}") for path in URL_PATHS}
    assert not any(failures.values()), {path: problems for path, problems in failures.items() if problems}


FOCUSED_JS = """() => {
    const el = document.activeElement;
    const label = el.getAttribute('aria-label') || el.innerText || el.getAttribute('aria-valuetext') || '';
    return `${el.tagName.toLowerCase()} ${el.getAttribute('role') || ''} ${label}`.replace(/\\s+/g, ' ').trim();
}"""


def test_the_keyboard_reaches_every_control_of_draw_and_charts_add_no_tab_stops(page, base_url):
    open_path(page, base_url, "draw")
    harness.draw_digit(page, 1)
    harness.wait_for_prediction(page)
    harness.wait_for_run(page)
    page.locator('[data-testid="stMainBlockContainer"] h1').first.click()  # start from the page, not the address bar
    stops = []
    for _ in range(80):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(FOCUSED_JS))
    reached = " | ".join(stops)
    # the input choice is one radio group (one tab stop, arrow keys between "Draw" and "Upload a picture")
    for control in ("radio Draw", "Brush width", "Clear", "Binarization threshold", "Presenter mode", "Course note"):
        assert control in reached, f"Tab never reaches {control!r}: {stops}"
    assert page.locator(".modebar-btn").count() == 0, "a chart shows its toolbar (8 tab stops each)"
