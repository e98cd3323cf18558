"""The prepared results, each declared once: its parameters, the arrays its file holds, how it is computed
(by ``nbcore.experiments``) and how it is read back. Here: their base, deskewed MNIST and the learning, smoothing
and Gaussian curves; the mixture of styles' results are in ``nbcore.prepared.mixtures``.

A result is a frozen dataclass of the MNIST splits it is computed from and its parameters; ``get(folder)``
reads it from ``prepared/`` when its file holds it (``nbcore.prepared.disk``), else computes it and writes the
file. The key of each file names ``FORMAT``, the parameters and the md5 of the splits (``data_key``).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar, Generic, TypeVar

import numpy as np

from .. import files as nbfiles
from ..datasets.mnist import MnistSplits
from ..experiments import evaluate
from ..experiments.gaussian import VAR_SMOOTHING_GRID, var_smoothing_curve
from ..features import PackedBinary
from ..inputs import InputForm
from ..models.bernoulli import BernoulliNB
from ..models.gaussian import GaussianNB
from ..models.softmax import PRESETS
from ..models.softmax_cache import CACHE_FORMAT as SOFTMAX_FORMAT
from ..models.softmax_cache import training_data_checksum
from ..progress import ProgressCallback
from .disk import FORMAT, Stored, folder_of, load_or_build, read_stored, result_path

T = TypeVar("T")


def data_key(splits: MnistSplits) -> dict:
    """What a result computed from ``splits`` depends on: the md5 of each split (remembered for read-only arrays)
    and whether they are deskewed."""
    return {
        "train_md5": training_data_checksum(splits.train_images, splits.train_labels),
        "test_md5": training_data_checksum(splits.test_images, splits.test_labels),
        "deskewed": bool(splits.deskewed),
    }


def on_deskewed(title: str, deskewed: bool) -> str:
    """``title`` with " on deskewed MNIST" when ``deskewed``: how every message names the Deskew setting."""
    return title + (" on deskewed MNIST" if deskewed else "")


class PreparedResult(ABC, Generic[T]):
    """One prepared result: ``splits`` (the MNIST it is computed from) and the parameters of a subclass."""

    name: ClassVar[str]  # the file's name: prepared/<name>-<hash of the key>.npz
    title: ClassVar[str]  # names it in messages, before " on deskewed MNIST"
    splits: MnistSplits

    @abstractmethod
    def parameters(self) -> dict:
        """The key's part beyond ``FORMAT`` and the data (JSON)."""

    @abstractmethod
    def spec(self) -> nbfiles.ArraySpec:
        """The arrays of the file: name -> (dtype, shape), None for any length."""

    @abstractmethod
    def compute(self, progress: ProgressCallback | None) -> Mapping[str, np.ndarray]:
        """The arrays of ``spec``, computed now."""

    @abstractmethod
    def restore(self, arrays: dict[str, np.ndarray]) -> T:
        """The result from its arrays (as read or as computed)."""

    def key(self) -> dict:
        return {"format": FORMAT, **self.parameters(), **data_key(self.splits)}

    def is_prepared(self, folder: Path | None = None) -> bool:
        """Whether its file is there (``prepare`` has run), without reading it."""
        return result_path(folder_of() if folder is None else Path(folder), self.name, self.key()).is_file()

    def get(self, folder: Path | None = None, progress: ProgressCallback | None = None) -> Stored[T]:
        """The result, read from ``folder`` (default: ``folder_of()``) or computed and written there."""
        title = on_deskewed(self.title, self.splits.deskewed)
        stored = load_or_build(title, self.name, self.key(), self.spec(), lambda: self.compute(progress), folder)
        return Stored(self.restore(stored.value), stored.outcome)

    def read(self, folder: Path | None = None) -> Stored[T | None]:
        """The result read from ``folder`` (default: ``folder_of()``), never computed (``prepare --check``): None
        with the outcome "unprepared" when its file is missing or damaged."""
        title = on_deskewed(self.title, self.splits.deskewed)
        stored = read_stored(title, self.name, self.key(), self.spec(), folder)
        return Stored(None if stored.value is None else self.restore(stored.value), stored.outcome)


