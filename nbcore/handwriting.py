"""Real handwriting that is not MNIST: scikit-learn's ``load_digits()`` through the upload path.

Each of the 1,797 digits (8x8, values 0..16, light ink on dark) is written as an 8x8 grayscale
PNG in both polarities (light on dark as stored, and dark ink on white paper), and the PNG bytes go
through exactly what the Draw page does with an upload: ``ink_from_upload``, ``model_input``, then
``nbcore.inputs.InputForm`` for the deskew setting. The models are trained on MNIST's 60,000 training
images only, in the same form (deskewed when deskew is on), never on these digits. scikit-learn is a development dependency.

The control, ``evaluate_mnist_as_load_digits``, writes MNIST's own test digits in load_digits' format
and sends them through the same path: what the format alone costs, with the writers held fixed.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

from .datasets.mnist import MnistSplits
from .experiments.evaluate import PUBLISHED_SETTINGS, NaiveBayesSettings
from .inputs import InputForm
from .metrics import confusion_matrix
from .models.bernoulli import BernoulliNB
from .models.softmax_cache import load_or_train_softmax
from .preprocess import ink_from_upload, model_input
from .progress import ProgressCallback

POLARITIES = ("light on dark", "dark on light")
# load_digits' format: a bilevel 32x32 bitmap counted in 4x4 blocks. All its digits fill the bitmap's height
# (8 blocks) and 4 of 1,797 its width (77 % are 6 blocks wide): each was put in a box 32 px tall and about
# 20 px wide, whatever its own shape. MNIST's digits keep theirs; tests/nbcore/test_handwriting.py measures both.
BITMAP, BLOCK, BITMAP_BOX_WIDTH = 32, 4, 20
# how MNIST's digits are written in that format by the control: the box as above, or their own shape kept
CONTROL_FORMATS = {"32x20 box": BITMAP_BOX_WIDTH, "shape kept": None}
# naive Bayes settings of the benchmark by model name: the two published ones, as nbcore.experiments defines them
BAYES_SETTINGS = {f"naive Bayes, {preset}": settings for preset, settings in PUBLISHED_SETTINGS.items()}


def load_handwriting(limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits as uint8 (n, 8, 8) light ink on dark (0..255) and labels (n,); the first ``limit``."""
    try:
        from sklearn.datasets import load_digits  # a development dependency: the app itself never needs it
    except ImportError:
        raise ValueError("the handwriting benchmark needs scikit-learn: pip install -r requirements-dev.txt") from None

    digits = load_digits()
    images = np.round(digits.images * (255.0 / 16.0)).astype(np.uint8)
    labels = digits.target.astype(np.int64)
    return (images, labels) if limit is None else (images[:limit], labels[:limit])


def png_bytes(image: np.ndarray, polarity: str) -> bytes:
    """uint8 (h, w) light-on-dark image -> the bytes of a grayscale PNG in ``polarity``."""
    pixels = image if polarity == "light on dark" else 255 - image
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(pixels, np.uint8), mode="L").save(buffer, format="PNG")
    return buffer.getvalue()


