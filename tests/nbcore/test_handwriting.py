"""The real-handwriting benchmark runs end to end (on 100 of scikit-learn's digits, for time)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from nbcore.datasets.mnist import MnistSplits
from nbcore.handwriting import (
    as_load_digits,
    classifiers_by_deskew,
    evaluate_handwriting,
    evaluate_mnist_as_load_digits,
    format_control_rows,
    format_rows,
    load_handwriting,
    through_upload_path,
)
from nbcore.inputs import InputForm
from tests.conftest import require_sklearn


@pytest.mark.slow
def test_evaluate_handwriting_runs_on_100_images(mnist, tmp_path, monkeypatch):
    require_sklearn()
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))  # the softmax weights' disk cache goes there
    # models trained on 20,000 MNIST images (the command uses all 60,000) to keep the test short
    plain = MnistSplits(
        mnist["train_images"][:20000],
        mnist["train_labels"][:20000],
        mnist["test_images"][:10],
        mnist["test_labels"][:10],
    )
    deskewed = InputForm(deskew=True).splits(plain)
    classifiers = classifiers_by_deskew(plain, deskewed)
    rows = evaluate_handwriting(classifiers, limit=100)
    # 2 polarities x (framed and plain resize with deskew off, framed with deskew on) x 3 models
    assert len(rows) == 18 and all(row["n"] == 100 for row in rows)
    for polarity in ("light on dark", "dark on light"):
        for model in ("naive Bayes, textbook", "naive Bayes, course note", "softmax"):
            for deskew in (False, True):
                assert any(
                    row["polarity"] == polarity and row["deskew"] is deskew and row["model"] == model for row in rows
                )
    assert all(0 <= row["accuracy"] <= 1 for row in rows)
    framed_softmax = [row["accuracy"] for row in rows if row["framing"] == "framed" and row["model"] == "softmax"]
    assert min(framed_softmax) > 0.5  # far above chance (10 %) on real handwriting it never saw
    text = format_rows(rows).splitlines()
    assert len(text) == 20 and re.search(r"\d+\.\d%", text[1]) and "median stroke width" in text[-1]

    control = evaluate_mnist_as_load_digits(plain.test_images, plain.test_labels, classifiers[True])
    assert [(row["format"], row["n"]) for row in control][::3] == [("32x20 box", 10), ("shape kept", 10)]
    assert len(control) == 6 and all(0 <= row["accuracy"] <= 1 for row in control)
    assert len(format_control_rows(control).splitlines()) == 4


def blocks_of_ink(images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Height and width (n,) in blocks of the ink (any count) of (n, 8, 8) images."""
    rows, cols = images.any(axis=2), images.any(axis=1)
    height = 8 - rows.argmax(axis=1) - rows[:, ::-1].argmax(axis=1)
    return height, 8 - cols.argmax(axis=1) - cols[:, ::-1].argmax(axis=1)


@pytest.mark.slow
def test_the_control_writes_mnist_in_load_digits_format(mnist):
    """load_digits' digits fill the 32 px height and keep to a box about 20 px wide; so do MNIST's written by
    ``as_load_digits``, while with their own shape kept over a third of them fill the width."""
    require_sklearn()
    height, width = blocks_of_ink(load_handwriting()[0])
    assert np.all(height == 8) and np.mean(width == 8) < 0.01 and np.median(width) == 6  # measured: 4 of 1,797
    digits = mnist["test_images"][:3000]
    height, width = blocks_of_ink(np.stack([as_load_digits(digit) for digit in digits]))
    assert np.all(height == 8) and np.mean(width == 8) < 0.01 and np.median(width) == 6  # measured: 0
    _, width = blocks_of_ink(np.stack([as_load_digits(digit, box_width=None) for digit in digits]))
    assert np.mean(width == 8) > 0.2  # measured 0.37


@pytest.mark.slow
def test_both_polarities_give_the_same_frames():
    """All 1,797 digits: a picture and its negative are the same digit (three of them, whose ink covers over
    half of the picture, were read as paper in the dark-on-light polarity before the border decided)."""
    require_sklearn()
    images, _ = load_handwriting()
    light = through_upload_path(images, "light on dark").frames
    dark = through_upload_path(images, "dark on light").frames
    assert light.any(axis=(1, 2)).all()
    assert np.array_equal(light, dark)
