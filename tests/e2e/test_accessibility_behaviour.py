"""WCAG 2.1 in Chromium, what axe-core cannot see by itself (test_accessibility.py runs axe on every page and state):
Draw's live region says the predicted digit after a stroke and after choosing a test image, and Beyond naive's says
its verdict when the choice changes; a paused gallery stays still until *Refresh now* (2.2.2); the keyboard's focus
after each action that replaces the control used.
"""

from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import expect

from devtools import app_server, chromium, draw_page
from lab import lesson_steps
from nbcore.classroom import open_store
from tests.e2e.test_accessibility import TIMEOUT_MS
from tests.e2e.test_screens import open_path

LIVE_REGION = "p.nb-live-region[role=status][aria-live=polite]"
# a JS predicate for chromium.run_after: the page's main part shows this text (a label, a caption)
TEXT_SHOWN_JS = """() => (document.querySelector('[data-testid="stMain"]')?.innerText || '').includes(%r)"""


def test_draws_live_region_says_each_new_verdict(page, base_url):
    open_path(page, base_url, "draw")
    region = page.locator(LIVE_REGION)
    assert region.count() == 1 and region.text_content() == ""
    for digit in (7, 1):
        origin = draw_page.clear_canvas(page) if digit != 7 else draw_page.canvas_origin(page)
        draw_page.draw_digit(page, digit, origin)
        # the region says the new verdict once the server's run of the stroke has ended (read after drawing, the
        # metric could already be the new one: waiting for it to change from that timed out once)
        said = re.compile(rf"^Naive Bayes reads {digit} \(p = ")
        expect(page.locator(LIVE_REGION)).to_have_text(said, timeout=60_000)  # in the component's shadow root
        chromium.wait_for_run(page)
        assert draw_page.read_prediction(page)[0] == str(digit)
        assert page.locator(LIVE_REGION).count() == 1  # the same region, not a second one
    # the keyboard's way in: a test image by number, and the region says what the models read
    # (each of these runs can be Draw's fragment alone, which may never show "running": what it draws tells instead)
    chromium.run_after(
        page, page.get_by_role("radio", name="Test image").click, shown_js=TEXT_SHOWN_JS % "Test image (0 to 9,999)"
    )
    draw_page.wait_for_prediction(page)
    number = page.get_by_label("Test image (0 to 9,999)")
    number.fill("3")
    chromium.run_after(page, lambda: number.press("Enter"), shown_js=TEXT_SHOWN_JS % "Test image 3 of MNIST")
    said = page.locator(LIVE_REGION).text_content()
    caption = page.get_by_text("Test image 3 of MNIST: a handwritten").inner_text()
    truth = caption.rsplit(" ", 1)[-1].rstrip(".")
    assert said.startswith("Naive Bayes reads "), said
    assert draw_page.read_prediction(page)[0] in said and truth.isdigit()


def test_the_unlabeled_verdict_is_said_when_the_choice_changes(page, base_url):
    """Beyond naive: the unlabeled panel's verdict is in a live region, and a keyboard choice of other labels per
    class makes it say the new one (hurt at 10 labelled digits, helped at 1, as the prepared figures have it)."""
    open_path(page, base_url, "mixture")
    region = page.locator(LIVE_REGION)
    expect(region).to_have_text(re.compile(r"^Here the unlabeled digits hurt: "), timeout=60_000)
    one = page.get_by_role("radiogroup", name="Labelled digits per class").get_by_role("radio", name="1", exact=True)
    one.focus()
    chromium.run_after(
        page, lambda: page.keyboard.press("Enter"), shown_js=TEXT_SHOWN_JS % "1 labelled digits per class"
    )
    expect(region).to_have_text(re.compile(r"^Here the unlabeled digits helped: "), timeout=60_000)
    assert page.locator(LIVE_REGION).count() == 1


def add_drawings(data_dir, code: str, meant: list[int]) -> None:
    """Drawings of a plain 1 sent to class ``code`` straight through the server's store, meant as ``meant``."""
    store = open_store("", data_dir=data_dir)
    frame = np.zeros((28, 28), dtype=np.uint8)
    frame[6:22, 13:15] = 255
    for digit in meant:
        store.add_drawing(code, "b" * 16, frame, digit, np.eye(10)[1], np.eye(10)[1])


def drawings_shown(page) -> str:
    return (
        page.locator('[data-testid="stMetric"]')
        .filter(has_text="Drawings")
        .locator('[data-testid="stMetricValue"]')
        .inner_text()
    )


