"""A classroom on one server: shared state stays shared and unchanged, odd and hostile input has a clear outcome.

Everything runs the real app under AppTest (``shell.run(default_page=...)``), in this process,
so the shared results seen here (``lab/data/``, ``lab/class_store.py``) are the ones the pages use. No network: name
look-ups for anything but the loopback fail, so a missing data folder takes the offline path.

* Shared state: every array a ``lab.data`` cache returns is read-only; two sessions with
  different settings see different numbers, and the shared counts do not change.
* Every sidebar control and every page slider at both ends of its range, on every page.
* A softmax disk-cache file corrupted while the app runs; a data folder deleted while the app
  runs; a server started on a missing data folder.
* Uploads on the Draw page: a truncated PNG, decompression bombs, a text file; the canvas with
  one dot and with the whole canvas painted.
* Defaults fit for a shared server: .streamlit/config.toml, no raw HTML, no visitor input in a path.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
import logging
import math
import pkgutil
import re
import shutil
import socket
import tomllib

import numpy as np
import pytest
from PIL import Image, ImageDraw
from streamlit.testing.v1 import AppTest

import lab.data
import nbcore
import nbcore.preprocess
from lab import caching, link_names, model_settings, shell
from lab.data import class_models, gaussian, models
from lab.data import mnist as shared_mnist
from lab.figures import digits
from nbcore.classroom.records import Drawing
from nbcore.datasets import sms
from nbcore.experiments.mixture import MAX_COMPONENTS
from nbcore.features import OBSERVED_REGIONS
from nbcore.models.softmax_cache import load_or_train_softmax
from nbcore.preprocess import ink_from_canvas, mnist_frame
from tests.conftest import REPO, require

TIMEOUT = 300
SHARED_SMS = REPO.parent / "shared" / "sms-spam" / sms.SMS_FILE
PAGES = [path for section in shell.PAGES.values() for path, _, _ in section]


# -- fixtures --------------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def no_network():
    """Name look-ups only for the loopback: the app's download fallbacks fail fast and offline."""
    real_getaddrinfo = socket.getaddrinfo

    def loopback_only(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if host is None or name in ("localhost", "::1") or name.startswith("127."):
            return real_getaddrinfo(host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, f"no network in tests (looked up {name})")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", loopback_only)
        yield


@pytest.fixture(scope="module", autouse=True)
def data_dir(mnist_root, tmp_path_factory):
    """NBCORE_DATA_DIR for this module: MNIST linked from mnist_root, the SMS collection, models/ of its own.

    ``models/`` is a real folder (the softmax weights copied in), so that corrupting a cache file
    here never touches mnist_root.
    """
    root = tmp_path_factory.mktemp("robust-data")
    for entry in mnist_root.iterdir():
        if entry.name != "models":
            (root / entry.name).symlink_to(entry.resolve(), target_is_directory=entry.is_dir())
    (root / "models").mkdir()
    for weights in (mnist_root / "models").glob("softmax-*.npz"):
        shutil.copy(weights, root / "models" / weights.name)
    if not (root / sms.SMS_FILE).exists():
        require(SHARED_SMS.exists(), f"the SMS Spam Collection is missing (not beside MNIST, not {SHARED_SMS})")
        shutil.copy(SHARED_SMS, root / sms.SMS_FILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NBCORE_DATA_DIR", str(root))
        yield root


@pytest.fixture(scope="module")
def mnist_test_split(data_dir):
    images, labels = nbcore.load_mnist(False, root=data_dir, download=False)
    return images, labels


@pytest.fixture
def quiet_streamlit():
    """Calling cached functions outside a script run logs 'missing ScriptRunContext' each time: hush it."""
    logger = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


# -- helpers ---------------------------------------------------------------------------------
def app_for(page: str, **session) -> AppTest:
    script = f"import sys; sys.path.insert(0, {str(REPO)!r})\nfrom lab import shell\nshell.run(default_page={page!r})\n"
    app = AppTest.from_string(script, default_timeout=TIMEOUT)
    for key, value in session.items():
        app.session_state[key] = value
    return app


def run_clean(app: AppTest, where: str = "") -> AppTest:
    """Run (or rerun) and require: no exception, no st.error, every chart strict JSON."""
    app.run()
    assert not app.exception, f"{where}: {[item.value for item in app.exception]}"
    assert not app.error, f"{where}: {[item.value for item in app.error]}"
    for chart in app.get("plotly_chart"):  # the browser's JSON.parse rejects NaN and Infinity
        json.loads(chart.proto.spec, parse_constant=lambda token: pytest.fail(f"{where}: chart holds {token}"))
    return app


def metric(app: AppTest, label: str):
    found = [item for item in app.metric if item.label == label]
    assert found, f"no metric {label!r} among {[item.label for item in app.metric]}"
    return found[0]


def settings_session(threshold, alpha, beta, prior, deskew=False) -> dict:
    return {
        "threshold": threshold,
        "alpha": alpha,
        "beta": beta,
        "prior": prior,
        "deskew": deskew,
    }


def assert_defined_prediction(app: AppTest) -> tuple[str, float]:
    """Both models show a digit and a probability in (0, 1]."""
    shown = None
    for label in ("Naive Bayes prediction", "Softmax prediction"):
        item = metric(app, label)
        assert item.value in {str(digit) for digit in range(10)}, (label, item.value)
        probability = float(item.proto.delta.removeprefix("p = "))
        assert math.isfinite(probability) and 0 < probability <= 1, (label, item.proto.delta)
        shown = shown or (item.value, probability)
    return shown


def colour_range(spec) -> list[float]:
    """Every colour-scale bound (cmin/cmax/zmin/zmax) anywhere in a plotly figure dict."""
    if isinstance(spec, dict):
        return [float(value) for key, value in spec.items() if key in ("cmin", "cmax", "zmin", "zmax")] + [
            bound for value in spec.values() for bound in colour_range(value)
        ]
    if isinstance(spec, list):
        return [bound for value in spec for bound in colour_range(value)]
    return []


def read_only_problems(value, path: str, seen: set[int] | None = None) -> list[str]:
    """Paths of writable numpy arrays reachable from ``value`` (same walk as lab.caching.read_only)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return [path] if value.flags.writeable else []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [(f".{field.name}", getattr(value, field.name)) for field in dataclasses.fields(value)]
    elif isinstance(value, dict):
        items = [(f"[{key!r}]", item) for key, item in value.items()]
    elif isinstance(value, (tuple, list)):
        items = [(f"[{index}]", item) for index, item in enumerate(value)]
    elif type(value).__module__.startswith("nbcore") and hasattr(value, "__dict__"):
        items = [(f".{name}", item) for name, item in vars(value).items()]
    else:
        return []
    return [problem for suffix, item in items for problem in read_only_problems(item, path + suffix, seen)]


# -- 1. shared state -------------------------------------------------------------------------
@pytest.mark.slow
def test_two_sessions_keep_their_own_settings_and_the_shared_counts_stay(quiet_streamlit):
    first = run_clean(app_for("pages/home.py"), "session 1")
    counted = models.counted_model(model_settings.TEXTBOOK.input_form)
    counts = counted.feature_count_.copy(), counted.class_count_.copy()
    textbook_log_prob = models.evaluation(model_settings.TEXTBOOK).model.feature_log_prob_.copy()
    accuracy = "Test accuracy (10,000 images)"
    assert metric(first, accuracy).value == "0.8427"

    first.select_slider(key="alpha").set_value(100.0)
    run_clean(first, "session 1, alpha = 100")
    second = run_clean(app_for("pages/home.py"), "session 2")
    assert metric(first, accuracy).value != "0.8427"
    assert metric(second, accuracy).value == "0.8427"
    assert second.select_slider(key="alpha").value == 1.0

    second.select_slider(key="threshold").set_value(192)
    run_clean(second, "session 2, threshold 192")
    run_clean(first, "session 1 again")
    assert first.select_slider(key="threshold").value == 128
    assert metric(first, accuracy).value not in ("0.8427", metric(second, accuracy).value)

    assert models.counted_model(model_settings.TEXTBOOK.input_form) is counted  # one model for every session
    np.testing.assert_array_equal(counted.feature_count_, counts[0])
    np.testing.assert_array_equal(counted.class_count_, counts[1])
    np.testing.assert_array_equal(models.evaluation(model_settings.TEXTBOOK).model.feature_log_prob_, textbook_log_prob)
    with pytest.raises(ValueError, match="read-only"):
        counted.feature_count_[0, 0] += 1


# -- 2. both ends of every control, on every page --------------------------------------------------
EXTREMES = {
    "T=1, alpha=beta=0, uniform": settings_session(1, 0.0, 0.0, "uniform"),
    "T=192, alpha=beta=100, empirical": settings_session(192, 100.0, 100.0, "empirical"),
    "T=192, alpha=0, beta=100, uniform": settings_session(192, 0.0, 100.0, "uniform"),
    "T=1, alpha=100, beta=0, empirical, deskew": settings_session(1, 100.0, 0.0, "empirical", deskew=True),
}
# every slider / select slider / number input in a page's main area: key -> (lowest, highest)
PAGE_CONTROLS = {
    "smoothing_image": (0, 9999),
    "samples_count": (4, 16),
    "inpaint_fraction": (0.0, 1.0),
    "inpaint_index": (0, 9999),
    "gauss_var_smoothing": (gaussian.VAR_SMOOTHING_GRID[0], gaussian.VAR_SMOOTHING_GRID[-1]),
    "xor_k": (0.0, 10.0),
    "home_batch": (0, link_names.COUNTER_MAX),
    "compare_batch": (0, link_names.COUNTER_MAX),
    "samples_seed": (0, link_names.COUNTER_MAX),
    "deskew_batch": (0, link_names.COUNTER_MAX),
    "class_components": (1, 10),  # the teacher's gallery, with a class: tests/pages/test_gallery.py
    "components": (1, MAX_COMPONENTS),
    "mixture_seed": (0, link_names.COUNTER_MAX),
}
# other page choices worth combining with extreme settings (each a session_state preset)
PAGE_VARIANTS = {
    "pages/heatmaps.py": [{"heatmap_view": view} for view in ("Probability", "Log-odds", "Difference of two digits")],
    "pages/inpainting.py": [{"inpaint_region": region} for region in OBSERVED_REGIONS]
    + [{"inpaint_source": "My drawing", "inpaint_region": "random pixels"}],
}


def main_controls(app: AppTest) -> dict:
    widgets = [*app.main.slider, *app.main.select_slider, *app.main.number_input]
    return {widget.key: widget for widget in widgets}


@pytest.mark.slow
@pytest.mark.parametrize("extreme", list(EXTREMES))
@pytest.mark.parametrize("page", PAGES)
def test_every_page_at_both_ends_of_every_control(page, extreme, mnist_test_split):
    images, _ = mnist_test_split
    for variant in PAGE_VARIANTS.get(page, [{}]):
        where = f"{page} at {extreme} {variant or ''}"
        app = run_clean(app_for(page, **EXTREMES[extreme], draw_frame=images[0], **variant), where)
        controls = main_controls(app)
        unknown = sorted(set(controls) - set(PAGE_CONTROLS))
        assert not unknown, f"{where}: add the range of {unknown} to PAGE_CONTROLS"
        for key in controls:
            for end, value in zip(("lowest", "highest"), PAGE_CONTROLS[key]):
                main_controls(app)[key].set_value(value)
                run_clean(app, f"{where}, {key} at its {end} ({value})")
                assert main_controls(app)[key].value == value, f"{where}: {key} did not take {value}"
        if page == "pages/draw.py":
            assert_defined_prediction(app)


@pytest.mark.slow
def test_every_shared_cache_returns_read_only_arrays(data_dir, prepared_mixtures, quiet_streamlit):
    for page in ("pages/compare.py", "pages/gaussian.py", "pages/spam.py"):  # fill most caches the app's way
        run_clean(app_for(page), page)
    folder = str(nbcore.default_data_dir())
    form = model_settings.TEXTBOOK.input_form
    test = shared_mnist.loaded().test_images, shared_mnist.loaded().test_labels
    sent = Drawing(1, "0123456789abcdef", test[0][0], 7, np.full(10, 0.1), np.full(10, 0.1), 0.0)
    drawn = class_models.ClassSnapshot(  # a class of two students, five drawings each
        "ROBUSTCLASS", tuple(range(10)), test[0][:10], test[1][:10], np.repeat([1, 2], 5)
    )
    modules = [
        importlib.import_module(f"lab.data.{name}")
        for name in (m.name for m in pkgutil.iter_modules(lab.data.__path__))
    ]
    calls = {  # module.name -> arguments; background resources are checked through their results
        "mnist._published": (folder,),
        "mnist._deskewed": (folder,),
        "mnist.features": (form,),
        "models.counted_model": (form,),
        "models.evaluation": (model_settings.TEXTBOOK,),
        "models._smoothing_curve": (form, "empirical"),
        "models._zero_smoothing": (form, "empirical"),
        "models._softmax": ("default",),
        "models.softmax_learning_curve": (False,),
        "models.bernoulli_learning_curve": (model_settings.TEXTBOOK,),
        "mixtures.curve": (model_settings.TEXTBOOK,),
        "mixtures._fitted": (model_settings.TEXTBOOK, 3),
        "mixtures._scored": (model_settings.TEXTBOOK, 3),
        "mixtures.unlabeled": (model_settings.TEXTBOOK,),
        "gaussian.iris": (),
        "gaussian._gaussian_mnist": (folder, False),
        "spam_filter._sms": (folder,),
        "spam_filter._experiments": (folder,),
        "lesson_answers.first_of_each_digit": (form,),
        "lesson_answers.underflow": (model_settings.TEXTBOOK,),
        "lesson_answers.top_half_accuracy": (model_settings.TEXTBOOK,),
        "lesson_answers.neighbour_dependence": (form, 1),
        "class_store._class_store": ("", folder),  # holds no arrays: how to reach the classes' file
        "class_models.class_evaluation": (drawn, model_settings.TEXTBOOK, 100.0),
        "class_models.class_mixture_readings": (drawn, model_settings.TEXTBOOK, 2),
        "class_models._class_curve": (drawn, model_settings.TEXTBOOK),
        "gallery_views._gallery_view": ("ROBUSTCLASS", (1, 1, 1), None, (sent,)),
        "fixed_charts.prepared": (digits.blank_evidence_map, (), None, "en"),
    }
    declared = {
        f"{module.__name__.rsplit('.', 1)[-1]}.{name}": value
        for module in modules
        for name, value in vars(module).items()
        if caching.is_shared(value) and value.__module__ == module.__name__
    }
    assert sorted(declared) == sorted(calls), f"lab.data's cached functions changed: add them here ({sorted(declared)})"
    writable = [
        problem
        for name, args in calls.items()
        for problem in read_only_problems(
            declared[name].result(*args)
            if isinstance(declared[name], caching.BackgroundResource)
            else declared[name](*args),
            name,
        )
    ]
    assert not writable, f"writable arrays in shared caches: {writable}"


# -- 3. files going bad while the app runs --------------------------------------------------------
def forget_softmax() -> None:
    """Drop the server's softmax regression from memory, as a restart would."""
    caching.forget_shared(models._softmax)


@pytest.mark.slow
def test_corrupted_softmax_cache_file_while_the_app_runs(data_dir, mnist_test_split, quiet_streamlit):
    images, _ = mnist_test_split
    forget_softmax()  # load from this module's models/ folder
    try:
        first = run_clean(app_for("pages/draw.py", draw_frame=images[0]), "draw")
        assert_defined_prediction(first)
        softmax_shown = metric(first, "Softmax prediction").proto.delta
        loaded = models.softmax()
        weights = models.softmax_training()["path"]
        assert weights.startswith(str(data_dir)) and (data_dir / "models").is_dir()
        with open(weights, "r+b") as handle:  # keep the name, break the zip
            handle.seek(100)
            handle.write(b"\0garbage" * 64)

        # the running server keeps its weights in memory
        again = run_clean(app_for("pages/draw.py", draw_frame=images[0]), "draw, cache file corrupted")
        assert models.softmax() is loaded
        assert metric(again, "Softmax prediction").proto.delta == softmax_shown

        # a restart (here: the cache entry dropped) finds the bad file, retrains and rewrites it
        forget_softmax()
        retrained = run_clean(app_for("pages/draw.py", draw_frame=images[0]), "draw, after restart")
        info = models.softmax_training()
        assert info["cache"] == "corrupt" and info["saved"], info
        assert_defined_prediction(retrained)
        assert metric(retrained, "Softmax prediction").proto.delta == softmax_shown  # same seed, same weights
        splits = shared_mnist.loaded()
        _, check = load_or_train_softmax(splits.train_images, splits.train_labels, cache_dir=data_dir / "models")
        assert check["cache"] == "hit", check
    finally:
        forget_softmax()


@pytest.mark.slow
def test_data_folder_deleted_while_the_app_runs(data_dir, tmp_path, monkeypatch, mnist_test_split):
    images, _ = mnist_test_split
    folder = tmp_path / "vanishing"
    folder.mkdir()
    for entry in data_dir.iterdir():
        if entry.name.endswith("-ubyte.gz") or entry.name == "MNIST":
            (folder / entry.name).symlink_to(entry.resolve(), target_is_directory=entry.is_dir())
    monkeypatch.setenv("NBCORE_DATA_DIR", str(folder))
    home = run_clean(app_for("pages/home.py"), "home")
    assert metric(home, "Test accuracy (10,000 images)").value == "0.8427"

    shutil.rmtree(folder)  # the symlinks only
    # already-loaded data keeps serving, to new sessions too
    home = run_clean(app_for("pages/home.py"), "home, folder gone")
    assert metric(home, "Test accuracy (10,000 images)").value == "0.8427"
    for page in ("pages/heatmaps.py", "pages/samples.py", "pages/smoothing.py"):
        run_clean(app_for(page), f"{page}, folder gone")
    draw = run_clean(app_for("pages/draw.py", draw_frame=images[0]), "draw, folder gone")
    assert metric(draw, "Naive Bayes prediction").value == "7"
    # what was never loaded from it gets a clear message, not a traceback
    spam_page = app_for("pages/spam.py")
    spam_page.run()
    assert not spam_page.exception, [item.value for item in spam_page.exception]
    assert any("SMS Spam Collection is not available" in item.value for item in spam_page.error), [
        item.value for item in spam_page.error
    ]


@pytest.mark.slow
def test_server_started_on_a_missing_data_folder_says_so(tmp_path, monkeypatch):
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("NBCORE_DATA_DIR", str(missing))
    for page in ("pages/home.py", "pages/draw.py"):
        app = app_for(page)
        app.run()
        assert not app.exception, [item.value for item in app.exception]
        messages = [item.value for item in app.error]
        assert len(messages) == 1 and messages[0].startswith("MNIST is not available."), messages
        # every visitor reads this: what to set, never where the server keeps its files (its log names them)
        assert str(missing) not in messages[0] and str(tmp_path) not in messages[0], messages[0]
        for guidance in ("NBCORE_DATA_DIR", "*-ubyte.gz", "python -m nbcore prepare"):
            assert guidance in messages[0], messages[0]
        assert not app.metric, "a page went on without data"


# -- 4. uploads and the canvas on the Draw page ---------------------------------------------------
def png(image: Image.Image, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", **options)
    return buffer.getvalue()


def paper_digit() -> bytes:
    image = Image.new("L", (300, 300), 255)
    ImageDraw.Draw(image).line([(70, 60), (230, 60), (130, 250)], fill=0, width=22)
    return png(image)


UPLOADS = {
    # name: (file name, bytes, mime type, words the message must hold)
    "truncated PNG": ("seven.png", paper_digit()[:700], "image/png", "damaged or truncated"),
    "bomb under Pillow's limit": (
        "big.png",
        png(Image.new("1", (7000, 7000)), optimize=True),
        "image/png",
        "too large",
    ),
    "bomb over Pillow's limit": (
        "huge.png",
        png(Image.new("1", (20000, 20000)), optimize=True),
        "image/png",
        "too large",
    ),
    "text file": ("notes.txt", b"not a picture, just some text\n" * 20, "text/plain", "not an image"),
}


@pytest.mark.slow
def test_an_upload_is_decoded_once_and_its_outcome_kept_across_reruns(monkeypatch):
    app = run_clean(app_for("pages/draw.py"), "draw")
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    run_clean(app, "draw, upload mode")
    app.file_uploader(key="draw_upload").set_value(("notes.txt", UPLOADS["text file"][1], "text/plain"))
    app.run()
    app.file_uploader(key="draw_upload").set_value(("seven.png", paper_digit(), "image/png"))
    run_clean(app, "draw, a good upload")

    def decode_again(data):
        raise AssertionError("the same upload was decoded again on a rerun")

    monkeypatch.setattr(nbcore.preprocess, "read_upload", decode_again)  # the page imports it on every run
    app.select_slider(key="threshold").set_value(1)
    run_clean(app, "draw, the same upload after a settings change")
    assert metric(app, "Naive Bayes prediction").value == "7"
    assert any("≥ 1:" in item.value for item in app.caption), "the new threshold was not applied"


@pytest.mark.slow
def test_a_wrong_guess_of_ink_and_paper_is_one_toggle_away():
    """A thick dark square ring (ink on 75 % of the picture and all of its border) is read as light ink on
    a dark background, so the hole becomes the digit; "Swap ink and paper" reads the ring, and back."""
    ring = np.zeros((40, 40), np.uint8)  # black ink
    ring[10:30, 10:30] = 255  # white paper inside
    app = run_clean(app_for("pages/draw.py"), "draw")
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    run_clean(app, "draw, upload mode")
    app.file_uploader(key="draw_upload").set_value(("ring.png", png(Image.fromarray(ring)), "image/png"))
    run_clean(app, "draw, the ring as guessed")

    def read_as() -> tuple[str, np.ndarray]:
        sentence = next(item.value for item in app.caption if item.value.startswith("Read as"))
        return sentence, app.session_state["upload_outcome"][0].frame

    sentence, frame = read_as()
    assert sentence == "Read as light ink on a dark background." and frame[14, 14] == 255  # the hole, filled
    app.toggle(key="draw_swap_ink").set_value(True)
    run_clean(app, "draw, ink and paper swapped")
    sentence, frame = read_as()
    assert sentence == "Read as dark ink on light paper." and frame[14, 14] == 0 and frame[14, 5] > 127  # the ring
    app.toggle(key="draw_swap_ink").set_value(False)
    run_clean(app, "draw, swapped back")
    assert read_as()[1][14, 14] == 255


@pytest.mark.slow
@pytest.mark.parametrize("case", list(UPLOADS))
def test_hostile_upload_gets_a_message_and_no_prediction(case):
    name, data, mime, words = UPLOADS[case]
    assert len(data) < 100_000, "the bombs are small files"
    app = run_clean(app_for("pages/draw.py"), "draw")
    app.segmented_control(key="draw_mode").set_value("Upload a picture")
    run_clean(app, "draw, upload mode")
    app.file_uploader(key="draw_upload").set_value((name, data, mime))
    app.run()
    assert not app.exception, [item.value for item in app.exception]
    messages = [item.value for item in [*app.error, *app.warning]]
    assert any(words in message for message in messages), f"{case}: {messages}"
    assert not [item for item in app.metric if item.label == "Naive Bayes prediction"]
    assert "draw_swap_ink" not in [toggle.key for toggle in app.toggle]  # nothing was read: nothing to swap
    # and the page goes on working: a real picture afterwards is classified
    app.file_uploader(key="draw_upload").set_value(("seven.png", paper_digit(), "image/png"))
    run_clean(app, f"draw, a good upload after the {case}")
    assert metric(app, "Naive Bayes prediction").value == "7"


def canvas(paint) -> np.ndarray:
    """A 280x280 RGBA black canvas (as the Draw page's canvas sends it) with ``paint(draw)`` applied in white."""
    image = Image.new("RGBA", (280, 280), (0, 0, 0, 255))
    paint(ImageDraw.Draw(image))
    return np.asarray(image)


CANVASES = {
    "one dot": canvas(lambda draw: draw.ellipse([130, 130, 150, 150], fill=(255, 255, 255, 255))),
    "one pixel": canvas(lambda draw: draw.point([(3, 277)], fill=(255, 255, 255, 255))),
    "whole canvas painted": canvas(lambda draw: draw.rectangle([0, 0, 279, 279], fill=(255, 255, 255, 255))),
}


@pytest.mark.slow
@pytest.mark.parametrize("extreme", ["textbook", *EXTREMES])
@pytest.mark.parametrize("case", list(CANVASES))
def test_canvas_with_one_dot_or_all_paint_gives_a_defined_prediction(case, extreme):
    frame = mnist_frame(ink_from_canvas(CANVASES[case]))
    assert frame is not None and frame.shape == (28, 28)  # some ink: framed like any digit
    session = EXTREMES.get(extreme, {})
    app = run_clean(app_for("pages/draw.py", draw_frame=frame, **session), f"draw, {case}, {extreme}")
    assert_defined_prediction(app)
    [caption] = [item.value for item in app.caption if "runner-up" in item.value]
    assert not re.search(r"\b(nan|inf)\b", caption), caption  # a sum, or a clear ±∞
    [evidence_map] = [
        spec
        for spec in (json.loads(chart.proto.spec) for chart in app.get("plotly_chart"))
        if any(trace.get("type") == "heatmap" for trace in spec["data"])
    ]
    scale = colour_range(evidence_map)
    assert scale and max(abs(value) for value in scale) < 1e6, f"the evidence colour scale spans {scale}"


# -- 5. defaults fit for a shared server ------------------------------------------------------
def test_streamlit_config_is_fit_for_a_shared_server():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    server = config.get("server", {})
    assert server.get("maxUploadSize", 200) <= 10, "uploads are single digit pictures: keep maxUploadSize small (MB)"
    assert server.get("enableXsrfProtection") is True
    assert server.get("enableCORS", True) is True, "no cross-origin requests into a shared server"
    assert server.get("runOnSave", False) is False
    assert config.get("browser", {}).get("gatherUsageStats") is False
    assert config.get("runner", {}).get("postScriptGC") is False, (
        "a full gc.collect after every run holds the GIL for 70-90 ms here and stalls every other session"
    )


APP_SOURCES = [REPO / "app.py", *sorted((REPO / "lab").glob("*.py")), *sorted((REPO / "pages").glob("*.py"))]


def test_no_raw_html_anywhere_in_the_app():
    """Nothing is rendered as HTML: no unsafe_allow_html, st.html or components.html (a visitor's text stays text)."""
    raw_html = re.compile(r"unsafe_allow_html\s*=\s*True|\bst\.html\s*\(|components(\.v1)?\.html\s*\(|\.iframe\s*\(")
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in APP_SOURCES
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if raw_html.search(line)
    ]
    assert not found, found


def test_no_visitor_input_reaches_a_file_path():
    """Pages open no files and build no paths except from their own location; an upload is read as bytes only."""
    file_access = re.compile(r"\bopen\s*\(|\bos\.|\bshutil\.|\bPath\s*\(|\.read_(text|bytes)\s*\(|\.write_")
    allowed = re.compile(r"Path\(__file__\)")
    found = []
    for path in sorted((REPO / "pages").glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if file_access.search(allowed.sub("", line)):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, found
    for reader in ("pages/draw.py", "lab/picture_input.py"):  # Draw's uploader and what reads its file
        source = (REPO / reader).read_text()
        assert not re.search(r"upload\.(name|type)\b", source), reader
    assert "upload.getvalue()" in (REPO / "lab" / "picture_input.py").read_text()
