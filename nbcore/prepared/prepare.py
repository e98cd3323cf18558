"""``python -m nbcore prepare``: every result the dashboard needs for its presets, Deskew off and on, made in the
data folder once, so that no page computes one in front of a class.

Softmax regression's weights are kept by ``nbcore.models.softmax_cache`` (``<data folder>/models/``); the rest
are the prepared results of ``nbcore.prepared.results`` (``<data folder>/prepared/``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from pathlib import Path

from ..datasets import default_data_dir
from ..datasets.mnist import MnistSplits, decoded_cache_path, load_mnist_splits
from ..datasets.sms import SpamDataError, ensure_sms
from ..experiments.evaluate import PUBLISHED_SETTINGS, NaiveBayesSettings
from ..models.softmax_cache import load_or_train_softmax
from ..progress import ProgressCallback
from .disk import Outcome, folder_of
from .results import (
    DeskewedMnist,
    MixtureCurve,
    NaiveBayesLearningCurve,
    SmoothingCurve,
    SoftmaxLearningCurve,
    UnlabeledDigits,
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
    it, once the MNIST (and deskew) steps have run."""

    def __init__(self, root: Path, download: bool) -> None:
        self.root, self.download, self.folder = root, download, folder_of(root)
        self.formed: dict[bool, MnistSplits] = {}

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
        decoded = all(decoded_cache_path(self.root, train).is_file() for train in (True, False))
        loaded = load_mnist_splits(self.root, download=self.download, progress=progress)
        self.formed[False] = read_only(MnistSplits(*loaded))
        return Outcome("MNIST", self.root / "MNIST", "loaded" if decoded else "built", time.perf_counter() - started)

    def sms(self, progress: ProgressCallback) -> Outcome:
        started = time.perf_counter()
        try:
            path = ensure_sms(self.root, download=self.download, progress=progress)
        except SpamDataError as error:
            return Outcome("SMS Spam Collection", self.root, "missing", time.perf_counter() - started, str(error))
        return Outcome("SMS Spam Collection", path, "loaded", time.perf_counter() - started)

    def deskew(self, progress: ProgressCallback) -> Outcome:
        stored = DeskewedMnist(self.formed[False]).get(self.folder, progress)
        self.formed[True] = read_only(stored.value)
        return stored.outcome

    def softmax(self, deskew: bool, progress: ProgressCallback) -> Outcome:
        splits, started = self.formed[deskew], time.perf_counter()
        _, info = load_or_train_softmax(
            splits.train_images, splits.train_labels, cache_dir=self.root / "models", progress=progress
        )
        status = {"hit": "loaded", "miss": "built", "corrupt": "rebuilt"}[info["cache"]]
        if info["cache"] != "hit" and not info["saved"]:
            status = "computed"
        title = on_deskewed("Softmax regression", deskew)
        return Outcome(title, Path(info["path"]), status, time.perf_counter() - started, info["error"])

    def softmax_curve(self, deskew: bool, progress: ProgressCallback) -> Outcome:
        return SoftmaxLearningCurve(self.formed[deskew]).get(self.folder, progress).outcome

    def bernoulli_curve(self, settings: NaiveBayesSettings, deskew: bool, progress: ProgressCallback) -> Outcome:
        return NaiveBayesLearningCurve(self.formed[deskew], **asdict(settings)).get(self.folder, progress).outcome

    def smoothing_curve(self, settings: NaiveBayesSettings, deskew: bool, progress: ProgressCallback) -> Outcome:
        return SmoothingCurve(self.formed[deskew], settings.threshold, settings.prior).get(self.folder).outcome

    def gaussian(self, progress: ProgressCallback) -> Outcome:
        return VarSmoothingCurve(self.formed[False]).get(self.folder).outcome

    def mixture_curve(self, progress: ProgressCallback) -> Outcome:
        return mixture_results(self.formed[False])[0].get(self.folder, progress).outcome

    def unlabeled(self, progress: ProgressCallback) -> Outcome:
        return mixture_results(self.formed[False])[1].get(self.folder, progress).outcome


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
) -> list[Outcome]:
    """Make every result the dashboard needs for its presets, Deskew off and on, in ``data_dir``; what happened.

    MNIST (found, verified, decoded), the SMS Spam Collection (found and checked), deskewed MNIST, softmax
    regression's weights and learning curve (Deskew off and on), naive Bayes' learning and smoothing curves
    (each preset, Deskew off and on), Gaussian naive Bayes (MNIST as published: its page has no Deskew) and
    the mixture of styles with the unlabeled-digits curves (the textbook's settings, Deskew off).
    What is there and whole is loaded, not computed again. ``progress(fraction of all steps, "[step/steps]
    title: message")``; ``report(outcome)`` after each step. Raises MnistDataError when MNIST cannot be had;
    a missing SMS collection is the outcome "missing", its problem saying what to do.
    """
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    steps = _Preparation(root, download).steps()
    outcomes: list[Outcome] = []
    for number, (title, run) in enumerate(steps):
        step_progress = _within_step(progress, number, len(steps), f"[{number + 1}/{len(steps)}] {title}")
        step_progress(0.0, "starting")
        outcome = dataclasses.replace(run(step_progress), title=title)  # the list's title says which preset
        outcomes.append(outcome)
        if report is not None:
            report(outcome)
    if progress is not None:
        progress(1.0, "everything prepared")
    return outcomes
