"""The rooms the lab is built for: every page on every screen of ``chromium.SCREENS``, and links opened cold.

On each screen (a 1024x768 projector with the sidebar open, the same in presenter mode with the
sidebar folded, a 1366x768 laptop in the light and in the dark theme, a 1920x1080 desktop, a 150 % zoom
of 1280x800, and a 390x844 phone drawn on by touch), every page of the navigation:

* shows no exception or error box, does not scroll sideways, clips no title, label, caption or page
  link, keeps every chart's title, axis titles, annotations and colour bars inside the chart and apart,
  and leaves a gap between panel titles side by side;
* on Draw: a grid of points over the canvas hits the canvas (before and after a prediction), and
  right after a stroke the "Naive Bayes prediction" metric is inside the viewport, uncovered;
* in presenter mode: axis numbers of at least 16 px, body text 1.25 times the theme's size, no colour
  bar on a chart without a colour scale, the sidebar folded, and the page's first figure (chart,
  picture, metric or canvas) starting within the first screen.

At 1024x768 and 390x844, every step of the lesson, Inpainting's panels and Draw's link to Compare keep
their page links whole and their panel titles apart. The keyboard reaches every control of Draw and the
sidebar, and charts add no tab stops. The tab icon comes from the app's own server, and so does
everything else the page loads.

A fresh server whose first visits are links to /xor and /spam, and every page opened by its link in
a new session, show the whole app (sections, every page link, presenter mode, and the model settings
on the pages with an MNIST model); a reload keeps the page.
"""

from __future__ import annotations

import contextlib
import io
import tomllib
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

import nbcore
from devtools import app_server, chromium, draw_page, page_checks
from lab import lesson_steps, shell
from lab.shell import PAGES
from tests.conftest import REPO
from tests.e2e.conftest import ARTIFACTS

PATHS = [Path(path).stem for pages in PAGES.values() for path, _, _ in pages]  # URL paths, "home" is "/"
URL_PATHS = ["" if stem == "home" else stem for stem in PATHS]
# the pages beyond MNIST have no MNIST model: no model settings in their sidebar
WITHOUT_MODEL_SETTINGS = {Path(path).stem for path in shell.WITHOUT_MODEL_SETTINGS}  # Beyond MNIST, the class page
CASES = [
    ("projector 1024x768", False),
    ("projector 1024x768", True),
    ("laptop 1366x768", False),
    ("laptop 1366x768, dark", False),
    ("phone 390x844 (touch)", False),
]
MIN_PRESENTER_AXIS_PX = 16

