"""The catalogues against the code: every message the code uses is translated in every language, none is stale,
placeholders agree, and no text shown to a person skips the catalogue (docs/translating.md).

The messages are extracted from the sources with Babel and ``babel.cfg``, as ``pybabel extract`` does.
"""

from __future__ import annotations

import ast
import datetime as dt
import re
import shutil
from pathlib import Path

import pytest
from babel.messages import pofile
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.plurals import get_plural

from lab import i18n

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = i18n.LOCALES / "messages.pot"
TRANSLATED = [code for code in i18n.languages() if code != i18n.SOURCE_LANGUAGE]
# a named placeholder: {code}, {accuracy}; "{{" is a brace written out
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)[^{}]*\}")


def code_messages() -> dict[tuple[str | None, str], tuple[str, ...]]:
    """(context, msgid) -> the message's English forms, for every message the code marks."""
    with (REPO / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    found = {}
    for _path, _line, message, _comments, context in extract_from_dir(str(REPO), method_map, options_map):
        forms = message if isinstance(message, tuple) else (message,)
        found[(context, forms[0])] = forms
    return found


def read(path: Path):
    with path.open("rb") as file:
        return pofile.read_po(file)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def test_the_lab_speaks_english_chinese_and_spanish():
    assert {"en", "zh", "es"} <= set(i18n.languages())
    assert i18n.languages()["zh"].name == "简体中文" and i18n.languages()["zh"].tag == "zh-Hans"
    assert i18n.languages()["es"].name == "Español" and i18n.languages()["es"].tag == "es"


def test_the_template_holds_what_the_code_marks():
    """``messages.pot`` is what ``pybabel extract`` makes of the code now: a translator updates from it."""
    template = {
        (message.context, message.id if isinstance(message.id, str) else message.id[0])
        for message in read(TEMPLATE)
        if message.id
    }
    assert template == set(code_messages())


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_is_translated_once_with_its_placeholders(code):
    wanted = code_messages()
    catalogue = read(i18n.catalogue_path(code))
    assert catalogue.num_plurals == int(get_plural(catalogue.locale).num_plurals)
    problems = []
    held = set()
    for message in catalogue:
        if not message.id:
            continue
        forms = message.id if isinstance(message.id, tuple) else (message.id,)
        key = (message.context, forms[0])
        held.add(key)
        if key not in wanted:
            problems.append(f"stale (not in the code): {forms[0]!r}")
            continue
        if message.fuzzy:
            problems.append(f"fuzzy: {forms[0]!r}")
        strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        if len(forms) != len(wanted[key]):
            problems.append(f"plural or not, unlike the code: {forms[0]!r}")
        if not all(strings):
            problems.append(f"untranslated: {forms[0]!r}")
            continue
        english = placeholders(forms[-1]) | placeholders(forms[0])
        for string in strings:
            # a plural form may leave the count out ("un estudiante"); nothing else may be dropped or added
            missing = placeholders(forms[0]) - placeholders(string) if len(forms) == 1 else set()
            if missing or placeholders(string) - english:
                problems.append(f"placeholders differ: {forms[0]!r} -> {string!r}")
    problems += [f"missing: {msgid!r}" for key in wanted.keys() - held for msgid in [key[1]]]
    assert not problems, "\n".join(problems)


def test_a_catalogue_error_fails_the_check(tmp_path, monkeypatch):
    """The check above fails on a missing message, a fuzzy one and a placeholder dropped (planted in a copy)."""
    copy = tmp_path / "es.po"
    shutil.copy(i18n.catalogue_path("es"), copy)
    catalogue = read(copy)
    messages = [message for message in catalogue if message.id and isinstance(message.id, str)]
    with_holes = next(message for message in messages if placeholders(message.id))
    with_holes.string = PLACEHOLDER.sub("", with_holes.string)
    messages[0].flags.add("fuzzy")
    del catalogue[messages[1].id]
    with copy.open("wb") as file:
        pofile.write_po(file, catalogue)
    monkeypatch.setattr(i18n, "catalogue_path", lambda code: copy)
    with pytest.raises(AssertionError) as failure:
        test_every_message_is_translated_once_with_its_placeholders("es")
    assert "fuzzy" in str(failure.value) and "missing" in str(failure.value) and "placeholders" in str(failure.value)


def test_a_new_language_is_one_file(tmp_path, monkeypatch):
    """A folder with one ``.po`` adds a language: named in itself, its plural rules, its numbers (no code)."""
    folder = tmp_path / "locales"
    shutil.copytree(i18n.LOCALES, folder)
    target = folder / "fr" / "LC_MESSAGES" / "messages.po"
    target.parent.mkdir(parents=True)
    catalogue = read(TEMPLATE)
    catalogue.locale = "fr"
    catalogue["Language"].string = "Langue"
    with target.open("wb") as file:
        pofile.write_po(file, catalogue)
    monkeypatch.setattr(i18n, "LOCALES", folder)
    i18n.languages.cache_clear()
    try:
        assert i18n.languages()["fr"].name == "Français"
        with i18n.speaking("fr"):
            assert i18n._("Language") == "Langue"
            assert i18n._("Reset all") == "Reset all"  # not yet translated: English, never an empty string
            assert i18n.decimal(0.8427, 4) == "0,8427"
        assert i18n.best_match("fr-CA") == "fr"
    finally:
        i18n.languages.cache_clear()


def test_numbers_are_written_as_each_reader_writes_them():
    published = {"en": ("0.8427", "5,923", "−192.16", "84.3%"), "es": ("0,8427", "5.923", "−192,16", "84,3 %")}
    for code, (accuracy, count, loglik, share) in published.items():
        with i18n.speaking(code):
            assert i18n.decimal(0.8427, 4) == accuracy
            assert i18n.integer(5923) == count
            assert i18n.decimal(-192.16, 2).replace("-", "−") == loglik
            assert i18n.percent(0.8427, 1).replace("\xa0", " ") == share
    for value, places in ((1.85, 1), (0.125, 2), (2.675, 2), (-0.8313, 4), (0.84149, 4)):
        assert i18n.decimal(value, places) == f"{value:.{places}f}"  # rounded as Python rounds, in every language
        with i18n.speaking("es"):
            assert i18n.decimal(value, places) == f"{value:.{places}f}".replace(".", ",")
    with i18n.speaking("zh"):
        assert (i18n.decimal(0.8427, 4), i18n.integer(5923)) == ("0.8427", "5,923")
        assert i18n.plotly_separators() == ".,"
    with i18n.speaking("es"):
        assert i18n.plotly_separators() == ",."


def test_counts_take_each_languages_plural_forms():
    one, many = "Fitting {k} style per digit", "Fitting {k} styles per digit"
    assert i18n.ngettext(one, many, 1) == one and i18n.ngettext(one, many, 2) == many
    with i18n.speaking("zh"):
        assert i18n.ngettext(one, many, 1) == i18n.ngettext(one, many, 2)  # Chinese has one form
    with i18n.speaking("es"):
        assert i18n.ngettext(one, many, 1) != i18n.ngettext(one, many, 2)


def test_a_time_is_said_in_the_readers_zone_with_the_day_when_not_today():
    ended = dt.datetime(2026, 11, 28, 4, 44, tzinfo=dt.UTC).timestamp()
    madrid, shanghai = i18n.zone("Europe/Madrid"), i18n.zone("Asia/Shanghai")
    assert i18n.clock(ended, madrid, now=ended + 60) == "5:44\u202fAM"
    with i18n.speaking("es"):
        assert i18n.clock(ended, madrid, now=ended + 60) == "5:44"
        assert i18n.clock(ended + 86400, madrid, now=ended) == "29 nov, 5:44"
    with i18n.speaking("zh"):
        assert i18n.clock(ended, shanghai, now=ended + 60) == "12:44"
    assert i18n.zone("Not/AZone") == i18n.zone(None)


def test_a_language_is_matched_from_a_browser_or_a_link():
    assert i18n.best_match("zh-CN") == "zh" and i18n.best_match("es-419") == "es" and i18n.best_match("ES") == "es"
    assert i18n.best_match("de-DE") is None and i18n.best_match("../../etc") is None and i18n.best_match(None) is None


# --- no text shown to a person skips the catalogue -------------------------------------------------------------

# Streamlit calls whose first argument a person reads, and the keywords a person reads in any call
SHOWN_FIRST = {
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "text",
    "write",
    "info",
    "warning",
    "error",
    "success",
    "toast",
    "button",
    "download_button",
    "link_button",
    "form_submit_button",
    "checkbox",
    "toggle",
    "radio",
    "selectbox",
    "multiselect",
    "select_slider",
    "slider",
    "number_input",
    "text_input",
    "text_area",
    "file_uploader",
    "segmented_control",
    "pills",
    "metric",
    "expander",
    "popover",
    "spinner",
    "tabs",
    "page_link",
    "dialog",
    "progress",
    "latex_caption",
    "control",
    "widget",
    "counter",
}
SHOWN_KEYWORDS = {
    "label",
    "help",
    "placeholder",
    "caption",
    "alt",
    "text",
    "title",
    "title_text",
    "name",
    "hovertemplate",
    "xaxis_title",
    "yaxis_title",
    "legend_title_text",
    "tickprefix",
    "ticksuffix",
    "message",
    "announcement",
}
# words that are the same in every language: names, symbols, the digits
NAMES = re.compile(r"\b(MNIST|softmax|SMS|EM|XOR|NB|iris|Iris|LaTeX|PNG|CSV|k|K|x|y|p|log|exp|argmax|max|min|id)\b")
FORMULA = re.compile(r"\$[^$]*\$|:material/[a-z_]+:|:[a-z]+\[|\\[A-Za-z]+|<[^>]*>|&[a-z]+;|%\{[^}]*\}|\{[^}]*\}")
IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")
CODE = re.compile(r"(?=.*[0-9])[A-Z0-9]{6,}")
TRANSLATING = {"_", "ngettext", "pgettext", "N_"}
# the server's log and threads' names: for whoever runs the server, in English
LOGS = {"LOG", "logging", "sys"}
NOT_SHOWN = {"Thread"}
# where a call's shown texts are when not first: links.widget(kind, label, …), links.counter(label, key, button, …)
LABELS_AT = {"widget": (1,), "counter": (0, 2), "page_link": (1,)}


def words_in(text: str) -> bool:
    """Whether ``text`` holds words a person reads (not only formulas, placeholders, icons, names, marks, a key such
    as ``true_tiny`` or an example code such as ``XK4P9QRT``)."""
    if IDENTIFIER.fullmatch(text) or CODE.fullmatch(text):
        return False
    return bool(re.search(r"[A-Za-z]{2,}", NAMES.sub("", FORMULA.sub("", text))))


def untranslated(node: ast.AST) -> list[ast.AST]:
    """The literal parts of ``node`` (an argument) that hold words and are not inside a translating call."""
    if isinstance(node, ast.Call):
        # _("…").format(…) is translated; "…".format(…) is not; any other call's result is its own business
        if called(node) == "format" and isinstance(node.func, ast.Attribute):
            return untranslated(node.func.value)
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node] if words_in(node.value) else []
    if isinstance(node, ast.JoinedStr):
        literal = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        return [node] if words_in(literal) else []
    if isinstance(node, ast.BinOp):
        return untranslated(node.left) + untranslated(node.right)
    if isinstance(node, ast.IfExp):
        return untranslated(node.body) + untranslated(node.orelse)
    return []


