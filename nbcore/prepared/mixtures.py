"""The prepared results of the mixture of styles (``BernoulliMixtureNB`` fitted by EM): its accuracy over K with
every K's fitted soft counts, and the unlabeled-digits curves; declared as ``nbcore.prepared.results`` declares
every result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .. import files as nbfiles
from ..datasets.mnist import MnistSplits
from ..experiments import mixture
from ..models.mixture import FIT_FORMAT, BernoulliMixtureNB
from ..progress import ProgressCallback
from .results import PreparedResult


def restore_mixture(params: dict, classes: np.ndarray, counts: Mapping[str, np.ndarray]) -> BernoulliMixtureNB:
    """A fitted ``BernoulliMixtureNB(**params)`` from its soft counts (``class_count_``, ``component_count_``,
    ``feature_count_``) and ``classes``: every probability derived again, EM's record left out."""
    model = BernoulliMixtureNB(**params)
    model.classes_ = classes
    for name in ("class_count_", *BernoulliMixtureNB._count_names):
        setattr(model, name, counts[name])
    model.n_features_in_ = counts["feature_count_"].shape[-1]
    model.unlabeled_count_ = 0.0  # the prepared curve's fits count labelled images only
    model._derive_from_counts()
    return model


@dataclass(frozen=True)
class PreparedMixtures:
    """A ``MixtureCurve``: per K of ``components`` the test accuracy and held-out mean log p(x | y) (float64
    (len(components),)), EM's iterations, and each K's fitted mixture (``models[K]``)."""

    components: tuple[int, ...]
    test_accuracy: np.ndarray
    mean_test_loglik: np.ndarray
    n_iter: np.ndarray
    models: dict[int, BernoulliMixtureNB]


@dataclass(frozen=True, eq=False)
class MixtureCurve(PreparedResult[PreparedMixtures]):
    """``BernoulliMixtureNB`` at these settings for every K of ``components`` (seed ``seed``) on ``splits``,
    scored on the test images; the fitted soft counts are kept, so the page restores every K's model (40 to
    50 s to compute for the default grid on this machine, 5.5 MB of counts)."""

    name = "mixture-curve"
    title = "Mixture of styles"
    splits: MnistSplits
    threshold: int
    alpha: float
    beta: float
    prior: str
    components: tuple[int, ...] = mixture.COMPONENT_GRID
    seed: int = 0

    def settings(self) -> mixture.MixtureSettings:
        return mixture.MixtureSettings(int(self.threshold), self.alpha, self.beta, self.prior, self.splits.deskewed)

    def parameters(self) -> dict:
        return {
            "result": "mixture curve",
            "fit_format": FIT_FORMAT,
            "threshold": int(self.threshold),
            "alpha": float(self.alpha),
            "beta": float(self.beta),
            "prior": str(self.prior),
            "components": [int(k) for k in self.components],
            "seed": int(self.seed),
        }

    def spec(self) -> nbfiles.ArraySpec:
        n_grid, n_features = len(self.components), int(np.prod(self.splits.train_images.shape[1:]))
        total = int(sum(self.components))
        return {
            "classes_": (self.splits.train_labels.dtype, (None,)),
            "components": (np.int64, (n_grid,)),
            "test_accuracy": (np.float64, (n_grid,)),
            "mean_test_loglik": (np.float64, (n_grid,)),
            "n_iter": (np.int64, (n_grid,)),
            "class_count_": (np.float64, (n_grid, None)),
            "component_count_": (np.float64, (None, total)),  # every K's styles side by side
            "feature_count_": (np.float64, (None, total, n_features)),
        }

    def compute(self, progress: ProgressCallback | None) -> dict[str, np.ndarray]:
        settings = self.settings()
        features = settings.form.split_features(self.splits)
        fitted, scores = [], []
        for number, n_components in enumerate(self.components):
            if progress is not None:
                progress(number / len(self.components), f"{n_components} styles per digit")
            model, score = mixture.fit_and_score(settings, self.splits, n_components, self.seed, features)
            fitted.append(model)
            scores.append(score)
        return {
            "classes_": fitted[0].classes_,
            "components": np.asarray(self.components, dtype=np.int64),
            "test_accuracy": np.array([score.test_accuracy for score in scores]),
            "mean_test_loglik": np.array([score.mean_test_loglik for score in scores]),
            "n_iter": np.array([score.n_iter for score in scores], dtype=np.int64),
            "class_count_": np.stack([model.class_count_ for model in fitted]),
            "component_count_": np.concatenate([model.component_count_ for model in fitted], axis=1),
            "feature_count_": np.concatenate([model.feature_count_ for model in fitted], axis=1),
        }

    def restore(self, arrays: dict[str, np.ndarray]) -> PreparedMixtures:
        models, start = {}, 0
        for number, n_components in enumerate(self.components):
            styles = slice(start, start + n_components)
            start += n_components
            counts = {
                "class_count_": arrays["class_count_"][number],
                "component_count_": arrays["component_count_"][:, styles],
                "feature_count_": arrays["feature_count_"][:, styles],
            }
            params = self.settings().model(int(n_components), self.seed).get_params()
            models[int(n_components)] = restore_mixture(params, arrays["classes_"], counts)
        return PreparedMixtures(
            tuple(int(k) for k in self.components),
            arrays["test_accuracy"],
            arrays["mean_test_loglik"],
            arrays["n_iter"],
            models,
        )


