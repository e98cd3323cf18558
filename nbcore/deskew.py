"""Deskewing by second moments: shear a digit so that its principal axis is vertical.

The usual MNIST preprocessing (e.g. LeCun et al. 1998; Ciresan et al.): the skew of an image is
cov(row, column) / var(row) of its intensity; shearing each row sideways by skew * (row - centre
row) makes that covariance zero, and the shear is taken about the centre of mass, which lands at
the frame's centre (14, 14), where MNIST puts it. Images are uint8 (28, 28), 0 = background.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from .progress import ProgressCallback


def skew(image: np.ndarray) -> float:
    """cov(row, column) / var(row) of the intensity of ``image`` (h, w); 0 for an empty image.

    Positive when the top of the digit leans left of its bottom (columns fall as rows rise).
    """
    image = np.asarray(image, dtype=np.float64)
    total = image.sum()
    if total <= 0:
        return 0.0
    rows, cols = np.indices(image.shape)
    row_mean, col_mean = (rows * image).sum() / total, (cols * image).sum() / total
    row_var = ((rows - row_mean) ** 2 * image).sum() / total
    if row_var <= 0:
        return 0.0
    return float(((rows - row_mean) * (cols - col_mean) * image).sum() / total / row_var)


def deskew(image: np.ndarray) -> np.ndarray:
    """uint8 (h, w) -> uint8 (h, w): sheared to zero skew, centre of mass moved to (h / 2, w / 2).

    Bilinear interpolation; an empty image comes back unchanged.
    """
    image = np.asarray(image)
    values = image.astype(np.float64)
    total = values.sum()
    if total <= 0:
        return image.astype(np.uint8)
    rows, cols = np.indices(values.shape)
    centre_of_mass = np.array([(rows * values).sum(), (cols * values).sum()]) / total
    shear = np.array([[1.0, 0.0], [skew(values), 1.0]])  # output (row, col) -> input (row, col + skew * row)
    frame_centre = np.array(values.shape) / 2.0
    offset = centre_of_mass - shear @ frame_centre
    sheared = ndimage.affine_transform(values, shear, offset=offset, order=1, mode="constant", cval=0.0)
    return np.clip(np.round(sheared), 0, 255).astype(np.uint8)


def deskew_all(images: np.ndarray, progress: ProgressCallback | None = None) -> np.ndarray:
    """uint8 (n, h, w) -> uint8 (n, h, w), each image deskewed (MNIST's 70,000: about 6 s here)."""
    images = np.asarray(images)
    out = np.empty(images.shape, dtype=np.uint8)
    step = max(1, len(images) // 50)
    for index, image in enumerate(images):
        out[index] = deskew(image)
        if progress is not None and index % step == 0:
            progress(index / len(images), f"deskewing image {index:,} of {len(images):,}")
    if progress is not None:
        progress(1.0, f"deskewed {len(images):,} images")
    return out
