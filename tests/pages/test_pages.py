"""Every dashboard page under AppTest on real MNIST: it runs cleanly, and its main control changes it."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from nbcore.datasets.mnist import MnistSplits
from nbcore.experiments.evaluate import evaluate_bernoulli
from tests.apptest import open_page

pytestmark = pytest.mark.usefixtures("data_dir")


def metric(app: AppTest, label: str) -> str:
    found = [item for item in app.metric if item.label == label]
    assert found, f"no metric {label!r} among {[item.label for item in app.metric]}"
    return found[0].value


def array(field) -> np.ndarray:
    """A plotly data field as an array (plotly sends large arrays base64-encoded)."""
    if isinstance(field, dict) and "bdata" in field:
        flat = np.frombuffer(base64.b64decode(field["bdata"]), dtype=np.dtype(field["dtype"]))
        shape = field.get("shape")
        return flat.reshape([int(size) for size in str(shape).split(",")]) if shape else flat
    return np.asarray(field, dtype=float)


def charts(app: AppTest) -> list[dict]:
    """The plotly figures on the page, as dicts."""
    return [json.loads(element.proto.spec) for element in app.get("plotly_chart")]


def caption_with(app: AppTest, text: str) -> str:
    """The first caption that contains ``text``."""
    found = [item.value for item in app.caption if text in item.value]
    assert found, f"no caption with {text!r}"
    return found[0]


def gallery_captions(app: AppTest) -> list[str]:
    """The captions of the pictures in Home's "predicted / true" gallery."""
    [gallery] = app.get("image")
    return gallery.captions


def rerun(app: AppTest) -> AppTest:
    app.run()
    assert not app.exception, [item.value for item in app.exception]
    return app


def test_home_shows_textbook_accuracy_and_reacts_to_alpha_and_batch_button():
    app = open_page("pages/home.py")
    assert metric(app, "Test accuracy (10,000 images)") == "0.8427"
    assert not charts(app), "Home draws without plotly, so that the landing page needs no plotly in the browser"
    captions_before = gallery_captions(app)
    assert len(captions_before) == 18 and all(re.fullmatch(r"(✗ )?\d / \d", caption) for caption in captions_before)
    wrong = sum(caption.startswith("✗") for caption in captions_before)
    assert caption_with(app, "of 18 wrong in this batch").startswith(f"{wrong} of 18")
    app.button(key="home_new_batch").click()
    rerun(app)
    assert gallery_captions(app) != captions_before
    app.select_slider(key="alpha").set_value(100.0)
    rerun(app)
    assert metric(app, "Test accuracy (10,000 images)") != "0.8427"


def test_course_note_button_gives_the_course_note_numbers():
    app = open_page("pages/home.py")
    [course_note] = [button for button in app.sidebar.button if button.label == "Course note"]
    course_note.click()
    rerun(app)
    assert metric(app, "Test accuracy (10,000 images)") == "0.8415"
    assert metric(app, "Training accuracy (60,000 images)") == "0.8313"


def test_heatmaps_view_switch_changes_the_figure():
    app = open_page("pages/heatmaps.py")
    probability = charts(app)[0]
    assert probability["data"][0]["zmin"] == 0 and probability["data"][0]["zmax"] == 1
    assert len(probability["layout"]["annotations"]) == 10
    app.segmented_control(key="heatmap_view").set_value("Log-odds")
    rerun(app)
    assert charts(app)[0]["data"][0]["zmin"] < 0
    app.segmented_control(key="heatmap_view").set_value("Difference of two digits")
    rerun(app)
    difference = charts(app)[0]
    assert array(difference["data"][0]["z"]).shape == (28, 28)  # one map, no panel title
    app.selectbox(key="heatmap_digit_b").set_value(5)
    rerun(app)
    assert not np.array_equal(array(charts(app)[0]["data"][0]["z"]), array(difference["data"][0]["z"]), equal_nan=True)


