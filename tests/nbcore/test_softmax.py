"""SoftmaxRegression: published course-note numbers, default accuracy, determinism, disk cache, input checks."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest

import nbcore.files
from nbcore import NotFittedError, SoftmaxRegression
from nbcore import __main__ as cli
from nbcore.models.softmax_cache import load_or_train_softmax, training_data_checksum

PUBLISHED_COURSE_NOTE = {"train": 0.8933, "test": 0.8997}
TOLERANCE = 0.005


def fit_timed(mnist, preset: str) -> tuple[SoftmaxRegression, float, list]:
    calls = []
    started = time.perf_counter()
    model = SoftmaxRegression(preset).fit(
        mnist["train_images"],
        mnist["train_labels"],
        progress=lambda fraction, message: calls.append((fraction, message)),
    )
    return model, time.perf_counter() - started, calls


@pytest.fixture(scope="module")
def course_note(mnist):
    return fit_timed(mnist, "course-note")


@pytest.fixture(scope="module")
def default_fit(mnist):
    return fit_timed(mnist, "default")


def accuracies(model, mnist) -> tuple[float, float]:
    return (
        model.score(mnist["train_images"], mnist["train_labels"]),
        model.score(mnist["test_images"], mnist["test_labels"]),
    )


# -- real MNIST ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_course_note_reproduces_published_accuracy(course_note, mnist):
    model, fit_seconds, _ = course_note
    train, test = accuracies(model, mnist)
    print(f"course-note: train {train:.4f} test {test:.4f} fit {fit_seconds:.2f} s")
    assert abs(train - PUBLISHED_COURSE_NOTE["train"]) <= TOLERANCE
    assert abs(test - PUBLISHED_COURSE_NOTE["test"]) <= TOLERANCE
    assert model.coef_.shape == (10, 784)
    assert np.array_equal(model.intercept_, np.zeros(10))


@pytest.mark.slow
def test_default_reaches_0925_test_accuracy(default_fit, mnist):
    model, fit_seconds, _ = default_fit
    train, test = accuracies(model, mnist)
    print(f"default: train {train:.4f} test {test:.4f} fit {fit_seconds:.2f} s")
    assert test >= 0.925
    assert model.coef_.shape == (10, 784) and model.intercept_.shape == (10,)
    assert np.any(model.intercept_ != 0)


@pytest.mark.slow
def test_progress_reports_rise_to_one(default_fit):
    _, _, calls = default_fit
    fractions = [fraction for fraction, _ in calls]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions) and 10 <= len(fractions) <= 110
    assert all(isinstance(message, str) and message for _, message in calls)


@pytest.mark.slow
def test_probabilities_and_input_layouts_agree(default_fit, mnist):
    model, _, _ = default_fit
    images = mnist["test_images"][:500]
    log_proba = model.predict_log_proba(images)
    assert log_proba.shape == (500, 10) and log_proba.dtype == np.float64
    np.testing.assert_allclose(model.predict_proba(images).sum(axis=1), 1.0, rtol=1e-12)
    predicted = model.predict(images)
    assert np.array_equal(predicted, log_proba.argmax(axis=1))
    assert np.array_equal(predicted, model.predict(images.reshape(500, 784)))
    assert np.array_equal(predicted, model.predict(images.astype(np.float32) / 255))


def test_cli_evaluate_softmax_prints_json(small_mnist, capsys):
    assert cli.main(["evaluate", "--model", "softmax", "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert {"train_accuracy", "test_accuracy", "mean_train_loglik", "fit_seconds"} <= set(result)
    assert result["model"] == "softmax" and result["preset"] == "default"
    assert result["mean_train_loglik"] < 0 and result["fit_seconds"] > 0
    assert "100%" in captured.err


# -- determinism, on a small slice of MNIST -------------------------------------------------------
def test_same_seed_gives_identical_weights(mnist):
    images, labels = mnist["train_images"][:4000], mnist["train_labels"][:4000]
    first = SoftmaxRegression("default", seed=7, epochs=1).fit(images, labels)
    second = SoftmaxRegression("default", seed=7, epochs=1).fit(images, labels)
    other = SoftmaxRegression("default", seed=8, epochs=1).fit(images, labels)
    assert np.array_equal(first.coef_, second.coef_) and np.array_equal(first.intercept_, second.intercept_)
    assert not np.array_equal(first.coef_, other.coef_)


# -- disk cache, on synthetic data -----------------------------------------------------------------
@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    labels = np.arange(400) % 10
    images = rng.integers(0, 64, size=(400, 28, 28), dtype=np.uint8)
    images[np.arange(400), labels, :] = 255  # class c lights up row c: learnable
    return images, labels.astype(np.uint8)


def cached(data, cache_dir, **settings):
    """load_or_train_softmax with a fast setting; returns (model, info, progress calls)."""
    calls = []
    settings = {"epochs": 2, **settings}
    model, info = load_or_train_softmax(
        *data, cache_dir=cache_dir, progress=lambda fraction, message: calls.append(fraction), **settings
    )
    return model, info, calls


def test_cache_miss_then_hit(data, tmp_path):
    first, info, calls = cached(data, tmp_path)
    assert info["cache"] == "miss" and info["saved"] and calls and info["fit_seconds"] > 0
    second, info2, calls2 = cached(data, tmp_path)
    assert info2["cache"] == "hit" and not info2["saved"] and calls2 == []
    assert info2["fit_seconds"] == pytest.approx(info["fit_seconds"])
    assert info2["path"] == info["path"]
    assert np.array_equal(first.coef_, second.coef_) and np.array_equal(first.intercept_, second.intercept_)
    assert np.array_equal(first.predict(data[0]), second.predict(data[0]))
    assert [path.name for path in tmp_path.iterdir()] == [os.path.basename(info["path"])]  # no temporary left


@pytest.mark.parametrize("change", [{"seed": 1}, {"learning_rate": 0.01}, {"preset": "course-note"}, "data"])
def test_other_settings_or_data_miss(data, tmp_path, change):
    _, info, _ = cached(data, tmp_path)
    if change == "data":
        images = data[0].copy()
        images[0, 0, 0] ^= 1
        _, info2, calls = cached((images, data[1]), tmp_path)
    else:
        _, info2, calls = cached(data, tmp_path, **change)
    assert info2["cache"] == "miss" and calls and info2["path"] != info["path"]
    assert len(list(tmp_path.iterdir())) == 2


def test_checksum_is_layout_independent_and_default_dir(data, tmp_path, monkeypatch):
    images, labels = data
    assert training_data_checksum(images, labels) == training_data_checksum(images.reshape(400, 784), labels)
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))
    _, info = load_or_train_softmax(images, labels, epochs=1)
    assert os.path.dirname(info["path"]) == str(tmp_path / "models")


def corrupt_garbage(path):
    path.write_bytes(b"not a numpy file at all" * 10)


def corrupt_truncated(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def corrupt_flipped_weight(path):
    with np.load(path) as archive:
        arrays = dict(archive)
    arrays["coef"][0, 0] += 1
    np.savez(path, **arrays)


def corrupt_wrong_shape(path):
    """A self-consistent file (valid digests) whose weights have the wrong shape."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in ("coef", "intercept", "meta")}
    arrays["coef"] = arrays["coef"][:, :100].copy()
    nbcore.files.write_checked_arrays(path, arrays)


