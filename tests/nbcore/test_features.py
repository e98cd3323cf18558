"""nbcore.features: binarize, check_binary, and the bit-packed product."""

from __future__ import annotations

import numpy as np
import pytest

from nbcore import PackedBinary, binarize
from nbcore.features import check_binary, packed_matmul

EDGES = np.array([0, 1, 127, 128, 255], dtype=np.uint8)


def edge_images(n: int = 3) -> np.ndarray:
    """(n, 28, 28) uint8 images cycling through the edge values."""
    return np.resize(EDGES, (n, 28, 28)).astype(np.uint8)


# -- binarize -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "threshold, expected",
    [
        (128, [0, 0, 0, 1, 1]),  # textbook: pixel >= 128
        (1, [0, 1, 1, 1, 1]),  # course note: any ink
    ],
)
def test_binarize_threshold_semantics(threshold, expected):
    images = edge_images()
    features = binarize(images, threshold)
    assert features.shape == (3, 784) and features.dtype == np.uint8
    np.testing.assert_array_equal(features, np.resize(np.array(expected, dtype=np.uint8), (3, 784)))


def test_binarize_accepts_flat_images_and_keeps_them():
    images = edge_images().reshape(3, 784)
    before = images.copy()
    np.testing.assert_array_equal(binarize(images, 128), binarize(images.reshape(3, 28, 28), 128))
    np.testing.assert_array_equal(images, before)


def test_binarize_extreme_thresholds():
    images = edge_images()
    assert binarize(images, 0).all()  # everything is >= 0
    assert not binarize(images, 256).any()  # nothing is >= 256


def test_binarize_zero_images():
    assert binarize(np.zeros((0, 28, 28), dtype=np.uint8), 128).shape == (0, 784)


@pytest.mark.parametrize("threshold", [-1, 257, 1000, float("nan")])
def test_binarize_bad_threshold(threshold):
    with pytest.raises(ValueError, match="threshold"):
        binarize(edge_images(), threshold)


# -- check_binary -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "bad",
    [
        np.array([[0.0, np.nan]]),
        np.array([[0.0, 0.5]]),
        np.array([[0, 2]]),
        np.array([[0, 2]], dtype=np.uint8),
        np.array([[-1, 0]]),
        np.array([[0.0, np.inf]]),
        np.array([["0", "1"]]),
    ],
)
def test_check_binary_rejects_non_binary(bad):
    with pytest.raises(ValueError):
        check_binary(bad)


@pytest.mark.parametrize("shape", [(784,), (2, 28, 28), ()])
def test_check_binary_rejects_wrong_ndim(shape):
    with pytest.raises(ValueError, match="2-D"):
        check_binary(np.zeros(shape, dtype=np.uint8))


@pytest.mark.parametrize(
    "good",
    [
        np.array([[True, False], [False, True]]),
        np.array([[1, 0], [0, 1]], dtype=np.uint8),
        np.array([[1, 0], [0, 1]], dtype=np.int64),
        np.array([[1.0, 0.0], [0.0, 1.0]]),
        [[1, 0], [0, 1]],
        np.zeros((0, 5)),
    ],
)
def test_check_binary_accepts_binary(good):
    checked = check_binary(good)
    assert checked.ndim == 2
    np.testing.assert_array_equal(np.asarray(checked, dtype=float), np.asarray(good, dtype=float))


def test_check_binary_bool_becomes_numbers():
    checked = check_binary(np.array([[True, False]]))
    assert checked.dtype == np.uint8
    np.testing.assert_array_equal(checked, [[1, 0]])


# -- PackedBinary / packed_matmul ----------------------------------------------------------
@pytest.mark.parametrize(
    "n_samples, n_features, k",
    [
        (50, 13, 4),  # not a multiple of 8
        (37, 784, 10),  # MNIST-sized
        (5, 1, 3),
        (9, 8, 1),
        (0, 13, 4),  # zero samples
        (0, 784, 10),
    ],
)
def test_packed_matmul_equals_dense_product(n_samples, n_features, k):
    rng = np.random.default_rng(n_samples * 1000 + n_features)
    X = (rng.random((n_samples, n_features)) < 0.3).astype(np.uint8)
    W = rng.normal(size=(n_features, k))
    packed = PackedBinary.from_dense(X)
    assert len(packed) == n_samples and packed.n_features == n_features
    product = packed_matmul(packed, W)
    assert product.dtype == np.float64 and product.shape == (n_samples, k)
    np.testing.assert_allclose(product, X.astype(np.float64) @ W, rtol=0, atol=1e-12)


def test_packed_matmul_all_zero_and_all_one_rows():
    rng = np.random.default_rng(1)
    W = rng.normal(size=(21, 3))
    X = np.array([[0] * 21, [1] * 21], dtype=np.uint8)
    product = packed_matmul(PackedBinary.from_dense(X), W)
    np.testing.assert_allclose(product[0], 0.0, atol=0)
    np.testing.assert_allclose(product[1], W.sum(axis=0), rtol=0, atol=1e-12)


def test_packed_from_bool_and_float_inputs_agree():
    rng = np.random.default_rng(2)
    X = rng.random((11, 19)) < 0.5
    W = rng.normal(size=(19, 2))
    expected = packed_matmul(PackedBinary.from_dense(X.astype(np.uint8)), W)
    for variant in (X, X.astype(np.float64), X.astype(np.int32)):
        np.testing.assert_array_equal(packed_matmul(PackedBinary.from_dense(variant), W), expected)


def test_packed_rejects_non_binary_and_mismatched_weights():
    with pytest.raises(ValueError):
        PackedBinary.from_dense(np.array([[0, 2]]))
    packed = PackedBinary.from_dense(np.ones((2, 10), dtype=np.uint8))
    with pytest.raises(ValueError, match="features"):
        packed_matmul(packed, np.ones((11, 3)))