@pytest.mark.slow
def test_draw_page_blank_prompt_then_prediction_for_an_injected_digit(mnist):
    app = open_page("pages/draw.py")
    assert any("Draw a digit" in item.value for item in app.info)
    assert not [item for item in app.metric if item.label == "Naive Bayes prediction"]
    digit = mnist["test_images"][0]  # a 7
    app = open_page("pages/draw.py", draw_frame=digit)
    assert metric(app, "Naive Bayes prediction") == "7"
    assert len(app.get("image")) == 1  # "What it sees"
    ink_pixels = int(re.search(r"(\d+) of 784 pixels", caption_with(app, "of 784 pixels")).group(1))
    assert ink_pixels == int((digit >= 128).sum())
    app.select_slider(key="threshold").set_value(1)
    rerun(app)
    after = int(re.search(r"(\d+) of 784 pixels", caption_with(app, "of 784 pixels")).group(1))
    assert after == int((digit >= 1).sum()) > ink_pixels  # more pixels count as ink


def test_draw_page_upload_that_is_not_an_image_gets_a_message():
    app = open_page("pages/draw.py")
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    rerun(app)
    app.file_uploader(key="draw_upload").set_value(("notes.png", b"definitely not a picture", "image/png"))
    app.run()
    assert not app.exception
    assert any("not an image" in item.value for item in app.error)
    # the field's label and the message list the same formats
    [message] = [item.value for item in app.error if "not an image" in item.value]
    label = app.file_uploader(key="draw_upload").label
    assert re.search(r"\(([^()]+)\)", label).group(1) == re.search(r"\(([^()]+)\)", message).group(1)


@pytest.mark.slow
def test_smoothing_page_alpha_changes_accuracy_and_reports_zero_smoothing(mnist):
    app = open_page("pages/smoothing.py")
    assert metric(app, "Test accuracy") == "0.8427"
    assert metric(app, "Test accuracy at α = β = 0") == "0.8437"
    assert int(metric(app, "Test images with p(x | true digit) = 0")) > 0
    assert metric(app, "0.1 multiplied 784 times, float64") == "0.0"
    app.select_slider(key="alpha").set_value(0.0)
    app.select_slider(key="beta").set_value(0.0)
    rerun(app)
    assert metric(app, "Test accuracy") == "0.8437"
    # every training image is possible under its own digit even unsmoothed: its pixels were counted
    splits = MnistSplits(mnist["train_images"], mnist["train_labels"], mnist["test_images"], mnist["test_labels"])
    unsmoothed = evaluate_bernoulli(splits, threshold=128, alpha=0.0, beta=0.0)
    assert metric(app, "Mean log p(x, y) on training images") == f"{unsmoothed['mean_train_loglik']:.2f}"


def test_samples_page_new_samples_button_changes_the_samples():
    app = open_page("pages/samples.py")
    generated = charts(app)[1]
    app.button(key="samples_new").click()
    rerun(app)
    assert charts(app)[1] != generated
    app.selectbox(key="samples_digit").set_value(1)
    rerun(app)
    assert not np.array_equal(array(charts(app)[0]["data"][0]["z"]), array(generated["data"][0]["z"]), equal_nan=True)


def test_inpainting_page_region_changes_the_posterior(mnist):
    app = open_page("pages/inpainting.py")
    top = charts(app)
    assert caption_with(app, "observed")
    app.selectbox(key="inpaint_region").set_value("bottom half")
    rerun(app)
    assert charts(app)[0] != top[0]
    app.selectbox(key="inpaint_region").set_value("random pixels")
    rerun(app)
    app.slider(key="inpaint_fraction").set_value(1.0)
    rerun(app)
    posterior = array(charts(app)[1]["data"][0]["y"])
    assert posterior.argmax() == mnist["test_labels"][0]


def test_inpainting_uses_the_current_drawing(mnist):
    app = open_page("pages/inpainting.py", draw_frame=mnist["test_images"][1])
    app.radio(key="inpaint_source").set_value("My drawing")
    rerun(app)
    assert "observed" in app.caption[0].value


