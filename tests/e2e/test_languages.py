"""Every page in each language, in Chromium: no English left, ``<html lang>`` right, axe-core clean.

Chinese comes by the link (``?lang=zh``), Spanish by the browser's language (a Spanish browser, no ``lang`` in the
link), so both ways in are tried. One reader per language opens Home and then every page by its link in the
sidebar, as a student would (the language must survive each page change), then the main states: after a stroke,
a lesson step's reveal, the teacher's class page and an ended class. On each: the page's words (text, alt texts,
accessible names, the canvas's shadow root) hold no English sentence and no English label, outside the names
that are the same in every language and the Streamlit strings listed in docs/translating.md.
"""

from __future__ import annotations

import re

import pytest
from babel.messages import pofile
from playwright.sync_api import expect

from devtools import chromium, draw_page, page_checks
from lab import i18n
from nbcore.classroom import open_store
from tests.e2e.test_accessibility import LAPTOP, PHONE, PROJECTOR, SCREENS, TIMEOUT_MS, WCAG_TAGS, violation_report
from tests.e2e.test_screens import URL_PATHS, open_path

LANGUAGES = ("zh", "es")
BROWSER_LOCALE = {"zh": "en-US", "es": "es-ES"}  # zh: an English browser given a Chinese link; es: a Spanish browser
TIME_ZONE = {"zh": "Asia/Shanghai", "es": "America/Bogota"}  # the readers' clocks, not the server's
# Chinese on a laptop, Spanish (the longer words) on a phone by touch: every page must fit either way
SCREEN = {"zh": LAPTOP, "es": PHONE}
# Streamlit's own words, which no public API translates (docs/translating.md), and names said alike everywhere
STREAMLIT_OWN = (
    "Drag and drop file here",
    "Browse files",
    "Limit 200MB per file",
    "Press Enter to apply",
    "Running...",
    "Stop",
)
# a source's title as published, in quotes (the lesson's readings: "On discriminative vs. generative classifiers")
CITED = re.compile(r"“[^”]*”|«[^»]*»")
# English words that no Spanish or Chinese sentence holds: two of them in one line is an English sentence
ENGLISH = re.compile(
    r"\b(the|and|of|is|are|to|with|for|this|that|your|you|each|every|from|by|its|which|what|how|not|be|was|has"
    r"|have|will|can|than|when|into|there|their|more|less|only)\b",
    re.IGNORECASE,
)

# Every text a reader meets, the shadow roots included (the canvas): text nodes, alt texts, accessible names,
# placeholders and titles, one entry each (a text node's lines apart). Not what is typed in a text box: the spam
# filter's message is an English SMS, as its model knows only English words.
TEXTS_JS = """() => {
    const found = [];
    const visit = root => {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
        for (let node = walker.currentNode; node; node = walker.nextNode()) {
            if (node.nodeType === Node.TEXT_NODE) {
                const parent = node.parentElement;
                if (parent && !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEXTAREA'].includes(parent.tagName)) found.push(...node.textContent.split('\\n'));
                continue;
            }
            if (node.nodeType !== Node.ELEMENT_NODE) continue;  // the shadow root itself
            for (const name of ['alt', 'aria-label', 'title', 'placeholder']) {
                const value = node.getAttribute(name);
                if (value) found.push(value);
            }
            if (node.shadowRoot) visit(node.shadowRoot);
        }
    };
    visit(document.body);
    return found.map(text => text.trim()).filter(text => text);
}"""


def english_labels(code: str) -> set[str]:
    """The lab's short English texts (up to four words, no placeholder) that this language writes otherwise."""
    with i18n.catalogue_path(code).open("rb") as file:
        catalogue = pofile.read_po(file)
    return {
        message.id
        for message in catalogue
        if isinstance(message.id, str)
        and message.id
        and "{" not in message.id
        and len(message.id.split()) <= 4
        and re.search(r"[A-Za-z]{3,}", message.id)
        and message.string
        and message.string != message.id
    }


def english_left(texts: list[str], labels: set[str]) -> list[str]:
    """The texts that are English: a sentence (two English words) or one of the lab's labels as it is."""
    left = []
    for text in texts:
        for own in STREAMLIT_OWN:
            text = text.replace(own, "")
        text = CITED.sub("", text)
        if len(ENGLISH.findall(text)) >= 2 or text.strip() in labels:
            left.append(text)
    return sorted(set(left))


