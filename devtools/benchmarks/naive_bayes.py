"""``python -m devtools.benchmarks naive-bayes``: nbcore's BernoulliNB against scikit-learn's, same data, same run.

nbcore is given its own input, the uint8 0/1 features of ``nbcore.features.binarize``. scikit-learn is
timed twice: given the same uint8 array (its ``fit`` and ``predict`` then convert it to float64 first,
which dominates its fit time) and given float64 features, as a scikit-learn user would pass them
(converted once, outside the timing). Prints medians over repeats, in milliseconds, and the ratios.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from devtools.bench_report import markdown_table
from nbcore.features import PackedBinary, binarize
from nbcore.models.bernoulli import BernoulliNB
from nbcore.prepared.mnist import mnist_splits


def median_ms(action: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``action`` over ``repeats`` runs after one warm-up, in ms."""
    action()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def run_bench(repeats: int = 7, threshold: int = 128) -> dict[str, float]:
    """Time fit (60k), predict (10k) and re-scoring after an alpha change; print a table."""
    try:
        from sklearn.naive_bayes import BernoulliNB as SklearnBernoulliNB
    except ImportError as error:
        raise SystemExit("The benchmark compares with scikit-learn: pip install -r requirements-dev.txt") from error
    splits = mnist_splits()
    train = binarize(splits.train_images, threshold)
    test = binarize(splits.test_images, threshold)
    labels = splits.train_labels
    train_float = train.astype(np.float64)  # 376 MB: what a scikit-learn user holds
    test_float = test.astype(np.float64)

    ours = BernoulliNB(alpha=1.0).fit(train, labels)
    theirs = SklearnBernoulliNB(alpha=1.0).fit(train, labels)
    agreement = float(np.max(np.abs(ours.predict_log_proba(test) - theirs.predict_log_proba(test))))
    test_packed = PackedBinary.from_dense(test)
    alphas = iter(np.linspace(0.5, 2.0, 10 * (repeats + 1)))

    def rescore() -> np.ndarray:
        return ours.set_params(alpha=next(alphas)).predict(test_packed)

    figures = {
        "fit_nbcore": median_ms(lambda: BernoulliNB(alpha=1.0).fit(train, labels), repeats),
        "fit_sklearn": median_ms(lambda: SklearnBernoulliNB(alpha=1.0).fit(train, labels), repeats),
        "fit_sklearn_float": median_ms(lambda: SklearnBernoulliNB(alpha=1.0).fit(train_float, labels), repeats),
        "predict_nbcore": median_ms(lambda: ours.predict(test), repeats),
        "predict_sklearn": median_ms(lambda: theirs.predict(test), repeats),
        "predict_sklearn_float": median_ms(lambda: theirs.predict(test_float), repeats),
        "rescore_nbcore": median_ms(rescore, repeats),
        "read_pass_floor": median_ms(lambda: np.count_nonzero(train), repeats),
    }
    ours.set_params(alpha=1.0)
    figures["rescore_sklearn"] = median_ms(
        lambda: theirs.set_params(alpha=next(alphas)).fit(train, labels).predict(test), max(1, repeats // 3)
    )
    figures["rescore_sklearn_float"] = median_ms(
        lambda: theirs.set_params(alpha=next(alphas)).fit(train_float, labels).predict(test_float), max(1, repeats // 3)
    )
    rows = [
        (f"fit, {len(train):,} images (uint8 input)", figures["fit_nbcore"], figures["fit_sklearn"]),
        (f"fit, {len(train):,} images (float64 input)", figures["fit_nbcore"], figures["fit_sklearn_float"]),
        (f"predict, {len(test):,} images (uint8 input)", figures["predict_nbcore"], figures["predict_sklearn"]),
        (f"predict, {len(test):,} images (float64 input)", figures["predict_nbcore"], figures["predict_sklearn_float"]),
        (f"change alpha + re-score {len(test):,} (uint8 input)", figures["rescore_nbcore"], figures["rescore_sklearn"]),
        (
            f"change alpha + re-score {len(test):,} (float64 input)",
            figures["rescore_nbcore"],
            figures["rescore_sklearn_float"],
        ),
    ]
    print(f"BernoulliNB on MNIST binarized at {threshold}; median of {repeats} runs, milliseconds\n")
    table = [[name, f"{ours:.1f}", f"{theirs:.1f}", f"{theirs / ours:.1f}x"] for name, ours, theirs in rows]
    print(markdown_table(["step", "nbcore", "scikit-learn", "speed-up"], table, right=[False, True, True, True]))
    print(
        "\nInput: nbcore is always given its uint8 0/1 features; scikit-learn is given the same uint8 array "
        "(converted to float64 inside its fit and predict) or float64 features (converted beforehand, untimed)."
    )
    print(
        f"Floor: one read pass over the {train.nbytes / 1e6:.0f} MB of training pixels takes "
        f"{figures['read_pass_floor']:.1f} ms; nbcore's fit is "
        f"{figures['fit_nbcore'] / figures['read_pass_floor']:.1f}x that."
    )
    print(f"max |log p(y|x) nbcore - scikit-learn| on the test set: {agreement:.2e}")
    print("(scikit-learn has no way to change alpha without refitting; its re-score column is refit + predict.)")
    return figures
