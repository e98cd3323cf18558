"""The parts of WCAG 2.1 AA that hold without a browser: the themes' colours, the charts' words, the page titles.

The browser checks (axe-core on every page and state, the live region, the charts' names in the page) are in
tests/e2e/test_accessibility.py.
"""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from devtools import chromium
from lab import i18n, presentation, shell
from lab.figures import bar_charts, describe, diagnostics, line_charts, style
from tests.conftest import REPO

THEMES = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["theme"]


def luminance(colour: str) -> float:
    """WCAG's relative luminance of "#rrggbb"."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_is_wcags_formula():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#768497", "#fbfaf7") == pytest.approx(3.64, abs=0.01)  # the old captions, as axe measured them


@pytest.mark.parametrize("name", ["light", "dark"])
def test_each_themes_colours_pass_wcag_aa(name):
    theme = THEMES[name]
    background, panel = theme["backgroundColor"], theme["secondaryBackgroundColor"]
    for surface in (background, panel):
        assert contrast(theme["textColor"], surface) >= 4.5
        assert contrast(theme["linkColor"], surface) >= 4.5
        assert contrast(theme["codeTextColor"], surface) >= 4.5
        assert contrast(theme["borderColor"], surface) >= 3.0  # widget borders (1.4.11)
        assert contrast(theme["primaryColor"], surface) >= 3.0  # sliders, switches, the chosen segment's frame
    assert contrast("#ffffff", theme["primaryColor"]) >= 4.5  # a primary button's label
    assert theme["showWidgetBorder"] is True
    # the charts' colours that tell two models apart are graphics: >= 3:1 on the page
    for colour in style.MODEL_COLOURS:
        assert contrast(colour, background) >= 3.0


def test_presenter_mode_is_black_on_white_and_its_primary_buttons_white_on_primary():
    assert "color: #000000 !important" in presentation._CSS and "background: #ffffff !important" in presentation._CSS
    assert '[data-testid^="stBaseButton-primary"] :is(p, span) { color: #ffffff !important; }' in presentation._CSS
    for name in ("light", "dark"):  # presenter mode keeps the visitor's theme's primary colour
        assert contrast("#ffffff", THEMES[name]["primaryColor"]) >= 4.5
        assert contrast(THEMES[name]["primaryColor"], "#ffffff") >= 3.0


def test_the_harness_finds_the_navigation_where_the_shell_puts_it():
    assert chromium.NAVIGATION_LINKS == f".st-key-{presentation.NAVIGATION_KEY} a"
    assert f"st-key-{presentation.NAVIGATION_KEY}" in presentation._JS  # aria-current on the same links


def test_every_page_has_its_own_browser_title():
    for code in i18n.languages():
        with i18n.speaking(code):
            titles = [
                shell.browser_title(path, i18n._(title)) for pages in shell.PAGES.values() for path, title, _ in pages
            ]
            assert len(set(titles)) == len(titles), code
    assert shell.browser_title("pages/draw.py", "Draw") == "Draw · Naive Bayes Lab"
    assert shell.browser_title("pages/home.py", "Home") == "Naive Bayes Lab"
    with i18n.speaking("es"):
        assert shell.browser_title("pages/draw.py", i18n._("Draw")) == "Dibujar · Laboratorio de Bayes ingenuo"


def test_a_curves_words_come_from_its_numbers():
    alpha = np.array([0.01, 0.1, 1.0, 10.0, 100.0])
    curve = {
        "alpha": alpha,
        "train_accuracy": np.full(5, 0.85),
        "test_accuracy": np.array([0.8, 0.83, 0.8427, 0.84, 0.842]),
    }
    text = describe.text_alternative(line_charts.smoothing_accuracy(curve, marker_x=1.0, current={"test": 0.8427}))
    assert text.startswith("Accuracy against smoothing. accuracy against α = β.")
    assert "test: α = β 0.01: 0.8, α = β 0.1: 0.83, α = β 1: 0.8427, α = β 10: 0.84, α = β 100: 0.842." in text
    assert text.endswith("test, current: α = β 1: 0.8427.")
    many = np.logspace(-3, 2, 30)
    long = describe.text_alternative(
        line_charts.smoothing_accuracy(
            {"alpha": many, "train_accuracy": many / 200, "test_accuracy": 1 - many / 200}, None
        )
    )
    assert "train: 30 points, from 5e-06 at α = β 0.001 to 0.5 at α = β 100; highest 0.5 at α = β 100" in long


def test_a_confusion_matrix_says_how_much_is_right_and_its_largest_mistake():
    matrix = np.diag(np.arange(10, 20))
    matrix[4, 9] = 7
    text = describe.text_alternative(diagnostics.confusion_heatmap(matrix, "Naive Bayes", 7))
    assert "a 10 × 10 grid of values from 0 to 19" in text
    assert "145 of 152 on the diagonal where true = predicted; largest off it: true 4, predicted 9: 7." in text
    table = describe.confusion_rows(matrix, "true", "predicted")
    assert table["true"][4] == "4" and table["predicted 9"][4] == "7" and len(table) == 11


def test_the_posteriors_words_name_each_model_and_digit():
    figure = bar_charts.posterior_comparison({"naive Bayes": np.eye(10)[3], "softmax": np.full(10, 0.1)})
    text = describe.text_alternative(figure)
    assert "naive Bayes (plain bars) vs softmax (striped bars)" in text
    assert "naive Bayes: digit 0: 0, digit 1: 0, digit 2: 0, digit 3: 1," in text and "softmax: digit 0: 0.1" in text
    rows = describe.posterior_rows({"naive Bayes": np.eye(10)[3], "softmax": np.full(10, 0.1)})
    assert rows["naive Bayes"][3] == "1.0000" and rows["softmax"][0] == "0.1000"


def test_a_long_text_alternative_is_cut_with_an_ellipsis():
    x = np.arange(50.0)
    many = line_charts.curves(x, {f"series {i}": x * i for i in range(40)}, "x", "y", "t")
    text = describe.text_alternative(many)
    assert len(text) <= describe.MAX_CHARACTERS and text.endswith("…")