@dataclass(frozen=True, eq=False)
class DeskewedMnist(PreparedResult[MnistSplits]):
    """``InputForm(deskew=True).splits(splits)``: MNIST as published, every image sheared upright (about 10 s)."""

    name = "deskewed-mnist"
    title = "Deskewed MNIST"
    splits: MnistSplits

    def __post_init__(self) -> None:
        if self.splits.deskewed:
            raise ValueError("these splits are deskewed already; deskewed MNIST is made from MNIST as published")

    def parameters(self) -> dict:
        return {"result": "deskewed MNIST"}

    def spec(self) -> nbfiles.ArraySpec:
        return {
            "train_images": (np.uint8, self.splits.train_images.shape),
            "test_images": (np.uint8, self.splits.test_images.shape),
        }

    def compute(self, progress: ProgressCallback | None) -> dict[str, np.ndarray]:
        formed = InputForm(deskew=True).splits(self.splits, progress)
        return {"train_images": formed.train_images, "test_images": formed.test_images}

    def restore(self, arrays: dict[str, np.ndarray]) -> MnistSplits:
        return dataclasses.replace(
            self.splits, train_images=arrays["train_images"], test_images=arrays["test_images"], deskewed=True
        )


class LearningCurve(PreparedResult[dict[str, np.ndarray]]):
    """``evaluate.learning_curve`` of one learner (``label``) on ``splits`` over the standard sizes and seeds:
    ``{"sizes": int64 (8,), label: float64 (8, 3)}``."""

    label: ClassVar[str]

    @abstractmethod
    def learner(self) -> evaluate.Learner: ...

    @abstractmethod
    def learner_key(self) -> dict: ...

    def parameters(self) -> dict:
        sizes, seeds = evaluate.LEARNING_CURVE_SIZES, evaluate.LEARNING_CURVE_SEEDS
        return {"result": "learning curve", "learner": self.learner_key(), "sizes": list(sizes), "seeds": list(seeds)}

    def spec(self) -> nbfiles.ArraySpec:
        shape = (len(evaluate.LEARNING_CURVE_SIZES), len(evaluate.LEARNING_CURVE_SEEDS))
        return {"sizes": (np.int64, shape[:1]), "accuracy": (np.float64, shape)}

    def compute(self, progress: ProgressCallback | None) -> dict[str, np.ndarray]:
        sizes, seeds = evaluate.LEARNING_CURVE_SIZES, evaluate.LEARNING_CURVE_SEEDS
        curve = evaluate.learning_curve({self.label: self.learner()}, self.splits, sizes, seeds, progress=progress)
        return {"sizes": np.asarray(sizes, dtype=np.int64), "accuracy": curve[self.label]}

    def restore(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"sizes": arrays["sizes"], self.label: arrays["accuracy"]}


@dataclass(frozen=True, eq=False)
class SoftmaxLearningCurve(LearningCurve):
    """Softmax regression's learning curve on ``splits`` (as the models see them; about 10 s)."""

    name = "curve-softmax"
    title = "Learning curve of softmax regression"
    label = "softmax regression"
    splits: MnistSplits

    def learner(self) -> evaluate.Learner:
        return evaluate.softmax_learner(InputForm(deskew=self.splits.deskewed))

    def learner_key(self) -> dict:
        return {
            "model": "softmax",
            "softmax_format": SOFTMAX_FORMAT,
            "settings": asdict(PRESETS["default"]),
            "min_steps": evaluate.MIN_SOFTMAX_STEPS,
        }


@dataclass(frozen=True, eq=False)
class NaiveBayesLearningCurve(LearningCurve):
    """Naive Bayes' learning curve at these settings on ``splits`` (about a second)."""

    name = "curve-bernoulli"
    title = "Learning curve of naive Bayes"
    label = "naive Bayes"
    splits: MnistSplits
    threshold: int
    alpha: float
    beta: float
    prior: str

    def learner(self) -> evaluate.Learner:
        form = InputForm(int(self.threshold), self.splits.deskewed)
        return evaluate.bernoulli_learner(form, alpha=self.alpha, beta=self.beta, prior=self.prior)

    def learner_key(self) -> dict:
        return {
            "model": "bernoulli",
            "threshold": int(self.threshold),
            "alpha": float(self.alpha),
            "beta": float(self.beta),
            "prior": str(self.prior),
        }