PRESENTER_JS = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const ticks = [...main.querySelectorAll('.xtick text, .ytick text')].map(t => parseFloat(getComputedStyle(t).fontSize));
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    // the figure nearest the top (a column's metric can come first in the page's order, lower on screen)
    const figures = [...main.querySelectorAll('.js-plotly-plot, [data-testid="stImage"], [data-testid="stMetric"], '
        + '[data-testid="stTable"], .st-key-draw_source')].map(el => el.getBoundingClientRect().top);
    // body text: paragraphs and list items of the page's Markdown, captions apart
    const body = [...main.querySelectorAll('[data-testid="stMarkdown"] :is(p, li)')]
        .filter(el => !el.closest('[data-testid="stCaptionContainer"]') && el.textContent.trim())
        .map(el => parseFloat(getComputedStyle(el).fontSize));
    // colour bars drawn for traces that have no colour scale (a line, bar or scatter chart's markers)
    const scaled = t => (['heatmap', 'contour', 'histogram2d'].includes(t.type) && t.showscale !== false)
        || (t.marker && t.marker.showscale === true);
    const strayBars = [...main.querySelectorAll('.js-plotly-plot')]
        .map(plot => [plot.querySelectorAll('.colorbar').length - (plot.data || []).filter(scaled).length,
                      (plot.data || []).map(t => t.type).join('+')])
        .filter(([extra]) => extra > 0).map(([extra, types]) => `${extra} colour bar(s) on a ${types} chart`);
    return {smallest_tick: ticks.length ? Math.min(...ticks) : null, smallest_body: body.length ? Math.min(...body) : null,
            stray_bars: strayBars, sidebar_expanded: sidebar ? sidebar.getAttribute('aria-expanded') : null,
            figure_top: figures.length ? Math.min(...figures) : null, height: window.innerHeight};
}"""
# the theme's body text size (.streamlit/config.toml), which presenter mode makes 1.25 times larger
BASE_FONT_PX = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["theme"]["baseFontSize"]
PRESENTER_BODY_SCALE = 1.25


def open_path(page, base_url: str, path: str, query: str = "") -> None:
    page.goto(f"{base_url}/{path}{query}", timeout=60_000)
    chromium.wait_for_run(page, timeout=180, settle=0.3)


def save_screenshot(page, name: str) -> str:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"screen-{name}.png"
    page.screenshot(path=str(shot))
    return str(shot)


def draw_page_problems(page, touch: bool) -> list[str]:
    """The canvas wholly drawable before and after a stroke, and the prediction in view right after it."""
    problems = [f"canvas covered before drawing at {point}" for point in page_checks.canvas_covered_points(page)]
    origin = draw_page.canvas_origin(page)
    draw_page.draw_digit(page, 7, origin, touch=touch)
    value, _ = draw_page.wait_for_prediction(page)
    if value != "7":
        problems.append(f"a drawn 7 was read as {value}")
    if not page_checks.in_viewport(page, draw_page.prediction_locator(page).first):
        problems.append("the prediction is not in view right after the stroke")
    problems += [f"canvas covered after the prediction at {point}" for point in page_checks.canvas_covered_points(page)]
    return problems


@pytest.mark.parametrize(
    "screen, presenting", CASES, ids=[f"{screen}{', presenter' if presenting else ''}" for screen, presenting in CASES]
)
def test_every_page_holds_its_layout_on_this_screen(browser, warm_app, screen, presenting):
    context = browser.new_context(**chromium.SCREENS[screen])
    context.set_default_timeout(30_000)
    page = context.new_page()
    failures = {}
    try:
        for path in URL_PATHS:
            open_path(page, warm_app.url, path, "?presenter=true" if presenting else "")
            problems = page_checks.page_problems(page) + page_checks.layout_problems(page)
            if presenting:
                # the style sheet's script marks the page once its component has mounted, which can be after the
                # run has ended (CI once measured the class page's text before that, at the normal size)
                page.wait_for_function("() => document.body.classList.contains('nb-presenter')")
                shown = page.evaluate(PRESENTER_JS)
                if shown["smallest_tick"] is not None and shown["smallest_tick"] < MIN_PRESENTER_AXIS_PX:
                    problems.append(f"axis numbers of {shown['smallest_tick']} px in presenter mode")
                if (
                    shown["smallest_body"] is not None
                    and shown["smallest_body"] < PRESENTER_BODY_SCALE * BASE_FONT_PX - 0.1
                ):
                    problems.append(
                        f"body text of {shown['smallest_body']} px in presenter mode (normal {BASE_FONT_PX})"
                    )
                problems += shown["stray_bars"]
                if shown["sidebar_expanded"] == "true":
                    problems.append("the sidebar is open in presenter mode")
                # the gallery and the class page show figures only once a teacher has made a class; cold, none
                figureless = path in ("gallery", "teach") and shown["figure_top"] is None
                if not figureless and (shown["figure_top"] is None or shown["figure_top"] > shown["height"] - 100):
                    problems.append(f"the first figure starts at {shown['figure_top']} px, below the first screen")
            if path == "draw":
                problems += draw_page_problems(page, touch=chromium.SCREENS[screen].get("has_touch", False))
                problems += page_checks.layout_problems(page)
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
    with app_server.StreamlitServer(app_data_dir, log_path, ready_timeout=90) as server:
        yield server


def whole_app_problems(page, path: str) -> list[str]:
    """What is missing of the app's frame at URL path ``path``: both sections, every page link, presenter mode,
    a title, and the model settings on exactly the pages with an MNIST model."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    problems = [
        f"no section {section!r} in the navigation"
        for section in PAGES
        if sidebar.get_by_text(section, exact=True).count() == 0
    ]
    links = page.locator(chromium.NAVIGATION_LINKS).count()
    if links != len(URL_PATHS):
        problems.append(f"{links} page links in the navigation, not {len(URL_PATHS)}")
    if sidebar.get_by_text("Presenter mode", exact=True).count() == 0:
        problems.append("no presenter mode in the sidebar")
    settings_shown = sidebar.get_by_text("Model settings", exact=True).count() > 0
    if path in WITHOUT_MODEL_SETTINGS and settings_shown:
        problems.append("MNIST model settings in the sidebar of a page without an MNIST model")
    elif path not in WITHOUT_MODEL_SETTINGS and not settings_shown:
        problems.append("no model settings in the sidebar")
    if page.locator('[data-testid="stMain"] label').filter(has_text="Class prior").count() and settings_shown:
        problems.append("two 'Class prior' controls, the page's and the sidebar's")
    if page.locator('[data-testid="stMainBlockContainer"] h1').count() == 0:
        problems.append("no page title")
    return problems + page_checks.page_problems(page)


