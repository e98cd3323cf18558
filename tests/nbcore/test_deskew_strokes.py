"""Deskewing by second moments and stroke width, on pictures whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from nbcore.deskew import deskew, deskew_all, skew
from nbcore.preprocess import centre_of_mass
from nbcore.strokes import MNIST_STROKE_RANGE, normalise_stroke, reshape_stroke, skeleton, stroke_width


def line_image(start, end, width: int, side: int = 28) -> np.ndarray:
    """uint8 (side, side): one white line on black."""
    image = Image.new("L", (side, side), 0)
    ImageDraw.Draw(image).line([start, end], fill=255, width=width)
    return np.asarray(image)


def test_a_slanted_bar_is_sheared_upright_about_the_frame_centre():
    slanted = line_image((18, 4), (10, 23), width=3)  # (x, y): top right to bottom left
    assert skew(slanted) < -0.3
    upright = deskew(slanted)
    assert upright.dtype == np.uint8 and upright.shape == (28, 28)
    assert abs(skew(upright)) < 0.03
    columns = np.nonzero(upright > 127)[1]
    assert columns.max() - columns.min() <= 4  # a vertical bar about as wide as the line
    assert np.allclose(centre_of_mass(upright.astype(float)), (14, 14), atol=0.6)


def test_deskew_keeps_upright_and_empty_images_and_works_on_stacks():
    upright = line_image((14, 4), (14, 24), width=3)  # centre of mass (14, 14) already
    assert np.abs(deskew(upright).astype(int) - upright).max() <= 1
    assert not deskew(np.zeros((28, 28), np.uint8)).any()
    stack = np.stack([upright, line_image((18, 4), (10, 23), width=3)])
    messages = []
    assert np.array_equal(
        deskew_all(stack, progress=lambda fraction, message: messages.append(fraction)),
        np.stack([deskew(image) for image in stack]),
    )
    assert messages[-1] == 1.0


def test_skeleton_is_one_pixel_wide():
    bar = np.zeros((20, 20), bool)
    bar[3:17, 8:13] = True
    thin = skeleton(bar)
    assert thin.any() and thin.sum(axis=1).max() == 1 and thin[bar].sum() == thin.sum()


@pytest.mark.parametrize("width", [2, 3, 5])
def test_stroke_width_of_a_line_is_its_width(width):
    """Ink area / skeleton length; a long line (thinning shortens the skeleton at both ends by about the width)."""
    line = line_image((4, 32), (60, 32), width=width, side=64)
    assert stroke_width(line) == pytest.approx(width, abs=0.6)


def test_thick_strokes_are_thinned_thin_ones_thickened_and_mnist_like_ones_kept():
    low, high = MNIST_STROKE_RANGE
    thick, thin = line_image((14, 4), (14, 23), width=6), line_image((14, 4), (14, 23), width=1)
    frame, before, after, action = normalise_stroke(thick)
    assert action == "thinned" and before > high and after < before and abs(after - high) < before - high
    frame, before, after, action = normalise_stroke(thin)
    assert action == "thickened" and before < low and after > before and abs(after - low) < low - before
    assert frame.max() == 255
    usual = line_image((14, 4), (14, 23), width=3)
    assert low <= stroke_width(usual) <= high
    frame, before, after, action = normalise_stroke(usual)
    assert action == "kept" and np.array_equal(frame, usual) and before == after
    assert stroke_width(reshape_stroke(thick, -1)) < stroke_width(thick) < stroke_width(reshape_stroke(thick, 1))


def test_a_frame_without_measurable_stroke_is_kept():
    faint = np.full((28, 28), 0, np.uint8)
    faint[10:12, 10:12] = 100
    frame, before, after, action = normalise_stroke(faint)
    assert action == "kept" and np.isnan(before) and np.array_equal(frame, faint)
