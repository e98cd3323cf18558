"""WCAG 2.1 A and AA in Chromium: axe-core on every page and state, and what axe cannot see by itself.

axe-core comes bundled in the ``axe-playwright-python`` package (requirements-dev.txt); it runs in the page with the
rules tagged wcag2a, wcag2aa, wcag21a and wcag21aa, and a case fails on any violation, naming the rule, each node
and the page. ``CASES`` is the one table of what is checked: (page, state, theme, screen). Every page in the light
theme at 1366x768; the dark theme on the pages that hold every kind of widget and chart the lab uses (Home,
Heatmaps, Draw, Compare, Spam filter, the lesson, the gallery: the theme changes colours, and each kind of element
takes its colour from it the same way on every page); presenter mode at 1024x768 and the phone on the pages and
states whose layout those screens change most (Draw, the lesson, the gallery, Home, Heatmaps, Compare). Every page
in every theme at every screen would be 13 x 3 x 3 cases, about 40 s each under load: this subset keeps the file
near four minutes of CI. A new page or state is one more row (and, for a state, one more function in ``STATES``).

Beside axe, in every case: every chart is a figure with an accessible name. What axe cannot see by itself (live
regions, a paused gallery, the keyboard's focus) is in test_accessibility_behaviour.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from devtools import chromium, draw_page, page_checks
from lab import lesson_steps, lesson_steps_limits
from nbcore.classroom import open_store
from tests.e2e.test_screens import URL_PATHS, open_path

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
TIMEOUT_MS = 90_000
LIGHT, DARK, PRESENTER = "light", "dark", "presenter"  # presenter: ?presenter=true on the light theme
LAPTOP, PROJECTOR, PHONE = "1366x768", "1024x768", "390x844"
SCREENS = {
    LAPTOP: chromium.SCREENS["laptop 1366x768"],
    PROJECTOR: chromium.SCREENS["projector 1024x768"],
    PHONE: chromium.SCREENS["phone 390x844 (touch)"],
}


@dataclass
class Visit:
    """What a state needs: the page, the browser (for a second person, such as the teacher), the server, its data."""

    page: object
    browser: object
    base_url: str
    data_dir: object
    query: str
    touch: bool  # the screen is a touch screen: strokes by finger


def opened(visit: Visit, path: str) -> None:
    open_path(visit.page, visit.base_url, path, visit.query)


def after_a_stroke(visit: Visit, path: str) -> None:
    opened(visit, path)
    draw_page.draw_digit(visit.page, 7, touch=visit.touch)
    draw_page.wait_for_prediction(visit.page)
    chromium.wait_for_run(visit.page)


def a_test_image(visit: Visit, path: str) -> None:
    visit.query = join_query(visit.query, "draw_mode=Test+image")
    opened(visit, path)
    draw_page.wait_for_prediction(visit.page)
    chromium.wait_for_run(visit.page)


def answer_and_reveal(page, button_name: str) -> None:
    """The first question on a lesson step: its first option (a radio) or the slider's start, then the button."""
    question = page.locator('[class*="st-key-lesson_question_"]').first
    radios = question.locator('[role="radiogroup"] label')
    if radios.count():
        chromium.run_after(page, radios.first.click)
    chromium.run_after(page, question.get_by_role("button", name=button_name).click)


def answered_and_revealed(visit: Visit, path: str) -> None:
    visit.query = join_query(visit.query, "lesson=2")
    opened(visit, path)
    answer_and_reveal(visit.page, "Reveal")


def the_mixture_of_styles(visit: Visit, path: str) -> None:
    """Samples or Inpainting with the mixture of styles chosen in the link (its K slider, its own words)."""
    visit.query = join_query(visit.query, "model=mixture&components=20")
    opened(visit, path)


def the_styles_step_revealed(visit: Visit, path: str) -> None:
    """The lesson's styles step, its question answered and revealed: the style maps and the accuracy by K."""
    visit.query = join_query(visit.query, f"lesson={lesson_steps.STEPS.index(lesson_steps_limits.STYLES) + 1}")
    opened(visit, path)
    answer_and_reveal(visit.page, "Reveal")


def new_class(visit: Visit) -> tuple[str, str]:
    made = open_store("", data_dir=visit.data_dir).create_class()  # the test server's default store
    return made.info.code, made.teacher_key


