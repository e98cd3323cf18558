"""``python -m devtools.benchmarks softmax``: our default SoftmaxRegression against scikit-learn's LogisticRegression().

Same data for both: the 60k training images as pixel/255 (float64 for
scikit-learn, as it would be given them), the 10k test images for accuracy.
scikit-learn runs with its defaults (lbfgs, C=1, max_iter=100; it warns that it
stopped before converging, and that warning is left visible). scikit-learn is a
development dependency; it is imported here only.
"""

from __future__ import annotations

import statistics
import time

from devtools.bench_report import markdown_table
from nbcore.models.softmax import SoftmaxRegression
from nbcore.prepared.mnist import mnist_splits


def run_bench_softmax(repeats: int = 3) -> dict[str, float]:
    """Fit ours ``repeats`` times (median time) and scikit-learn's once; print a markdown table.

    Returns test accuracies, fit seconds and ``speedup`` = sklearn seconds / our median seconds.
    """
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as error:
        raise SystemExit(
            "The softmax benchmark compares with scikit-learn: pip install -r requirements-dev.txt"
        ) from error
    splits = mnist_splits()
    train_features = splits.train_images.reshape(len(splits.train_images), -1) / 255.0
    test_features = splits.test_images.reshape(len(splits.test_images), -1) / 255.0

    our_seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        ours = SoftmaxRegression("default", seed=0).fit(splits.train_images, splits.train_labels)
        our_seconds.append(time.perf_counter() - started)
    started = time.perf_counter()
    theirs = LogisticRegression().fit(train_features, splits.train_labels)
    sklearn_seconds = time.perf_counter() - started

    figures = {
        "ours_test_accuracy": ours.score(splits.test_images, splits.test_labels),
        "ours_fit_seconds": statistics.median(our_seconds),
        "sklearn_test_accuracy": float(theirs.score(test_features, splits.test_labels)),
        "sklearn_fit_seconds": sklearn_seconds,
    }
    figures["speedup"] = figures["sklearn_fit_seconds"] / figures["ours_fit_seconds"]
    rows = [
        [
            f"nbcore SoftmaxRegression(preset='default'), median of {repeats} fits",
            f"{figures['ours_test_accuracy']:.4f}",
            f"{figures['ours_fit_seconds']:.2f}",
        ],
        [
            "scikit-learn LogisticRegression() (lbfgs, defaults), 1 fit",
            f"{figures['sklearn_test_accuracy']:.4f}",
            f"{figures['sklearn_fit_seconds']:.2f}",
        ],
    ]
    print(markdown_table(["model", "test accuracy", "fit seconds"], rows, right=[False, True, True]))
    print(
        f"\nscikit-learn's fit took {figures['speedup']:.1f}x as long as ours "
        f"(ours: {', '.join(f'{seconds:.2f}' for seconds in our_seconds)} s)."
    )
    return figures
