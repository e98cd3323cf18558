"""Results that take a while to compute, kept in the data folder so that no page computes them in front of a class.

``python -m nbcore prepare`` (``prepare`` below) makes every one the dashboard needs for its two presets,
Deskew off and on; the dashboard (``lab/data/``) reads each from disk on first use, and computes and writes it
only when its file is missing or damaged. Softmax regression's weights are kept by
``nbcore.models.softmax_cache`` (``<data folder>/models/``); this module keeps the rest.

One file per result: ``<data folder>/prepared/<name>-<first 20 hex digits of sha256(key)>.npz``, written by
``nbcore.files.write_checked_arrays`` (atomically, a sha256 per array) and read with ``allow_pickle=False``.
It holds the result's arrays and ``meta`` (UTF-8 JSON: the key). The key names everything the result depends
on: ``FORMAT``, the result's parameters, and the md5 of the data it was computed from
(``training_data_checksum``). A file that cannot be read, fails a digest, holds another key, shape or dtype,
or holds NaN or +inf is damaged: the result is computed again and the file rewritten (``Outcome`` says why).
A directory, FIFO or device in the file's place is never opened; a folder that cannot be written keeps
nothing and fails nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from . import files as nbfiles
from .datasets import default_data_dir
from .datasets.mnist import MnistSplits
from .experiments import evaluate
from .experiments.gaussian import VAR_SMOOTHING_GRID, var_smoothing_curve
from .features import PackedBinary
from .inputs import InputForm
from .models.naive_bayes import BernoulliNB, GaussianNB
from .models.softmax import PRESETS
from .models.softmax_cache import CACHE_FORMAT as SOFTMAX_FORMAT
from .models.softmax_cache import training_data_checksum
from .progress import ProgressCallback

FORMAT = 1  # bump when a file's layout or the code that computes a result changes what a key means
FOLDER = "prepared"
LOG = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome:
    """What happened to one kept result: ``status`` "loaded" (from its file), "built" (no file: computed and
    written), "rebuilt" (a damaged file: computed and rewritten), "computed" (not written: the folder or
    disk refused, or an odd entry is in the file's place) or "missing" (data that could not be had);
    ``seconds`` it took; ``problem`` why a file was not used or written, or what to do."""

    title: str
    path: Path
    status: str
    seconds: float
    problem: str | None = None

    def message(self) -> str:
        """One line for a person: what it is, what happened, how long it took, and any problem."""
        verbs = {
            "loaded": "already prepared, loaded",
            "built": "computed and saved",
            "rebuilt": "was damaged, computed again and saved",
            "computed": "computed, not saved",
            "missing": "not available",
        }
        if self.status == "missing":
            return f"{self.title}: {verbs[self.status]}: {self.problem}"
        line = f"{self.title}: {verbs[self.status]} in {self.seconds:.1f} s ({self.path.name})"
        return f"{line}: {self.problem}" if self.problem else line


Step = Callable[[ProgressCallback], Outcome]  # one step of ``prepare``: given its progress callback, what happened


@dataclass(frozen=True)
class Stored(Generic[T]):
    """A result and what happened to its file."""

    value: T
    outcome: Outcome


def folder_of(data_dir: Path | str | None = None) -> Path:
    """Where the results of ``data_dir`` (default: ``default_data_dir()``) are kept."""
    return Path(data_dir if data_dir is not None else default_data_dir()) / FOLDER


def result_path(folder: Path, name: str, key: Mapping) -> Path:
    """``folder/<name>-<first 20 hex digits of sha256(key as sorted JSON)>.npz``."""
    key_hash = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(folder) / f"{name}-{key_hash}.npz"


def _read(path: Path, key: Mapping, spec: nbfiles.ArraySpec) -> dict[str, np.ndarray]:
    """The arrays of ``path`` if it holds exactly ``key``'s result; FileNotFoundError, DamagedFileError, FileProblem."""
    arrays = nbfiles.read_checked_arrays(path, {**spec, "meta": (np.uint8, (None,))})
    try:
        stored_key = json.loads(arrays.pop("meta").tobytes().decode("utf-8"))["key"]
    except (ValueError, KeyError, TypeError) as error:
        raise nbfiles.DamagedFileError(f"bad metadata ({type(error).__name__})") from error
    if stored_key != json.loads(json.dumps(key)):  # compared as JSON gives it back: tuples as lists
        raise nbfiles.DamagedFileError("written for other settings or data")
    for name, array in arrays.items():
        if array.dtype.kind == "f" and not np.all(np.isfinite(array) | np.isneginf(array)):
            raise nbfiles.DamagedFileError(f"{name} holds NaN or +inf")
    return arrays


def load_or_build(
    title: str,
    name: str,
    key: Mapping,
    spec: nbfiles.ArraySpec,
    build: Callable[[], Mapping[str, np.ndarray]],
    folder: Path | None = None,
) -> Stored[dict[str, np.ndarray]]:
    """The arrays of one result: read from its file when it holds them for ``key``, else ``build()`` and write them.

    ``spec`` names the arrays (dtype, shape; None for any length) as ``nbcore.files.read_checked_arrays``
    does; ``build`` must return arrays of that spec. ``title`` names the result in messages. NaN and +inf
    are damage (-inf is a valid log-likelihood).
    """
    folder = folder_of() if folder is None else Path(folder)
    path = result_path(folder, name, key)
    started = time.perf_counter()
    nbfiles.remove_stale_temporaries(folder, (f"{name}-*.npz",))
    problem, status, leave_in_place = None, "built", False
    try:
        arrays = _read(path, key, spec)
    except FileNotFoundError:
        pass
    except nbfiles.DamagedFileError as error:
        problem, status = str(error), "rebuilt"
        LOG.warning("%s: %s is damaged (%s); computing it again", title, path, error)
    except OSError as error:  # an odd entry or no permission: compute, leave the entry alone, say why
        problem, status, leave_in_place = str(error), "computed", True
        LOG.warning("%s: %s", title, error)
    else:
        return Stored(arrays, Outcome(title, path, "loaded", time.perf_counter() - started))
    arrays = {name: np.asarray(array) for name, array in build().items()}
    if not leave_in_place:
        meta = json.dumps({"key": key}, sort_keys=True).encode("utf-8")
        try:
            nbfiles.write_checked_arrays(path, {**arrays, "meta": np.frombuffer(meta, dtype=np.uint8)})
        except OSError as error:  # nbcore.files.FileProblem: disk full, read-only folder, ...
            not_saved = f"not saved: {error}"
            problem, status = (f"{problem}; {not_saved}" if problem else not_saved), "computed"
            LOG.warning("%s: %s", title, not_saved)
    return Stored(arrays, Outcome(title, path, status, time.perf_counter() - started, problem))


def _data_key(splits: MnistSplits) -> dict:
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


# -- the results ------------------------------------------------------------------------------
def _deskewed_key(published: MnistSplits) -> dict:
    if published.deskewed:
        raise ValueError("these splits are deskewed already; deskewed MNIST is made from MNIST as published")
    return {"format": FORMAT, "result": "deskewed MNIST", **_data_key(published)}


def deskewed_mnist(
    published: MnistSplits, folder: Path | None = None, progress: ProgressCallback | None = None
) -> Stored[MnistSplits]:
    """``InputForm(deskew=True).splits(published)``: every image sheared upright (about 10 s to compute)."""
    spec = {
        "train_images": (np.uint8, published.train_images.shape),
        "test_images": (np.uint8, published.test_images.shape),
    }

    def build() -> dict[str, np.ndarray]:
        formed = InputForm(deskew=True).splits(published, progress)
        return {"train_images": formed.train_images, "test_images": formed.test_images}

    stored = load_or_build("Deskewed MNIST", "deskewed-mnist", _deskewed_key(published), spec, build, folder)
    images = stored.value
    formed = dataclasses.replace(
        published, train_images=images["train_images"], test_images=images["test_images"], deskewed=True
    )
    return Stored(formed, stored.outcome)


def deskewed_mnist_kept(published: MnistSplits, folder: Path | None = None) -> bool:
    """Whether ``deskewed_mnist(published, folder)`` has a file to read (``prepare`` has run), without reading it."""
    path = result_path(folder_of() if folder is None else Path(folder), "deskewed-mnist", _deskewed_key(published))
    return path.is_file()


def _learning_curve(
    title: str,
    name: str,
    learner: evaluate.Learner,
    learner_key: Mapping,
    formed: MnistSplits,
    folder: Path | None,
    progress: ProgressCallback | None,
) -> Stored[dict[str, np.ndarray]]:
    """``evaluate.learning_curve`` of one learner on ``formed`` over the standard sizes and seeds:
    ``{"sizes": int (n_sizes,), title: float64 (n_sizes, n_seeds)}``."""
    sizes, seeds = evaluate.LEARNING_CURVE_SIZES, evaluate.LEARNING_CURVE_SEEDS

    def build() -> dict[str, np.ndarray]:
        curve = evaluate.learning_curve({title: learner}, formed, sizes, seeds, progress=progress)
        return {"sizes": np.asarray(sizes, dtype=np.int64), "accuracy": curve[title]}

    key = {
        "format": FORMAT,
        "result": "learning curve",
        "learner": dict(learner_key),
        "sizes": list(sizes),
        "seeds": list(seeds),
        **_data_key(formed),
    }
    spec = {"sizes": (np.int64, (len(sizes),)), "accuracy": (np.float64, (len(sizes), len(seeds)))}
    stored = load_or_build(on_deskewed(f"Learning curve of {title}", formed.deskewed), name, key, spec, build, folder)
    return Stored({"sizes": stored.value["sizes"], title: stored.value["accuracy"]}, stored.outcome)


def softmax_learning_curve(
    formed: MnistSplits, folder: Path | None = None, progress: ProgressCallback | None = None
) -> Stored[dict[str, np.ndarray]]:
    """Softmax regression's test accuracy over training-set sizes and seeds on ``formed`` (the splits as the models
    see them): ``{"sizes": (8,), "softmax regression": float64 (8, 3)}`` (about 10 s to compute)."""
    learner_key = {
        "model": "softmax",
        "softmax_format": SOFTMAX_FORMAT,
        "settings": asdict(PRESETS["default"]),
        "min_steps": evaluate.MIN_SOFTMAX_STEPS,
    }
    learner = evaluate.softmax_learner(InputForm(deskew=formed.deskewed))
    return _learning_curve("softmax regression", "curve-softmax", learner, learner_key, formed, folder, progress)


def bernoulli_learning_curve(
    formed: MnistSplits,
    threshold: int,
    alpha: float,
    beta: float,
    prior: str,
    folder: Path | None = None,
    progress: ProgressCallback | None = None,
) -> Stored[dict[str, np.ndarray]]:
    """Naive Bayes' test accuracy at these settings over the same sizes and seeds:
    ``{"sizes": (8,), "naive Bayes": float64 (8, 3)}`` (about a second to compute)."""
    settings = {"threshold": int(threshold), "alpha": float(alpha), "beta": float(beta), "prior": str(prior)}
    learner = evaluate.bernoulli_learner(
        InputForm(int(threshold), formed.deskewed), alpha=alpha, beta=beta, prior=prior
    )
    return _learning_curve(
        "naive Bayes", "curve-bernoulli", learner, {"model": "bernoulli", **settings}, formed, folder, progress
    )


SMOOTHING_CURVE_NAMES = ("alpha", "train_accuracy", "test_accuracy", "mean_train_loglik", "mean_test_loglik")


def smoothing_curve(
    formed: MnistSplits,
    threshold: int,
    prior: str,
    alphas: Sequence[float] = evaluate.SMOOTHING_CURVE_ALPHAS,
    folder: Path | None = None,
    counted: BernoulliNB | None = None,
    features: tuple[PackedBinary, PackedBinary] | None = None,
) -> Stored[dict[str, np.ndarray]]:
    """``evaluate.smoothing_curve`` of naive Bayes at this threshold and prior over ``alphas`` (beta = alpha):
    float64 (len(alphas),) per name of ``SMOOTHING_CURVE_NAMES``.

    ``counted`` (BernoulliNB fitted on the training features) and ``features`` (train and test, packed), when
    both given, spare the binarizing and counting if the curve is computed.
    """

    def build() -> dict[str, np.ndarray]:
        if counted is None or features is None:
            dense_train, dense_test = InputForm(int(threshold), formed.deskewed).split_features(formed)
            train, test = PackedBinary.from_dense(dense_train), PackedBinary.from_dense(dense_test)
            model = BernoulliNB().fit(dense_train, formed.train_labels)
        else:
            (train, test), model = features, counted
        return evaluate.smoothing_curve(
            model.with_params(prior=prior), train, formed.train_labels, test, formed.test_labels, alphas
        )

    key = {
        "format": FORMAT,
        "result": "smoothing curve",
        "threshold": int(threshold),
        "prior": str(prior),
        "alphas": [float(alpha) for alpha in alphas],
        **_data_key(formed),
    }
    spec = {name: (np.float64, (len(alphas),)) for name in SMOOTHING_CURVE_NAMES}
    title = on_deskewed("Smoothing curve", formed.deskewed)
    return load_or_build(title, "smoothing-curve", key, spec, build, folder)


def gaussian_mnist(
    formed: MnistSplits, grid: Sequence[float] = VAR_SMOOTHING_GRID, folder: Path | None = None
) -> Stored[tuple[GaussianNB, np.ndarray]]:
    """``var_smoothing_curve(formed, grid)``: GaussianNB on pixel / 255 (restored from its kept statistics) and
    its test accuracy at each grid value, float64 (len(grid),) (a few seconds to compute)."""
    statistics = ("classes_", "class_count_", *GaussianNB._count_names)
    n_features = int(np.prod(formed.train_images.shape[1:]))

    def build() -> dict[str, np.ndarray]:
        model, accuracy = var_smoothing_curve(formed, grid)
        return {**{name: getattr(model, name) for name in statistics}, "test_accuracy": accuracy}

    key = {"format": FORMAT, "result": "gaussian MNIST", "grid": [float(value) for value in grid], **_data_key(formed)}
    spec: dict = {
        "classes_": (formed.train_labels.dtype, (None,)),
        "class_count_": (np.int64, (None,)),
        **{name: (np.float64, (None, n_features)) for name in ("theta_", "class_var_")},
        **{name: (np.float64, (n_features,)) for name in ("feature_mean_", "feature_var_")},
        "test_accuracy": (np.float64, (len(grid),)),
    }
    title = on_deskewed("Gaussian naive Bayes", formed.deskewed)
    stored = load_or_build(title, "gaussian-mnist", key, spec, build, folder)
    model = GaussianNB()
    for name in statistics:
        setattr(model, name, stored.value[name])
    model.n_features_in_ = n_features
    model._derive_from_counts()
    return Stored((model, stored.value["test_accuracy"]), stored.outcome)


# -- everything at once: python -m nbcore prepare ---------------------------------------------------
def read_only(splits: MnistSplits) -> MnistSplits:
    """``splits`` with its arrays made read-only, so that each one's md5 (in every result's key) is computed once."""
    for array in (splits.train_images, splits.train_labels, splits.test_images, splits.test_labels):
        array.setflags(write=False)
    return splits


def _softmax_outcome(title: str, info: dict, seconds: float) -> Outcome:
    """``load_or_train_softmax``'s info as an Outcome."""
    status = {"hit": "loaded", "miss": "built", "corrupt": "rebuilt"}[info["cache"]]
    if info["cache"] != "hit" and not info["saved"]:
        status = "computed"
    return Outcome(title, Path(info["path"]), status, seconds, info["error"])


def prepare(
    data_dir: Path | str | None = None,
    download: bool = True,
    progress: ProgressCallback | None = None,
    report: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Make every result the dashboard needs for its presets, Deskew off and on, in ``data_dir``; what happened.

    MNIST (found, verified, decoded), the SMS Spam Collection (found and checked), deskewed MNIST, softmax
    regression's weights and learning curve (Deskew off and on), naive Bayes' learning and smoothing curves
    (each preset, Deskew off and on) and Gaussian naive Bayes (MNIST as published: its page has no Deskew).
    What is there and whole is loaded, not computed again. ``progress(fraction of all steps, "[step/steps]
    title: message")``; ``report(outcome)`` after each step. Raises MnistDataError when MNIST cannot be had;
    a missing SMS collection is the outcome "missing", its problem saying what to do.
    """
    from .datasets.mnist import decoded_cache_path, load_mnist_splits
    from .datasets.sms import SpamDataError, ensure_sms
    from .models.softmax_cache import load_or_train_softmax

    root = Path(data_dir) if data_dir is not None else default_data_dir()
    folder = folder_of(root)
    formed: dict[bool, MnistSplits] = {}  # deskew -> MNIST as the models of that setting see it

    def mnist_step(step_progress: ProgressCallback) -> Outcome:
        started = time.perf_counter()
        decoded = all(decoded_cache_path(root, train).is_file() for train in (True, False))
        formed[False] = read_only(MnistSplits(*load_mnist_splits(root, download=download, progress=step_progress)))
        return Outcome("MNIST", root / "MNIST", "loaded" if decoded else "built", time.perf_counter() - started)

    def sms_step(step_progress: ProgressCallback) -> Outcome:
        started = time.perf_counter()
        try:
            path = ensure_sms(root, download=download, progress=step_progress)
        except SpamDataError as error:
            return Outcome("SMS Spam Collection", root, "missing", time.perf_counter() - started, str(error))
        return Outcome("SMS Spam Collection", path, "loaded", time.perf_counter() - started)

    def deskew_step(step_progress: ProgressCallback) -> Outcome:
        stored = deskewed_mnist(formed[False], folder, step_progress)
        formed[True] = read_only(stored.value)
        return stored.outcome

    def softmax_step(deskew: bool) -> Step:
        def step(step_progress: ProgressCallback) -> Outcome:
            splits, started = formed[deskew], time.perf_counter()
            _, info = load_or_train_softmax(
                splits.train_images, splits.train_labels, cache_dir=root / "models", progress=step_progress
            )
            return _softmax_outcome(on_deskewed("Softmax regression", deskew), info, time.perf_counter() - started)

        return step

    def softmax_curve_step(deskew: bool) -> Step:
        return lambda step_progress: softmax_learning_curve(formed[deskew], folder, step_progress).outcome

    def bernoulli_curve_step(settings: evaluate.NaiveBayesSettings, deskew: bool) -> Step:
        return lambda step_progress: bernoulli_learning_curve(
            formed[deskew], **asdict(settings), folder=folder, progress=step_progress
        ).outcome

    def smoothing_step(settings: evaluate.NaiveBayesSettings, deskew: bool) -> Step:
        return lambda _: smoothing_curve(formed[deskew], settings.threshold, settings.prior, folder=folder).outcome

    steps: list[tuple[str, Step]] = [
        ("MNIST", mnist_step),
        ("SMS Spam Collection", sms_step),
        ("Deskewed MNIST", deskew_step),
    ]
    for deskew in (False, True):
        steps.append((on_deskewed("Softmax regression", deskew), softmax_step(deskew)))
    for deskew in (False, True):
        steps.append((on_deskewed("Learning curve of softmax regression", deskew), softmax_curve_step(deskew)))
    for preset, settings in evaluate.PUBLISHED_SETTINGS.items():
        for deskew in (False, True):
            title = on_deskewed(f"Learning curve of naive Bayes ({preset})", deskew)
            steps.append((title, bernoulli_curve_step(settings, deskew)))
            steps.append((on_deskewed(f"Smoothing curve ({preset})", deskew), smoothing_step(settings, deskew)))
    steps.append(("Gaussian naive Bayes", lambda _: gaussian_mnist(formed[False], folder=folder).outcome))

    outcomes: list[Outcome] = []
    for number, (title, run) in enumerate(steps):
        prefix = f"[{number + 1}/{len(steps)}] {title}"

        def step_progress(fraction: float, message: str, number=number, prefix=prefix) -> None:
            if progress is not None:
                progress((number + min(max(fraction, 0.0), 1.0)) / len(steps), f"{prefix}: {message}")

        step_progress(0.0, "starting")
        outcome = dataclasses.replace(run(step_progress), title=title)  # the list's title says which preset
        outcomes.append(outcome)
        if report is not None:
            report(outcome)
    if progress is not None:
        progress(1.0, "everything prepared")
    return outcomes
