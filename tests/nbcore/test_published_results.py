"""The published figures on the real MNIST, through the library, the CLI, and scikit-learn as a peer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nbcore import BernoulliNB, binarize
from nbcore.datasets.mnist import MnistSplits
from nbcore.experiments.evaluate import evaluate_bernoulli, fit_published, mean_true_class_loglik

REPO = Path(__file__).resolve().parents[2]
TRAIN_CLASS_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]


@pytest.fixture(scope="module")
def splits(mnist) -> MnistSplits:
    return MnistSplits(mnist["train_images"], mnist["train_labels"], mnist["test_images"], mnist["test_labels"])


@pytest.fixture(scope="module")
def textbook_features(splits):
    return binarize(splits.train_images, 128), binarize(splits.test_images, 128)


def test_real_mnist_is_the_canonical_one(mnist):
    assert mnist["train_images"].shape == (60_000, 28, 28) and mnist["train_images"].dtype == np.uint8
    assert mnist["test_images"].shape == (10_000, 28, 28) and mnist["test_images"].dtype == np.uint8
    assert mnist["train_labels"].shape == (60_000,) and mnist["train_labels"].dtype == np.uint8
    assert mnist["test_labels"].shape == (10_000,) and mnist["test_labels"].dtype == np.uint8
    assert np.bincount(mnist["train_labels"], minlength=10).tolist() == TRAIN_CLASS_COUNTS


def test_textbook_threshold_128_empirical_prior_alpha_1(splits, textbook_features):
    train_features, test_features = textbook_features
    model = BernoulliNB(alpha=1.0, prior="empirical").fit(train_features, splits.train_labels)
    assert round(model.score(test_features, splits.test_labels), 4) == 0.8427
    result = evaluate_bernoulli(splits, threshold=128, prior="empirical", alpha=1.0)
    assert round(result["test_accuracy"], 4) == 0.8427
    published = fit_published(splits, "textbook")  # the class report's reference model: the same fit
    np.testing.assert_array_equal(published.feature_log_prob_, model.feature_log_prob_)
    np.testing.assert_array_equal(published.class_log_prior_, model.class_log_prior_)


@pytest.mark.slow
def test_course_note_threshold_1_uniform_prior_laplace(splits):
    train_features = binarize(splits.train_images, 1)
    test_features = binarize(splits.test_images, 1)
    model = BernoulliNB(alpha=1.0, beta=1.0, prior="uniform").fit(train_features, splits.train_labels)
    assert round(model.score(train_features, splits.train_labels), 4) == 0.8313
    assert round(model.score(test_features, splits.test_labels), 4) == 0.8415
    train_jll = model.predict_joint_log_proba(train_features)
    assert round(mean_true_class_loglik(train_jll, splits.train_labels), 2) == -192.16

    result = evaluate_bernoulli(splits, threshold=1, prior="uniform", alpha=1.0, beta=1.0)
    assert round(result["train_accuracy"], 4) == 0.8313
    assert round(result["test_accuracy"], 4) == 0.8415
    assert round(result["mean_train_loglik"], 2) == -192.16


@pytest.mark.slow
def test_cli_evaluate_json(mnist_root):
    env = {**os.environ, "NBCORE_DATA_DIR": str(mnist_root), "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbcore",
            "evaluate",
            "--threshold",
            "1",
            "--prior",
            "uniform",
            "--alpha",
            "1",
            "--beta",
            "1",
            "--json",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert {"train_accuracy", "test_accuracy", "mean_train_loglik", "fit_seconds"} <= set(result)
    assert round(result["train_accuracy"], 4) == 0.8313
    assert round(result["test_accuracy"], 4) == 0.8415
    assert round(result["mean_train_loglik"], 2) == -192.16
    assert isinstance(result["fit_seconds"], float) and 0 < result["fit_seconds"] < 600
    assert result["threshold"] == 1 and result["prior"] == "uniform"
    assert result["alpha"] == 1.0 and result["beta"] == 1.0


@pytest.mark.slow
def test_cli_reports_missing_data_without_traceback(tmp_path):
    env = {**os.environ, "NBCORE_DATA_DIR": str(tmp_path / "empty"), "PYTHONPATH": str(REPO)}
    # an empty data dir, and the download replaced by an offline failure (no network use)
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, nbcore.datasets.mnist as d\n"
            "def offline(root, name):\n"
            "    raise d.MnistDataError(f'{name} is not in {root} and could not be downloaded (offline)')\n"
            "d._download_with_torchvision = offline\n"
            "from nbcore.__main__ import main\n"
            "sys.exit(main(['evaluate', '--json']))\n",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: ") and "could not be downloaded" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert completed.stdout == ""


@pytest.mark.slow
def test_scikit_learn_agrees(splits, textbook_features):
    import sklearn.naive_bayes as sklearn_naive_bayes  # a dev dependency: missing is a failure

    train_features, test_features = textbook_features
    ours = BernoulliNB(alpha=1.0).fit(train_features, splits.train_labels)
    peer = sklearn_naive_bayes.BernoulliNB(alpha=1.0, binarize=None).fit(train_features, splits.train_labels)
    ours_log_proba = ours.predict_log_proba(test_features)
    peer_log_proba = peer.predict_log_proba(test_features)
    assert ours_log_proba.shape == peer_log_proba.shape == (10_000, 10)
    assert np.isfinite(ours_log_proba).all()
    assert np.max(np.abs(ours_log_proba - peer_log_proba)) <= 1e-8
    np.testing.assert_array_equal(ours.predict(test_features), peer.predict(test_features))
    np.testing.assert_allclose(ours.feature_log_prob_, peer.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.class_log_prior_, peer.class_log_prior_, rtol=1e-12)


@pytest.mark.slow
def test_the_threshold_parameter_gives_the_published_figures_from_raw_pixels(splits):
    """BernoulliNB(threshold=T) binarizes pixel >= T inside the model: the same counts, the same figures, and
    scikit-learn's binarize=T - 1 (its rule is pixel > b) as the peer."""
    import sklearn.naive_bayes as sklearn_naive_bayes

    train_images = splits.train_images.reshape(60_000, -1)
    test_images = splits.test_images.reshape(10_000, -1)
    textbook = BernoulliNB(alpha=1.0, threshold=128).fit(train_images, splits.train_labels)
    np.testing.assert_array_equal(
        textbook.feature_count_, BernoulliNB().fit(binarize(train_images, 128), splits.train_labels).feature_count_
    )
    assert round(textbook.score(test_images, splits.test_labels), 4) == 0.8427
    peer = sklearn_naive_bayes.BernoulliNB(alpha=1.0, binarize=127).fit(train_images, splits.train_labels)
    np.testing.assert_array_equal(textbook.predict(test_images), peer.predict(test_images))

    note = BernoulliNB(alpha=1.0, beta=1.0, prior="uniform", threshold=1).fit(splits.train_images, splits.train_labels)
    assert round(note.score(splits.train_images, splits.train_labels), 4) == 0.8313  # (n, 28, 28) is flattened
    assert round(note.score(test_images, splits.test_labels), 4) == 0.8415
    train_jll = note.predict_joint_log_proba(splits.train_images)
    assert round(mean_true_class_loglik(train_jll, splits.train_labels), 2) == -192.16