def called(node: ast.Call) -> str:
    """The name a call calls: ``st.markdown(…)`` → "markdown", ``_(…)`` → "_"."""
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")


def shown_without_catalogue(source: str, filename: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if not isinstance(node, ast.Call):
            continue
        name = called(node)
        if name in TRANSLATING or name in NOT_SHOWN or ast.unparse(node.func).split(".")[0] in LOGS:
            continue
        shown = [keyword.value for keyword in node.keywords if keyword.arg in SHOWN_KEYWORDS]
        if name in SHOWN_FIRST:
            shown += [node.args[position] for position in LABELS_AT.get(name, (0,)) if position < len(node.args)]
        for argument in shown:
            for literal in untranslated(argument):
                text = ast.unparse(literal)
                found.append(f"{filename}:{literal.lineno}: {text[:80]}")
    return found


def test_no_text_shown_to_a_person_skips_the_catalogue():
    paths = sorted([REPO / "app.py", *REPO.glob("pages/*.py"), *REPO.glob("lab/**/*.py")])
    found = [line for path in paths for line in shown_without_catalogue(path.read_text(), str(path.relative_to(REPO)))]
    assert not found, "\n".join(found)


def test_the_source_check_finds_text_planted_outside_the_catalogue():
    planted = 'st.markdown("Hello class")\nst.button(f"Send {n} digits")\nst.slider(_("Fine"), help="Not fine")\n'
    planted += 'st.caption("Draw")\nlinks.widget(st.radio, "Prior", "prior", "a")\n'
    assert len(shown_without_catalogue(planted, "planted.py")) == 5
    fine = 'st.markdown(_("Hello class"))\nst.metric("MNIST", x)\nst.markdown(f"**{title}**")\nst.caption(_("{n} x").format(n=1))\n'
    assert shown_without_catalogue(fine, "fine.py") == []


def test_the_canvas_says_only_words_it_is_given_and_fills_every_placeholder():
    """The canvas's script (every file of lab/canvas.py's SCRIPTS) holds no sentence of its own: each message it uses
    is a key of ``canvas.words()``, each key is used, and the placeholders it fills are the messages' own, in every
    language."""
    from lab import canvas

    script = canvas.joined(canvas.SCRIPTS)
    used = set(re.findall(r"words\.([a-z_]+)", script)) | {"live", "server"}  # words[source], source live|server
    assert used == set(canvas.words()), used ^ set(canvas.words())
    filled = set(re.findall(r"\b([a-z_]+): (?:String|state\.format)", script))
    for code in i18n.languages():
        with i18n.speaking(code):
            for name, message in canvas.words().items():
                assert placeholders(message) <= filled, (code, name, message)
    shown = "\n".join(line for line in script.splitlines() if "console." not in line)  # the console is the log's
    quoted = re.findall(r'"([A-Z][^"\n]*[a-z]{3,} [a-z]{3,}[^"\n]*)"', shown)
    assert not quoted, quoted  # no sentence in quotes: the words come from Python


def test_a_chinese_title_wraps_between_characters_and_comes_back_whole():
    import plotly.graph_objects as go

    from lab.figures import style

    title = "p(y | x)：朴素贝叶斯（实心柱）与 softmax（条纹柱）的后验概率对比，数字 7 的情况"
    lines = style.wrapped(title, style.TITLE_CHARACTERS)
    assert len(lines) > 1 and all(len(line) <= style.TITLE_CHARACTERS for line in lines)
    assert style.take_title(style.style(go.Figure(), 300, title)) == title
    english = "Accuracy against smoothing for the test images and the training images"
    assert style.take_title(style.style(go.Figure(), 300, english)) == english


def test_an_installed_lab_carries_its_catalogues():
    """pyproject.toml's package data holds every catalogue (an install from a wheel would read English only)."""
    import fnmatch
    import tomllib

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["lab"]
    lab = REPO / "lab"
    catalogues = [path.relative_to(lab).as_posix() for path in i18n.LOCALES.rglob("*.po*")]
    assert catalogues and all(any(fnmatch.fnmatch(name, pattern) for pattern in patterns) for name in catalogues)
