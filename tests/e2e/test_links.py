"""Settings in the link, in Chromium: a teacher's link reproduces the view, survives a reload and can lock.

* a link with the course note's settings shows the course note's accuracy, and so does a reload;
* a setting moved on the page goes into the address bar, and a reload keeps it;
* a page's own choice (Smoothing's test image) comes back from the link, after a reload too;
* ``?lock=alpha`` shows α disabled and marked as locked;
* the browser's back button goes back through pages, each as it was left, and does not undo a setting
  (what the README says);
* hostile query strings on every page give the defaults, a notice, and no error.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from devtools import chromium, page_checks
from lab.shell import PAGES, WITHOUT_MODEL_SETTINGS
from tests.conftest import REPO

URL_PATHS = [
    "" if path.endswith("home.py") else path.split("/")[-1].removesuffix(".py")
    for pages in PAGES.values()
    for path, _, _ in pages
]
TEST_ACCURACY = "Test accuracy (10,000 images)"
# pages without model settings (the Beyond MNIST ones and the class page)
BEYOND_MNIST = {path.split("/")[-1].removesuffix(".py") for path in WITHOUT_MODEL_SETTINGS}
HOSTILE = "alpha=banana&threshold=%3Cscript%3Ealert(1)%3C/script%3E&prior=..%2F..%2Fetc%2Fpasswd&beta=" + "9" * 10_000


def open_url(page, url: str) -> None:
    page.goto(url, timeout=60_000)
    chromium.wait_for_run(page, timeout=180, settle=0.3)


def metric_value(page, label: str) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return metric.locator('[data-testid="stMetricValue"]').inner_text().strip()


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_a_link_with_settings_reproduces_the_numbers_and_a_reload_keeps_them(page, base_url):
    open_url(page, f"{base_url}/?threshold=1&prior=uniform")
    assert metric_value(page, TEST_ACCURACY) == "0.8415"  # the course note's published figure
    page.reload()
    chromium.wait_for_run(page, timeout=120, settle=0.3)
    assert metric_value(page, TEST_ACCURACY) == "0.8415"
    assert query(page).get("threshold") == ["1"] and query(page).get("prior") == ["uniform"]


def test_a_setting_moved_on_the_page_goes_into_the_link_and_survives_a_reload(page, base_url):
    open_url(page, f"{base_url}/")
    before = metric_value(page, TEST_ACCURACY)
    slider = (
        page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]')
        .filter(has_text="α: pseudo-count")
        .locator('input[type="range"]')
    )
    chromium.run_after(page, lambda: (slider.focus(), page.keyboard.press("End")))  # α = 100
    page.wait_for_function(
        "() => new URL(location.href).searchParams.get('alpha') === '100.0'"
        " || new URL(location.href).searchParams.get('alpha') === '100'",
        timeout=30_000,
    )
    moved = metric_value(page, TEST_ACCURACY)
    assert moved != before
    page.reload()
    chromium.wait_for_run(page, timeout=120, settle=0.3)
    assert metric_value(page, TEST_ACCURACY) == moved


def test_a_page_of_choices_comes_back_from_its_link_after_a_reload(page, base_url):
    """Threshold 1, α 0.1 and test image 42 on Smoothing, which once came back from a reload as 128, 1 and 0."""
    open_url(page, f"{base_url}/smoothing?threshold=1&alpha=0.1&smoothing_image=42")
    for _ in range(2):
        thumbs = page.locator('[data-testid="stSidebar"] [data-testid="stSliderThumbValue"]').all_inner_texts()
        assert thumbs[:2] == ["1", "0.1"], thumbs
        image = page.locator('[data-testid="stNumberInput"]').filter(has_text="Test image").locator("input")
        assert image.input_value() == "42"
        page.reload()
        chromium.wait_for_run(page, timeout=120, settle=0.3)


def test_a_locked_control_shows_its_value_and_cannot_be_moved(page, base_url):
    open_url(page, f"{base_url}/?alpha=0.1&lock=alpha")
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="α: pseudo-count")
    assert slider.locator('input[type="range"]').is_disabled()
    assert "(locked)" in slider.locator('[data-testid="stWidgetLabel"]').inner_text()
    assert slider.locator('[data-testid="stSliderThumbValue"]').inner_text().strip() == "0.1"
    textbook = page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Textbook")
    assert textbook.is_disabled()


def test_the_back_button_goes_back_through_pages(page, base_url):
    open_url(page, f"{base_url}/")
    open_url(page, f"{base_url}/smoothing")
    chromium.run_after(
        page,
        page.locator(chromium.NAVIGATION_LINKS).filter(has_text="Heatmaps").click,
        chromium.title_shown_js("Heatmaps"),
    )
    page.go_back()
    page.wait_for_url("**/smoothing**", timeout=30_000)
    chromium.wait_for_run(page, timeout=60, settle=0.3)
    assert "Smoothing" in page.locator("h1").first.inner_text()


def sidebar_alpha(page):
    return page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="α: pseudo-count")


def test_back_returns_to_the_previous_page_as_it_was_and_does_not_undo_a_setting(page, base_url):
    """README: "Back returns to the previous page as you left it, settings included, but does not undo a setting
    changed on the page" (Streamlit 1.67 replaces the address when a bound control moves; a page change pushes)."""
    open_url(page, f"{base_url}/?alpha=100")
    home_accuracy = metric_value(page, TEST_ACCURACY)
    chromium.run_after(
        page,
        page.locator(chromium.NAVIGATION_LINKS).filter(has_text="Heatmaps").click,
        chromium.title_shown_js("Heatmaps"),
    )
    slider = sidebar_alpha(page).locator('input[type="range"]')
    chromium.run_after(page, lambda: (slider.focus(), page.keyboard.press("Home")))  # α = 0 on Heatmaps
    page.wait_for_function("() => new URL(location.href).searchParams.get('alpha') !== '100'", timeout=30_000)

    page.go_back()  # to Home, with the α it was left with
    page.wait_for_url(re.compile(r"/\?alpha=100$"), timeout=30_000)
    chromium.wait_for_run(page, timeout=60, settle=0.3)
    assert sidebar_alpha(page).locator('[data-testid="stSliderThumbValue"]').inner_text().strip() == "100"
    assert metric_value(page, TEST_ACCURACY) == home_accuracy

    chromium.run_after(
        page, lambda: (sidebar_alpha(page).locator('input[type="range"]').focus(), page.keyboard.press("Home"))
    )
    page.wait_for_function("() => new URL(location.href).searchParams.get('alpha') !== '100'", timeout=30_000)
    page.go_back()  # the move on Home was no step of its own: Back leaves the app for the page before it
    page.wait_for_url("about:blank", timeout=30_000)


