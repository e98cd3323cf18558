"""Count matrices, dense or sparse: checked, and summed per class (what the discrete event models count).

Shapes: ``X`` is (n_samples, n_features), a numpy array or a scipy sparse matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

from ..features import as_numbers, check_2d


def sum_per_class(X, class_index: np.ndarray, n_classes: int) -> np.ndarray:
    """The rows of X (array or sparse) summed per class: float64 (n_classes, n_features)."""
    n_samples = len(class_index)
    indicator = scipy.sparse.csr_array(
        (np.ones(n_samples), (class_index, np.arange(n_samples))), shape=(n_classes, n_samples)
    )
    sums = indicator @ X
    return sums.toarray() if scipy.sparse.issparse(sums) else np.asarray(sums, dtype=np.float64)


def check_count_matrix(X, what: str, nonnegative: bool = True):
    """X as a 2-D array or a CSR array of finite numbers (>= 0 if ``nonnegative``), else ValueError; ``what``
    names them."""
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_array(X)
        values = X.data
        if values.dtype.kind not in "buif":
            raise ValueError(f"X must hold {what}, got dtype {values.dtype}")
    else:
        X = as_numbers(X)
        values = X
    check_2d(X)
    if values.size and not np.all(np.isfinite(values)):
        raise ValueError(f"X must hold {what}: finite numbers (found NaN or infinity)")
    if nonnegative and values.size and values.min() < 0:
        raise ValueError(f"Negative values in data: X must hold {what}, numbers >= 0")
    return X