SMOOTHING_CURVE_NAMES = ("alpha", "train_accuracy", "test_accuracy", "mean_train_loglik", "mean_test_loglik")


@dataclass(frozen=True, eq=False)
class SmoothingCurve(PreparedResult[dict[str, np.ndarray]]):
    """``evaluate.smoothing_curve`` of naive Bayes at this threshold and prior over ``alphas`` (beta = alpha):
    float64 (len(alphas),) per name of ``SMOOTHING_CURVE_NAMES``.

    ``counted`` (BernoulliNB fitted on the training features) and ``features`` (train and test, packed), when
    both given, spare the binarizing and counting if the curve is computed; they are not part of the key.
    """

    name = "smoothing-curve"
    title = "Smoothing curve"
    splits: MnistSplits
    threshold: int
    prior: str
    alphas: tuple[float, ...] = evaluate.SMOOTHING_CURVE_ALPHAS
    counted: BernoulliNB | None = field(default=None, repr=False)
    features: tuple[PackedBinary, PackedBinary] | None = field(default=None, repr=False)

    def parameters(self) -> dict:
        return {
            "result": "smoothing curve",
            "threshold": int(self.threshold),
            "prior": str(self.prior),
            "alphas": [float(alpha) for alpha in self.alphas],
        }

    def spec(self) -> nbfiles.ArraySpec:
        return {name: (np.float64, (len(self.alphas),)) for name in SMOOTHING_CURVE_NAMES}

    def compute(self, progress: ProgressCallback | None) -> dict[str, np.ndarray]:
        formed = self.splits
        if self.counted is None or self.features is None:
            dense_train, dense_test = InputForm(int(self.threshold), formed.deskewed).split_features(formed)
            train, test = PackedBinary.from_dense(dense_train), PackedBinary.from_dense(dense_test)
            model = BernoulliNB().fit(dense_train, formed.train_labels)
        else:
            (train, test), model = self.features, self.counted
        return evaluate.smoothing_curve(
            model.with_params(prior=self.prior), train, formed.train_labels, test, formed.test_labels, self.alphas
        )

    def restore(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return arrays


_GAUSSIAN_STATISTICS = ("classes_", "class_count_", *GaussianNB._count_names)  # what restores a fitted GaussianNB


@dataclass(frozen=True, eq=False)
class VarSmoothingCurve(PreparedResult[tuple[GaussianNB, np.ndarray]]):
    """``var_smoothing_curve(splits, grid)``: GaussianNB on pixel / 255 (restored from its kept statistics) and
    its test accuracy at each grid value, float64 (len(grid),) (a few seconds to compute)."""

    name = "gaussian-mnist"
    title = "Gaussian naive Bayes"
    splits: MnistSplits
    grid: tuple[float, ...] = VAR_SMOOTHING_GRID

    def parameters(self) -> dict:
        return {"result": "gaussian MNIST", "grid": [float(value) for value in self.grid]}

    def _n_features(self) -> int:
        return int(np.prod(self.splits.train_images.shape[1:]))

    def spec(self) -> nbfiles.ArraySpec:
        n_features = self._n_features()
        return {
            "classes_": (self.splits.train_labels.dtype, (None,)),
            "class_count_": (np.int64, (None,)),
            **{name: (np.float64, (None, n_features)) for name in ("theta_", "class_var_")},
            **{name: (np.float64, (n_features,)) for name in ("feature_mean_", "feature_var_")},
            "test_accuracy": (np.float64, (len(self.grid),)),
        }

    def compute(self, progress: ProgressCallback | None) -> dict[str, np.ndarray]:
        model, accuracy = var_smoothing_curve(self.splits, self.grid)
        return {**{name: getattr(model, name) for name in _GAUSSIAN_STATISTICS}, "test_accuracy": accuracy}

    def restore(self, arrays: dict[str, np.ndarray]) -> tuple[GaussianNB, np.ndarray]:
        model = GaussianNB()
        for name in _GAUSSIAN_STATISTICS:
            setattr(model, name, arrays[name])
        model.n_features_in_ = self._n_features()
        model._derive_from_counts()
        return model, arrays["test_accuracy"]
