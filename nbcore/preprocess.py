"""A drawing or an uploaded picture -> a 28x28 image made the way MNIST was made.

MNIST's recipe: grayscale, light ink on a dark background, the ink's bounding box
scaled so that its longer side is 20 px (aspect ratio kept, anti-aliased), then
placed in a 28x28 frame so that its centre of mass sits at the frame's centre.
All ink arrays here are float64 (height, width) with 0 = background, 255 = ink.
"""

from __future__ import annotations

import base64
import binascii
import io
import warnings
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .strokes import normalise_stroke

FRAME = 28
BOX = 20  # px, the longer side of the ink's bounding box (MNIST training set: 20 px in 99.98 % of digits)
CENTRE = FRAME / 2  # where the centre of mass goes, row and column (MNIST training set: mean 14.00, sd 0.29)
RESAMPLING = Image.Resampling.BICUBIC  # reduces the ink to BOX px: least error re-framing MNIST digits drawn large
# enlarges ink smaller than BOX px (a small picture, e.g. 8x8): least error re-framing MNIST digits reduced to 8x8
ENLARGING = Image.Resampling.LANCZOS
# what the upload field's label promises and the message for anything else names: all read by Pillow
UPLOAD_FORMATS = "PNG, JPEG, GIF, BMP, WebP or TIFF"
MAX_UPLOAD_PIXELS = 40_000_000  # about a 48-megapixel photo; anything larger is refused
INK_LEVEL = 0.1  # fraction of 255 above which a pixel counts as ink for the bounding box (crop)
MIN_CONTRAST = 40  # ink less bright than this over the background means "blank"
PNG_DATA_URL = "data:image/png;base64,"
MAX_CANVAS_SIDE = 2048  # px; the app's canvas is 280
# The largest value the app's 280x280 canvas can send, so a longer one is refused before decoding (a forged
# value once held 47 MB per session): an incompressible RGBA PNG is its rows
# (a filter byte + 4 bytes per pixel) plus zlib/chunk overhead well under 16 kB, base64-encoded.
CANVAS_BITMAP_SIDE = 280  # lab/canvas.py's SIZE: the canvas's bitmap, whatever its CSS size
MAX_CANVAS_PNG_BYTES = CANVAS_BITMAP_SIDE * (1 + 4 * CANVAS_BITMAP_SIDE) + 16_384
MAX_CANVAS_URL_CHARS = len(PNG_DATA_URL) + 4 * -(-MAX_CANVAS_PNG_BYTES // 3)


class ImageInputError(ValueError):
    """An upload that cannot be turned into a digit; the message is meant for the user."""


def ink_from_canvas(rgba: np.ndarray) -> np.ndarray:
    """Canvas pixels (height, width, 4) uint8, light ink on dark -> ink (height, width)."""
    rgba = np.asarray(rgba)
    if rgba.ndim != 3 or rgba.shape[2] not in (3, 4):
        raise ImageInputError(f"expected an RGB(A) canvas image, got an array of shape {rgba.shape}")
    rgb = rgba[..., :3].astype(np.float64)
    luminance = rgb @ np.array([0.299, 0.587, 0.114])
    if rgba.shape[2] == 4:  # transparent canvas pixels are background
        luminance *= rgba[..., 3] / 255.0
    return luminance


def ink_from_canvas_png(data_url: str) -> np.ndarray:
    """A canvas snapshot, "data:image/png;base64,..." light ink on dark -> ink (height, width).

    Raises ImageInputError for anything else (the URL comes from the browser, so it is checked).
    """
    check_canvas_value(data_url)
    try:
        image = Image.open(io.BytesIO(base64.b64decode(data_url[len(PNG_DATA_URL) :], validate=True)))
        if image.format != "PNG" or max(image.size) > MAX_CANVAS_SIDE:
            raise ImageInputError("The canvas sent a drawing that is not a PNG of a sensible size.")
        rgba = np.asarray(image.convert("RGBA"))
    except ImageInputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:  # a forged header
        raise ImageInputError("The canvas sent a drawing too large to process.") from error
    except (binascii.Error, UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as error:
        raise ImageInputError(f"The canvas sent a damaged drawing ({error}).") from error
    return ink_from_canvas(rgba)


def check_canvas_value(data_url) -> None:
    """ImageInputError unless ``data_url`` is a PNG data URL no longer than the 280x280 canvas can send.

    Checked before anything is decoded: a visitor's script can send any value in the canvas's place.
    """
    if not isinstance(data_url, str) or not data_url.startswith(PNG_DATA_URL):
        raise ImageInputError("The canvas sent something that is not a PNG drawing.")
    if len(data_url) > MAX_CANVAS_URL_CHARS:
        raise ImageInputError("The canvas sent a drawing too large to process.")


@dataclass(frozen=True)
class UploadedInk:
    """An uploaded picture read as ink: float64 (height, width), and whether the ink was the dark part."""

    ink: np.ndarray
    dark_ink: bool


def ink_from_upload(data: bytes) -> np.ndarray:
    """PNG/JPEG/GIF/... bytes -> ink (height, width); dark ink on paper is inverted automatically."""
    return read_upload(data).ink


def read_upload(data: bytes, swap: bool = False) -> UploadedInk:
    """PNG/JPEG/GIF/... bytes -> the ink, taken from the dark or light part as ``ink_is_dark`` decides.

    ``swap`` takes the other part (the user's fix when the decision is wrong). EXIF rotation is
    applied, animated images use their first frame, 16-bit and palette images are converted,
    transparency is composited over white. Raises ImageInputError with a user-facing message for
    anything unreadable.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            width, height = image.size
            if width * height > MAX_UPLOAD_PIXELS:
                raise ImageInputError(
                    f"This image is {width}x{height} pixels, too large to process "
                    f"(limit {MAX_UPLOAD_PIXELS // 1_000_000} megapixels). Please upload a smaller picture."
                )
            image.seek(0)
            gray = _grayscale(ImageOps.exif_transpose(image))
    except ImageInputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:  # Pillow refused its size
        raise ImageInputError(
            f"This image is too large to process (limit {MAX_UPLOAD_PIXELS // 1_000_000} megapixels). "
            "Please upload a smaller picture."
        ) from error
    except UnidentifiedImageError as error:
        raise ImageInputError(f"This file is not an image we can read ({UPLOAD_FORMATS}).") from error
    except (OSError, ValueError, SyntaxError, EOFError) as error:
        raise ImageInputError(f"This image is damaged or truncated and cannot be read ({error}).") from error
    dark_ink = ink_is_dark(gray) != swap
    if dark_ink:
        gray = 255.0 - gray
    background = float(np.median(gray[gray < otsu_threshold(gray)])) if np.ptp(gray) > 0 else float(gray.flat[0])
    return UploadedInk(np.clip(gray - background, 0.0, None) * (255.0 / max(255.0 - background, 1.0)), dark_ink)


def otsu_threshold(gray: np.ndarray) -> float:
    """The grey level (0..255) that best splits ``gray`` (h, w) into two classes (Otsu's method);
    values >= it form the light class."""
    counts = np.bincount(np.clip(np.round(gray), 0, 255).astype(np.int64).ravel(), minlength=256)
    weight_dark = np.cumsum(counts)[:-1]  # pixels darker than each candidate split level 1..255
    weight_light = counts.sum() - weight_dark
    mass_dark = np.cumsum(counts * np.arange(256))[:-1]
    mass_light = counts @ np.arange(256) - mass_dark
    with np.errstate(divide="ignore", invalid="ignore"):  # empty classes give nan: never the best split
        between = weight_dark * weight_light * (mass_dark / weight_dark - mass_light / weight_light) ** 2
    return float(np.nanargmax(np.where(np.isfinite(between), between, -1.0)) + 1)


def ink_is_dark(gray: np.ndarray) -> bool:
    """Whether ``gray`` (h, w, 0..255) holds dark ink on light paper.

    The two grey-level classes come from Otsu's split. Ink is the class that covers less of the
    picture's border: paper surrounds a digit even when the picture is cropped tight, so that the
    digit touches every edge and covers more than half of it (7 % of MNIST's test digits cropped to
    their ink). When one class covers the whole border (a digit well inside its page, or ink running
    along every edge) the border cannot tell, and ink is the smaller class. A picture of one grey
    level falls back to "paper is the lighter half of the range".
    """
    if np.ptp(gray) == 0:
        return float(gray.flat[0]) > 127
    dark = gray < otsu_threshold(gray)
    border_dark = float(np.concatenate([dark[0], dark[-1], dark[1:-1, 0], dark[1:-1, -1]]).mean())
    if border_dark in (0.0, 0.5, 1.0):
        return bool(dark.mean() < 0.5)
    return border_dark < 0.5


def _grayscale(image: Image.Image) -> np.ndarray:
    """Any PIL image -> float64 (height, width) luminance in 0..255."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        values = np.asarray(image, dtype=np.float64)
        top = 65535.0 if values.max(initial=0) > 255 or image.mode.startswith("I;16") else 255.0
        return values * (255.0 / top)
    if image.mode == "F":
        values = np.asarray(image, dtype=np.float64)
        return np.clip(values / max(values.max(initial=0), 1e-12), 0, 1) * 255.0
    if image.mode in ("RGBA", "LA", "PA", "P") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        flattened = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        flattened.alpha_composite(rgba)
        image = flattened
    return np.asarray(image.convert("L"), dtype=np.float64)


def mnist_frame(
    ink: np.ndarray, resampling: Image.Resampling = RESAMPLING, enlarging: Image.Resampling = ENLARGING
) -> np.ndarray | None:
    """Ink (height, width) -> uint8 (28, 28) framed like MNIST, or None if there is no ink.

    ``resampling`` is the filter that scales the cropped ink down (or keeps it) to the 20 px box,
    ``enlarging`` the one that scales up ink smaller than the box (tests compare filters).
    """
    ink = np.asarray(ink, dtype=np.float64)
    if ink.ndim != 2 or ink.size == 0 or not np.all(np.isfinite(ink)):
        raise ImageInputError("expected a non-empty 2-D grayscale image")
    if ink.max() < MIN_CONTRAST:
        return None
    rows = np.flatnonzero((ink > INK_LEVEL * 255).any(axis=1))
    cols = np.flatnonzero((ink > INK_LEVEL * 255).any(axis=0))
    cropped = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    height, width = cropped.shape
    scale = BOX / max(height, width)
    new_size = (max(1, round(width * scale)), max(1, round(height * scale)))
    resized = Image.fromarray(cropped.astype(np.float32), mode="F").resize(
        new_size, enlarging if scale > 1 else resampling
    )
    box = np.clip(np.asarray(resized, dtype=np.float64), 0, 255)
    if box.sum() <= 0:
        return None
    frame = np.zeros((FRAME, FRAME))
    row_of_mass, col_of_mass = centre_of_mass(box)
    top = int(np.clip(round(CENTRE - row_of_mass), 0, FRAME - box.shape[0]))
    left = int(np.clip(round(CENTRE - col_of_mass), 0, FRAME - box.shape[1]))
    frame[top : top + box.shape[0], left : left + box.shape[1]] = box
    return np.round(frame * (255.0 / frame.max())).astype(np.uint8)


def centre_of_mass(image: np.ndarray) -> tuple[float, float]:
    """(row, column) of the intensity-weighted centre of a (h, w) image, in pixel indices."""
    total = image.sum()
    rows = np.arange(image.shape[0]) @ image.sum(axis=1) / total
    cols = np.arange(image.shape[1]) @ image.sum(axis=0) / total
    return float(rows), float(cols)


@dataclass(frozen=True)
class ModelInput:
    """What the models get from one drawing or picture, and the steps that made it.

    frame: uint8 (28, 28), framed like MNIST, stroke width brought near MNIST's (the models' own setting,
    deskew, is applied after, by ``nbcore.inputs.InputForm``);
    plain: uint8 (28, 28), the whole picture merely resized (what framing is compared against);
    width_before / width_after: stroke width in px before and after the stroke step (nan: no
    measurable stroke); stroke_action: "thinned", "kept" or "thickened".
    """

    frame: np.ndarray
    plain: np.ndarray
    width_before: float
    width_after: float
    stroke_action: str


def model_input(ink: np.ndarray) -> ModelInput | None:
    """Ink (height, width) -> the ModelInput every drawing and upload goes through, or None if blank.

    Steps: ``mnist_frame``, then ``strokes.normalise_stroke``: a digit framed as MNIST's are, which
    ``nbcore.inputs.InputForm`` then turns into the models' input as it does MNIST's.
    """
    framed = mnist_frame(ink)
    if framed is None:
        return None
    frame, width_before, width_after, action = normalise_stroke(framed)
    return ModelInput(frame, plain_resize(ink), width_before, width_after, action)


def plain_resize(ink: np.ndarray) -> np.ndarray:
    """Ink (height, width) -> uint8 (28, 28): the whole picture squeezed to 28x28, brightest pixel 255.

    No crop, no box, no centring: the input a model would get without MNIST's framing.
    """
    ink = np.asarray(ink, dtype=np.float64)
    small = np.clip(
        np.asarray(
            Image.fromarray(ink.astype(np.float32), mode="F").resize((FRAME, FRAME), RESAMPLING), dtype=np.float64
        ),
        0,
        255,
    )
    top = small.max()
    return np.zeros((FRAME, FRAME), np.uint8) if top <= 0 else np.round(small * (255.0 / top)).astype(np.uint8)
