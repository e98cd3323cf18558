"""The class gallery in real browsers: two students in one class code see each other's drawings, a class with
another code sees none, and the teacher's page shows them by itself (it refreshes every few seconds).
"""

from __future__ import annotations

from devtools import harness
from lab import gallery
from tests.e2e.conftest import ARTIFACTS

PLOTLY_TICK_GREY = "rgb(128,132,149)"


def student_sends(browser, base_url: str, code: str, digit: int, screen: str) -> None:
    """A new session on Draw with ``?class=code`` draws ``digit``, picks it as meant and sends it."""
    context = browser.new_context(**harness.SCREENS[screen])
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        page.goto(f"{base_url}/draw?class={code}", timeout=60_000)
        harness.wait_for_run(page, timeout=180, settle=0.3)
        touch = harness.SCREENS[screen].get("has_touch", False)
        harness.draw_digit(page, digit, touch=touch)
        harness.wait_for_prediction(page)
        form = page.locator('[data-testid="stForm"]').filter(has_text=f"Share with class {code}")
        form.get_by_role("radio", name=str(digit), exact=True).click()
        form.get_by_role("button", name="Send to the class gallery").click()
        confirmation = page.get_by_text(f"Sent: your {digit} is in class {code}'s gallery")
        confirmation.wait_for(timeout=30_000)
        assert not harness.page_problems(page)
        confirmation.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"gallery-student-{digit}.png"))
    finally:
        context.close()


def drawings_shown(page) -> int:
    """How many drawings the teacher's grid shows (its pictures are captioned "… meant d · NB …")."""
    return page.locator('[data-testid="stImageContainer"]').filter(has_text="meant").count()


def test_two_students_in_one_class_see_their_drawings_together_and_another_class_sees_none(browser, base_url):
    code, other = gallery.new_code(8), gallery.new_code(8)
    context = browser.new_context(**harness.SCREENS["projector 1024x768"])
    context.set_default_timeout(30_000)
    teacher = context.new_page()
    try:
        teacher.goto(f"{base_url}/gallery?class={code}", timeout=60_000)
        harness.wait_for_run(teacher, timeout=180, settle=0.3)
        teacher.get_by_text("No drawings in class").wait_for()
        student_sends(browser, base_url, code, 7, "laptop 1366x768")
        student_sends(browser, base_url, code, 1, "phone 390x844 (touch)")
        # no reload: the page's fragment reruns by itself
        teacher.wait_for_function(
            """() => [...document.querySelectorAll('[data-testid="stImageContainer"]')]
                                      .filter(e => e.innerText.includes('meant')).length === 2""",
            timeout=30_000,
        )
        captions = teacher.locator('[data-testid="stImageContainer"]').all_inner_texts()
        assert any("meant 7" in caption for caption in captions) and any("meant 1" in caption for caption in captions)
        teacher.locator(".js-plotly-plot").nth(1).wait_for()  # both confusion matrices
        assert not harness.page_problems(teacher)
        # plotly's axis numbers are drawn in Streamlit's chart grey, on Draw as on every page with a chart
        assert not [problem for problem in harness.layout_problems(teacher) if PLOTLY_TICK_GREY not in problem]
        teacher.screenshot(path=str(ARTIFACTS / "gallery-teacher-1024x768.png"))

        teacher.goto(f"{base_url}/gallery?class={other}", timeout=60_000)
        harness.wait_for_run(teacher, timeout=60, settle=0.3)
        teacher.get_by_text("No drawings in class").wait_for()
        assert drawings_shown(teacher) == 0
    finally:
        context.close()