def a_student_in_a_class_after_sending(visit: Visit, path: str) -> None:
    code, _ = new_class(visit)
    visit.query = join_query(visit.query, f"class={code}")
    after_a_stroke(visit, path)
    form = visit.page.locator('[data-testid="stForm"]').filter(has_text=f"Send to class {code}")
    form.get_by_role("radio", name="7", exact=True).click()
    form.get_by_role("button", name="Send to the class").click()
    visit.page.get_by_text(f"Sent: your 7 is in class {code}'s gallery").wait_for(timeout=TIMEOUT_MS)


def the_teacher_with_drawings(visit: Visit, path: str) -> None:
    code, key = new_class(visit)
    store = open_store("", data_dir=visit.data_dir)
    frame = np.zeros((28, 28), dtype=np.uint8)
    frame[6:22, 13:15] = 255  # a plain 1
    for meant, read in ((1, 1), (7, 1)):
        store.add_drawing(code, "a" * 16, frame, meant, np.eye(10)[read], np.eye(10)[read])
    visit.query = join_query(visit.query, f"class={code}&key={key}")
    opened(visit, path)
    visit.page.locator('[data-testid="stImage"]').first.wait_for(timeout=TIMEOUT_MS)
    chromium.wait_for_run(visit.page)


def a_class_answered_and_revealed_by_the_teacher(visit: Visit, path: str) -> None:
    code, key = new_class(visit)
    student_context = visit.browser.new_context(**SCREENS[PHONE])
    try:
        student = student_context.new_page()
        open_path(student, visit.base_url, path, f"?class={code}&lesson=2")
        answer_and_reveal(student, f"Send my answer to class {code}")
    finally:
        student_context.close()
    visit.query = join_query(visit.query, f"class={code}&key={key}&lesson=2")
    opened(visit, path)
    question = visit.page.locator('[class*="st-key-lesson_question_"]').first
    chromium.run_after(visit.page, question.get_by_role("button", name="Reveal to the class").click)


def the_teachers_class_page(visit: Visit, path: str) -> None:
    code, key = new_class(visit)
    visit.query = join_query(visit.query, f"class={code}&key={key}")
    opened(visit, path)
    visit.page.locator('img[alt^="QR code"]').wait_for(timeout=TIMEOUT_MS)


def an_ended_class(visit: Visit, path: str) -> None:
    """The teacher's class page, or a student's page, once the teacher has ended the class."""
    code, key = new_class(visit)
    open_store("", data_dir=visit.data_dir).end(code, key)
    visit.query = join_query(visit.query, f"class={code}&key={key}" if path == "teach" else f"class={code}")
    opened(visit, path)
    visit.page.get_by_text(f"Class {code} ended at", exact=False).first.wait_for(timeout=TIMEOUT_MS)


def a_student_following_the_teacher(visit: Visit, path: str) -> None:
    code, key = new_class(visit)
    open_store("", data_dir=visit.data_dir).set_pace(code, key, 3)
    visit.query = join_query(visit.query, f"class={code}&lesson=1")
    opened(visit, path)
    visit.page.locator("h2").filter(has_text="3. ").first.wait_for(timeout=TIMEOUT_MS)


STATES: dict[str, Callable[[Visit, str], None]] = {
    "opened": opened,
    "after a stroke": after_a_stroke,
    "a test image": a_test_image,
    "step 2 answered and revealed": answered_and_revealed,
    "a student in a class, after sending": a_student_in_a_class_after_sending,
    "the teacher's gallery with drawings": the_teacher_with_drawings,
    "the teacher revealed a class's answers": a_class_answered_and_revealed_by_the_teacher,
    "the teacher's class page": the_teachers_class_page,
    "an ended class": an_ended_class,
    "a student following the teacher": a_student_following_the_teacher,
    "the mixture of styles": the_mixture_of_styles,
    "the styles step revealed": the_styles_step_revealed,
}

