"""Every page's MNIST numbers agree with nbcore's evaluation for the same settings, Deskew off and on.

The reference for a setting is made here from MNIST as published, without the dashboard's caches: the
command line (``python -m nbcore evaluate --json [--deskew]``, run once per setting) for the figures it
prints, and nbcore in this process, on ``InputForm(128, deskew)``'s inputs, for the counts it does not.
Pages that show real digits must show them as the model sees them, and say so.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from lab import shell
from lab.figures import style, styles
from nbcore.datasets.mnist import MnistSplits
from nbcore.experiments import lesson
from nbcore.experiments import mixture as mixture_experiment
from nbcore.experiments.evaluate import SoftmaxScores, evaluate_bernoulli, impossible_true_class, score_softmax
from nbcore.explain import likelihood_product
from nbcore.features import observed_region
from nbcore.inputs import InputForm
from nbcore.metrics import reliability
from nbcore.models.gaussian import GaussianNB
from nbcore.models.softmax_cache import load_or_train_softmax
from tests.apptest import app_at, rerun
from tests.conftest import REPO

pytestmark = pytest.mark.usefixtures("data_dir")

DESKEW = "deskew"
PAGES = [path for section in shell.PAGES.values() for path, _, _ in section]
NO_MNIST_NUMBERS = {  # pages whose numbers do not come from MNIST, with what they come from
    "pages/xor.py": "four XOR points",
    "pages/spam.py": "the SMS Spam Collection",
    "pages/gallery.py": "the drawings a class sends",
    "pages/teach.py": "a class's code, links and students",
}


@dataclass(frozen=True)
class Reference:
    """The textbook settings (T = 128, α = β = 1, empirical prior) with one deskew setting, measured here."""

    deskew: bool
    form: InputForm
    cli: dict  # python -m nbcore evaluate --json [--deskew]
    formed: MnistSplits  # MNIST as the models see it
    train_features: np.ndarray
    test_features: np.ndarray
    model: nbcore.BernoulliNB
    softmax: SoftmaxScores

    @property
    def labels(self) -> np.ndarray:
        return self.formed.test_labels


def command_line(mnist_root, deskew: bool) -> dict:
    env = {**os.environ, "NBCORE_DATA_DIR": str(mnist_root), "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "nbcore", "evaluate", "--json"] + (["--deskew"] if deskew else [])
    completed = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


@pytest.fixture(scope="module")
def reference(mnist, mnist_root) -> Callable[[bool], Reference]:
    published = MnistSplits(mnist["train_images"], mnist["train_labels"], mnist["test_images"], mnist["test_labels"])
    made: dict[bool, Reference] = {}

    def get(deskew: bool) -> Reference:
        if deskew not in made:
            form = InputForm(128, deskew)
            formed = form.splits(published)
            train, test = form.split_features(formed)
            model = nbcore.BernoulliNB(alpha=1.0, beta=1.0, prior="empirical").fit(train, formed.train_labels)
            softmax, _ = load_or_train_softmax(
                formed.train_images, formed.train_labels, cache_dir=mnist_root / "models"
            )
            cli = command_line(mnist_root, deskew)
            made[deskew] = Reference(deskew, form, cli, formed, train, test, model, score_softmax(softmax, formed))
        return made[deskew]

    return get


# -- reading a page ---------------------------------------------------------------------------------------
def open_with(page: str, deskew: bool, query: dict | None = None, **session) -> AppTest:
    """``page`` opened from a link that sets Deskew, as ``/smoothing?deskew=on`` does."""
    app = rerun(app_at(page, {DESKEW: "on" if deskew else "off", **(query or {})}, **session))
    assert app.radio(key=DESKEW).value is deskew
    return app


def metric(app: AppTest, label: str) -> str:
    found = [item.value for item in app.metric if item.label == label]
    assert found, f"no metric {label!r} among {[item.label for item in app.metric]}"
    return found[0]


def text_with(app: AppTest, fragment: str, kinds=("caption", "markdown", "success", "info", "warning")) -> str:
    found = [item.value for kind in kinds for item in app.get(kind) if fragment in item.value]
    assert found, f"no text with {fragment!r}"
    return found[0]


def figure(app: AppTest, key: str) -> dict:
    """The plotly figure shown with ``display.chart(..., key=key)``, as a dict."""
    specs = [json.loads(element.proto.spec) for element in app.get("plotly_chart") if element.key == key]
    assert len(specs) == 1, f"{len(specs)} figures with key {key!r}"
    return specs[0]


def array(field) -> np.ndarray:
    """A plotly data field as an array (plotly sends large arrays base64-encoded)."""
    if isinstance(field, dict) and "bdata" in field:
        flat = np.frombuffer(base64.b64decode(field["bdata"]), dtype=np.dtype(field["dtype"]))
        shape = field.get("shape")
        return flat.reshape([int(size) for size in str(shape).split(",")]) if shape else flat
    return np.asarray(field, dtype=float)


def tiles(grid: dict, count: int) -> np.ndarray:
    """The first ``count`` (28, 28) images of a ``digits.image_grid`` figure, in order."""
    mosaic = array(grid["data"][0]["z"])
    columns = (mosaic.shape[1] + 2) // 30
    return np.stack(
        [
            mosaic[
                (k // columns) * (28 + style.TITLE_ROWS) + style.TITLE_ROWS : (k // columns) * (28 + style.TITLE_ROWS)
                + style.TITLE_ROWS
                + 28,
                (k % columns) * 30 : (k % columns) * 30 + 28,
            ]
            for k in range(count)
        ]
    )


def says_deskewed(text: str, deskew: bool) -> None:
    assert ("deskewed" in text) is deskew, text


def accuracy(value: float) -> str:
    return f"{value:.4f}"


# -- one check per page ------------------------------------------------------------------------------------
def check_home(ref: Reference) -> None:
    app = open_with("pages/home.py", ref.deskew)
    assert metric(app, "Test accuracy (10,000 images)") == accuracy(ref.cli["test_accuracy"])
    assert metric(app, "Training accuracy (60,000 images)") == accuracy(ref.cli["train_accuracy"])
    [gallery] = app.get("image")
    shown = [re.fullmatch(r"(?:✗ )?(\d) / (\d)", caption).groups() for caption in gallery.captions]
    batch = np.random.default_rng(0).choice(len(ref.labels), size=18, replace=False)  # batch 0, as the page draws it
    assert [int(true) for _, true in shown] == ref.labels[batch].tolist()
    assert [int(predicted) for predicted, _ in shown] == ref.model.predict(ref.test_features[batch]).tolist()


def check_heatmaps(ref: Reference) -> None:
    app = open_with("pages/heatmaps.py", ref.deskew)
    shown = tiles(figure(app, "heatmap_probability"), 10)
    np.testing.assert_allclose(shown, ref.model.feature_prob_.reshape(10, 28, 28), rtol=1e-12)
    says_deskewed(text_with(app, "Real training images as the model counts them"), ref.deskew)


def check_smoothing(ref: Reference) -> None:
    app = open_with("pages/smoothing.py", ref.deskew)
    assert metric(app, "Test accuracy") == accuracy(ref.cli["test_accuracy"])
    assert metric(app, "Mean log p(x, y) on training images") == f"{ref.cli['mean_train_loglik']:.2f}"
    [test_curve] = [trace for trace in figure(app, "smoothing_accuracy")["data"] if trace.get("name") == "test"]
    at_laplace = array(test_curve["y"])[array(test_curve["x"]) == 1.0]
    assert len(at_laplace) == 1 and accuracy(at_laplace[0]) == accuracy(ref.cli["test_accuracy"])
    unsmoothed = nbcore.BernoulliNB(alpha=0.0, beta=0.0).fit(ref.train_features, ref.formed.train_labels)
    zero = impossible_true_class(unsmoothed, ref.test_features, ref.labels)
    assert metric(app, "Test images with p(x | true digit) = 0") == f"{zero['true_class_impossible']:,}"
    assert metric(app, "…impossible under every digit") == f"{zero['all_classes_impossible']:,}"
    at_zero = evaluate_bernoulli(ref.formed, threshold=128, alpha=0.0, beta=0.0, deskew=ref.deskew)
    assert metric(app, "Test accuracy at α = β = 0") == accuracy(at_zero["test_accuracy"]) == accuracy(zero["accuracy"])
    label = int(ref.labels[0])
    product = likelihood_product(ref.model, ref.test_features[0], label)
    assert metric(app, f"∑ log p(xᵢ | {label})") == f"{product.log:.2f}"


def check_samples(ref: Reference) -> None:
    app = open_with("pages/samples.py", ref.deskew)
    caption = text_with(app, "real training images of")
    indices = [int(index) for index in re.findall(r"#(\d+)", caption)]
    assert len(indices) == 8
    np.testing.assert_array_equal(
        tiles(figure(app, "samples_real"), 8), ref.train_features[indices].reshape(-1, 28, 28) * 255
    )
    says_deskewed(caption, ref.deskew)


def check_inpainting(ref: Reference) -> None:
    app = open_with("pages/inpainting.py", ref.deskew)
    seen, _, real = tiles(figure(app, "inpaint_panels"), 3)
    np.testing.assert_array_equal(real, ref.test_features[0].reshape(28, 28))  # test image 0, as the model sees it
    observed = observed_region("top half")
    _, posterior = ref.model.inpaint(ref.test_features[0], observed)
    caption = text_with(app, "pixels observed")
    assert f"Most likely digit from them alone: {int(np.argmax(posterior))} " in caption
    says_deskewed(caption, ref.deskew)


def check_compare(ref: Reference) -> None:
    app = open_with("pages/compare.py", ref.deskew)
    table = app.table[0].value
    assert table.iloc[0, 1] == accuracy(ref.cli["train_accuracy"]) and table.iloc[1, 1] == accuracy(
        ref.cli["test_accuracy"]
    )
    assert table.iloc[2, 1].startswith(f"{ref.cli['mean_train_loglik']:.2f} ")
    assert table.iloc[0, 2] == accuracy(ref.softmax.train_accuracy)
    assert table.iloc[1, 2] == accuracy(ref.softmax.test_accuracy)
    predictions = ref.model.predict(ref.test_features)
    disagree = int(np.sum(predictions != ref.softmax.test_predictions))
    assert f"disagree on **{disagree:,}** of 10,000" in text_with(app, "The two models disagree")
    top = reliability(ref.model.predict_proba(ref.test_features), ref.labels, n_bins=10).count[-1]
    assert text_with(app, "in the top confidence bin").startswith(f"Naive Bayes puts {top:,} of 10,000")


def check_deskew(ref: Reference, other: Reference) -> None:
    app = open_with("pages/deskew.py", ref.deskew)
    plain, upright = (ref, other) if not ref.deskew else (other, ref)
    table = app.table[0].value
    assert table.iloc[0, 1] == accuracy(plain.cli["test_accuracy"]) and table.iloc[1, 1] == accuracy(
        upright.cli["test_accuracy"]
    )
    assert table.iloc[0, 2] == accuracy(plain.softmax.test_accuracy)
    assert table.iloc[1, 2] == accuracy(upright.softmax.test_accuracy)


def check_draw(ref: Reference, image: np.ndarray) -> None:
    app = open_with("pages/draw.py", ref.deskew, draw_frame=image)
    seen = ref.form.prepare(image[None])
    bayes = ref.model.predict_proba(seen.features)[0]
    softmax = ref.softmax.model.predict_proba(seen.images)[0]
    for label, posterior in (("Naive Bayes prediction", bayes), ("Softmax prediction", softmax)):
        [item] = [item for item in app.metric if item.label == label]
        assert item.value == str(int(np.argmax(posterior))) and item.proto.delta == f"p = {posterior.max():.4f}"
    caption = text_with(app, "of 784 pixels")
    assert f"{int(seen.features.sum())} of 784 pixels" in caption
    says_deskewed(caption, ref.deskew)


def check_gaussian(linked: Reference, ref: Reference) -> None:
    """Beyond MNIST's pages have no model settings: a link's Deskew changes nothing there (MNIST as published,
    ``ref``)."""
    app = rerun(app_at("pages/gaussian.py", {DESKEW: "on" if linked.deskew else "off"}))
    names = [trace.get("name", "") for trace in figure(app, "gauss_curve")["data"]]
    assert f"Bernoulli NB, textbook settings: {ref.cli['test_accuracy']:.4f}" in names
    pixels = ref.formed.train_images.reshape(60_000, -1) / 255.0
    gaussian = GaussianNB().fit(pixels, ref.formed.train_labels)
    expected = gaussian.score(ref.formed.test_images.reshape(10_000, -1) / 255.0, ref.labels)
    assert metric(app, "Test accuracy at var_smoothing = 1e-09") == accuracy(expected)


def reveal(app: AppTest, question: str, answer) -> str:
    """Answer ``question``, press Reveal, return the page's texts after it."""
    widget = next(
        item for kind in ("radio", "select_slider") for item in app.get(kind) if item.key == f"lesson_answer_{question}"
    )
    widget.set_value(answer)
    rerun(app)
    app.button(key=f"lesson_reveal_{question}").click()
    rerun(app)
    return "\n".join(item.value for kind in ("success", "info", "warning") for item in app.get(kind))