def as_load_digits(image: np.ndarray, box_width: int | None = BITMAP_BOX_WIDTH) -> np.ndarray:
    """uint8 (28, 28) MNIST digit -> uint8 (8, 8) light-on-dark in load_digits' format (0..16 scaled to 0..255).

    The ink (>= 128) is scaled into a bilevel bitmap: BITMAP px tall and ``box_width`` px wide at most
    (squeezed if wider), or with its own shape and longer side BITMAP px when ``box_width`` is None;
    centred in BITMAP x BITMAP, then the ink pixels of each BLOCK x BLOCK block are counted.
    """
    ink = np.asarray(image) >= 128
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size == 0:
        return np.zeros((BITMAP // BLOCK, BITMAP // BLOCK), np.uint8)
    crop = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    height, width = crop.shape
    if box_width is None:
        scale = BITMAP / max(height, width)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
    else:
        size = (min(box_width, max(1, round(width * BITMAP / height))), BITMAP)
    scaled = np.asarray(Image.fromarray(crop.astype(np.uint8) * 255).resize(size, Image.Resampling.NEAREST)) >= 128
    bitmap = np.zeros((BITMAP, BITMAP), bool)
    top, left = (BITMAP - size[1]) // 2, (BITMAP - size[0]) // 2
    bitmap[top : top + size[1], left : left + size[0]] = scaled
    counts = bitmap.reshape(BITMAP // BLOCK, BLOCK, BITMAP // BLOCK, BLOCK).sum(axis=(1, 3))
    return np.round(counts * (255.0 / BLOCK**2)).astype(np.uint8)


@dataclass(frozen=True)
class UploadedDigits:
    """What the models get from each uploaded digit: uint8 (n, 28, 28) frames, plain resizes, widths (n,)."""

    frames: np.ndarray
    plain: np.ndarray
    width_before: np.ndarray
    width_after: np.ndarray


def through_upload_path(images: np.ndarray, polarity: str) -> UploadedDigits:
    """Every image as PNG bytes through ``ink_from_upload`` and ``model_input`` (a blank one gives zeros); the frames
    are framed like MNIST, and deskewed, if the setting says so, by the classifiers' ``InputForm``."""
    frames, plain = np.zeros((len(images), 28, 28), np.uint8), np.zeros((len(images), 28, 28), np.uint8)
    before, after = np.full(len(images), np.nan), np.full(len(images), np.nan)
    for index, image in enumerate(images):
        prepared = model_input(ink_from_upload(png_bytes(image, polarity)))
        if prepared is not None:
            frames[index], plain[index] = prepared.frame, prepared.plain
            before[index], after[index] = prepared.width_before, prepared.width_after
    return UploadedDigits(frames, plain, before, after)


def main_confusions(labels: np.ndarray, predictions: np.ndarray, count: int = 3) -> list[tuple[int, int, int]]:
    """The ``count`` most frequent mistakes as (true digit, predicted digit, how many), most frequent first."""
    confusion = confusion_matrix(labels, predictions).astype(np.int64)
    np.fill_diagonal(confusion, 0)
    order = np.argsort(-confusion, axis=None, kind="stable")[:count]
    return [
        (int(true), int(predicted), int(confusion[true, predicted]))
        for true, predicted in zip(*np.unravel_index(order, confusion.shape))
        if confusion[true, predicted]
    ]


Classifier = Callable[[np.ndarray], np.ndarray]  # uint8 (n, 28, 28) frames framed like MNIST -> (n,) digits


def mnist_classifiers(splits: MnistSplits, deskew: bool) -> dict[str, Classifier]:
    """The benchmark's models (BAYES_SETTINGS and softmax) by name, trained on ``splits``' training images as
    ``InputForm(threshold, deskew)`` gives them; each puts the frames it classifies in the same form."""

    def bayes(settings: NaiveBayesSettings) -> Classifier:
        form = InputForm(settings.threshold, deskew)
        train_features, _ = form.split_features(splits)
        model = BernoulliNB(alpha=settings.alpha, beta=settings.beta, prior=settings.prior)
        model.fit(train_features, splits.train_labels)
        return lambda frames: model.predict(form.features(frames))

    classifiers = {name: bayes(settings) for name, settings in BAYES_SETTINGS.items()}
    pixels = InputForm(deskew=deskew)
    formed = pixels.splits(splits)
    softmax, _ = load_or_train_softmax(formed.train_images, formed.train_labels)
    classifiers["softmax"] = lambda frames: softmax.predict(pixels.images(frames))
    return classifiers


def classifiers_by_deskew(plain_splits: MnistSplits, deskewed_splits: MnistSplits) -> dict[bool, dict[str, Classifier]]:
    """``mnist_classifiers`` for deskew off and on: ``plain_splits`` as published, ``deskewed_splits`` from
    ``InputForm(deskew=True).splits`` (made from the plain ones when not)."""
    return {False: mnist_classifiers(plain_splits, False), True: mnist_classifiers(deskewed_splits, True)}


def evaluate_handwriting(
    classifiers: dict[bool, dict[str, Classifier]],
    limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> list[dict]:
    """Accuracy on load_digits through the upload path, for each polarity, deskew setting and model.

    ``classifiers``: the models by deskew setting, as ``classifiers_by_deskew`` gives them.

    Returns one dict per (polarity, deskew, model): polarity, deskew, model, accuracy, n, the main
    confusions, and the median stroke width before/after the stroke step (px). One row per
    polarity and model also gives ``plain resize`` (deskew off, the picture only resized to 28x28).
    """
    images, labels = load_handwriting(limit)
    rows, steps, done = [], 2 * len(POLARITIES), 0
    uploads: dict[str, UploadedDigits] = {}
    for deskew in (False, True):
        for polarity in POLARITIES:
            if progress is not None:
                progress(done / steps, f"{polarity}, deskew {'on' if deskew else 'off'}")
            if polarity not in uploads:
                uploads[polarity] = through_upload_path(images, polarity)
            uploaded = uploads[polarity]
            inputs = {"framed": uploaded.frames, **({} if deskew else {"plain resize": uploaded.plain})}
            for framing, frames in inputs.items():
                for name, classify in classifiers[deskew].items():
                    predicted = classify(frames)
                    rows.append(
                        {
                            "polarity": polarity,
                            "framing": framing,
                            "deskew": deskew,
                            "model": name,
                            "accuracy": float(np.mean(predicted == labels)),
                            "n": len(labels),
                            "confusions": main_confusions(labels, predicted),
                            "width_before": float(np.nanmedian(uploaded.width_before)),
                            "width_after": float(np.nanmedian(uploaded.width_after)),
                        }
                    )
            done += 1
    if progress is not None:
        progress(1.0, "done")
    return rows


def evaluate_mnist_as_load_digits(
    test_images: np.ndarray,
    test_labels: np.ndarray,
    deskewed_classifiers: dict[str, Classifier],
    limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> list[dict]:
    """The control: MNIST's uint8 (n, 28, 28) test digits (the first ``limit``) in load_digits' format, as PNG
    uploads, deskew on, read by ``deskewed_classifiers`` (the models trained on deskewed MNIST).

    Returns one dict per (format of CONTROL_FORMATS, model): format, model, accuracy, n. The writers are
    MNIST's, so what is lost against MNIST's own arrays is lost to the format and the path.
    """
    images, labels = test_images[:limit], test_labels[:limit]
    rows = []
    for step, (name, box_width) in enumerate(CONTROL_FORMATS.items()):
        if progress is not None:
            progress(step / len(CONTROL_FORMATS), f"MNIST test digits in load_digits' format, {name}")
        small = np.stack([as_load_digits(image, box_width) for image in images])
        frames = through_upload_path(small, "light on dark").frames
        for model, classify in deskewed_classifiers.items():
            accuracy = float(np.mean(classify(frames) == labels))
            rows.append({"format": name, "model": model, "accuracy": accuracy, "n": len(labels)})
    if progress is not None:
        progress(1.0, "done")
    return rows


def format_rows(rows: list[dict]) -> str:
    """The rows as an aligned text table (accuracy in %, confusions as 'true->predicted xcount')."""
    lines = [f"{'polarity':<14} {'input':<13} {'deskew':<6} {'model':<25} {'accuracy':>8}  main confusions"]
    for row in rows:
        confusions = ", ".join(f"{true}->{predicted} x{count}" for true, predicted, count in row["confusions"])
        lines.append(
            f"{row['polarity']:<14} {row['framing']:<13} {'on' if row['deskew'] else 'off':<6} "
            f"{row['model']:<25} {row['accuracy']:>8.1%}  {confusions}"
        )
    widths = {(row["deskew"]): (row["width_before"], row["width_after"]) for row in rows}
    before, after = widths[False]
    lines.append(f"median stroke width of the uploads: {before:.2f} px framed, {after:.2f} px after the stroke step")
    return "\n".join(lines)


def format_control_rows(rows: list[dict]) -> str:
    """The control's rows as an aligned text table, one line per format, accuracy in %."""
    models = list(dict.fromkeys(row["model"] for row in rows))
    lines = [
        f"MNIST test digits ({rows[0]['n']:,}) in load_digits' 8x8 format, deskew on",
        f"{'format':<12}" + "".join(f" {m:>26}" for m in models),
    ]
    for name in dict.fromkeys(row["format"] for row in rows):
        accuracy = {row["model"]: row["accuracy"] for row in rows if row["format"] == name}
        lines.append(f"{name:<12}" + "".join(f" {accuracy[m]:>26.1%}" for m in models))
    return "\n".join(lines)
