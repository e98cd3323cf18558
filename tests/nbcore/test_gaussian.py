"""GaussianNB against scikit-learn, its fitted state, the iris helpers and the iris figures."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

from lab.figures import regions
from nbcore import GaussianNB, NotFittedError
from nbcore.datasets.iris import load_iris
from nbcore.experiments.gaussian import probability_grid
from nbcore.features import pca


@pytest.fixture(scope="module")
def iris():
    return load_iris()


def assert_matches_sklearn(X_train, y_train, X_test, var_smoothing=1e-9):
    ours = GaussianNB(var_smoothing=var_smoothing).fit(X_train, y_train)
    theirs = SklearnGaussianNB(var_smoothing=var_smoothing).fit(X_train, y_train)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    return ours


def test_iris_matches_sklearn(iris):
    features, labels, names = iris
    assert features.shape == (150, 4) and names == ("setosa", "versicolor", "virginica")
    model = assert_matches_sklearn(features, labels, features)
    assert len(model.classes_) == 3 and model.predict_proba(features).shape == (150, 3)
    assert model.score(features, labels) == pytest.approx(0.96)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_data_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    n_classes = 2 + seed
    labels = rng.permutation(np.arange(200) % n_classes)
    features = rng.normal(size=(200, 7)) * rng.uniform(0.1, 10, size=7) + labels[:, None] * 0.7
    assert_matches_sklearn(features, labels, rng.normal(size=(50, 7)) * 3, var_smoothing=10.0 ** -(seed + 3))


@pytest.mark.slow
def test_mnist_accuracy_matches_sklearn(mnist):
    train = mnist["train_images"].reshape(60000, -1) / 255.0
    test = mnist["test_images"].reshape(10000, -1) / 255.0
    model = GaussianNB().fit(train, mnist["train_labels"])
    assert model.score(test, mnist["test_labels"]) == pytest.approx(0.5558, abs=5e-5)
    reference = SklearnGaussianNB().fit(train, mnist["train_labels"])
    # log-probabilities reach -3e10 here: the tolerance is relative, with 1e-6 absolute near 0
    np.testing.assert_allclose(model.predict_log_proba(test), reference.predict_log_proba(test), rtol=1e-6, atol=1e-6)


def test_set_params_rederives_without_data(iris):
    features, labels, _ = iris
    model = GaussianNB().fit(features, labels)
    model.set_params(var_smoothing=0.1, prior="uniform")
    refit = GaussianNB(var_smoothing=0.1, prior="uniform").fit(features, labels)
    np.testing.assert_allclose(model.predict_joint_log_proba(features), refit.predict_joint_log_proba(features))
    clone = refit.with_params(var_smoothing=1e-9, prior="empirical")
    np.testing.assert_allclose(
        clone.predict_log_proba(features), GaussianNB().fit(features, labels).predict_log_proba(features)
    )
    assert refit.var_smoothing == 0.1  # the original is unchanged
    with pytest.raises(ValueError):
        clone.theta_[0, 0] = 1.0  # shared statistics are read-only


def test_uniform_prior_differs_on_unbalanced_classes():
    features = np.array([[0.0], [0.2], [0.4], [0.6], [3.0]])
    labels = np.array([0, 0, 0, 0, 1])
    empirical = GaussianNB(prior="empirical").fit(features, labels)
    uniform = GaussianNB(prior="uniform").fit(features, labels)
    np.testing.assert_allclose(np.exp(empirical.class_log_prior_), [0.8, 0.2])
    np.testing.assert_allclose(np.exp(uniform.class_log_prior_), [0.5, 0.5])


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), "big"])
def test_rejects_bad_var_smoothing(bad):
    model = GaussianNB(var_smoothing=bad)  # stored as given, checked by fit
    with pytest.raises(ValueError, match="var_smoothing"):
        model.fit(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1])


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="no samples of"):
        GaussianNB().partial_fit(np.zeros((3, 2)), [0, 2, 2], classes=[0, 1, 2]).predict(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="finite"):
        GaussianNB().fit(np.array([[np.nan, 1.0], [0.0, 1.0]]), [0, 1])
    with pytest.raises(NotFittedError, match="not fitted"):
        GaussianNB().predict(np.zeros((1, 2)))
    model = GaussianNB().fit(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((1, 3)))


def test_constant_features_stay_finite():
    model = GaussianNB().fit(np.ones((4, 2)), [0, 1, 0, 1])
    assert np.all(np.isfinite(model.predict_log_proba(np.array([[1.0, 1.0], [2.0, 0.0]]))))


def test_pca_and_grid(iris):
    features, labels, names = iris
    scores, explained = pca(features, 3)
    assert scores.shape == (150, 3) and np.all(np.diff(explained) <= 0)
    assert explained.sum() == pytest.approx(0.9948, abs=1e-4)  # iris: the first three PCs carry 99.5%
    np.testing.assert_allclose(scores.mean(axis=0), 0, atol=1e-12)
    model = GaussianNB().fit(features[:, 2:], labels)
    xs, ys, proba = probability_grid(model, (1.0, 7.0), (0.0, 2.5), resolution=40)
    assert proba.shape == (40, 40, 3) and np.allclose(proba.sum(axis=2), 1)
    corner = model.predict_proba(np.array([[xs[3], ys[5]]]))[0]
    np.testing.assert_allclose(proba[5, 3], corner)


def test_decision_region_figure_has_expected_traces(iris):
    features, labels, names = iris
    pair = features[:, 2:]
    model = GaussianNB().fit(pair, labels)
    xs, ys, proba = probability_grid(model, (0.5, 7.5), (-0.5, 3.0), resolution=50)
    figure = regions.decision_regions(
        xs, ys, proba, pair, labels, names, model.theta_, model.var_, ("petal length", "petal width"), "title"
    )
    kinds = [trace.type for trace in figure.data]
    assert kinds.count("heatmap") == 1 and kinds.count("contour") == 3
    contours = [trace for trace in figure.data if trace.type == "contour"]
    assert all(trace.contours.start == trace.contours.end == 0.5 for trace in contours)
    points = [trace for trace in figure.data if trace.type == "scatter" and trace.mode == "markers"]
    assert [trace.name for trace in points] == list(names)
    assert sum(len(trace.x) for trace in points) == 150
    ellipses = [trace for trace in figure.data if trace.type == "scatter" and trace.mode == "lines"]
    assert len(ellipses) == 3 * len(regions.SIGMA_LEVELS)


def test_pca_figure_has_one_trace_per_species(iris):
    features, labels, names = iris
    scores, explained = pca(features, 2)
    figure = regions.pca_scatter(scores, labels, names, explained, "title")
    assert [trace.type for trace in figure.data] == ["scatter"] * 3  # flat: a 3-D scene traps the mouse wheel
    assert [len(trace.x) for trace in figure.data] == [50, 50, 50]
    assert "PC1" in figure.layout.xaxis.title.text


def test_the_half_probability_lines_come_from_at_most_contour_points_a_side(iris):
    features, labels, names = iris
    pair = features[:, 2:]
    model = GaussianNB().fit(pair, labels)
    xs, ys, proba = probability_grid(model, (0.5, 7.5), (-0.5, 3.0))  # the page's 200 × 200
    figure = regions.decision_regions(
        xs, ys, proba, pair, labels, names, model.theta_, model.var_, ("petal length", "petal width"), "title"
    )
    (regions_map,) = [trace for trace in figure.data if trace.type == "heatmap"]
    assert np.asarray(regions_map.z).shape == (200, 200)  # the regions keep every grid point
    for label, trace in enumerate(trace for trace in figure.data if trace.type == "contour"):
        z, x, y = np.asarray(trace.z), np.asarray(trace.x), np.asarray(trace.y)
        assert z.shape == (len(y), len(x)) and max(z.shape) <= regions.CONTOUR_POINTS
        assert x[-1] >= xs[-1] - 3 * (xs[1] - xs[0]) and y[-1] >= ys[-1] - 3 * (ys[1] - ys[0])  # to the edges
        # values of the page's grid, taken as they are: the line is where the page's posterior is 0.5
        columns, rows = np.searchsorted(xs, x), np.searchsorted(ys, y)
        np.testing.assert_array_equal(z, proba[np.ix_(rows, columns)][:, :, label])
