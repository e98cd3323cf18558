"""One contract for every estimator (as scikit-learn's test_naive_bayes.py runs its discrete estimators), and
agreement with scikit-learn's BernoulliNB, MultinomialNB and GaussianNB on MNIST and iris.

(The SMS collection's agreement test sits in tests/nbcore/test_spam.py, beside its fixtures.)
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
import sklearn.naive_bayes as sklearn_nb

from nbcore import BernoulliNB, ChainBayesNet, GaussianNB, MultinomialNB, NotFittedError, SoftmaxRegression, binarize
from nbcore.datasets.iris import load_iris
from nbcore.models.base import BaseNaiveBayes

N_SAMPLES = 60


def make_X(estimator: type, n: int, seed: int) -> np.ndarray:
    """Input of the kind each estimator reads, (n, n_features)."""
    rng = np.random.default_rng(seed)
    if estimator is BernoulliNB:
        return (rng.random((n, 7)) < 0.4).astype(np.uint8)
    if estimator is MultinomialNB:
        return rng.poisson(2.0, size=(n, 7))
    if estimator is ChainBayesNet:
        return (rng.random((n, 2)) < 0.5).astype(np.uint8)
    if estimator is GaussianNB:
        return rng.normal(size=(n, 4))
    return rng.random((n, 16))  # SoftmaxRegression: pixel/255 features


def make_y(n: int, labels, seed: int) -> np.ndarray:
    """``n`` labels drawn from ``labels``, each present at least twice."""
    labels = np.asarray(labels)
    drawn = np.random.default_rng(seed).choice(labels, size=n)
    drawn[: 2 * len(labels)] = np.repeat(labels, 2)
    return drawn


def new(estimator: type, **params):
    if estimator is SoftmaxRegression:
        return SoftmaxRegression("default", 0, epochs=2, batch_size=16, **params)
    return estimator(**params)


NAIVE_BAYES = [BernoulliNB, MultinomialNB, GaussianNB, ChainBayesNet]
ALL = [*NAIVE_BAYES, SoftmaxRegression]
# a change of every kind of hyperparameter: smoothing, and the prior
OTHER_PARAMS = {
    BernoulliNB: [{"alpha": 0.3, "beta": 2.0}, {"prior": "uniform"}, {"alpha": 0.0}],
    MultinomialNB: [{"alpha": 0.05}, {"prior": "uniform"}],
    GaussianNB: [{"var_smoothing": 0.2}, {"prior": "uniform"}],
    ChainBayesNet: [{"alpha": 2.0}, {"prior": "uniform"}, {"alpha": 0.0}],
}
BAD_PARAMS = {
    BernoulliNB: {"alpha": -1.0},
    MultinomialNB: {"alpha": 0.0},
    GaussianNB: {"var_smoothing": float("nan")},
    ChainBayesNet: {"alpha": "one"},
}


def count_arrays(model: BaseNaiveBayes) -> dict[str, np.ndarray]:
    return {name: getattr(model, name) for name in ("classes_", "class_count_", *model._count_names)}


# -- every estimator ------------------------------------------------------------------------------
@pytest.mark.parametrize("estimator", ALL)
@pytest.mark.parametrize("labels", [[0, 1], [3, 7, 9], ["ham", "spam"], [-2.0, 5.0, 11.0]])
def test_fit_predict_shapes_and_classes_from_y(estimator, labels):
    X, y = make_X(estimator, N_SAMPLES, 0), make_y(N_SAMPLES, labels, 1)
    model = new(estimator).fit(X, y)
    assert model.classes_.tolist() == sorted(labels)
    test_X = make_X(estimator, 9, 2)
    log_proba = model.predict_log_proba(test_X)
    assert log_proba.shape == (9, len(labels)) and log_proba.dtype == np.float64
    np.testing.assert_allclose(model.predict_proba(test_X).sum(axis=1), 1.0, atol=1e-12)
    predicted = model.predict(test_X)
    assert predicted.shape == (9,) and set(predicted.tolist()) <= set(labels)
    np.testing.assert_array_equal(predicted, model.classes_[log_proba.argmax(axis=1)])
    assert 0.0 <= model.score(X, y) <= 1.0
    if estimator is not SoftmaxRegression:
        assert model.predict_joint_log_proba(test_X).shape == (9, len(labels))


@pytest.mark.parametrize("estimator", ALL)
def test_labels_are_names_only(estimator):
    """Renaming the classes (order kept) changes nothing but the names predict returns."""
    X, y = make_X(estimator, N_SAMPLES, 0), make_y(N_SAMPLES, [0, 1, 2], 1)
    names = np.array(["apple", "banana", "cherry"])
    by_number, by_name = new(estimator).fit(X, y), new(estimator).fit(X, names[y])
    test_X = make_X(estimator, 9, 2)
    np.testing.assert_array_equal(by_name.predict_log_proba(test_X), by_number.predict_log_proba(test_X))
    np.testing.assert_array_equal(by_name.predict(test_X), names[by_number.predict(test_X)])


@pytest.mark.parametrize("estimator", ALL)
def test_bad_input_raises_value_error_with_a_sentence(estimator):
    X, y = make_X(estimator, N_SAMPLES, 0), make_y(N_SAMPLES, [0, 1], 1)
    bad_fits = [
        (X, y[:-1]),  # lengths differ
        (X, np.zeros(N_SAMPLES, dtype=int)),  # one class
        (X, np.where(y == 1, np.nan, 0.0)),  # NaN labels
        (X, y + 0.5),  # fractions: a regression target
        (X[:0], y[:0]),  # nothing
        (X[0], y[:1]),  # 1-D X
        (np.full(X.shape, np.nan), y),  # NaN features
    ]
    for bad_X, bad_y in bad_fits:
        with pytest.raises(ValueError) as caught:
            new(estimator).fit(bad_X, bad_y)
        assert len(str(caught.value).split()) >= 4, str(caught.value)  # a sentence, not a bare value
    model = new(estimator).fit(X, y)
    for method in ("predict", "predict_proba", "predict_log_proba"):
        with pytest.raises(ValueError, match="features"):
            getattr(model, method)(make_X(estimator, 3, 2)[:, :1])  # fewer features than fitted
    with pytest.raises(ValueError, match="no class for"):
        model.score(X, np.full(N_SAMPLES, 5))
    with pytest.raises(NotFittedError, match="not fitted"):
        new(estimator).predict(X)


# -- the naive Bayes family: counts are the fitted state ------------------------------------------
@pytest.mark.parametrize("estimator", NAIVE_BAYES)
def test_set_params_rederives_from_the_counts_without_refit(estimator):
    X, y = make_X(estimator, N_SAMPLES, 0), make_y(N_SAMPLES, [3, 7, 9], 1)
    kept_X, kept_y = X.copy(), y.copy()
    model = new(estimator).fit(X, y)
    X[:] = X[::-1]  # the training data changes after fit: set_params must not look at it
    test_X = make_X(estimator, 9, 2)
    for params in OTHER_PARAMS[estimator]:
        assert model.set_params(**params) is model
        fresh = new(estimator, **model.get_params()).fit(kept_X, kept_y)
        np.testing.assert_allclose(
            model.predict_joint_log_proba(test_X), fresh.predict_joint_log_proba(test_X), rtol=1e-12, atol=1e-12
        )
        np.testing.assert_array_equal(model.predict(test_X), fresh.predict(test_X))
    before = model.get_params()
    with pytest.raises(ValueError):
        model.set_params(**BAD_PARAMS[estimator])
    with pytest.raises(ValueError, match="unknown parameter"):
        model.set_params(k=1.0)  # k is the pages' label, not a parameter name
    assert model.get_params() == before


@pytest.mark.parametrize("estimator", NAIVE_BAYES)
def test_with_params_leaves_the_source_untouched_and_writable(estimator):
    X, y = make_X(estimator, N_SAMPLES, 0), make_y(N_SAMPLES, [0, 1, 2], 1)
    source = new(estimator).fit(X, y)
    test_X = make_X(estimator, 9, 2)
    params_before, proba_before = source.get_params(), source.predict_proba(test_X)
    counts_before = {name: array.copy() for name, array in count_arrays(source).items()}
    for params in OTHER_PARAMS[estimator]:
        clone = source.with_params(**params)
        assert clone is not source and clone.get_params() == {**params_before, **params}
        np.testing.assert_allclose(
            clone.predict_proba(test_X),
            new(estimator, **clone.get_params()).fit(X, y).predict_proba(test_X),
            rtol=1e-12,
            atol=1e-15,
        )
        for name, array in count_arrays(clone).items():
            assert not array.flags.writeable, f"the clone may not change the counts it shares ({name})"
    assert source.get_params() == params_before
    np.testing.assert_array_equal(source.predict_proba(test_X), proba_before)
    for name, array in count_arrays(source).items():
        assert array.flags.writeable, f"with_params made the source's {name} read-only"
        np.testing.assert_array_equal(array, counts_before[name])
    clone_proba = clone.predict_proba(test_X)
    source.partial_fit(make_X(estimator, 20, 3), make_y(20, [0, 1, 2], 4))  # the source learns more ...
    np.testing.assert_array_equal(clone.predict_proba(test_X), clone_proba)  # ... the clone does not


@pytest.mark.parametrize("estimator", NAIVE_BAYES)
def test_partial_fit_equals_one_fit_on_the_concatenation(estimator):
    X, y = make_X(estimator, 90, 0), make_y(90, [2, 4, 6], 1)
    batches = [slice(0, 7), slice(7, 40), slice(40, 90)]
    y[batches[0]] = 2  # the first batch holds one class only: the others are declared
    whole = new(estimator).fit(X, y)
    pieces = new(estimator)
    for number, rows in enumerate(batches):
        assert pieces.partial_fit(X[rows], y[rows], classes=[2, 4, 6] if number == 0 else None) is pieces
    for name, array in count_arrays(whole).items():
        np.testing.assert_allclose(getattr(pieces, name), array, rtol=1e-12, atol=1e-12, err_msg=name)
    test_X = make_X(estimator, 9, 2)
    np.testing.assert_allclose(
        pieces.predict_log_proba(test_X), whole.predict_log_proba(test_X), rtol=1e-10, atol=1e-10
    )
    with pytest.raises(ValueError, match="classes"):
        new(estimator).partial_fit(X, y)  # the first call must declare the classes
    with pytest.raises(ValueError, match="no class for"):
        pieces.partial_fit(X[:5], np.full(5, 3))
    with pytest.raises(ValueError, match="differ"):
        pieces.partial_fit(X[:5], y[:5], classes=[2, 4])


@pytest.mark.parametrize("estimator", [BernoulliNB, MultinomialNB])
def test_sparse_input_gives_the_dense_answers(estimator):
    """A bag of words arrives as a scipy sparse matrix; the counts and scores are those of the dense array."""
    X, y = make_X(estimator, N_SAMPLES, 0), make_y(N_SAMPLES, [0, 1], 1)
    test_X = make_X(estimator, 9, 2)
    dense = new(estimator).fit(X, y)
    sparse = new(estimator).fit(scipy.sparse.csr_array(X), y)
    np.testing.assert_array_equal(sparse.feature_count_, dense.feature_count_)
    np.testing.assert_allclose(
        sparse.predict_log_proba(scipy.sparse.csr_matrix(test_X)),
        dense.predict_log_proba(test_X),
        rtol=1e-12,
        atol=1e-12,
    )
    with pytest.raises(ValueError):
        new(estimator).fit(scipy.sparse.csr_array(np.where(X > 0, -1, 0)), y)  # negative: not counts, not 0/1


def test_chain_network_holds_the_base_contract():
    """ChainBayesNet(1).fit(...).set_params(...) works like every estimator's (it once raised NotImplementedError)."""
    X, y = make_X(ChainBayesNet, N_SAMPLES, 0), make_y(N_SAMPLES, [0, 1], 1)
    model = ChainBayesNet(1).fit(X, y).set_params(alpha=2)
    np.testing.assert_array_equal(model.x2_prob_, ChainBayesNet(alpha=2).fit(X, y).x2_prob_)


