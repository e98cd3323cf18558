"""Features: binarized pixels, and the bit-packed form the fast scorer reads.

``binarize`` turns uint8 images into 0/1 features. ``PackedBinary`` stores 0/1
features eight to a byte; ``packed_matmul`` multiplies them with a weight matrix
by table look-up: for each group of 8 features it precomputes the 256 possible
partial sums, so a product costs one look-up per 8 pixels instead of 8
multiply-adds, and never builds a float copy of the input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse

BITS_PER_GROUP = 8
# (256, 8): row v holds the bits of byte value v, most significant first (np.packbits order).
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64)


def binarize(images: np.ndarray, threshold: int) -> np.ndarray:
    """uint8 images (n, 28, 28) or (n, 784) -> uint8 0/1 features (n, 784): pixel >= threshold.

    threshold 128 is the textbook's choice, threshold 1 ("any ink") the course note's.
    """
    images = np.asarray(images)
    if not 0 <= threshold <= 256:
        raise ValueError(f"threshold must be between 0 and 256, got {threshold}")
    flat = images.reshape(images.shape[0], int(np.prod(images.shape[1:]))) if images.ndim > 1 else images.reshape(1, -1)
    return (flat >= threshold).view(np.uint8)


def as_numbers(X) -> np.ndarray:
    """X as a numpy array of real numbers (bool, integer or float dtype); an object array of numbers
    becomes float64, as scikit-learn does (TypeError naming an element that is not a number).

    ValueError with a sentence for a sparse matrix, complex numbers or any other dtype.
    """
    if scipy.sparse.issparse(X):
        raise ValueError("X is a sparse matrix, and this model needs a dense array: pass X.toarray()")
    X = np.asarray(X)
    if X.dtype == object:
        X = X.astype(np.float64)
    if X.dtype.kind == "c":
        raise ValueError("Complex data not supported: X must hold real numbers")
    if X.dtype.kind not in "buif":
        raise ValueError(f"X must hold numbers, got dtype {X.dtype}")
    return X


def check_2d(X: np.ndarray) -> None:
    """ValueError unless X is 2-D (n_samples, n_features), with how to reshape a single row or column."""
    if X.ndim != 2:
        raise ValueError(
            f"X must be 2-D (n_samples, n_features), got shape {X.shape}. Reshape your data: "
            "X.reshape(1, -1) for a single sample, X.reshape(-1, 1) for a single feature"
        )


def check_binary(X) -> np.ndarray:
    """Return X as a 2-D array of 0/1 values; ValueError for anything else (NaN, 0.5, 2, ...)."""
    X = as_numbers(X)
    check_2d(X)
    if X.dtype == bool:
        return X.view(np.uint8)
    if X.size:
        if X.dtype.kind == "u":
            is_binary = X.max() <= 1
        else:
            is_binary = bool(np.all((X == 0) | (X == 1)))
        if not is_binary:
            raise ValueError(
                "X must be binary: every feature 0 or 1 (binarize images first, "
                "e.g. nbcore.binarize(images, 128)); found other values or NaN"
            )
    return X


@dataclass(frozen=True)
class PackedBinary:
    """0/1 features of shape (n_samples, n_features), packed 8 per byte as a sparse selector.

    ``selector`` is a CSR matrix (n_samples, n_groups * 256) with a 1 in column
    ``g * 256 + v`` when group g of 8 features has the nonzero byte value v.
    """

    selector: scipy.sparse.csr_array
    n_samples: int
    n_features: int

    @classmethod
    def from_dense(cls, X) -> PackedBinary:
        X = check_binary(X)
        n_samples, n_features = X.shape
        packed = np.packbits(X.astype(np.uint8, copy=False), axis=1)  # (n, n_groups)
        n_groups = packed.shape[1]
        # A byte of 0 selects table row 0, which is all zeros: leave those out (about 2/3 of MNIST's bytes).
        flat = packed.ravel()
        nonzero = np.flatnonzero(flat != 0)  # on a bool array: several times faster than on uint8
        columns = (nonzero % n_groups) * 256 + flat[nonzero]
        row_starts = np.zeros(n_samples + 1, dtype=np.int64)
        np.cumsum(np.count_nonzero(packed, axis=1), out=row_starts[1:])
        selector = scipy.sparse.csr_array(
            (np.ones(len(nonzero)), columns, row_starts), shape=(n_samples, n_groups * 256)
        )
        return cls(selector, n_samples, n_features)

    def __len__(self) -> int:
        return self.n_samples

    def to_dense(self) -> np.ndarray:
        """The 0/1 features unpacked again: uint8 (n_samples, n_features)."""
        n_groups = self.selector.shape[1] // 256
        packed = np.zeros((self.n_samples, n_groups), dtype=np.uint8)
        rows = np.repeat(np.arange(self.n_samples), np.diff(self.selector.indptr))
        packed[rows, self.selector.indices // 256] = self.selector.indices % 256
        return np.unpackbits(packed, axis=1, count=self.n_features)


def byte_table(weights: np.ndarray) -> np.ndarray:
    """Weights (n_features, k) -> look-up table float64 (n_groups * 256, k).

    Row ``g * 256 + v`` is the sum of the weights of group g's features whose bit is set in byte v.
    """
    weights = np.asarray(weights, dtype=np.float64)
    n_features, k = weights.shape
    n_groups = -(-n_features // BITS_PER_GROUP)
    padded = np.zeros((n_groups * BITS_PER_GROUP, k))
    padded[:n_features] = weights
    return np.matmul(_BYTE_BITS, padded.reshape(n_groups, BITS_PER_GROUP, k)).reshape(n_groups * 256, k)


def packed_matmul(packed: PackedBinary, weights: np.ndarray, table: np.ndarray | None = None) -> np.ndarray:
    """``X @ weights`` for packed 0/1 X: (n_samples, n_features) @ (n_features, k) -> float64 (n_samples, k).

    ``table``: ``byte_table(weights)`` if already built (models keep theirs between calls).
    """
    weights = np.asarray(weights)
    if weights.shape[0] != packed.n_features:
        raise ValueError(f"X has {packed.n_features} features, the model expects {weights.shape[0]}")
    if packed.n_samples == 0:
        return np.zeros((0, weights.shape[1]))
    return packed.selector @ (byte_table(weights) if table is None else table)


OBSERVED_REGIONS = ("top half", "bottom half", "left half", "right half", "random pixels")


def observed_region(region: str, fraction: float = 0.5, seed: int = 0, side: int = 28) -> np.ndarray:
    """Which pixels of a side x side image are observed: bool (side * side,).

    ``region`` is one of OBSERVED_REGIONS; "random pixels" observes round(fraction * side**2)
    pixels chosen with ``seed``. "top half" is the course note's case (rows 0..13 seen).
    """
    grid = np.zeros((side, side), dtype=bool)
    half = side // 2
    if region == "top half":
        grid[:half] = True
    elif region == "bottom half":
        grid[half:] = True
    elif region == "left half":
        grid[:, :half] = True
    elif region == "right half":
        grid[:, half:] = True
    elif region == "random pixels":
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"fraction must be in [0, 1], got {fraction}")
        chosen = np.random.default_rng(seed).permutation(side * side)[: round(fraction * side * side)]
        grid.reshape(-1)[chosen] = True
    else:
        raise ValueError(f"region must be one of {OBSERVED_REGIONS}, got {region!r}")
    return grid.reshape(-1)


def pca(X, n_components: int) -> tuple[np.ndarray, np.ndarray]:
    """Project centred X (n, d) onto its top principal axes via SVD.

    Returns ``(scores, explained_ratio)``: float64 (n, n_components) coordinates and
    the fraction of total variance each component carries, (n_components,).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError(f"X must be a 2-D array of finite numbers (n_samples, n_features), got shape {X.shape}")
    if not 1 <= n_components <= min(X.shape):
        raise ValueError(f"n_components must lie in 1..{min(X.shape)}, got {n_components}")
    centred = X - X.mean(axis=0)
    _, singular_values, axes = np.linalg.svd(centred, full_matrices=False)
    variance = singular_values**2
    return centred @ axes[:n_components].T, variance[:n_components] / variance.sum()
