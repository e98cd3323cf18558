"""A classroom on one server, its files going bad: a softmax disk-cache file corrupted while the app runs, a data
folder deleted while the app runs, a server started on a missing data folder; each has a clear outcome
(app_under_test.py).
"""

from __future__ import annotations

import shutil

import pytest

from lab import caching
from lab.data import mnist as shared_mnist
from lab.data import models
from nbcore.models.softmax_cache import load_or_train_softmax
from tests.pages.robustness.app_under_test import app_for, assert_defined_prediction, metric, run_clean


# -- files going bad while the app runs --------------------------------------------------------
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