def check_lesson(ref: Reference) -> None:
    def step(number: int) -> AppTest:
        return open_with("pages/lesson.py", ref.deskew, {"lesson": str(number)})

    says_deskewed(text_with(step(1), "As the model sees them"), ref.deskew)

    counts = lesson.underflow_counts(ref.model, ref.test_features, ref.labels)
    shown = reveal(step(4), "float32", "zero")
    assert f"Over all test images, {counts['float32_zero']:,} of {counts['images']:,} products" in shown
    assert f"and {counts['float64_zero']:,} become 0.0 in float64" in shown

    app = step(5)
    unsmoothed = nbcore.BernoulliNB(alpha=0.0, beta=0.0).fit(ref.train_features, ref.formed.train_labels)
    zero = impossible_true_class(unsmoothed, ref.test_features, ref.labels)
    shown = reveal(app, "alpha_zero", 1000)
    assert f"{zero['true_class_impossible']:,} test images are impossible under their own digit" in shown
    assert f"Test accuracy at α = β = 0: {accuracy(zero['accuracy'])}" in shown
    strongest = evaluate_bernoulli(ref.formed, threshold=128, alpha=100.0, beta=100.0, deskew=ref.deskew)
    assert f"the test accuracy is {accuracy(strongest['test_accuracy'])}" in reveal(app, "alpha_100", 0.85)

    predictions = ref.model.predict(ref.test_features)
    rescued = lesson.bayes_wrong_softmax_right(predictions, ref.softmax.test_predictions, ref.labels)
    shown = reveal(step(6), "disagree", 100)
    assert (
        f"{len(rescued):,} test images (you said 100): naive Bayes is wrong on {int(np.sum(predictions != ref.labels)):,}"
        in shown
    )

    top_half = lesson.observed_part_accuracy(
        ref.model,
        ref.train_features,
        ref.formed.train_labels,
        ref.test_features,
        ref.labels,
        observed_region("top half"),
    )
    assert f"naive Bayes names {top_half:.1%} of the test images right" in reveal(step(7), "top_half", 0.5)

    sure = lesson.accuracy_when_confident(ref.model.predict_proba(ref.test_features), ref.labels, 0.99)
    shown = reveal(step(8), "calibration", 0.99)
    assert f"{sure.count:,} of 10,000 test images get p ≥ 99%" in shown and f"right on {sure.accuracy:.1%}" in shown

    # the learning curve's last size is the whole training set: the model above, whatever the seed
    shown = reveal(step(9), "learning_curve", "naive Bayes")
    assert f"With all 60,000: naive Bayes {ref.cli['test_accuracy']:.3f}" in shown