def link_problems(browser, url: str, reload: bool = False) -> list[str]:
    """Open ``url`` in a new session (a link followed from an e-mail): what is missing of the whole app."""
    context = browser.new_context(viewport=chromium.VIEWPORT)
    page = context.new_page()
    try:
        page.goto(url, timeout=60_000)
        chromium.wait_for_run(page, timeout=180, settle=0.3)
        page.locator(chromium.NAVIGATION_LINKS).first.wait_for(timeout=30_000)
        # the sidebar's last toggles can still be loading skeletons when the run has ended (a cold link under load):
        # give them time before saying they are missing; one that never comes is still reported below
        with contextlib.suppress(PlaywrightTimeoutError):
            page.locator('[data-testid="stSidebar"]').get_by_text("Presenter mode", exact=True).wait_for(timeout=30_000)
        path = urlparse(url).path.strip("/")
        problems = whole_app_problems(page, path)
        if reload:  # a reload stays on the page, in the whole app
            title = page.locator("h1").first.inner_text()
            page.reload()
            chromium.wait_for_run(page, timeout=60, settle=0.3)
            if page.locator("h1").first.inner_text() != title:
                problems.append("a reload left the page")
            problems += whole_app_problems(page, path)
        if problems:
            problems.append(f"screenshot {save_screenshot(page, 'link-' + path)}")
        return problems
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_chosen_option_hovered_or_focused_keeps_its_contrast(browser, warm_app, scheme):
    """The chosen option of a segmented control (the language in the sidebar, Draw's input) under the mouse and
    reached by the keyboard: Streamlit writes it in primaryColor, 2.8:1 on the dark background (a CI run once had the
    mouse resting on it). Each state is measured on purpose here, not left to where the mouse happens to be."""
    context = browser.new_context(**chromium.SCREENS["laptop 1366x768"], color_scheme=scheme)
    page = context.new_page()
    try:
        open_path(page, warm_app.url, "draw")
        problems = []
        for chosen in (
            page.locator('[data-testid="stSidebar"] button[data-selected="true"]', has_text="English"),
            page.locator('[data-testid="stMain"] button[data-selected="true"]', has_text="Draw"),
        ):
            chosen.scroll_into_view_if_needed()
            chosen.hover()
            page.wait_for_timeout(300)
            problems += [
                f"hovered: {problem}" for problem in page_checks.layout_problems(page) if "contrast" in problem
            ]
            page.mouse.move(0, 0)
            chosen.focus()
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Tab")  # focus from the keyboard: :focus-visible
            page.wait_for_timeout(300)
            problems += [
                f"focused: {problem}" for problem in page_checks.layout_problems(page) if "contrast" in problem
            ]
        assert not problems, problems
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
    let el = document.activeElement;
    while (el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;  // a component's own
    const label = el.getAttribute('aria-label') || (el.labels && el.labels.length ? el.labels[0].innerText : '')
        || el.innerText || el.getAttribute('aria-valuetext') || '';
    return `${el.tagName.toLowerCase()} ${el.getAttribute('role') || ''} ${label}`.replace(/\\s+/g, ' ').trim();
}"""


def test_the_keyboard_reaches_every_control_of_draw_and_charts_add_no_tab_stops(page, base_url):
    open_path(page, base_url, "draw")
    draw_page.draw_digit(page, 1)
    draw_page.wait_for_prediction(page)
    chromium.wait_for_run(page)
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


LESSON_STEPS = len(lesson_steps.STEPS)
PAGE_LINKS_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stPageLink"]')]
    .map(link => link.innerText.replace(/\\s+/g, ' ').trim())"""


