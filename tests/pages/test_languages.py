"""The reader's language under AppTest: chosen by the link, kept by the sidebar's choice, the same numbers in every
language written each language's way, and a link's language the lab does not speak said so (docs/translating.md).
"""

from __future__ import annotations

import pytest

from lab import i18n
from tests.apptest import open_page, rerun

pytestmark = pytest.mark.usefixtures("data_dir")


def written_as(code: str, text: str) -> float:
    """A number as ``code`` writes it, read back ("0,8427" in Spanish is 0.8427)."""
    locale = i18n.languages()[code].locale
    return float(i18n.numbers.parse_decimal(text, locale=locale))


@pytest.mark.parametrize("code", ["zh", "es"])
def test_the_link_chooses_the_language_and_the_published_accuracy_stays(code):
    english = open_page("pages/home.py")
    translated = open_page("pages/home.py", query={"lang": code})
    assert translated.session_state["lang"] == code
    assert english.title[0].value == "Naive Bayes Lab"
    with i18n.speaking(code):
        assert translated.title[0].value == i18n._("Naive Bayes Lab") != "Naive Bayes Lab"
        assert i18n._("Reset all") in [button.label for button in translated.sidebar.button]
    shown_link = translated.sidebar.code[0].value
    assert f"lang={code}" in shown_link, shown_link  # Copy link for students hands the language on
    shown = translated.metric[0].value
    assert shown == english.metric[0].value.replace(".", "," if code == "es" else ".")
    assert written_as(code, shown) == written_as("en", english.metric[0].value) == 0.8427


def test_the_sidebar_changes_the_language_and_keeps_the_settings():
    app = open_page("pages/heatmaps.py", query={"alpha": "2"})
    assert app.session_state["alpha"] == 2
    app.sidebar.get("button_group")[0].set_value("es")
    rerun(app)
    assert app.session_state["lang"] == "es" and app.session_state["alpha"] == 2
    with i18n.speaking("es"):
        assert i18n._("Reset all") in [button.label for button in app.sidebar.button]
    reset_all = next(button for button in app.sidebar.button if button.key == "links_reset_all")
    reset_all.click()
    with i18n.speaking("es"):  # AppTest writes each choice as it is shown, in the test's thread: in the page's language
        rerun(app)
    assert app.session_state["lang"] == "es"  # Reset all is about settings, not the reader's language


def test_a_language_the_lab_does_not_speak_is_said_and_english_is_shown():
    app = open_page("pages/home.py", query={"lang": "../../etc/passwd"})
    assert app.session_state["lang"] == "en"
    assert [toast.value for toast in app.toast] == [
        "The link asks for a language the lab does not speak, so it is shown in English."
    ]
    assert "etc" not in " ".join(toast.value for toast in app.toast)


def test_a_choice_in_a_link_made_in_one_language_opens_in_another():
    """Streamlit writes a choice into the link as its reader sees it: a Chinese reader's link opens the same view
    for a Spanish reader (and an English one), with no notice that the link's value was refused."""
    with i18n.speaking("zh"):
        written = i18n._("Difference of two digits")
    assert written != "Difference of two digits"
    for code in ("es", "en"):
        app = open_page("pages/heatmaps.py", query={"lang": code, "heatmap_view": written})
        assert app.session_state["heatmap_view"] == "Difference of two digits", code
        assert not app.toast, [toast.value for toast in app.toast]