# -- agreement with scikit-learn, to 1e-10 in log probabilities -------------------------------------
def assert_agree(ours, theirs, test_X, their_test_X=None) -> None:
    their_test_X = test_X if their_test_X is None else their_test_X
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(test_X), theirs.predict_joint_log_proba(their_test_X), rtol=0, atol=1e-10
    )
    np.testing.assert_allclose(
        ours.predict_log_proba(test_X), theirs.predict_log_proba(their_test_X), rtol=0, atol=1e-10
    )
    np.testing.assert_array_equal(ours.predict(test_X), theirs.predict(their_test_X))


@pytest.fixture(scope="module")
def mnist_subset(mnist):
    """3,000 training and 500 test images binarized at 128 (uint8 0/1, (n, 784)), with their labels."""
    return (
        binarize(mnist["train_images"][:3000], 128),
        mnist["train_labels"][:3000],
        binarize(mnist["test_images"][:500], 128),
        mnist["test_labels"][:500],
    )


@pytest.mark.parametrize("alpha, prior", [(1.0, "empirical"), (0.01, "uniform"), (30.0, "empirical")])
def test_bernoulli_agrees_with_sklearn_on_mnist(mnist_subset, alpha, prior):
    train_X, train_y, test_X, _ = mnist_subset
    ours = BernoulliNB(alpha=alpha, prior=prior).fit(train_X, train_y)
    theirs = sklearn_nb.BernoulliNB(alpha=alpha, binarize=None, fit_prior=prior == "empirical", force_alpha=True).fit(
        train_X, train_y
    )
    assert_agree(ours, theirs, test_X)