def confidently_wrong_pictures(mnist, count: int = 5) -> list[bytes]:
    """Test images naive Bayes (textbook) reads wrongly with p >= 0.99, as dark-on-light PNGs a student might
    upload: on Draw, each is likely to bring the warning with its link to Compare (softmax reads another digit)."""
    bayes = nbcore.BernoulliNB().fit(nbcore.binarize(mnist["train_images"], 128), mnist["train_labels"])
    proba = bayes.predict_proba(nbcore.binarize(mnist["test_images"][:2000], 128))
    chosen = np.flatnonzero((proba.max(axis=1) >= 0.99) & (proba.argmax(axis=1) != mnist["test_labels"][:2000]))
    pictures = []
    for index in chosen[:count]:
        buffer = io.BytesIO()
        Image.fromarray(255 - mnist["test_images"][index]).resize((280, 280), Image.Resampling.LANCZOS).save(
            buffer, format="PNG"
        )
        pictures.append(buffer.getvalue())
    return pictures


def draw_link_problems(page, base_url: str, pictures: list[bytes]) -> list[str]:
    """Draw with a picture that brings the link to Compare: the link whole, nothing else clipped."""
    open_path(page, base_url, "draw", "?draw_mode=Upload+a+picture")
    for number, picture in enumerate(pictures):
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": f"digit-{number}.png", "mimeType": "image/png", "buffer": picture}]
        )
        draw_page.wait_for_prediction(page, expect_change_from=draw_page.read_prediction(page) or "any")
        chromium.wait_for_run(page, settle=0.3)
        if page.evaluate(PAGE_LINKS_JS):
            return page_checks.layout_problems(page)
    return [f"none of {len(pictures)} pictures naive Bayes is sure of and wrong about brought the link to Compare"]


@pytest.mark.parametrize("screen", ["projector 1024x768", "phone 390x844 (touch)"])
def test_page_links_and_panel_titles_are_whole_and_apart_on_this_screen(browser, warm_app, mnist, screen):
    """Every lesson step (each ends with links to pages), Inpainting's three panels, and Draw's link to Compare."""
    context = browser.new_context(**chromium.SCREENS[screen])
    context.set_default_timeout(30_000)
    page = context.new_page()
    failures, links_seen = {}, 0
    try:
        for path, query in [("lesson", f"?lesson={step}") for step in range(1, LESSON_STEPS + 1)] + [
            ("inpainting", "")
        ]:
            open_path(page, warm_app.url, path, query)
            links_seen += len(page.evaluate(PAGE_LINKS_JS))
            problems = page_checks.layout_problems(page)
            if problems:
                failures[f"/{path}{query}"] = (problems, save_screenshot(page, f"links-{screen}-{path}{query}"))
        problems = draw_link_problems(page, warm_app.url, confidently_wrong_pictures(mnist))
        if problems:
            failures["/draw"] = (problems, save_screenshot(page, f"links-{screen}-draw"))
    finally:
        context.close()
    assert links_seen >= LESSON_STEPS, f"only {links_seen} page links in the lesson's {LESSON_STEPS} steps"
    assert not failures, f"{screen}:\n" + "\n".join(
        f"{where} (screenshot {shot}):\n  " + "\n  ".join(problems) for where, (problems, shot) in failures.items()
    )


def test_the_tab_icon_comes_from_the_app_and_nothing_from_elsewhere(browser, warm_app):
    """A classroom without internet: every request the page makes goes to the app's own server."""
    context = browser.new_context(viewport=chromium.VIEWPORT)
    page = context.new_page()
    host = urlparse(warm_app.url).netloc
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        open_path(page, warm_app.url, "xor")
        icon = page.evaluate("() => (document.querySelector('link[rel~=\"icon\"]') || {}).href || null")
        assert icon and urlparse(icon).netloc == host, f"the tab icon comes from {icon}"
        assert page.request.get(icon).ok, f"the tab icon {icon} does not load"
        # data: and blob: URLs are the page's own memory; anything else must come from the app's server
        elsewhere = [
            url
            for url in requested
            if urlparse(url).scheme in ("http", "https", "ws", "wss") and urlparse(url).netloc != host
        ]
        assert not elsewhere, f"requests to other servers: {elsewhere}"
    finally:
        context.close()