def test_the_gallery_stops_refreshing_when_paused_and_refreshes_on_request(page, base_url, app_data_dir):
    """WCAG 2.2.2: the teacher's gallery, which looks for drawings every 3 s, stays still once paused."""
    made = open_store("", data_dir=app_data_dir).create_class()
    code = made.info.code
    add_drawings(app_data_dir, code, [1])
    open_path(page, base_url, "gallery", f"?class={code}&key={made.teacher_key}")
    page.get_by_text("What the class drew").wait_for()
    assert drawings_shown(page) == "1"
    add_drawings(app_data_dir, code, [7])
    page.wait_for_function(  # live: the new drawing shows within a few refreshes
        """() => [...document.querySelectorAll('[data-testid="stMetric"]')].some(m =>
            m.innerText.includes('Drawings') && m.querySelector('[data-testid="stMetricValue"]').innerText.trim() === '2')""",
        timeout=TIMEOUT_MS,
    )
    chromium.run_after(page, page.get_by_text("Pause live updates").click)
    add_drawings(app_data_dir, code, [4])
    page.wait_for_timeout(12_000)  # four of the gallery's 3 s refreshes (pages/gallery.py), two of the model's 10 s
    assert drawings_shown(page) == "2", "the paused gallery changed by itself"
    chromium.run_after(page, page.get_by_role("button", name="Refresh now").click)
    assert drawings_shown(page) == "3"


FOCUSED_JS = """() => {
    const el = document.activeElement;
    const keyed = el.closest('[class*="st-key-"]');
    const key = keyed ? [...keyed.classList].find(name => name.startsWith('st-key-')) : '';
    return `${el.tagName.toLowerCase()} ${key} ${(el.innerText || '').trim().slice(0, 40)}`.trim();
}"""


# After a press: the control used has left the page (a run replaced it) or the focus has moved off it to another
# element. A run that only redraws a fragment can start and end between two renders without the page ever saying
# "running" (chromium.run_after), so this is what tells that the press was taken.
PRESS_TAKEN_JS = """() => {
    const used = document.querySelector('[data-nb-pressed]');
    return !used || (document.activeElement !== used && document.activeElement !== document.body);
}"""


def press(page, control, key: str = "Enter") -> str:
    """Focus ``control``, press ``key`` as a keyboard would, wait for the run; where the focus is then (FOCUSED_JS)."""
    control.evaluate("el => el.setAttribute('data-nb-pressed', '')")
    control.focus()
    chromium.run_after(page, lambda: page.keyboard.press(key), shown_js=PRESS_TAKEN_JS)
    page.wait_for_function("() => document.activeElement !== document.body", timeout=10_000)
    return page.evaluate(FOCUSED_JS)


def test_the_focus_stays_near_the_control_used(page, base_url, app_data_dir):
    """Keyboard only: Reveal, Answer again, Start again, an upload, Send my answer and the teacher's reveal each
    leave the focus on the control that took the used one's place, not on the page's <body>."""
    open_path(page, base_url, "lesson", "?lesson=2")
    question = page.locator('[class*="st-key-lesson_question_"]').first
    key = question.evaluate("el => [...el.classList].find(c => c.startsWith('st-key-lesson_question_'))")
    name = key.removeprefix("st-key-lesson_question_")
    question.locator('[role="radiogroup"] input').first.focus()
    page.keyboard.press("Space")  # choose the first answer
    chromium.wait_for_run(page, settle=0.3)
    assert press(page, question.get_by_role("button", name="Reveal")).startswith(f"button st-key-lesson_again_{name}")
    assert press(page, page.get_by_role("button", name="Answer again")).startswith(
        f"button st-key-lesson_reveal_{name}"
    )

    open_path(page, base_url, "lesson", f"?lesson={len(lesson_steps.STEPS)}")  # the last step: Start again
    restart = page.locator(".st-key-lesson_restart_bottom button")
    assert press(page, restart).startswith("button st-key-lesson_next_bottom"), page.evaluate(FOCUSED_JS)
    assert "lesson=1" in page.url

    open_path(page, base_url, "draw", "?draw_mode=Upload+a+picture")
    page.locator('[data-testid="stFileUploaderDropzone"] button').focus()  # where a keyboard user opens the chooser
    # the file as the chooser would give it (pressing Enter opened no chooser within 30 s once, at a load of 20)
    picture = app_server.REPO / "lab" / "favicon.png"
    uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    chromium.run_after(page, lambda: uploader.set_input_files(str(picture)))
    page.wait_for_function("() => document.activeElement !== document.body", timeout=10_000)
    assert page.evaluate(FOCUSED_JS).startswith("button st-key-draw_upload"), page.evaluate(FOCUSED_JS)

    made = open_store("", data_dir=app_data_dir).create_class()
    code = made.info.code
    open_path(page, base_url, "lesson", f"?class={code}&lesson=2")
    question = page.locator(f".st-key-lesson_question_{name}")
    question.locator('[role="radiogroup"] input').first.focus()
    page.keyboard.press("Space")
    chromium.wait_for_run(page, settle=0.3)
    send = question.get_by_role("button", name=f"Send my answer to class {code}")
    assert press(page, send).startswith(f"button st-key-lesson_again_{name}")

    teacher = page.context.new_page()
    try:
        open_path(teacher, base_url, "lesson", f"?class={code}&key={made.teacher_key}&lesson=2")
        reveal = teacher.locator(f".st-key-lesson_question_{name}").get_by_role("button", name="Reveal to the class")
        assert press(teacher, reveal).startswith(f"div st-key-lesson_question_{name}"), teacher.evaluate(FOCUSED_JS)
    finally:
        teacher.close()