@dataclass(frozen=True)
class UnlabeledCurves:
    """An ``UnlabeledDigits`` result, indexed [labels per digit, λ]: test accuracy and EM's iterations
    ((n_labels, n_weights)), and the test accuracy and EM objective after every iteration
    ((n_labels, n_weights, max_iter), the last value repeated past EM's last iteration)."""

    labels_per_digit: tuple[int, ...]
    weights: tuple[float, ...]
    test_accuracy: np.ndarray
    n_iter: np.ndarray
    accuracy_by_iteration: np.ndarray
    lower_bounds: np.ndarray


@dataclass(frozen=True, eq=False)
class UnlabeledDigits(PreparedResult[UnlabeledCurves]):
    """``mixture.unlabeled_table`` at these settings, one seed, one style per digit (30 to 60 s on this machine)."""

    name = "mixture-unlabeled"
    title = "Unlabeled digits"
    splits: MnistSplits
    threshold: int
    alpha: float
    beta: float
    prior: str
    labels_per_digit: tuple[int, ...] = mixture.LABELS_PER_DIGIT
    weights: tuple[float, ...] = mixture.UNLABELED_WEIGHTS
    seed: int = 0

    def settings(self) -> mixture.MixtureSettings:
        return mixture.MixtureSettings(int(self.threshold), self.alpha, self.beta, self.prior, self.splits.deskewed)

    def _max_iter(self) -> int:
        return int(self.settings().model(1, self.seed).max_iter)

    def parameters(self) -> dict:
        return {
            "result": "unlabeled digits",
            "fit_format": FIT_FORMAT,
            "threshold": int(self.threshold),
            "alpha": float(self.alpha),
            "beta": float(self.beta),
            "prior": str(self.prior),
            "labels_per_digit": [int(count) for count in self.labels_per_digit],
            "weights": [float(weight) for weight in self.weights],
            "seed": int(self.seed),
            "max_iter": self._max_iter(),
        }

    def spec(self) -> nbfiles.ArraySpec:
        shape = (len(self.labels_per_digit), len(self.weights))
        return {
            "test_accuracy": (np.float64, shape),
            "n_iter": (np.int64, shape),
            "accuracy_by_iteration": (np.float64, (*shape, self._max_iter())),
            "lower_bounds": (np.float64, (*shape, self._max_iter())),
        }

    def compute(self, progress: ProgressCallback | None) -> dict[str, np.ndarray]:
        rows = mixture.unlabeled_table(
            self.settings(), self.splits, self.labels_per_digit, self.weights, (self.seed,), progress=progress
        )
        shape = (len(self.labels_per_digit), len(self.weights))
        by_iteration = np.empty((len(rows), self._max_iter()))
        lower_bounds = np.empty((len(rows), self._max_iter()))
        for number, row in enumerate(rows):  # EM has stopped past its last iteration: the last value stays
            by_iteration[number] = np.pad(row.accuracy_by_iteration, (0, self._max_iter() - row.n_iter), mode="edge")
            lower_bounds[number] = np.pad(row.lower_bounds, (0, self._max_iter() - row.n_iter), mode="edge")
        return {
            "test_accuracy": np.array([row.test_accuracy for row in rows]).reshape(shape),
            "n_iter": np.array([row.n_iter for row in rows], dtype=np.int64).reshape(shape),
            "accuracy_by_iteration": by_iteration.reshape(*shape, -1),
            "lower_bounds": lower_bounds.reshape(*shape, -1),
        }

    def restore(self, arrays: dict[str, np.ndarray]) -> UnlabeledCurves:
        return UnlabeledCurves(
            tuple(int(count) for count in self.labels_per_digit),
            tuple(float(weight) for weight in self.weights),
            arrays["test_accuracy"],
            arrays["n_iter"],
            arrays["accuracy_by_iteration"],
            arrays["lower_bounds"],
        )