@pytest.mark.parametrize("alpha, prior", [(1.0, "empirical"), (0.01, "uniform")])
def test_multinomial_agrees_with_sklearn_on_mnist(mnist_subset, alpha, prior):
    """Ink pixels as word counts: the multinomial model of a binarized image."""
    train_X, train_y, test_X, _ = mnist_subset
    ours = MultinomialNB(alpha=alpha, prior=prior).fit(train_X, train_y)
    theirs = sklearn_nb.MultinomialNB(alpha=alpha, fit_prior=prior == "empirical", force_alpha=True).fit(
        train_X, train_y
    )
    assert_agree(ours, theirs, test_X)


@pytest.mark.slow
def test_gaussian_agrees_with_sklearn_on_mnist(mnist):
    """Pixels / 255 as Gaussians. At the default var_smoothing log p(x, y) reaches -5e10, where float64 itself
    rounds to 1e-5: there the agreement is relative, 1e-10; at 0.1 it is absolute, 1e-10, as elsewhere."""
    train_X = mnist["train_images"][:3000].reshape(3000, -1) / 255.0
    test_X = mnist["test_images"][:500].reshape(500, -1) / 255.0
    train_y = mnist["train_labels"][:3000]
    ours = GaussianNB().fit(train_X, train_y)
    theirs = sklearn_nb.GaussianNB().fit(train_X, train_y)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(test_X), theirs.predict_joint_log_proba(test_X), rtol=1e-10, atol=0
    )
    np.testing.assert_array_equal(ours.predict(test_X), theirs.predict(test_X))
    ours.set_params(var_smoothing=0.1, prior="uniform")
    theirs = sklearn_nb.GaussianNB(var_smoothing=0.1, priors=np.full(10, 0.1)).fit(train_X, train_y)
    assert_agree(ours, theirs, test_X)


@pytest.mark.parametrize("var_smoothing, prior", [(1e-9, "empirical"), (1e-2, "uniform")])
def test_gaussian_agrees_with_sklearn_on_iris(var_smoothing, prior):
    features, labels, _ = load_iris()
    train, test = np.arange(150) % 3 != 0, np.arange(150) % 3 == 0
    ours = GaussianNB(var_smoothing=var_smoothing, prior=prior).fit(features[train], labels[train])
    theirs = sklearn_nb.GaussianNB(
        var_smoothing=var_smoothing, priors=None if prior == "empirical" else np.full(3, 1 / 3)
    )
    assert_agree(ours, theirs.fit(features[train], labels[train]), features[test])
    halves = GaussianNB(var_smoothing=var_smoothing, prior=prior)  # the same model, learned in two batches
    halves.partial_fit(features[train][::2], labels[train][::2], classes=[0, 1, 2])
    halves.partial_fit(features[train][1::2], labels[train][1::2])
    np.testing.assert_allclose(
        halves.predict_log_proba(features[test]), ours.predict_log_proba(features[test]), rtol=0, atol=1e-10
    )
