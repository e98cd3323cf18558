"""The framing's constants measured on MNIST's own training set, and the upload-path control on the test set."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from nbcore import BernoulliNB, binarize
from nbcore.deskew import deskew_all, skew
from nbcore.models.softmax_cache import load_or_train_softmax
from nbcore.preprocess import (
    BOX,
    CENTRE,
    ENLARGING,
    INK_LEVEL,
    RESAMPLING,
    ink_from_upload,
    ink_is_dark,
    mnist_frame,
)
from nbcore.strokes import MNIST_STROKE_RANGE, MNIST_STROKE_WIDTH, stroke_width

ANTI_ALIASING = (
    Image.Resampling.BOX,
    Image.Resampling.BILINEAR,
    Image.Resampling.HAMMING,
    Image.Resampling.BICUBIC,
    Image.Resampling.LANCZOS,
)


@pytest.mark.slow
def test_centre_of_mass_constant_is_mnists(mnist):
    images = mnist["train_images"].astype(np.float64)
    total = images.sum(axis=(1, 2))
    rows = images.sum(axis=2) @ np.arange(28) / total
    cols = images.sum(axis=1) @ np.arange(28) / total
    assert abs(rows.mean() - CENTRE) < 0.02 and abs(cols.mean() - CENTRE) < 0.02  # measured 13.996, 14.007
    assert rows.std() < 0.35 and cols.std() < 0.35  # measured 0.29: every digit is placed there


def test_box_and_crop_level_constants_are_mnists(mnist):
    """At the crop's ink level, MNIST's digits have a bounding box whose longer side is BOX px."""
    ink = mnist["train_images"] > INK_LEVEL * 255
    rows, cols = ink.any(axis=2), ink.any(axis=1)
    height = 28 - rows.argmax(axis=1) - rows[:, ::-1].argmax(axis=1)
    width = 28 - cols.argmax(axis=1) - cols[:, ::-1].argmax(axis=1)
    assert np.mean(np.maximum(height, width) == BOX) > 0.999  # measured 0.9998


@pytest.mark.slow
def test_resampling_constant_reframes_mnist_digits_best(mnist):
    """MNIST digits drawn large (bicubic x10, then ink/no ink like a canvas) and framed again: the code's
    filter gives back the original within 2 % of the best filter's error; no anti-aliasing is far worse."""
    rng = np.random.default_rng(0)
    chosen = mnist["train_images"][rng.choice(len(mnist["train_images"]), 300, replace=False)]
    errors = {}
    for resampling in (Image.Resampling.NEAREST, *ANTI_ALIASING):
        error = 0.0
        for digit in chosen:
            large = Image.fromarray(digit.astype(np.float32), mode="F").resize((280, 280), Image.Resampling.BICUBIC)
            drawn = (np.asarray(large) >= 128) * 255.0
            error += np.abs(mnist_frame(drawn, resampling).astype(float) - digit).mean()
        errors[resampling] = error / len(chosen)
    best = min(errors[resampling] for resampling in ANTI_ALIASING)
    assert errors[RESAMPLING] <= 1.02 * best, errors
    assert errors[Image.Resampling.NEAREST] > 1.3 * best, errors


def reduced_like_load_digits(digit: np.ndarray) -> np.ndarray:
    """uint8 (28, 28) MNIST digit -> uint8 (8, 8) made the way scikit-learn's load_digits() was (its description):
    a bilevel 32x32 bitmap of the digit (here: the ink box enlarged, longer side 32 px, cut at 128), whose 4x4
    blocks are counted (0..16), scaled to 0..255."""
    ink = digit > INK_LEVEL * 255
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    crop = digit[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1].astype(np.float32)
    scale = 32 / max(crop.shape)
    size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
    large = np.asarray(Image.fromarray(crop, mode="F").resize(size, Image.Resampling.BICUBIC)) >= 128
    bitmap = np.zeros((32, 32))
    top, left = (32 - size[1]) // 2, (32 - size[0]) // 2
    bitmap[top : top + size[1], left : left + size[0]] = large
    return np.round(bitmap.reshape(8, 4, 8, 4).sum(axis=(1, 3)) * (255 / 16)).astype(np.uint8)


def test_enlarging_constant_reframes_small_digits_best(mnist):
    """MNIST digits reduced to 8x8 like load_digits and sent as PNG uploads are framed again: the code's filter for
    enlarging gives back the original with the least error, clearly less than the reducing filter (bicubic)."""
    rng = np.random.default_rng(2)
    chosen = mnist["train_images"][rng.choice(len(mnist["train_images"]), 300, replace=False)]
    small = [ink_from_upload(png(reduced_like_load_digits(digit))) for digit in chosen]
    errors = {
        resampling: np.mean(
            [
                np.abs(mnist_frame(ink, enlarging=resampling).astype(float) - digit).mean()
                for ink, digit in zip(small, chosen)
            ]
        )
        for resampling in (Image.Resampling.NEAREST, *ANTI_ALIASING)
    }
    assert errors[ENLARGING] == min(errors.values()), errors  # these 300: Lanczos 15.52, bicubic 16.25, box 18.44
    assert errors[RESAMPLING] > 1.02 * errors[ENLARGING], errors