def test_the_english_check_finds_english():
    labels = {"Reset all", "Draw"}
    found = english_left(
        ["Restablecer todo", "Reset all", "Draw the digit in the box", "MNIST", "Dibujar", "0,8427"], labels
    )
    assert found == ["Draw the digit in the box", "Reset all"]


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


@pytest.fixture(scope="module", params=LANGUAGES)
def reader(request, browser, warm_app):
    """A browser context for one language's reader: a laptop, the browser's language as ``BROWSER_LOCALE`` says."""
    context = browser.new_context(
        **SCREENS[SCREEN[request.param]], locale=BROWSER_LOCALE[request.param], timezone_id=TIME_ZONE[request.param]
    )
    context.set_default_timeout(TIMEOUT_MS)
    yield request.param, context
    context.close()


def query_for(code: str, more: str = "") -> str:
    """The link's query: ``lang=zh`` for Chinese (the link's way in); Spanish comes from the browser."""
    parts = [part for part in ("lang=zh" if code == "zh" else "", more) if part]
    return "?" + "&".join(parts) if parts else ""


def check_language(page, code: str, axe, where: str) -> None:
    """The page is in ``code`` throughout, says so in ``<html lang>``, marks the other languages' names, and axe finds
    nothing."""
    language = i18n.languages()[code]
    page.wait_for_function(f"() => document.documentElement.lang === {language.tag!r}", timeout=30_000)
    assert not page_checks.page_problems(page), f"{where}: {page_checks.page_problems(page)}"
    assert not page_checks.layout_problems(page), f"{where} in {code}: {page_checks.layout_problems(page)}"
    left = english_left(page.evaluate(TEXTS_JS), english_labels(code))
    assert not left, f"{where} in {code}: English left:\n" + "\n".join(left)
    # WCAG 3.1.2: each language's name in the sidebar's choice is marked as its own language
    marks = page.evaluate("() => [...document.querySelectorAll('.st-key-lang button[lang]')].map(b => b.lang)")
    assert set(marks) == {each.tag for each in i18n.languages().values()}, f"{where}: {marks}"
    english_boxes = page.evaluate("() => [...document.querySelectorAll('textarea')].map(box => box.lang)")
    assert "/spam" not in where or english_boxes == ["en"], f"{where}: the SMS box is {english_boxes}"
    # Streamlit's own names for screen readers, put in the reader's language by the page's script
    with i18n.speaking(code):
        skip = i18n._("Skip to main content")
    page.wait_for_function(f"() => document.querySelector('[data-testid=stSkipToContent]')?.textContent === {skip!r}")
    helps = page.evaluate("() => [...document.querySelectorAll('[aria-label^=\"Help for \"]')].length")
    assert helps == 0, f"{where}: {helps} help buttons named in English"
    violations = axe.run(
        page, options={"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
    ).response["violations"]
    assert not violations, f"{where} in {code}:\n" + "\n".join(violation_report(violations))


def test_every_page_in_the_readers_language(reader, base_url, axe):
    code, context = reader
    page = context.new_page()
    try:
        open_path(page, base_url, "", query_for(code))
        # the link carries a language only when the browser alone would not give it
        in_link = "lang=zh" in page.url if code == "zh" else "lang=" not in page.url
        assert in_link, page.url
        check_language(page, code, axe, "/")
        for path in [path for path in URL_PATHS if path]:  # Home is open
            links = page.locator(chromium.NAVIGATION_LINKS)
            hrefs = links.evaluate_all("links => links.map(link => new URL(link.href).pathname)")
            link = links.nth(hrefs.index(f"/{path}"))
            folded = link.evaluate("link => link.getBoundingClientRect().right <= 0")
            if folded:  # a phone: open the sidebar, choose the page, fold the sidebar away again
                page.locator('[data-testid="stExpandSidebarButton"]').click()
                link.wait_for(state="visible")
            chromium.run_after(page, link.click)
            if folded and page.locator('[data-testid="stSidebarCollapseButton"]').is_visible():
                page.locator('[data-testid="stSidebarCollapseButton"]').click()
            chromium.wait_for_run(page, timeout=180, settle=0.3)
            # the run writes the language back into the address (a page link's own carries none)
            if code == "zh":
                page.wait_for_function("() => location.search.includes('lang=zh')", timeout=30_000)
            assert f"/{path}" in page.url and ("lang=zh" in page.url if code == "zh" else "lang=" not in page.url)
            check_language(page, code, axe, f"/{path}")
        page.reload()
        chromium.wait_for_run(page, timeout=180, settle=0.3)
        check_language(page, code, axe, f"/{URL_PATHS[-1]} reloaded")
    finally:
        page.close()


def new_class(data_dir) -> tuple[str, str]:
    made = open_store("", data_dir=data_dir).create_class()
    return made.info.code, made.teacher_key


def test_the_main_states_in_the_readers_language(reader, base_url, app_data_dir, axe):
    code, context = reader
    page = context.new_page()
    with i18n.speaking(code):
        reveal = i18n._("Reveal")
    try:
        open_path(page, base_url, "draw", query_for(code))
        draw_page.draw_digit(page, 7, touch=SCREEN[code] == PHONE)
        # the live region says the server's verdict once its run has ended
        expect(page.locator("p.nb-live-region")).not_to_have_text("", timeout=TIMEOUT_MS)
        chromium.wait_for_run(page)
        check_language(page, code, axe, "/draw after a stroke")

        open_path(page, base_url, "lesson", query_for(code, "lesson=2"))
        question = page.locator('[class*="st-key-lesson_question_"]').first
        radios = question.locator('[role="radiogroup"] label')
        if radios.count():
            chromium.run_after(page, radios.first.click)
        chromium.run_after(page, question.get_by_role("button", name=reveal).click)
        check_language(page, code, axe, "/lesson step 2 revealed")

        class_code, key = new_class(app_data_dir)
        open_path(page, base_url, "teach", query_for(code, f"class={class_code}&key={key}"))
        page.locator('[data-testid="stImage"] img').first.wait_for()
        check_language(page, code, axe, "/teach, the teacher's class page")

        store = open_store("", data_dir=app_data_dir)
        store.end(class_code, key)
        open_path(page, base_url, "draw", query_for(code, f"class={class_code}"))
        page.locator(".st-key-class_badge").wait_for()
        chromium.wait_for_run(page)
        check_language(page, code, axe, "/draw in an ended class")
        # the time it ended, in the reader's zone and form
        with i18n.speaking(code):
            ended = i18n._("Class {code} ended at {time}.").format(
                code=class_code, time=i18n.clock(store.class_info(class_code).ended_at, i18n.zone(TIME_ZONE[code]))
            )
        assert ended in page.locator(".st-key-class_badge").inner_text(), page.locator(
            ".st-key-class_badge"
        ).inner_text()
    finally:
        page.close()


def test_one_class_in_three_languages(browser, base_url, app_data_dir):
    """One student answers in Chinese, another in Spanish: both answers are the same choice in one tally."""
    class_code, _key = new_class(app_data_dir)
    step = 2
    for code in LANGUAGES:
        context = browser.new_context(**SCREENS[LAPTOP], locale=BROWSER_LOCALE[code])
        try:
            student = context.new_page()
            open_path(student, base_url, "lesson", query_for(code, f"class={class_code}&lesson={step}"))
            with i18n.speaking(code):
                send = i18n._("Send my answer to class {code}").format(code=class_code)
            box = student.locator('[class*="st-key-lesson_question_"]').first
            radios = box.locator('[role="radiogroup"] label')
            if radios.count():
                chromium.run_after(student, radios.first.click)
            chromium.run_after(student, box.get_by_role("button", name=send).click)
        finally:
            context.close()
    answers = open_store("", data_dir=app_data_dir).answers(class_code)
    assert len(answers) == 2 and len({(answer.question, answer.choice) for answer in answers}) == 1, answers
    tally = open_store("", data_dir=app_data_dir).tally(class_code, answers[0].question)
    assert tally.counted == {answers[0].choice: 2}


def test_presenter_mode_in_spanish_on_a_projector(browser, base_url, axe):
    """The longest of the languages on the room's screen, in presenter mode's larger type: nothing clipped."""
    context = browser.new_context(**SCREENS[PROJECTOR], locale="es-ES")
    try:
        page = context.new_page()
        for path in ("", "draw", "lesson", "compare"):
            open_path(page, base_url, path, "?presenter=true")
            page.wait_for_function("() => document.body.classList.contains('nb-presenter')")
            check_language(page, "es", axe, f"/{path} presenting")
    finally:
        context.close()
