"""The dashboard's frame under AppTest: presenter mode and its link, icons, and the Draw page's sentences."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from lab import link_names, presentation
from lab.shell import PAGES
from nbcore.models.softmax_cache import load_or_train_softmax
from tests.apptest import app_at, rerun

pytestmark = pytest.mark.usefixtures("data_dir")


def presenter_toggle(app: AppTest):
    return app.sidebar.toggle(key=presentation.STATE_KEY)


@pytest.mark.slow
def test_presenter_mode_comes_from_the_link():
    app = rerun(app_at("pages/home.py", {"presenter": "true"}))
    assert presenter_toggle(app).value is True
    assert app.query_params["presenter"] == "true"
    assert not app.toast
    plain = rerun(app_at("pages/home.py"))
    assert presenter_toggle(plain).value is False


def test_link_values_a_control_cannot_take_give_defaults_and_a_notice_that_names_the_control():
    hostile = {
        "presenter": "<script>x</script>" * 500,
        "alpha": "banana",
        "threshold": "-1e308",
        "prior": "../../etc/passwd",
        "beta": "1" * 10_000,
    }
    app = rerun(app_at("pages/home.py", hostile))
    assert presenter_toggle(app).value is False
    assert [app.sidebar.select_slider(key=key).value for key in ("threshold", "alpha", "beta")] == [128, 1.0, 1.0]
    assert app.sidebar.radio(key="prior").value == "empirical"
    [notice] = [toast.value for toast in app.toast]
    for label in ("Presenter mode", "α: pseudo-count", "Binarization threshold", "Class prior", "β: pseudo-count"):
        assert label in notice, notice
    assert "<script>" not in notice and "passwd" not in notice and "banana" not in notice
    assert not app.error


def test_every_page_has_a_bundled_material_icon():
    icons = [icon for pages in PAGES.values() for _, _, icon in pages]
    assert icons and all(icon.startswith(":material/") and icon.endswith(":") for icon in icons), icons


def fitted_models(mnist) -> tuple[nbcore.BernoulliNB, nbcore.SoftmaxRegression]:
    """The Draw page's two models at the textbook settings (the softmax weights come from the disk cache)."""
    bayes = nbcore.BernoulliNB().fit(nbcore.binarize(mnist["train_images"], 128), mnist["train_labels"])
    softmax, _ = load_or_train_softmax(mnist["train_images"], mnist["train_labels"], preset="default")
    return bayes, softmax


@pytest.mark.slow
def test_draw_says_what_a_confidently_wrong_naive_bayes_means(mnist):
    bayes, softmax = fitted_models(mnist)
    images = mnist["test_images"][:2000]
    bayes_proba = bayes.predict_proba(nbcore.binarize(images, 128))
    softmax_predicted = softmax.predict_proba(images).argmax(axis=1)
    confident_and_disagreeing = np.flatnonzero(
        (bayes_proba.max(axis=1) >= 0.99) & (bayes_proba.argmax(axis=1) != softmax_predicted)
    )
    agreeing = np.flatnonzero(bayes_proba.argmax(axis=1) == softmax_predicted)
    assert len(confident_and_disagreeing), "no test image where naive Bayes is sure and softmax disagrees"

    sure = rerun(app_at("pages/draw.py", draw_frame=images[confident_and_disagreeing[0]]))
    [warning] = [item.value for item in sure.warning if "all but certain" in item.value]
    assert f"softmax reads a {softmax_predicted[confident_and_disagreeing[0]]}" in warning
    assert any("Compare" in link.label for link in sure.get("page_link"))

    calm = rerun(app_at("pages/draw.py", draw_frame=images[agreeing[0]]))
    assert not [item for item in calm.warning if "all but certain" in item.value]
    assert any("A nat is" in item.value for item in calm.caption)