def test_draw_page_shows_the_softmax_prediction_beside_naive_bayes(mnist):
    app = open_page("pages/draw.py", draw_frame=mnist["test_images"][0])
    assert metric(app, "Naive Bayes prediction") == "7"
    assert metric(app, "Softmax prediction") == "7"


@pytest.mark.slow
def test_compare_page_table_figures_and_reactions():
    app = open_page("pages/compare.py")
    table = app.table[0].value
    assert "0.8427" in table.to_string()  # naive Bayes test accuracy at the textbook settings
    softmax_test = float(table.iloc[1, 2])
    assert softmax_test >= 0.925
    figures_before = charts(app)
    assert len(figures_before) == 7
    confusion = [
        figure
        for figure in figures_before
        if figure["data"][0]["type"] == "heatmap" and figure["layout"]["yaxis"].get("title", {}).get("text") == "true"
    ]
    assert len(confusion) == 2 and confusion[0]["data"][0]["zmax"] == confusion[1]["data"][0]["zmax"]
    reliability = [  # its title is shown above it, as text (lab/display.py)
        figure
        for figure in figures_before
        if any(trace.get("name") == "perfectly calibrated" for trace in figure["data"])
    ]
    assert [trace["name"].split(" (ECE")[0] for trace in reliability[0]["data"][1:]] == [
        "naive Bayes",
        "softmax regression",
    ]
    app.button(key="compare_new_batch").click()
    rerun(app)
    assert charts(app)[2] != figures_before[2]  # other disagreements
    app.select_slider(key="alpha").set_value(0.1)
    rerun(app)
    assert "0.8427" not in app.table[0].value.to_string()


SCIENTIFIC = re.compile(r"\d\.\d\d × 10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|0\.0")


@pytest.mark.slow
def test_smoothing_picture_moves_with_alpha_and_beta_and_says_why_no_smoothing_can_win():
    app = open_page("pages/smoothing.py")
    pictures = {}
    for alpha in (1.0, 0.0, 100.0):
        app.select_slider(key="alpha").set_value(alpha)
        app.select_slider(key="beta").set_value(alpha)
        rerun(app)
        pictures[alpha] = array(charts(app)[0]["data"][0]["z"])
        corner = [item.value for item in app.metric if item.label.startswith("Top-left pixel")]
        assert len(corner) == 1 and SCIENTIFIC.fullmatch(corner[0]), corner
        for label in ("in float32", "in float64", "0.1 multiplied"):  # never a truncated mantissa
            [value] = [item.value for item in app.metric if label in item.label]
            assert SCIENTIFIC.fullmatch(value), value
    # the picture differs visibly at 0, 1 and 100: the rarely inked border moves on the log scale
    top_left = {alpha: picture[9, 0] for alpha, picture in pictures.items()}  # below the title rows
    assert np.isnan(top_left[0.0]) and top_left[1.0] < top_left[100.0] - 1.5
    # at the textbook settings no smoothing scores higher (0.8437 > 0.8427), and the page says why, there
    app.select_slider(key="alpha").set_value(1.0)
    app.select_slider(key="beta").set_value(1.0)
    rerun(app)
    assert any(item.value.startswith("Why does α = β = 0 score higher") for item in app.info)
    assert not any("now (α" in trace.get("name", "") for trace in charts(app)[1]["data"])
    app.select_slider(key="beta").set_value(3.0)  # α ≠ β: off the curve, still marked
    rerun(app)
    accuracy_chart = charts(app)[1]
    stars = [trace for trace in accuracy_chart["data"] if "now (α = 1, β = 3)" in trace.get("name", "")]
    assert len(stars) == 2 and accuracy_chart["layout"]["shapes"], "the current setting keeps its marker"