# (URL path, state, theme, screen): one row, one case.
CASES = [
    *[(path, "opened", LIGHT, LAPTOP) for path in URL_PATHS],
    *[
        (path, "opened", DARK, LAPTOP)
        for path in ("", "heatmaps", "draw", "compare", "mixture", "spam", "lesson", "gallery")
    ],
    *[
        (path, "opened", PRESENTER, PROJECTOR)
        for path in ("", "heatmaps", "draw", "compare", "mixture", "lesson", "gallery")
    ],
    *[(path, "opened", LIGHT, PHONE) for path in ("", "heatmaps", "draw", "mixture", "lesson")],
    ("draw", "after a stroke", LIGHT, LAPTOP),
    ("draw", "after a stroke", DARK, LAPTOP),
    ("draw", "after a stroke", PRESENTER, PROJECTOR),
    ("draw", "after a stroke", LIGHT, PHONE),
    ("draw", "a test image", LIGHT, PROJECTOR),
    ("lesson", "step 2 answered and revealed", LIGHT, LAPTOP),
    ("lesson", "step 2 answered and revealed", DARK, PHONE),
    ("lesson", "step 2 answered and revealed", PRESENTER, PROJECTOR),
    ("draw", "a student in a class, after sending", LIGHT, PHONE),
    ("gallery", "the teacher's gallery with drawings", LIGHT, LAPTOP),
    ("gallery", "the teacher's gallery with drawings", PRESENTER, PROJECTOR),
    ("lesson", "the teacher revealed a class's answers", PRESENTER, PROJECTOR),
    ("teach", "the teacher's class page", LIGHT, LAPTOP),
    ("teach", "the teacher's class page", DARK, LAPTOP),
    ("teach", "the teacher's class page", PRESENTER, PROJECTOR),
    ("teach", "an ended class", LIGHT, PROJECTOR),
    ("draw", "an ended class", LIGHT, PHONE),
    ("lesson", "a student following the teacher", LIGHT, PHONE),
    ("samples", "the mixture of styles", LIGHT, PHONE),
    ("inpainting", "the mixture of styles", PRESENTER, PROJECTOR),
    ("lesson", "the styles step revealed", LIGHT, LAPTOP),
    ("lesson", "the styles step revealed", PRESENTER, PROJECTOR),
]


def join_query(query: str, more: str) -> str:
    return f"{query}&{more}" if query else f"?{more}"


def violation_report(violations: list[dict]) -> list[str]:
    """Each violation as the rule, then every node it found: its CSS path, its HTML and what to fix."""
    lines = []
    for violation in violations:
        lines.append(
            f"{violation['id']} ({violation['impact']}): {violation['help']} [{len(violation['nodes'])} nodes]"
        )
        for node in violation["nodes"]:
            summary = " ".join((node.get("failureSummary") or "").split())
            lines.append(
                f"    {' > '.join(map(str, node['target']))}\n      {node['html'][:200]}\n      {summary[:400]}"
            )
    return lines


CHART_NAMES_JS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map(chart => ({
    role: chart.getAttribute('role'), name: (chart.getAttribute('aria-label') || '').trim()}))"""


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


@pytest.fixture(scope="module")
def contexts(browser):
    """A browser context per colour scheme and screen, shared by the cases (each opens a page of its own, a
    session of its own): a new context would fetch the app's front end and plotly again, seconds per case."""
    made: dict[tuple[str, str], object] = {}

    def context(scheme: str, screen: str):
        if (scheme, screen) not in made:
            made[scheme, screen] = browser.new_context(**SCREENS[screen], color_scheme=scheme)
            made[scheme, screen].set_default_timeout(TIMEOUT_MS)
        return made[scheme, screen]

    yield context
    for each in made.values():
        each.close()


@pytest.mark.parametrize("path, state, theme, screen", CASES, ids=["/".join(case) for case in CASES])
def test_no_wcag_violation(browser, warm_app, app_data_dir, axe, contexts, path, state, theme, screen):
    page = contexts("dark" if theme == DARK else "light", screen).new_page()
    try:
        query = "?presenter=true" if theme == PRESENTER else ""
        visit = Visit(page, browser, warm_app.url, app_data_dir, query, bool(SCREENS[screen].get("has_touch")))
        STATES[state](visit, path)
        assert not page_checks.page_problems(page), page_checks.page_problems(page)
        results = axe.run(
            page, options={"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
        ).response
        violations = results["violations"]
        assert not violations, f"/{path}{visit.query} ({state}, {theme}, {screen}):\n" + "\n".join(
            violation_report(violations)
        )
        # axe asks nothing of a chart without a role: every plotly chart must be a figure with a name that says
        # something (lab/figures/describe.py); Draw after a stroke has two
        charts = page.evaluate(CHART_NAMES_JS)
        nameless = [chart for chart in charts if chart["role"] != "figure" or len(chart["name"]) < 20]
        assert not nameless, f"/{path}{visit.query}: charts without a name: {nameless}"
        assert state != "after a stroke" or len(charts) >= 2, f"{len(charts)} charts on Draw after a stroke"
    finally:
        page.close()