def check_mixture(ref: Reference) -> None:
    """K = 1 is the command line's naive Bayes; the styles shown are nbcore's mixture at K = 10, seed 0 (read from
    the prepared curve, or fitted on the page's button where nothing was prepared); the unlabeled panel's figures
    are nbcore's fits."""
    app = open_with("pages/mixture.py", ref.deskew)
    fit = [button for button in app.button if button.key == "mixture_fit_model"]
    if fit:  # these settings are not prepared: the page fits K = 10 when asked
        fit[0].click()
        app = rerun(app)
    mixture = nbcore.BernoulliMixtureNB(n_components=10, random_state=0).fit(
        ref.train_features, ref.formed.train_labels
    )
    weights = np.sort(mixture.component_weights_[7])[::-1]
    titles = [item["text"] for item in figure(app, "mixture_styles")["layout"]["annotations"]]
    assert titles[: len(weights)] == [styles.weight_label(weight) for weight in weights]
    if not ref.deskew:  # the textbook's settings: curve and unlabeled panel prepared
        assert f"K = 1 is naive Bayes: {accuracy(ref.cli['test_accuracy'])}." in text_with(app, "K = 1 is naive Bayes")
        settings = mixture_experiment.MixtureSettings(128, 1.0, 1.0, "empirical")
        alone = mixture_experiment.fit_with_unlabeled(settings, ref.formed, 10, 0.0, 0)
        with_unlabeled = mixture_experiment.fit_with_unlabeled(settings, ref.formed, 10, 1.0, 0)
        shown = text_with(app, "Here the unlabeled digits")
        assert f"{alone.test_accuracy:.4f} with the labelled digits alone, {with_unlabeled.test_accuracy:.4f}" in shown