@pytest.mark.slow
def test_home_pictures_have_alt_text_that_says_right_or_wrong():
    app = open_page("pages/home.py")
    [gallery] = app.get("image")
    for picture in gallery.proto.imgs:
        predicted, true = re.fullmatch(r"(?:✗ )?(\d) / (\d)", picture.caption).groups()
        verdict = "wrong" if predicted != true else "right"
        assert picture.alt == f"Handwritten {true}, predicted {predicted}: {verdict}"


@pytest.mark.slow
def test_heatmaps_difference_caption_uses_the_right_article():
    app = open_page("pages/heatmaps.py")
    assert charts(app)[0]["data"][0]["hovertemplate"].startswith("digit %{customdata[2]}")
    app.segmented_control(key="heatmap_view").set_value("Difference of two digits")
    rerun(app)  # defaults: 3 versus 8
    assert "more often in a 3, red ones more often in an 8:" in caption_with(app, "Blue pixels")
    app.selectbox(key="heatmap_digit_a").set_value(8)
    app.selectbox(key="heatmap_digit_b").set_value(1)
    rerun(app)
    assert "more often in an 8, red ones more often in a 1:" in caption_with(app, "Blue pixels")


def test_inpainting_completes_the_digit_and_offers_several_images(mnist):
    app = open_page("pages/inpainting.py")
    chooser = app.selectbox(key="inpaint_index")
    assert len(chooser.options) >= 10 and chooser.value == 0
    panels = charts(app)[0]
    titles = [annotation["text"] for annotation in panels["layout"]["annotations"]]
    assert titles == ["What it sees", "Filled in", "The real image"]
    mosaic = array(panels["data"][0]["z"])
    from lab.figures import style

    top, width = style.TITLE_ROWS, 28
    seen, completed = mosaic[top : top + 28, :width], mosaic[top : top + 28, 30 : 30 + width]
    assert np.isfinite(completed).all()  # one whole digit: no gaps where the model filled in
    assert np.isnan(seen).any() and np.array_equal(completed[np.isfinite(seen)], seen[np.isfinite(seen)])
    other = [option for option in chooser.options if option != "#0: a 7"][3]
    chooser.set_value(int(other.split(":")[0][1:]))
    rerun(app)
    assert not np.array_equal(array(charts(app)[0]["data"][0]["z"]), mosaic, equal_nan=True)


@pytest.mark.slow
def test_smoothing_curve_is_measured_at_every_slider_stop_and_agrees_with_the_metric():
    app = open_page("pages/smoothing.py")
    stops = [float(option) for option in app.select_slider(key="alpha").options]
    [test_curve] = [trace for trace in charts(app)[1]["data"] if trace.get("name") == "test"]
    assert array(test_curve["x"]).tolist() == [stop for stop in stops if stop > 0]  # one grid: 0 has no log-x place
    for stop in (0.5, 1.0, 5.0):
        app.select_slider(key="alpha").set_value(stop)
        app.select_slider(key="beta").set_value(stop)
        rerun(app)
        [test_curve] = [trace for trace in charts(app)[1]["data"] if trace.get("name") == "test"]
        on_curve = array(test_curve["y"])[array(test_curve["x"]) == stop]
        assert len(on_curve) == 1 and f"{on_curve[0]:.4f}" == metric(app, "Test accuracy"), stop


def test_smoothing_page_needs_no_curve_point_at_alpha_one(monkeypatch):
    """The α = β = 1 comparison comes from the model at α = β = 1, not from looking 1.0 up in the curve's grid."""
    from lab import caching
    from lab.data import models

    monkeypatch.setattr(models, "CURVE_ALPHAS", (0.1, 10.0))
    caching.forget_shared(models._smoothing_curve)
    try:
        app = open_page("pages/smoothing.py")
        assert any(
            item.value.startswith("Why does α = β = 0 score higher here (0.8437) than α = β = 1 (0.8427)")
            for item in app.info
        )
    finally:
        caching.forget_shared(models._smoothing_curve)
