"""nbcore's estimators inside scikit-learn: partial_fit, clone, cross-validation, grid search, pipelines and
scikit-learn's own estimator checks. scikit-learn is a development dependency: nbcore never imports it."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.naive_bayes as sklearn_nb

from nbcore import BernoulliNB, MultinomialNB


def discrete_data(estimator: type, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(X, y): 0/1 features for BernoulliNB, counts for MultinomialNB, (n, 12); labels among 3, 5, 8."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 12)) < 0.35).astype(np.uint8) if estimator is BernoulliNB else rng.poisson(1.5, (n, 12))
    return X, rng.choice([3, 5, 8], size=n)


THEIRS = {
    BernoulliNB: lambda: sklearn_nb.BernoulliNB(alpha=0.5, binarize=None, force_alpha=True),
    MultinomialNB: lambda: sklearn_nb.MultinomialNB(alpha=0.5, force_alpha=True),
}


@pytest.mark.parametrize("estimator", [BernoulliNB, MultinomialNB])
def test_partial_fit_follows_sklearn_batch_by_batch(estimator):
    """classes on the first call, counts that accumulate: after every batch the model is scikit-learn's."""
    X, y = discrete_data(estimator, 120, 0)
    y[:10] = 3  # the first batch holds one class: the others are known only through classes=
    test_X, _ = discrete_data(estimator, 15, 1)
    ours, theirs = estimator(alpha=0.5), THEIRS[estimator]()
    for number, rows in enumerate([slice(0, 10), slice(10, 11), slice(11, 70), slice(70, 120)]):
        classes = [8, 3, 5] if number == 0 else None  # any order: classes_ is sorted
        assert ours.partial_fit(X[rows], y[rows], classes=classes) is ours
        theirs.partial_fit(X[rows], y[rows], classes=classes)
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)
        np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
        np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
        np.testing.assert_allclose(
            ours.predict_joint_log_proba(test_X), theirs.predict_joint_log_proba(test_X), rtol=0, atol=1e-10
        )
    # partial_fit after fit goes on counting, as scikit-learn's does
    ours.fit(X[:60], y[:60]).partial_fit(X[60:], y[60:])
    theirs.fit(X[:60], y[:60]).partial_fit(X[60:], y[60:])
    np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
    np.testing.assert_allclose(ours.predict_log_proba(test_X), theirs.predict_log_proba(test_X), rtol=0, atol=1e-10)


@pytest.mark.parametrize("estimator", [BernoulliNB, MultinomialNB])
def test_partial_fit_refuses_what_sklearn_refuses(estimator):
    X, y = discrete_data(estimator, 30, 0)
    with pytest.raises(ValueError, match="classes"):
        estimator().partial_fit(X, y)  # the first call must declare every class
    model = estimator().partial_fit(X, y, classes=[3, 5, 8])
    with pytest.raises(ValueError, match="differ"):
        model.partial_fit(X, y, classes=[3, 5, 8, 9])  # later calls may not change them
    with pytest.raises(ValueError, match="no class for"):
        model.partial_fit(X[:4], np.full(4, 9))
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[:, :5], y)