@pytest.mark.slow
def test_stroke_width_constant_is_mnists(mnist):
    rng = np.random.default_rng(1)
    sample = mnist["train_images"][rng.choice(len(mnist["train_images"]), 5000, replace=False)]
    widths = stroke_width(sample)
    assert abs(np.nanmedian(widths) - MNIST_STROKE_WIDTH) < 0.05  # all 60,000: 2.640
    assert np.allclose(np.nanpercentile(widths, [10, 90]), MNIST_STROKE_RANGE, atol=0.05)  # all: 1.855, 4.041


def cropped_to_ink(image: np.ndarray) -> np.ndarray:
    """uint8 (28, 28) -> the rectangle around its pixels above the crop's ink level: the digit touches every edge."""
    ink = image > INK_LEVEL * 255
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    return image[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


@pytest.mark.slow
@pytest.mark.parametrize("light_ink", [True, False], ids=["light on dark", "dark on light"])
def test_inversion_holds_for_digits_cropped_to_their_ink(mnist, light_ink):
    """MNIST's test digits cropped tight, as a student crops a photo: ink covers over half of 7 % of these
    pictures (the smaller class is not always ink), yet the border around them is mostly paper."""
    crops = [cropped_to_ink(image).astype(np.float64) for image in mnist["test_images"]]
    pictures = crops if light_ink else [255.0 - crop for crop in crops]
    misread = np.mean([ink_is_dark(picture) is light_ink for picture in pictures])
    assert misread < 0.005, misread  # measured 0.0023 in both polarities; ink as the smaller class: 0.070-0.076


def png(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def uploaded_test_set(mnist) -> np.ndarray:
    """MNIST's 10,000 test images as PNG bytes through the Draw page's upload path: uint8 (10000, 28, 28)."""
    return np.stack([mnist_frame(ink_from_upload(png(image))) for image in mnist["test_images"]])


@pytest.mark.slow
@pytest.mark.parametrize("threshold, prior", [(128, "empirical"), (1, "uniform")], ids=["textbook", "course note"])
def test_upload_path_control_naive_bayes(mnist, uploaded_test_set, threshold, prior):
    model = BernoulliNB(prior=prior).fit(binarize(mnist["train_images"], threshold), mnist["train_labels"])
    on_arrays = model.score(binarize(mnist["test_images"], threshold), mnist["test_labels"])
    uploaded = model.score(binarize(uploaded_test_set, threshold), mnist["test_labels"])
    assert abs(uploaded - on_arrays) <= 0.003, (uploaded, on_arrays)


@pytest.mark.slow
def test_upload_path_control_softmax(mnist, uploaded_test_set, tmp_path):
    model, _ = load_or_train_softmax(mnist["train_images"], mnist["train_labels"], cache_dir=tmp_path)
    on_arrays = model.score(mnist["test_images"], mnist["test_labels"])
    uploaded = model.score(uploaded_test_set, mnist["test_labels"])
    assert abs(uploaded - on_arrays) <= 0.003, (uploaded, on_arrays)


@pytest.mark.slow
def test_deskewing_mnist_straightens_digits_and_helps_both_models(mnist, tmp_path):
    """On half the training set (for time): deskewed training and test images give both models higher accuracy."""
    plain_train, labels = mnist["train_images"][:30000], mnist["train_labels"][:30000]
    plain_test, test_labels = mnist["test_images"], mnist["test_labels"]
    train, test = deskew_all(plain_train), deskew_all(plain_test)
    assert (
        np.mean([abs(skew(image)) for image in test[:500]])
        < 0.02
        < np.mean([abs(skew(image)) for image in plain_test[:500]])
    )
    bayes = BernoulliNB().fit(binarize(plain_train, 128), labels).score(binarize(plain_test, 128), test_labels)
    deskewed_bayes = BernoulliNB().fit(binarize(train, 128), labels).score(binarize(test, 128), test_labels)
    assert deskewed_bayes - bayes > 0.02  # all 60,000: 0.8427 -> 0.8821
    softmax, _ = load_or_train_softmax(plain_train, labels, cache_dir=tmp_path)
    deskewed_softmax, _ = load_or_train_softmax(train, labels, cache_dir=tmp_path)
    assert deskewed_softmax.score(test, test_labels) - softmax.score(plain_test, test_labels) > 0.015  # 0.929 -> 0.957
