"""What the models see of an image under one setting: the one path from MNIST-framed pixels to model input.

``InputForm(threshold, deskew)`` turns uint8 images framed like MNIST (MNIST's own, or a drawing after
``nbcore.preprocess.model_input``) into what the models get. Two steps, each stated once:

* ``images``: sheared upright first when ``deskew`` is on (``nbcore.deskew``). Softmax regression and
  Gaussian naive Bayes read these pixels, and a page showing "what the model sees" shows them.
* ``features``: those pixels binarized at ``threshold`` (pixel >= threshold is ink), uint8 0/1 (n, 784):
  what naive Bayes reads.

Deskewing MNIST's 70,000 images takes seconds, so a data set is put in form once with ``splits``, which
marks the result (``MnistSplits.deskewed``): ``splits`` and ``split_features`` pass a marked data set
through as it is and put an unmarked one in form, so no path deskews twice or forgets to.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .datasets.mnist import MnistSplits
from .features import binarize
from .progress import ProgressCallback

TRAIN_SHARE = 6 / 7  # of a progress bar over both splits: the training split's part (60,000 of 70,000 images)


@dataclass(frozen=True)
class Prepared:
    """One batch of images as the models see them: ``images`` uint8 (n, 28, 28), ``features`` uint8 0/1 (n, 784)."""

    images: np.ndarray
    features: np.ndarray


@dataclass(frozen=True)
class InputForm:
    """Binarization threshold (0..256; pixel >= threshold is ink) and whether images are deskewed first."""

    threshold: int = 128
    deskew: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, (int, np.integer)):
            raise ValueError(f"threshold must be an integer, got {self.threshold!r}")
        if not 0 <= self.threshold <= 256:
            raise ValueError(f"threshold must be between 0 and 256, got {self.threshold}")
        if not isinstance(self.deskew, (bool, np.bool_)):
            raise ValueError(f"deskew must be True or False, got {self.deskew!r}")

    def images(self, images: np.ndarray, progress: ProgressCallback | None = None) -> np.ndarray:
        """uint8 (n, 28, 28) images framed like MNIST -> uint8 (n, 28, 28) as the models see them."""
        images = np.asarray(images)
        if images.ndim != 3:
            raise ValueError(f"images must be a stack (n, height, width), got shape {images.shape}")
        if not self.deskew:
            return images
        from .deskew import deskew_all  # scipy.ndimage: imported only when deskewing

        return deskew_all(images, progress=progress)

    def features(self, images: np.ndarray) -> np.ndarray:
        """uint8 (n, 28, 28) images framed like MNIST -> naive Bayes' features, uint8 0/1 (n, 784)."""
        return self.prepare(images).features

    def prepare(self, images: np.ndarray) -> Prepared:
        """Both forms of ``images`` (n, 28, 28) in one pass: the pixels the models see, and their features."""
        seen = self.images(images)
        return Prepared(seen, binarize(seen, self.threshold))

    def splits(self, splits: MnistSplits, progress: ProgressCallback | None = None) -> MnistSplits:
        """Both splits as the models see them (labels unchanged); ``splits`` itself when already in this form.

        Deskewed splits cannot be made plain again: ValueError when ``splits`` are deskewed and this form is not.
        """
        if bool(splits.deskewed) == bool(self.deskew):
            return splits
        if splits.deskewed:
            raise ValueError("these splits are deskewed; without deskew the models need MNIST as published")
        train = self.images(splits.train_images, _within(progress, 0.0, TRAIN_SHARE))
        test = self.images(
            splits.test_images,
            _within(progress, TRAIN_SHARE, 1.0, lambda message: message.replace("image", "test image")),
        )
        return dataclasses.replace(splits, train_images=train, test_images=test, deskewed=self.deskew)

    def split_features(self, splits: MnistSplits) -> tuple[np.ndarray, np.ndarray]:
        """Naive Bayes' features of both splits: uint8 0/1 (n_train, 784) and (n_test, 784)."""
        formed = self.splits(splits)
        return binarize(formed.train_images, self.threshold), binarize(formed.test_images, self.threshold)


def _within(progress: ProgressCallback | None, start: float, end: float, reword=None) -> ProgressCallback | None:
    """``progress`` with its fractions mapped from [0, 1] into [start, end] (and its messages passed through ``reword``)."""
    if progress is None:
        return None
    reworded = reword or (lambda message: message)
    return lambda fraction, message: progress(start + (end - start) * fraction, reworded(message))
