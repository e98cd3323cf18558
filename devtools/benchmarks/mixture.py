"""``python -m devtools.benchmarks mixture``: EM's cost for ``BernoulliMixtureNB`` against its floor, in one run.

The floor of an EM iteration is its matrix products alone: per digit, the E-step's block (n_c, 784) @ weights
(784, K) and the M-step's responsibilities (K, n_c) @ block, float32, with BLAS on one thread as EM runs it.
Both are timed in the same run, interleaved (an iteration's worth of EM, then the products alone), so that the
machine's load weighs on both alike; the ratio is the figure. Also the whole fit at K = 10 and 20, and what
``python -m nbcore prepare`` adds for the Beyond naive page (time and bytes), on a scratch folder.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from devtools.bench_report import load_averages, markdown_table
from nbcore.features import binarize
from nbcore.models import blas
from nbcore.models.mixture import BernoulliMixtureNB
from nbcore.prepared import mnist as prepared_mnist
from nbcore.prepared.prepare import mixture_results

ITERATION_COMPONENTS = (10, 20, 50)
FIT_COMPONENTS = (10, 20)


def iteration_seconds(train: np.ndarray, labels: np.ndarray, n_components: int, iterations: int) -> list[float]:
    """Wall time of each of the first ``iterations`` EM iterations of a fit (the start's set-up left out)."""
    model = BernoulliMixtureNB(n_components=n_components, max_iter=iterations, tol=0.0, random_state=0)
    times, started = [], None
    for _ in model.fit_steps(train, labels):
        now = time.perf_counter()
        if started is not None:
            times.append(now - started)
        started = now
    return times


def floor_seconds(blocks: list[np.ndarray], n_components: int, repeats: int) -> list[float]:
    """Wall time of one iteration's products alone, ``repeats`` times: float32, BLAS on one thread."""
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((blocks[0].shape[1], n_components)).astype(np.float32)
    responsibilities = [rng.random((n_components, len(block))).astype(np.float32) for block in blocks]
    times = []
    with blas.single_thread():
        for _ in range(repeats):
            started = time.perf_counter()
            for block, resp in zip(blocks, responsibilities):
                block @ weights
                resp @ block
            times.append(time.perf_counter() - started)
    return times


def run_bench_mixture(repeats: int = 3, iterations: int = 8, prepare: bool = True, threshold: int = 128) -> dict:
    """Print the tables; return the figures (seconds, ratios, bytes)."""
    splits = prepared_mnist.mnist_splits()
    train = binarize(splits.train_images, threshold)
    test = binarize(splits.test_images, threshold)
    labels = splits.train_labels
    blocks = [train[labels == digit].astype(np.float32) for digit in np.unique(labels)]
    figures: dict = {}
    rows = []
    for n_components in ITERATION_COMPONENTS:
        em, floor = [], []
        for _ in range(repeats):  # interleaved: EM's iterations, then the products alone as often
            em += iteration_seconds(train, labels, n_components, iterations + 1)
            floor += floor_seconds(blocks, n_components, iterations)
        em_s, floor_s = statistics.median(em), statistics.median(floor)
        figures[f"iteration_k{n_components}"] = (em_s, floor_s, em_s / floor_s)
        rows.append([str(n_components), f"{1000 * em_s:.1f}", f"{1000 * floor_s:.1f}", f"{em_s / floor_s:.2f}x"])
    print(f"EM iteration on 60,000 images, median of {repeats} x {iterations} (load {load_averages()}):")
    print(markdown_table(["K", "EM iteration, ms", "its products alone, ms", "ratio"], rows, right=(True,) * 4))

    rows = []
    for n_components in FIT_COMPONENTS:
        started = time.perf_counter()
        model = BernoulliMixtureNB(n_components=n_components, random_state=0).fit(train, labels)
        seconds = time.perf_counter() - started
        accuracy = model.score(test, splits.test_labels)
        figures[f"fit_k{n_components}"] = (seconds, model.n_iter_, accuracy)
        converged = "" if model.converged_ else " (max_iter)"
        rows.append([str(n_components), f"{seconds:.1f}", f"{model.n_iter_}{converged}", f"{accuracy:.4f}"])
    print(f"\nWhole fit, seed 0 (load {load_averages()}):")
    print(markdown_table(["K", "fit, s", "EM iterations", "test accuracy"], rows, right=(True,) * 4))

    if prepare:
        rows = []
        with tempfile.TemporaryDirectory() as folder:
            for result in mixture_results(splits):
                started = time.perf_counter()
                stored = result.get(Path(folder))
                seconds = time.perf_counter() - started
                size = stored.outcome.path.stat().st_size
                figures[result.name] = (seconds, size)
                rows.append([result.title, f"{seconds:.1f}", f"{size / 1e6:.2f}"])
        print(f"\nWhat prepare adds, on a scratch folder (load {load_averages()}):")
        print(markdown_table(["result", "time, s", "file, MB"], rows, right=(False, True, True)))
    return figures