@pytest.mark.slow
def test_draw_upload_mode_speaks_of_uploading_and_a_removed_file_takes_its_message_along():
    app = rerun(app_at("pages/draw.py"))
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    rerun(app)
    assert any("Upload a photo" in item.value for item in app.info)
    assert any("MB" in item.value for item in app.caption)
    app.file_uploader(key="draw_upload").set_value(("notes.png", b"not a picture", "image/png"))
    app.run()
    assert not app.exception
    assert app.error, "a file that is not a picture gets a message"
    app.file_uploader(key="draw_upload").set_value(None)
    rerun(app)
    assert not app.error
    assert any("Upload a photo" in item.value for item in app.info)


@pytest.mark.slow
def test_a_locked_setting_cannot_be_moved_and_reset_all_spares_it():
    app = rerun(app_at("pages/home.py", {"alpha": "0.1", "beta": "3", "lock": "alpha,not-a-key,../x"}))
    alpha, beta = app.sidebar.select_slider(key="alpha"), app.sidebar.select_slider(key="beta")
    assert (alpha.value, alpha.disabled, "(locked)" in alpha.label) == (0.1, True, True)
    assert (beta.value, beta.disabled) == (3.0, False)
    assert all(button.disabled for button in app.sidebar.button if button.label in ("Textbook", "Course note"))
    app.sidebar.button(key="links_reset_all").click()
    rerun(app)
    assert app.sidebar.select_slider(key="alpha").value == 0.1
    assert app.sidebar.select_slider(key="beta").value == 1.0


@pytest.mark.slow
def test_reset_this_page_resets_its_own_choices_and_keeps_the_model_settings():
    app = rerun(app_at("pages/draw.py", {"draw_brush": "33", "alpha": "3"}))
    assert app.session_state["draw_brush"] == 33 and app.query_params["draw_brush"] == "33"
    app.sidebar.button(key="links_reset_page").click()
    rerun(app)
    assert app.session_state["draw_brush"] == link_names.MNIST_LIKE_BRUSH and "draw_brush" not in app.query_params
    assert app.sidebar.select_slider(key="alpha").value == 3.0


@pytest.mark.slow
def test_pages_beyond_mnist_show_no_mnist_settings_and_gaussian_one_class_prior():
    for path, _, _ in PAGES["Beyond MNIST"]:
        app = app_at(path).run()  # the sidebar is drawn before the page (Spam may stop: no SMS file here)
        assert not app.exception, [item.value for item in app.exception]
        assert not [item for item in app.sidebar.select_slider if item.key in ("threshold", "alpha", "beta")], path
        assert not [item for item in app.sidebar.radio if item.key in ("prior", "deskew")], path
        assert presenter_toggle(app) is not None  # the frame's own controls stay
        priors = [item for item in app.radio if item.label.startswith("Class prior")]
        assert len(priors) == (1 if path == "pages/gaussian.py" else 0), (path, [item.label for item in priors])
    home = rerun(app_at("pages/home.py"))
    assert home.sidebar.select_slider(key="threshold").value == 128


@pytest.mark.slow
def test_a_link_to_a_page_is_a_material_icon_too():
    app = rerun(app_at("pages/xor.py"))
    icons = [link.proto.icon for link in app.get("page_link")]
    assert icons and all(icon.startswith(":material/") for icon in icons), icons


@pytest.mark.slow
def test_a_choice_that_cannot_be_made_is_not_offered():
    locked = rerun(app_at("pages/draw.py", {"lock": "draw_mode"}))
    [prompt] = [item.value for item in locked.info if "Draw a digit" in item.value]
    assert "upload" not in prompt, prompt  # the link locks the input to drawing
    free = rerun(app_at("pages/draw.py"))
    assert any("(or upload a picture)" in item.value for item in free.info)
    # Inpainting before anything is drawn: one image source, so no radio with one option
    inpainting = rerun(app_at("pages/inpainting.py"))
    assert not [item for item in inpainting.radio if item.key == "inpaint_source"]
