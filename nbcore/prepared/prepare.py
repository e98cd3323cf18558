"""``python -m nbcore prepare``: every result the dashboard needs for its presets, Deskew off and on, made in the
data folder once, so that no page computes one in front of a class; ``prepare --check``: the same results read
and checked, nothing computed, downloaded or written (what the serving image, which has no torchvision, runs
before it starts).

Softmax regression's weights are kept by ``nbcore.models.softmax_cache`` (``<data folder>/models/``); the rest
are the prepared results of ``nbcore.prepared.results`` (``<data folder>/prepared/``).
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from pathlib import Path

import numpy as np

from ..datasets import default_data_dir
from ..datasets.mnist import MnistDataError, MnistSplits, decoded_cache_path, load_mnist_splits, read_prepared_splits
from ..datasets.sms import SMS_FILE, SpamDataError, ensure_sms, verify_sms
from ..experiments.evaluate import PUBLISHED_SETTINGS, NaiveBayesSettings
from ..models.softmax import SoftmaxRegression
from ..models.softmax_cache import (
    CacheFileError,
    cache_file,
    cache_key,
    load_or_train_softmax,
    read_weights,
    training_data_checksum,
)
from ..progress import ProgressCallback
from .disk import Outcome, Stored, folder_of
from .mixtures import MixtureCurve, UnlabeledDigits
from .results import (
    DeskewedMnist,
    NaiveBayesLearningCurve,
    PreparedResult,
    SmoothingCurve,
    SoftmaxLearningCurve,
    VarSmoothingCurve,
    on_deskewed,
)

Step = Callable[[ProgressCallback], Outcome]  # one step of ``prepare``: given its progress callback, what happened


def read_only(splits: MnistSplits) -> MnistSplits:
    """``splits`` with its arrays made read-only, so that each one's md5 (in every result's key) is computed once."""
    for array in (splits.train_images, splits.train_labels, splits.test_images, splits.test_labels):
        array.setflags(write=False)
    return splits


class _Preparation:
    """The steps of ``prepare`` on one data folder; ``formed[deskew]``: MNIST as the models of that setting see
    it, once the MNIST (and deskew) steps have run. ``check``: each step reads its result, never makes it
    (the outcome "unprepared" when it is missing or damaged)."""

    def __init__(self, root: Path, download: bool, check: bool = False) -> None:
        self.root, self.download, self.check, self.folder = root, download, check, folder_of(root)
        self.formed: dict[bool, MnistSplits] = {}

    def _result(self, result: PreparedResult, progress: ProgressCallback) -> Stored:
        """``result`` read (``check``) or read else made."""
        return result.read(self.folder) if self.check else result.get(self.folder, progress)

    def steps(self) -> list[tuple[str, Step]]:
        """Every step in order, with the title the list shows (the preset included)."""
        steps: list[tuple[str, Step]] = [
            ("MNIST", self.mnist),
            ("SMS Spam Collection", self.sms),
            ("Deskewed MNIST", self.deskew),
        ]
        steps += [
            (on_deskewed("Softmax regression", deskew), partial(self.softmax, deskew)) for deskew in (False, True)
        ]
        steps += [
            (on_deskewed("Learning curve of softmax regression", deskew), partial(self.softmax_curve, deskew))
            for deskew in (False, True)
        ]
        for preset, settings in PUBLISHED_SETTINGS.items():
            for deskew in (False, True):
                title = on_deskewed(f"Learning curve of naive Bayes ({preset})", deskew)
                steps.append((title, partial(self.bernoulli_curve, settings, deskew)))
                title = on_deskewed(f"Smoothing curve ({preset})", deskew)
                steps.append((title, partial(self.smoothing_curve, settings, deskew)))
        steps.append(("Gaussian naive Bayes", self.gaussian))
        steps.append(("Mixture of styles (textbook)", self.mixture_curve))
        steps.append(("Unlabeled digits (textbook)", self.unlabeled))
        return steps

    def mnist(self, progress: ProgressCallback) -> Outcome:
        started = time.perf_counter()
        if self.check:
            try:
                self.formed[False] = read_only(MnistSplits(*read_prepared_splits(self.root)))
            except MnistDataError as error:
                return Outcome("MNIST", self.root / "MNIST", "unprepared", time.perf_counter() - started, str(error))
            return Outcome("MNIST", self.root / "MNIST", "loaded", time.perf_counter() - started)
        decoded = all(decoded_cache_path(self.root, train).is_file() for train in (True, False))
        loaded = load_mnist_splits(self.root, download=self.download, progress=progress)
        self.formed[False] = read_only(MnistSplits(*loaded))
        return Outcome("MNIST", self.root / "MNIST", "loaded" if decoded else "built", time.perf_counter() - started)

    def sms(self, progress: ProgressCallback) -> Outcome:
        started = time.perf_counter()
        try:
            if self.check:
                path = self.root / SMS_FILE
                verify_sms(path)
            else:
                path = ensure_sms(self.root, download=self.download, progress=progress)
        except SpamDataError as error:
            # absent, it is "missing" as prepare leaves it when it cannot be had (the Spam page says so); a file
            # that is there but wrong is damaged
            damaged = self.check and os.path.lexists(self.root / SMS_FILE)
            status = "unprepared" if damaged else "missing"
            return Outcome("SMS Spam Collection", self.root, status, time.perf_counter() - started, str(error))
        return Outcome("SMS Spam Collection", path, "loaded", time.perf_counter() - started)

    def deskew(self, progress: ProgressCallback) -> Outcome:
        stored = self._result(DeskewedMnist(self.formed[False]), progress)
        if stored.value is not None:
            self.formed[True] = read_only(stored.value)
        return stored.outcome

    def softmax(self, deskew: bool, progress: ProgressCallback) -> Outcome:
        if self.check:
            return self.softmax_check(deskew)
        splits, started = self.formed[deskew], time.perf_counter()
        _, info = load_or_train_softmax(
            splits.train_images, splits.train_labels, cache_dir=self.root / "models", progress=progress
        )
        status = {"hit": "loaded", "miss": "built", "corrupt": "rebuilt"}[info["cache"]]
        if info["cache"] != "hit" and not info["saved"]:
            status = "computed"
        title = on_deskewed("Softmax regression", deskew)
        return Outcome(title, Path(info["path"]), status, time.perf_counter() - started, info["error"])

    def softmax_check(self, deskew: bool) -> Outcome:
        """The weights ``softmax`` would load, read from their file (its key as ``load_or_train_softmax`` makes it)."""
        splits, started = self.formed[deskew], time.perf_counter()
        title = on_deskewed("Softmax regression", deskew)
        key = cache_key(SoftmaxRegression(), training_data_checksum(splits.train_images, splits.train_labels))
        path = cache_file(self.root / "models", key)
        n_features = int(np.prod(splits.train_images.shape[1:]))
        try:
            read_weights(path, key, len(np.unique(splits.train_labels)), n_features)
        except FileNotFoundError:
            problem = f"{path} is missing"
        except CacheFileError as error:
            problem = f"{path} is damaged ({error})"
        except OSError as error:  # an odd entry or no permission: its sentence names the path
            problem = str(error)
        else:
            return Outcome(title, path, "loaded", time.perf_counter() - started)
        return Outcome(title, path, "unprepared", time.perf_counter() - started, problem)

    def softmax_curve(self, deskew: bool, progress: ProgressCallback) -> Outcome:
        return self._result(SoftmaxLearningCurve(self.formed[deskew]), progress).outcome

    def bernoulli_curve(self, settings: NaiveBayesSettings, deskew: bool, progress: ProgressCallback) -> Outcome:
        return self._result(NaiveBayesLearningCurve(self.formed[deskew], **asdict(settings)), progress).outcome

    def smoothing_curve(self, settings: NaiveBayesSettings, deskew: bool, progress: ProgressCallback) -> Outcome:
        return self._result(SmoothingCurve(self.formed[deskew], settings.threshold, settings.prior), progress).outcome

    def gaussian(self, progress: ProgressCallback) -> Outcome:
        return self._result(VarSmoothingCurve(self.formed[False]), progress).outcome

    def mixture_curve(self, progress: ProgressCallback) -> Outcome:
        return self._result(mixture_results(self.formed[False])[0], progress).outcome

    def unlabeled(self, progress: ProgressCallback) -> Outcome:
        return self._result(mixture_results(self.formed[False])[1], progress).outcome


def mixture_results(splits: MnistSplits) -> tuple[MixtureCurve, UnlabeledDigits]:
    """What ``prepare`` keeps for the Beyond naive page: the curve over K and the unlabeled-digit curves at the
    textbook's settings on ``splits`` as published (the page's usual case, about a minute to compute; at other
    settings the pages fit when asked)."""
    textbook = asdict(PUBLISHED_SETTINGS["textbook"])
    return MixtureCurve(splits, **textbook), UnlabeledDigits(splits, **textbook)


def _within_step(progress: ProgressCallback | None, number: int, steps: int, prefix: str) -> ProgressCallback:
    """A step's progress callback: ``progress`` of the whole, the step's share of it, its message after ``prefix``."""

    def step_progress(fraction: float, message: str) -> None:
        if progress is not None:
            progress((number + min(max(fraction, 0.0), 1.0)) / steps, f"{prefix}: {message}")

    return step_progress


def prepare(
    data_dir: Path | str | None = None,
    download: bool = True,
    progress: ProgressCallback | None = None,
    report: Callable[[Outcome], None] | None = None,
    check: bool = False,
) -> list[Outcome]:
    """Make every result the dashboard needs for its presets, Deskew off and on, in ``data_dir``; what happened.

    MNIST (found, verified, decoded), the SMS Spam Collection (found and checked), deskewed MNIST, softmax
    regression's weights and learning curve (Deskew off and on), naive Bayes' learning and smoothing curves
    (each preset, Deskew off and on), Gaussian naive Bayes (MNIST as published: its page has no Deskew) and
    the mixture of styles with the unlabeled-digits curves (the textbook's settings, Deskew off).
    What is there and whole is loaded, not computed again. ``progress(fraction of all steps, "[step/steps]
    title: message")``; ``report(outcome)`` after each step. Raises MnistDataError when MNIST cannot be had;
    a missing SMS collection is the outcome "missing", its problem saying what to do.

    ``check``: every result read and checked, nothing computed, downloaded, written or removed (no torchvision
    needed); the first one missing or damaged is the last outcome, "unprepared" (the results after it depend on
    it: their keys hold the md5 of the MNIST they are computed from).
    """
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    steps = _Preparation(root, download, check).steps()
    outcomes: list[Outcome] = []
    for number, (title, run) in enumerate(steps):
        step_progress = _within_step(progress, number, len(steps), f"[{number + 1}/{len(steps)}] {title}")
        step_progress(0.0, "starting")
        outcome = dataclasses.replace(run(step_progress), title=title)  # the list's title says which preset
        outcomes.append(outcome)
        if report is not None:
            report(outcome)
        if outcome.status == "unprepared":
            break
    if progress is not None:
        progress(1.0, "everything prepared")
    return outcomes
