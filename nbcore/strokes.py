"""Stroke width of a framed digit, and bringing it near MNIST's.

Width estimate: ink area / skeleton length. The ink area is the grey mass sum(pixel) / 255 (an
anti-aliased edge pixel counts in part); the skeleton is the Zhang-Suen thinning of the pixels
>= 128, its length the number of skeleton pixels. For a stroke of width w and length L that is
about w * L / L = w px. Frames are uint8 (28, 28), 0 = background, 255 = ink.
"""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

# stroke width of MNIST's 60,000 training digits by ``stroke_width``: the median, and the middle 80 % (10th and
# 90th percentiles), the widths an input is brought into; tests re-measure them
MNIST_STROKE_WIDTH = 2.64
MNIST_STROKE_RANGE = (1.85, 4.04)
SKELETON_LEVEL = 128  # pixels >= this are thinned to the skeleton
UPSAMPLE = 2  # thinning and thickening work on a 2x grid: one grid pixel per side changes the width by 1 px
_CROSS = ndimage.generate_binary_structure(2, 1)


def _neighbours(ink: np.ndarray) -> list[np.ndarray]:
    """The 8 neighbours P2..P9 (N, NE, E, SE, S, SW, W, NW) of every pixel of bool (n, h, w)."""
    padded = np.pad(ink, ((0, 0), (1, 1), (1, 1)))
    height, width = ink.shape[1:]
    offsets = ((0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0))
    return [padded[:, row : row + height, col : col + width] for row, col in offsets]


def skeleton(ink: np.ndarray) -> np.ndarray:
    """Zhang-Suen thinning of bool (n, h, w) or (h, w) -> bool of the same shape, one pixel wide."""
    ink = np.asarray(ink, dtype=bool)
    single = ink.ndim == 2
    current = ink[None].copy() if single else ink.copy()
    changed = True
    while changed:
        changed = False
        for first_pass in (True, False):
            p2, p3, p4, p5, p6, p7, p8, p9 = _neighbours(current)
            ring = [p2, p3, p4, p5, p6, p7, p8, p9, p2]
            count = sum(item.astype(np.uint8) for item in ring[:8])
            transitions = sum((~ring[i] & ring[i + 1]).astype(np.uint8) for i in range(8))
            if first_pass:
                keep_shape = ~(p2 & p4 & p6) & ~(p4 & p6 & p8)
            else:
                keep_shape = ~(p2 & p4 & p8) & ~(p2 & p6 & p8)
            remove = current & (count >= 2) & (count <= 6) & (transitions == 1) & keep_shape
            if remove.any():
                current &= ~remove
                changed = True
    return current[0] if single else current


def stroke_width(frames: np.ndarray) -> np.ndarray | float:
    """Stroke width in px of uint8 (n, 28, 28) frames -> float64 (n,); one (28, 28) frame -> float.

    nan for a frame without pixels >= SKELETON_LEVEL.
    """
    frames = np.asarray(frames)
    single = frames.ndim == 2
    stack = frames[None] if single else frames
    area = stack.reshape(len(stack), -1).sum(axis=1, dtype=np.float64) / 255.0
    length = skeleton(stack >= SKELETON_LEVEL).reshape(len(stack), -1).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        widths = np.where(length > 0, area / np.maximum(length, 1), np.nan)
    return float(widths[0]) if single else widths


def reshape_stroke(frame: np.ndarray, change: int) -> np.ndarray:
    """uint8 (28, 28) frame -> uint8 (28, 28) with strokes about ``change`` px wider (-2 .. +2).

    Grey erosion (thinner) or dilation (thicker) by |change| pixels of a 2x grid, then back to 28 px by
    area averaging; the brightest pixel is scaled back to 255.
    """
    if change == 0:
        return np.asarray(frame, dtype=np.uint8)
    side = frame.shape[0] * UPSAMPLE
    fine = np.asarray(
        Image.fromarray(np.asarray(frame, np.float32), mode="F").resize((side, side), Image.Resampling.BILINEAR),
        dtype=np.float64,
    )
    operation = ndimage.grey_dilation if change > 0 else ndimage.grey_erosion
    for _ in range(abs(change)):
        fine = operation(fine, footprint=_CROSS)
    coarse = np.asarray(
        Image.fromarray(fine.astype(np.float32), mode="F").resize(frame.shape[::-1], Image.Resampling.BOX),
        dtype=np.float64,
    )
    top = coarse.max()
    if top <= 0:
        return np.zeros(frame.shape, np.uint8)
    return np.clip(np.round(coarse * (255.0 / top)), 0, 255).astype(np.uint8)


def normalise_stroke(
    frame: np.ndarray, target: tuple[float, float] = MNIST_STROKE_RANGE
) -> tuple[np.ndarray, float, float, str]:
    """Thin, keep or thicken (by 1 or 2 px) a uint8 (28, 28) frame, whichever lands nearest MNIST's widths.

    ``target`` (low, high) px: a width inside counts as MNIST's, so a stroke as wide as most of MNIST's
    is kept as drawn (bringing every MNIST test digit to the median cost naive Bayes 2.5 points);
    a wider one is thinned, a thinner one thickened, by the step that lands nearest the range. Returns (new frame,
    width before, width after, "thinned" | "kept" | "thickened"). A frame whose width cannot be
    measured (no pixel >= 128) is kept.
    """
    frame = np.asarray(frame, dtype=np.uint8)
    before = float(stroke_width(frame))
    low, high = target
    if not np.isfinite(before) or low <= before <= high:
        return frame, before, before, "kept"
    # only towards the range: thinning an already thin stroke breaks it, and its pieces measure wide
    changes, action = ((-1, -2), "thinned") if before > high else ((1, 2), "thickened")
    candidates = [frame, *(reshape_stroke(frame, change) for change in changes)]
    widths = np.asarray(stroke_width(np.stack(candidates)))
    distances = np.where(np.isfinite(widths), np.maximum.reduce([low - widths, widths - high, 0 * widths]), np.inf)
    best = int(np.argmin(distances))  # ties take the smaller change (kept first)
    return candidates[best], before, float(widths[best]), action if best else "kept"