def corrupt_pickled(path):
    np.savez(path, coef=np.array([object()], dtype=object))


@pytest.mark.parametrize(
    "corrupt", [corrupt_garbage, corrupt_truncated, corrupt_flipped_weight, corrupt_wrong_shape, corrupt_pickled]
)
def test_corrupt_file_is_detected_retrained_and_rewritten(data, tmp_path, corrupt):
    original, info, _ = cached(data, tmp_path)
    path = tmp_path / os.path.basename(info["path"])
    corrupt(path)
    retrained, info2, calls = cached(data, tmp_path)
    assert info2["cache"] == "corrupt" and info2["error"] and calls and info2["saved"]
    assert np.array_equal(retrained.coef_, original.coef_)
    _, info3, calls3 = cached(data, tmp_path)
    assert info3["cache"] == "hit" and calls3 == []


@pytest.fixture
def make_read_only(tmp_path, monkeypatch):
    """Call it to make ``tmp_path`` read-only: chmod 555, and no temporary files (root ignores chmod)."""

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    def make() -> None:
        monkeypatch.setattr(nbcore.files.tempfile, "mkstemp", refuse)  # every file nbcore writes goes through it
        tmp_path.chmod(0o555)

    yield make
    tmp_path.chmod(0o755)


def test_read_only_cache_dir_trains_without_caching(data, tmp_path, make_read_only):
    make_read_only()
    model, info, calls = cached(data, tmp_path)
    assert info["cache"] == "miss" and not info["saved"] and "not cached" in info["error"] and calls
    assert model.score(*data) > 0.9
    assert list(tmp_path.iterdir()) == []


