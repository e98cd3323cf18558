"""Ways to judge a classifier beyond accuracy: confusion and calibration."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def confusion_matrix(true: np.ndarray, predicted: np.ndarray, n_classes: int = 10) -> np.ndarray:
    """int64 (n_classes, n_classes): entry [t, p] counts samples of class t predicted as p."""
    true, predicted = np.asarray(true, dtype=np.int64), np.asarray(predicted, dtype=np.int64)
    return np.bincount(true * n_classes + predicted, minlength=n_classes * n_classes).reshape(n_classes, n_classes)


@dataclass(frozen=True)
class Reliability:
    """Top-class confidence against accuracy in equal-width bins over [0, 1].

    ``bin_edges`` (n_bins + 1,); per bin (n_bins,): ``count``, mean ``confidence`` and
    ``accuracy`` (NaN for empty bins). ``ece`` is the expected calibration error:
    sum over bins of count/n * |accuracy - confidence|.
    """

    bin_edges: np.ndarray
    count: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray
    ece: float


def reliability(probabilities: np.ndarray, true: np.ndarray, n_bins: int = 10) -> Reliability:
    """Reliability of (n, k) predicted class probabilities against (n,) true labels."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    confidence = probabilities.max(axis=1)
    correct = probabilities.argmax(axis=1) == np.asarray(true)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.clip(np.searchsorted(edges, confidence, side="left") - 1, 0, n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_confidence = np.bincount(bins, weights=confidence, minlength=n_bins) / count
        accuracy = np.bincount(bins, weights=correct, minlength=n_bins) / count
    gaps = np.where(count > 0, np.abs(accuracy - mean_confidence), 0.0)
    ece = float(np.sum(count * gaps) / max(len(confidence), 1))
    return Reliability(edges, count, mean_confidence, accuracy, ece)


@dataclass(frozen=True)
class ClassErrors:
    """How often a classifier misreads each true class, from a (k, k) confusion matrix.

    Per true class (k,): ``count`` samples, ``wrong`` of them misread, ``error_rate`` = wrong / count
    (NaN for a class with no samples). ``instead`` int64 (k, k): entry [t, p] counts samples of class t
    read as another class p (the confusion matrix with its diagonal set to 0).
    """

    count: np.ndarray
    wrong: np.ndarray
    error_rate: np.ndarray
    instead: np.ndarray

    @property
    def accuracy(self) -> float:
        """The share of all samples read as their true class (NaN with no samples)."""
        total = int(self.count.sum())
        return 1.0 - int(self.wrong.sum()) / total if total else float("nan")

    def most_misread(self) -> int | None:
        """The class with the highest error rate (ties: the one with more errors, then the lower class), or None."""
        misread = np.flatnonzero(self.wrong > 0)
        if not len(misread):
            return None
        return int(min(misread, key=lambda label: (-self.error_rate[label], -self.wrong[label], label)))


def class_errors(matrix: np.ndarray) -> ClassErrors:
    """Per-class error counts and rates of the (k, k) confusion matrix ``matrix`` (rows true, columns predicted)."""
    matrix = np.asarray(matrix, dtype=np.int64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"a confusion matrix is square, not {matrix.shape}")
    count = matrix.sum(axis=1)
    instead = matrix.copy()
    np.fill_diagonal(instead, 0)
    wrong = instead.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        error_rate = np.where(count > 0, wrong / np.maximum(count, 1), np.nan)
    return ClassErrors(count, wrong, error_rate, instead)