CHECKS: dict[str, Callable] = {
    "pages/home.py": check_home,
    "pages/heatmaps.py": check_heatmaps,
    "pages/smoothing.py": check_smoothing,
    "pages/samples.py": check_samples,
    "pages/inpainting.py": check_inpainting,
    "pages/compare.py": check_compare,
    "pages/deskew.py": check_deskew,
    "pages/mixture.py": check_mixture,
    "pages/draw.py": check_draw,
    "pages/gaussian.py": check_gaussian,
    "pages/lesson.py": check_lesson,
}


def test_every_page_is_checked_or_shows_no_mnist_number():
    assert sorted(PAGES) == sorted([*CHECKS, *NO_MNIST_NUMBERS])


@pytest.mark.slow
@pytest.mark.parametrize("deskew", [False, True], ids=["deskew off", "deskew on"])
@pytest.mark.parametrize("page", list(CHECKS))
def test_page_numbers_agree_with_nbcore_for_the_same_settings(page, deskew, reference, mnist, request):
    ref = reference(deskew)
    if page in ("pages/mixture.py", "pages/compare.py", "pages/lesson.py"):  # they read the prepared mixtures
        request.getfixturevalue("prepared_mixtures")
    if page == "pages/deskew.py":
        check_deskew(ref, reference(not deskew))
    elif page == "pages/draw.py":
        check_draw(ref, mnist["test_images"][0])
    elif page == "pages/gaussian.py":
        check_gaussian(ref, reference(False))
    else:
        CHECKS[page](ref)


@pytest.mark.slow
def test_the_command_line_prints_the_published_and_the_deskewed_figures(reference):
    """The references themselves: the textbook's 0.8427 as published, 0.8821 deskewed (README)."""
    assert accuracy(reference(False).cli["test_accuracy"]) == "0.8427"
    assert accuracy(reference(True).cli["test_accuracy"]) == "0.8821"
