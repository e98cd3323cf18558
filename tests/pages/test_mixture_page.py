"""The Beyond naive page (``pages/mixture.py``): K from the link, the styles shown, forged links, α = 0, unlabeled
digits said to help or hurt as the prepared figures have it, and no fit started at settings nothing prepared.

Every expected number is read from the results the page reads (``lab.data.mixtures``), so the checks are that the
page shows them and says what they mean.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lab import link_names, model_choice, model_settings
from lab.data import mixtures
from lab.figures import styles
from nbcore.experiments import mixture as experiment
from tests.apptest import open_page, rerun
from tests.pages.test_pages_agree import figure, text_with

pytestmark = pytest.mark.usefixtures("data_dir", "prepared_mixtures")

PAGE = "pages/mixture.py"
TEXTBOOK = model_settings.TEXTBOOK


def style_titles(app: AppTest) -> list[str]:
    return [item["text"] for item in figure(app, "mixture_styles")["layout"]["annotations"] if "%" in item["text"]]


def link_notices(app: AppTest) -> list[str]:
    return [toast.value for toast in app.toast if "could not be used" in toast.value]


@pytest.mark.slow
def test_the_page_opens_at_ten_styles_and_a_link_chooses_twenty():
    app = open_page(PAGE)
    assert app.slider(key=model_choice.COMPONENTS_KEY).value == link_names.DEFAULT_COMPONENTS
    assert len(style_titles(app)) == 10
    curve = mixtures.curve.result(TEXTBOOK)
    assert f"K = 1 is naive Bayes: {curve.test_accuracy[0]:.4f}." in text_with(app, "K = 1 is naive Bayes")

    twenty = open_page(PAGE, {"components": "20", "mixture_digit": "1"})
    weights = sorted(curve.models[20].component_weights_[1], reverse=True)
    assert style_titles(twenty) == [styles.weight_label(weight) for weight in weights]
    assert not link_notices(twenty)


@pytest.mark.parametrize("value", ["abc", "500", "0", "<b>9</b>"])
def test_a_forged_component_count_gives_the_link_notice_and_the_default(value):
    app = open_page(PAGE, {"components": value})
    [notice] = link_notices(app)
    assert "“Styles per digit K”" in notice and value not in notice
    assert app.slider(key=model_choice.COMPONENTS_KEY).value == link_names.DEFAULT_COMPONENTS


def test_no_smoothing_says_why_and_shows_no_mixture():
    app = open_page(PAGE, {"alpha": "0"})
    assert any("needs α and β above 0" in warning.value for warning in app.warning)
    assert not [chart for chart in app.get("plotly_chart") if chart.key == "mixture_styles"]


@pytest.mark.parametrize("labels", [1, 10, 100])
def test_unlabeled_digits_are_said_to_help_or_hurt_as_measured(labels):
    app = open_page(PAGE, {"unlabeled_labels": str(labels), "unlabeled_weight": "1"})
    measured = mixtures.unlabeled.result(TEXTBOOK)
    row = measured.labels_per_digit.index(labels)
    alone = measured.test_accuracy[row, measured.weights.index(0.0)]
    with_them = measured.test_accuracy[row, measured.weights.index(1.0)]
    effect = experiment.unlabeled_effect(alone, with_them)
    assert f"Here the unlabeled digits {effect}" in text_with(app, "Here the unlabeled digits")
    if labels == 1:
        assert effect == experiment.HELPED  # the panel shows a case where they help ...
    if labels == 100:
        assert effect == experiment.HURT  # ... and one where they hurt


@pytest.mark.parametrize(("labels", "weight"), [(1, "1"), (100, "1"), (100, "0.01")])
def test_the_verdict_says_why_from_the_numbers(labels, weight):
    """After helped or hurt, the verdict says why in this case: the labelled model too poor (helped), or the labels
    knowing better than one blob per class (hurt), then what the other end of λ does, with its measured accuracy."""
    app = open_page(PAGE, {"unlabeled_labels": str(labels), "unlabeled_weight": weight})
    measured = mixtures.unlabeled.result(TEXTBOOK)
    row = measured.labels_per_digit.index(labels)
    at = {value: float(measured.test_accuracy[row, measured.weights.index(value)]) for value in measured.weights}
    chosen = float(weight)
    effect = experiment.unlabeled_effect(at[0.0], at[chosen])
    shown = text_with(app, "Here the unlabeled digits")
    if effect == experiment.HELPED:
        assert "the labelled model alone is poor" in shown
    if effect == experiment.HURT:
        assert "the labels already know the digits better than one blob per class" in shown
        smallest, largest = min(measured.weights[1:]), max(measured.weights)
        other = smallest if chosen > smallest else largest
        assert f"at λ = {other:g}, {at[other]:.4f} ({at[other] - at[0.0]:+.4f})." in shown
        if other < chosen and at[other] > at[chosen]:
            assert "A smaller λ limits the harm" in shown  # down-weighting recovers part of it, as measured
    if labels == 100 and chosen == 1.0:
        assert effect == experiment.HURT  # the case the panel must not hide


@pytest.mark.slow
def test_settings_nothing_prepared_fit_only_when_asked(mixture_fits):
    """At a threshold nothing prepared (64) the page offers its three fits and starts none; one button fits its part."""
    fits = mixture_fits
    app = open_page(PAGE, {"threshold": "64", "components": "3"})
    keys = {button.key for button in app.button}
    assert {"mixture_fit_curve", "mixture_fit_model", "mixture_fit_unlabeled"} <= keys
    assert fits == []
    next(button for button in app.button if button.key == "mixture_fit_model").click()
    rerun(app)
    assert fits == [3] and len(style_titles(app)) == 3
    rerun(app)  # made once for the server: the next run shows it without a button or a fit
    assert "mixture_fit_model" not in {button.key for button in app.button} and fits == [3]
