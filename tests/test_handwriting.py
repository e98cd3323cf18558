"""The real-handwriting benchmark runs end to end (on 100 of scikit-learn's digits, for time)."""

from __future__ import annotations

import re

import numpy as np

from nbcore.datasets.mnist import MnistSplits
from nbcore.deskew import deskew_all
from nbcore.handwriting import evaluate_handwriting, format_rows, load_handwriting, through_upload_path
from tests.conftest import require


def test_evaluate_handwriting_runs_on_100_images(mnist, tmp_path, monkeypatch):
    require(_has_sklearn(), "scikit-learn is missing")
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))  # the softmax weights' disk cache goes there
    # models trained on 20,000 MNIST images (the command uses all 60,000) to keep the test short
    plain = MnistSplits(
        mnist["train_images"][:20000],
        mnist["train_labels"][:20000],
        mnist["test_images"][:10],
        mnist["test_labels"][:10],
    )
    deskewed = MnistSplits(
        deskew_all(plain.train_images), plain.train_labels, deskew_all(plain.test_images), plain.test_labels
    )
    rows = evaluate_handwriting(plain, deskewed, limit=100)
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


def test_both_polarities_give_the_same_frames():
    require(_has_sklearn(), "scikit-learn is missing")
    images, _ = load_handwriting(limit=40)
    light = through_upload_path(images, "light on dark", deskew=False).frames
    dark = through_upload_path(images, "dark on light", deskew=False).frames
    assert light.any(axis=(1, 2)).all()
    assert np.abs(light.astype(int) - dark).mean() < 2


def _has_sklearn() -> bool:
    """scikit-learn (a development dependency) provides load_digits()."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return False
    return True