def test_the_user_docs_say_what_back_does():
    """The README once promised "the back button goes back" while a moved setting added no history entry. The user
    docs (docs/classroom.md, "Links carry the view", which the README's "In class" points to) must say what
    test_back_returns_to_the_previous_page_as_it_was_and_does_not_undo_a_setting checks, and no page more."""
    guide = (REPO / "docs" / "classroom.md").read_text()
    section = guide.split("## Links carry the view", 1)[1].split("\n## ", 1)[0]
    said = " ".join(section.split())
    assert "Back button returns to the previous page as you left it" in said and "does not undo a setting" in said
    for user_doc in (REPO / "README.md", REPO / "docs" / "classroom.md"):
        whole = " ".join(user_doc.read_text().split())
        assert not re.search(r"back button (goes|takes you) back(?! to the previous page)", whole, re.IGNORECASE)


def test_hostile_query_strings_on_every_page_give_defaults_and_a_notice(page, base_url):
    failures = {}
    for path in URL_PATHS:
        open_url(page, f"{base_url}/{path}?{HOSTILE}")
        problems = page_checks.page_problems(page)
        toast = page.locator('[data-testid="stToast"]').filter(has_text="could not be used")
        shown = page.locator('[data-testid="stSidebar"] [data-testid="stSliderThumbValue"]').all_inner_texts()
        if path in BEYOND_MNIST:  # no model settings there: the values are not this page's, and nothing takes them
            if shown or toast.count():
                problems.append(f"model settings {shown} or a notice on a page without an MNIST model")
        elif toast.count() == 0:
            problems.append("no notice about the values that could not be used")
        elif any(bad in toast.first.inner_text() for bad in ("banana", "script", "passwd")):
            problems.append("the notice repeats the link's text")
        if path not in BEYOND_MNIST and shown[:3] != ["128", "1", "1"]:
            problems.append(f"sidebar sliders show {shown[:3]}, not the defaults")
        if problems:
            failures[f"/{path}"] = problems
    assert not failures, failures
