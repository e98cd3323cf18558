"""Drawing/upload preprocessing: MNIST framing, polarity, and odd or hostile files."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image, ImageDraw

from nbcore.preprocess import (
    BOX,
    CENTRE,
    FRAME,
    MAX_CANVAS_SIDE,
    MAX_UPLOAD_PIXELS,
    MIN_CONTRAST,
    PNG_DATA_URL,
    UPLOAD_FORMATS,
    ImageInputError,
    centre_of_mass,
    ink_from_canvas,
    ink_from_canvas_png,
    ink_from_upload,
    ink_is_dark,
    mnist_frame,
    model_input,
    plain_resize,
    read_upload,
)


def canvas_with(rows: slice, cols: slice, size: int = 280) -> np.ndarray:
    """A black RGBA canvas with a white rectangle of ink."""
    canvas = np.zeros((size, size, 4), np.uint8)
    canvas[..., 3] = 255
    canvas[rows, cols, :3] = 255
    return canvas


def png_bytes(image: Image.Image, **save) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=save.pop("format", "PNG"), **save)
    return buffer.getvalue()


def paper_digit(size=(300, 400), mode="L") -> Image.Image:
    """Dark ink (a thick vertical bar with a foot) on white paper."""
    image = Image.new("L", size, 235)
    pixels = np.array(image)
    pixels[80:320, 140:170] = 20
    pixels[290:320, 100:210] = 20
    return Image.fromarray(pixels).convert(mode)


def test_every_format_the_upload_field_names_is_read_and_named_again_when_refused():
    named = [name.strip() for name in UPLOAD_FORMATS.replace(" or ", ", ").split(",")]
    assert "TIFF" in named and "PNG" in named
    for name in named:
        frame = mnist_frame(ink_from_upload(png_bytes(paper_digit(), format=name.upper())))
        assert frame.max() > 200, name  # the bar was found as ink
    with pytest.raises(ImageInputError) as refused:
        read_upload(b"a text file, not a picture")
    assert f"({UPLOAD_FORMATS})" in str(refused.value)


def test_centred_digit_stays_centred_and_fills_the_20px_box():
    frame = mnist_frame(ink_from_canvas(canvas_with(slice(40, 240), slice(100, 180))))
    assert frame.shape == (FRAME, FRAME) and frame.dtype == np.uint8
    rows, cols = np.nonzero(frame)
    assert rows.max() - rows.min() + 1 == BOX  # longer side scaled to 20 px
    assert np.allclose(centre_of_mass(frame.astype(float)), (CENTRE, CENTRE), atol=0.5)


def test_small_off_centre_digit_is_moved_and_scaled():
    frame = mnist_frame(ink_from_canvas(canvas_with(slice(10, 40), slice(230, 240))))
    rows, cols = np.nonzero(frame > 0)
    assert rows.max() - rows.min() + 1 == BOX
    assert cols.max() - cols.min() + 1 < BOX  # aspect ratio kept: narrow stays narrow
    assert np.allclose(centre_of_mass(frame.astype(float)), (CENTRE, CENTRE), atol=0.5)


def test_centre_of_mass_lands_at_mnists_centre_on_average():
    """MNIST's digits have their centre of mass at (14.0, 14.0) on average (tests/nbcore/test_mnist_framing.py
    measures it); a frame is placed by whole pixels, so one digit is within 0.5 px of it, many average to it."""
    rng = np.random.default_rng(0)
    centres = []
    for _ in range(60):
        scribble = Image.new("L", (280, 280), 0)
        ImageDraw.Draw(scribble).line(
            [tuple(point) for point in rng.integers(20, 260, size=(4, 2))], fill=255, width=18
        )
        centre = centre_of_mass(mnist_frame(np.asarray(scribble, np.float64)).astype(float))
        assert np.allclose(centre, (CENTRE, CENTRE), atol=0.5 + 1e-9)
        centres.append(centre)
    assert CENTRE == 14.0
    assert np.allclose(np.mean(centres, axis=0), (CENTRE, CENTRE), atol=0.15)


@pytest.mark.parametrize("canvas", [np.zeros((280, 280, 4), np.uint8), canvas_with(slice(0, 0), slice(0, 0))])
def test_blank_canvas_is_reported_as_blank(canvas):
    assert mnist_frame(ink_from_canvas(canvas)) is None


def test_the_faintest_ink_counted_as_a_digit_is_framed():
    """Ink just below MIN_CONTRAST is blank; at MIN_CONTRAST it is a digit, so the crop (INK_LEVEL) must find it."""
    ink = np.zeros((50, 40))
    ink[10:30, 15:22] = MIN_CONTRAST - 1
    assert mnist_frame(ink) is None
    ink[10:30, 15:22] = MIN_CONTRAST
    frame = mnist_frame(ink)
    assert frame is not None and frame.max() == 255


def test_one_dot_and_fully_painted_canvas_have_defined_outcomes():
    dot = mnist_frame(ink_from_canvas(canvas_with(slice(100, 103), slice(100, 103))))
    assert dot is not None and dot.max() == 255
    full = mnist_frame(ink_from_canvas(canvas_with(slice(0, 280), slice(0, 280))))
    assert full is not None and (full > 0).sum() == BOX * BOX


def test_dark_ink_on_paper_is_inverted_automatically():
    frame = mnist_frame(ink_from_upload(png_bytes(paper_digit())))
    assert frame is not None
    assert frame[0, 0] == 0 and frame.max() == 255  # background dark, ink bright, like MNIST


def test_exif_rotation_is_applied():
    upright = mnist_frame(ink_from_upload(png_bytes(paper_digit(), format="JPEG")))
    rotated_image = paper_digit().rotate(90, expand=True)
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: the viewer must rotate 90 degrees clockwise to show it upright
    restored = mnist_frame(ink_from_upload(png_bytes(rotated_image, format="JPEG", exif=exif.tobytes())))
    ignored = mnist_frame(ink_from_upload(png_bytes(rotated_image, format="JPEG")))
    assert np.abs(upright.astype(int) - restored.astype(int)).mean() < 10
    assert np.abs(upright.astype(int) - ignored.astype(int)).mean() > 20


@pytest.mark.parametrize("mode", ["P", "RGBA", "LA", "CMYK", "I;16", "1"])
def test_other_image_modes_give_the_same_digit(mode):
    reference = mnist_frame(ink_from_upload(png_bytes(paper_digit())))
    image = paper_digit()
    if mode == "I;16":
        image = Image.fromarray(np.array(image).astype(np.uint16) * 257)
    else:
        image = image.convert(mode)
    file_format = "JPEG" if mode == "CMYK" else "PNG"
    frame = mnist_frame(ink_from_upload(png_bytes(image, format=file_format)))
    assert frame is not None
    assert np.abs(reference.astype(int) - frame.astype(int)).mean() < 25


def test_animated_gif_uses_its_first_frame():
    first, second = paper_digit(), Image.new("L", (300, 400), 235)
    data = png_bytes(first.convert("P"), format="GIF", save_all=True, append_images=[second.convert("P")])
    assert mnist_frame(ink_from_upload(data)) is not None


@pytest.mark.parametrize("data", [b"", b"not an image at all", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40])
def test_unreadable_bytes_get_a_clear_message(data):
    with pytest.raises(ImageInputError, match="not an image|damaged|truncated"):
        ink_from_upload(data)


@pytest.mark.parametrize("file_format", ["PNG", "JPEG"])
def test_truncated_files_get_a_clear_message(file_format):
    data = png_bytes(paper_digit().convert("RGB"), format=file_format)
    with pytest.raises(ImageInputError):
        ink_from_upload(data[: len(data) // 2])


def test_decompression_bomb_is_refused_before_decoding():
    side = int(MAX_UPLOAD_PIXELS**0.5) + 100
    bomb = png_bytes(Image.new("1", (side, side)), optimize=True)
    assert len(bomb) < 2_000_000
    with pytest.raises(ImageInputError, match="too large"):
        ink_from_upload(bomb)


@pytest.mark.parametrize("size", [(1, 1), (10000, 10), (10, 10000)])
def test_extreme_shapes_have_defined_outcomes(size):
    image = Image.new("L", size, 255)
    assert mnist_frame(ink_from_upload(png_bytes(image))) is None  # all paper, no ink
    pixels = np.full(size[::-1], 255, np.uint8)
    pixels[size[1] // 3 : size[1] // 3 + max(1, size[1] // 3), size[0] // 3 : size[0] // 3 + max(1, size[0] // 3)] = 0
    frame = mnist_frame(ink_from_upload(png_bytes(Image.fromarray(pixels))))
    assert frame is None or frame.shape == (FRAME, FRAME)


@pytest.mark.parametrize("value", [0, 255])
def test_all_white_and_all_black_images_are_blank(value):
    assert mnist_frame(ink_from_upload(png_bytes(Image.new("L", (64, 64), value)))) is None


def test_bad_canvas_arrays_raise():
    with pytest.raises(ImageInputError):
        ink_from_canvas(np.zeros((28, 28)))
    with pytest.raises(ImageInputError):
        mnist_frame(np.full((4, 4), np.nan))


def data_url(raw: bytes) -> str:
    return PNG_DATA_URL + base64.b64encode(raw).decode("ascii")


def test_canvas_png_gives_the_same_ink_as_its_pixels():
    pixels = canvas_with(slice(40, 240), slice(100, 180))
    pixels[50:60, 110:120, 3] = 0  # transparent pixels count as background
    ink = ink_from_canvas_png(data_url(png_bytes(Image.fromarray(pixels, "RGBA"))))
    assert np.array_equal(ink, ink_from_canvas(pixels))
    assert ink[55, 115] == 0 and ink[100, 150] == pytest.approx(255)


@pytest.mark.parametrize(
    "sent",
    [
        None,
        42,
        "",
        "hello",
        "data:image/jpeg;base64," + base64.b64encode(png_bytes(paper_digit(), format="JPEG")).decode(),
        PNG_DATA_URL + "not base64!",
        data_url(b"\x89PNG\r\n\x1a\n but cut short"),
        data_url(png_bytes(paper_digit(), format="GIF")),  # a GIF sent under a PNG label
        data_url(png_bytes(Image.new("L", (MAX_CANVAS_SIDE + 1, 8)))),
        PNG_DATA_URL + "A" * (4 * MAX_CANVAS_SIDE * MAX_CANVAS_SIDE + 4),
    ],
    ids=["none", "number", "empty", "text", "jpeg", "bad base64", "truncated", "gif", "too wide", "too long"],
)
def test_anything_but_a_canvas_png_gets_a_clear_message(sent):
    with pytest.raises(ImageInputError, match="canvas sent"):
        ink_from_canvas_png(sent)


def ring_filling_its_picture(side: int = 20, thickness: int = 2) -> np.ndarray:
    """A '0' whose ink runs along all four edges (36 % of the picture): uint8 (side, side), 255 = ink."""
    ring = np.full((side, side), 255, np.uint8)
    ring[thickness:-thickness, thickness:-thickness] = 0
    return ring


@pytest.mark.parametrize("light_ink", [True, False], ids=["light on dark", "dark on light"])
def test_digit_filling_its_picture_is_not_inverted_by_mistake(light_ink):
    ring = ring_filling_its_picture()
    pixels = ring if light_ink else 255 - ring
    assert ink_is_dark(pixels.astype(float)) is (not light_ink)
    ink = ink_from_upload(png_bytes(Image.fromarray(pixels)))
    assert np.array_equal(ink > 127, ring > 127)  # the border is ink in both polarities, the middle is paper
    frame = mnist_frame(ink)
    assert frame[14, 14] == 0 and frame.max() == 255


def thick_two_cropped_to_its_ink() -> np.ndarray:
    """A '2' written with a thick marker and cropped to its ink: uint8 (51, 40), 255 = ink.

    Ink covers 58 % of the picture and touches every edge, but only a third of the border.
    """
    image = Image.new("L", (48, 56), 0)
    draw = ImageDraw.Draw(image)
    draw.arc((6, 4, 42, 36), start=180, end=40, fill=255, width=11)
    draw.line((38, 26, 8, 50), fill=255, width=11)
    draw.line((6, 49, 44, 49), fill=255, width=11)
    pixels = np.asarray(image)
    rows, cols = np.flatnonzero(pixels.any(axis=1)), np.flatnonzero(pixels.any(axis=0))
    return pixels[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


@pytest.mark.parametrize("light_ink", [True, False], ids=["light on dark", "dark on light"])
def test_thick_digit_covering_most_of_its_picture_keeps_its_polarity(light_ink):
    two = thick_two_cropped_to_its_ink()
    assert (two > 127).mean() > 0.5  # the smaller grey-level class is paper here
    pixels = two if light_ink else 255 - two
    assert ink_is_dark(pixels.astype(float)) is (not light_ink)
    ink = ink_from_upload(png_bytes(Image.fromarray(pixels)))
    assert np.array_equal(ink > 127, two > 127)


@pytest.mark.parametrize("light_ink", [True, False], ids=["light on dark", "dark on light"])
def test_small_digit_on_a_large_page_keeps_its_polarity(light_ink):
    paper = np.asarray(paper_digit(), np.uint8)  # dark ink on light paper
    pixels = 255 - paper if light_ink else paper
    assert ink_is_dark(pixels.astype(float)) is (not light_ink)
    assert np.array_equal(
        mnist_frame(ink_from_upload(png_bytes(Image.fromarray(pixels)))),
        mnist_frame(ink_from_upload(png_bytes(paper_digit()))),
    )


def test_model_input_reports_its_steps_and_plain_resize_does_not_frame():
    canvas = canvas_with(slice(10, 60), slice(200, 215))  # a thick short bar in a corner
    prepared = model_input(ink_from_canvas(canvas))
    assert prepared.frame.shape == prepared.plain.shape == (FRAME, FRAME)
    assert prepared.stroke_action in ("thinned", "kept", "thickened")
    assert np.isfinite(prepared.width_before) and np.isfinite(prepared.width_after)
    rows, cols = np.nonzero(prepared.plain > 127)
    assert rows.max() < 8 and cols.min() > 18  # plain resizing leaves the bar small, in its corner
    assert np.array_equal(plain_resize(ink_from_canvas(canvas)), prepared.plain)
    assert model_input(np.zeros((50, 50))) is None