def test_read_only_cache_dir_still_serves_hits(data, tmp_path, make_read_only):
    trained, _, _ = cached(data, tmp_path)
    make_read_only()
    loaded, info, calls = cached(data, tmp_path)
    assert info["cache"] == "hit" and calls == [] and np.array_equal(loaded.coef_, trained.coef_)


def test_corrupt_file_in_read_only_dir_is_retrained_without_crash(data, tmp_path, make_read_only):
    _, info, _ = cached(data, tmp_path)
    corrupt_garbage(tmp_path / os.path.basename(info["path"]))
    make_read_only()
    _, info2, calls = cached(data, tmp_path)
    assert info2["cache"] == "corrupt" and not info2["saved"] and calls
    assert "not cached" in info2["error"]


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "images, labels",
    [
        (np.zeros(784, np.uint8), np.zeros(1)),  # 1-D X
        (np.zeros((4, 1, 28, 28), np.uint8), np.zeros(4, np.uint8)),  # 4-D X
        (np.zeros((4, 28, 28), np.uint8), np.zeros(3, np.uint8)),  # y length
        (np.zeros((4, 28, 28), np.uint8), np.zeros(4, np.uint8)),  # one class only
        (np.zeros((4, 28, 28), np.uint8), np.array([0, 1, 2, 1.5])),  # fractional label
        (np.zeros((4, 28, 28), np.uint8), np.array([0, 1, 2, np.nan])),  # NaN label
        (np.full((4, 784), np.nan, np.float32), np.array([0, 1, 0, 1])),  # NaN feature
        (np.full((4, 784), 255.0), np.array([0, 1, 0, 1])),  # floats not /255
        (np.zeros((4, 784), np.int64), np.array([0, 1, 0, 1])),  # int64 pixels
        (np.zeros((0, 784), np.uint8), np.zeros(0, np.uint8)),  # no samples
    ],
)
def test_bad_training_input_raises_value_error(images, labels):
    with pytest.raises(ValueError):
        SoftmaxRegression().fit(images, labels)


def test_bad_prediction_input_and_settings_raise_value_error(data):
    model = SoftmaxRegression(epochs=1).fit(*data)
    with pytest.raises(ValueError):
        model.predict(np.zeros((2, 27, 28), np.uint8))
    with pytest.raises(ValueError):
        model.predict_proba(np.full((2, 784), np.nan))
    for bad in ({"preset": "fastest"}, {"epochs": 0}, {"seed": 1.5}, {"optimizer": "sgd"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SoftmaxRegression(**bad).fit(*data)  # stored as given, checked by fit
    with pytest.raises(TypeError):
        SoftmaxRegression(momentum=0.9)  # no such parameter
    with pytest.raises(NotFittedError):
        SoftmaxRegression().predict(data[0])
