"""BernoulliNB on small synthetic data, checked against brute-force formulas: its probabilities, set_params,
scoring and bad input. Sampling and inpainting are test_bernoulli_generation.py's, on this module's data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nbcore import BernoulliNB, NotFittedError, PackedBinary

N_CLASSES = 10
N_FEATURES = 13  # deliberately not a multiple of 8


def make_data(n: int = 300, n_features: int = N_FEATURES, seed: int = 0, missing_class: int | None = None):
    """0/1 features whose pixel probabilities depend on the class; every class present unless missing."""
    rng = np.random.default_rng(seed)
    classes = [c for c in range(N_CLASSES) if c != missing_class]
    y = rng.choice(classes, size=n, p=np.linspace(1, 2, len(classes)) / np.linspace(1, 2, len(classes)).sum())
    y[: len(classes)] = classes
    P = rng.uniform(0.05, 0.95, size=(N_CLASSES, n_features))
    P[3, 0] = 0.0  # never ink in class 3: a zero count for alpha = 0
    P[5, 1] = 1.0  # always ink in class 5: a full count for beta = 0
    X = (rng.random((n, n_features)) < P[y]).astype(np.uint8)
    return X, y


def brute_counts(X, y):
    n_c = np.zeros(N_CLASSES)
    n_cj = np.zeros((N_CLASSES, X.shape[1]))
    for xi, yi in zip(X, y):
        n_c[yi] += 1
        n_cj[yi] += xi
    return n_c, n_cj


def brute_feature_prob(X, y, alpha, beta):
    """p(x_j = 1 | c) = (n_cj + alpha) / (n_c + alpha + beta); 0.5 for a class with 0/0."""
    n_c, n_cj = brute_counts(X, y)
    p = np.empty_like(n_cj)
    for c in range(N_CLASSES):
        for j in range(X.shape[1]):
            total = n_c[c] + alpha + beta
            p[c, j] = 0.5 if total == 0 else (n_cj[c, j] + alpha) / total
    return p


def brute_log_prior(y, prior):
    if prior == "uniform":
        return [math.log(1 / N_CLASSES)] * N_CLASSES
    counts = np.bincount(y, minlength=N_CLASSES)
    return [math.log(k / len(y)) if k else -math.inf for k in counts]


def safe_log(value: float) -> float:
    return math.log(value) if value > 0 else -math.inf


def brute_jll(X_train, y_train, X, alpha, beta, prior):
    """log p(x, c) by a loop over samples, classes and pixels."""
    p = brute_feature_prob(X_train, y_train, alpha, beta)
    log_prior = brute_log_prior(y_train, prior)
    out = np.empty((len(X), N_CLASSES))
    for i, x in enumerate(X):
        for c in range(N_CLASSES):
            total = log_prior[c]
            for j, value in enumerate(x):
                total += safe_log(p[c, j]) if value == 1 else safe_log(1 - p[c, j])
            out[i, c] = total
    return out


def logsumexp(values: np.ndarray) -> np.ndarray:
    return np.logaddexp.reduce(values, axis=1)


def fit_ten(model: BernoulliNB, X, y) -> BernoulliNB:
    """Fit with all ten classes declared, also those ``y`` lacks (they get no examples)."""
    return model.partial_fit(X, y, classes=np.arange(N_CLASSES))


@pytest.fixture
def data():
    return make_data()


@pytest.fixture
def unseen_X():
    return (np.random.default_rng(99).random((40, N_FEATURES)) < 0.5).astype(np.uint8)


# -- the fitted probabilities ---------------------------------------------------------------
@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (2.0, 0.0), (0.0, 0.0), (3, 7)])
def test_feature_log_prob_is_the_formula(data, alpha, beta):
    X, y = data
    model = BernoulliNB(alpha=alpha, beta=beta).fit(X, y)
    n_c, n_cj = brute_counts(X, y)
    np.testing.assert_array_equal(model.class_count_, n_c)
    np.testing.assert_array_equal(model.feature_count_, n_cj)
    with np.errstate(divide="ignore"):
        expected = np.log((n_cj + alpha) / (n_c[:, None] + alpha + beta))
        expected_neg = np.log((n_c[:, None] - n_cj + beta) / (n_c[:, None] + alpha + beta))
    np.testing.assert_allclose(model.feature_log_prob_, expected, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(model.feature_log_neg_prob_, expected_neg, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(model.feature_prob_, brute_feature_prob(X, y, alpha, beta), rtol=1e-14)
    assert model.n_features_in_ == N_FEATURES


def test_beta_none_means_beta_equals_alpha(data):
    X, y = data
    implicit = BernoulliNB(alpha=0.7).fit(X, y)
    explicit = BernoulliNB(alpha=0.7, beta=0.7).fit(X, y)
    assert implicit.beta is None and implicit.beta_ == 0.7
    np.testing.assert_array_equal(implicit.feature_log_prob_, explicit.feature_log_prob_)
    np.testing.assert_array_equal(implicit.feature_log_neg_prob_, explicit.feature_log_neg_prob_)
    implicit.set_params(alpha=2.5)  # beta follows alpha while it is None
    assert implicit.beta_ == 2.5
    np.testing.assert_array_equal(
        implicit.feature_log_prob_, BernoulliNB(alpha=2.5, beta=2.5).fit(X, y).feature_log_prob_
    )


def test_default_parameters(data):
    model = BernoulliNB()
    assert model.get_params() == {"alpha": 1.0, "beta": None, "prior": "empirical", "threshold": None}
    assert not hasattr(model, "beta_")  # a fitted attribute: the beta in use
    assert model.fit(*data).beta_ == 1.0


def test_priors(data, unseen_X):
    X, y = data
    empirical = BernoulliNB(prior="empirical").fit(X, y)
    uniform = BernoulliNB(prior="uniform").fit(X, y)
    counts = np.bincount(y, minlength=N_CLASSES)
    np.testing.assert_allclose(empirical.class_log_prior_, np.log(counts / counts.sum()), rtol=1e-14)
    np.testing.assert_allclose(uniform.class_log_prior_, np.full(N_CLASSES, np.log(0.1)), rtol=1e-14)
    # the prior only shifts each class's score
    difference = empirical.predict_joint_log_proba(unseen_X) - uniform.predict_joint_log_proba(unseen_X)
    np.testing.assert_allclose(
        difference, np.broadcast_to(np.log(counts / counts.sum()) - np.log(0.1), difference.shape), atol=1e-12
    )


# -- set_params ----------------------------------------------------------------------------
def test_set_params_rederives_from_counts_without_the_data(unseen_X):
    X, y = make_data(seed=3)
    kept_X, kept_y = X.copy(), y.copy()
    model = BernoulliNB(alpha=1.0).fit(X, y)
    counts_before = (model.class_count_.copy(), model.feature_count_.copy())
    X[:] = 1 - X  # the training arrays are mutated, then dropped
    y[:] = 0
    del X, y
    for params in ({"alpha": 0.25}, {"alpha": 3.0, "beta": 0.5}, {"prior": "uniform"}, {"alpha": 0.0, "beta": 0.0}):
        returned = model.set_params(**params)
        assert returned is model
        fresh = BernoulliNB(**model.get_params()).fit(kept_X, kept_y)
        np.testing.assert_array_equal(model.class_count_, counts_before[0])
        np.testing.assert_array_equal(model.feature_count_, counts_before[1])
        np.testing.assert_array_equal(model.feature_log_prob_, fresh.feature_log_prob_)
        np.testing.assert_array_equal(model.feature_log_neg_prob_, fresh.feature_log_neg_prob_)
        np.testing.assert_array_equal(model.class_log_prior_, fresh.class_log_prior_)
        np.testing.assert_array_equal(model.predict_joint_log_proba(unseen_X), fresh.predict_joint_log_proba(unseen_X))
        np.testing.assert_array_equal(model.predict_proba(unseen_X), fresh.predict_proba(unseen_X))


def test_set_params_before_fit_only_stores(data):
    model = BernoulliNB().set_params(alpha=0.5, prior="uniform")
    assert model.get_params() == {"alpha": 0.5, "beta": None, "prior": "uniform", "threshold": None}
    assert not hasattr(model, "feature_log_prob_")


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": -1.0},
        {"alpha": float("nan")},
        {"alpha": float("inf")},
        {"alpha": "1"},
        {"alpha": None},
        {"beta": -0.1},
        {"beta": float("nan")},
        {"alpha": 2.0, "beta": -1.0},  # one good value does not sneak through
        {"prior": "flat"},
        {"alpha": 2.0, "smoothing": 1.0},
        {"threshold": 128},  # the counts are of the features at the fitted threshold (None)
    ],
)
def test_set_params_invalid_raises_and_leaves_model_unchanged(data, unseen_X, params):
    X, y = data
    model = BernoulliNB(alpha=0.5, beta=1.5, prior="uniform").fit(X, y)
    before = {
        "params": model.get_params(),
        "flp": model.feature_log_prob_.copy(),
        "prior": model.class_log_prior_.copy(),
        "proba": model.predict_proba(unseen_X),
    }
    with pytest.raises(ValueError):
        model.set_params(**params)
    assert model.get_params() == before["params"]
    np.testing.assert_array_equal(model.feature_log_prob_, before["flp"])
    np.testing.assert_array_equal(model.class_log_prior_, before["prior"])
    np.testing.assert_array_equal(model.predict_proba(unseen_X), before["proba"])


@pytest.mark.parametrize(
    "params",
    [{"alpha": -1}, {"beta": -2}, {"prior": "bayes"}, {"alpha": float("nan")}, {"threshold": float("inf")}],
)
def test_fit_rejects_invalid_params_the_constructor_stored(data, params):
    model = BernoulliNB(**params)  # scikit-learn's contract: stored as given, checked by fit
    assert model.get_params()[next(iter(params))] is params[next(iter(params))]
    for fit in (lambda: model.fit(*data), lambda: model.partial_fit(*data, classes=np.arange(N_CLASSES))):
        with pytest.raises(ValueError, match=next(iter(params))):
            fit()
        assert not hasattr(model, "classes_")


# -- scoring ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "alpha, beta, prior",
    [
        (1.0, None, "empirical"),
        (0.3, 2.0, "uniform"),
        (0.0, 1.0, "empirical"),
        (1.0, 0.0, "uniform"),
        (0.0, 0.0, "empirical"),
    ],
)
def test_predict_joint_log_proba_equals_brute_force(data, unseen_X, alpha, beta, prior):
    X, y = data
    model = BernoulliNB(alpha=alpha, beta=beta, prior=prior).fit(X, y)
    beta_ = alpha if beta is None else beta
    expected = brute_jll(X, y, unseen_X, alpha, beta_, prior)
    got = model.predict_joint_log_proba(unseen_X)
    assert got.shape == (len(unseen_X), N_CLASSES) and got.dtype == np.float64
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-10)
    # training samples too, and the packed input gives the same numbers
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), brute_jll(X, y, X, alpha, beta_, prior), rtol=1e-12, atol=1e-10
    )
    np.testing.assert_array_equal(model.predict_joint_log_proba(PackedBinary.from_dense(unseen_X)), got)


@pytest.mark.parametrize("alpha, beta", [(1.0, None), (0.1, 3.0), (0.0, 1.0), (0.0, 0.0)])
def test_posterior_is_normalised(data, unseen_X, alpha, beta):
    X, y = data
    model = BernoulliNB(alpha=alpha, beta=beta).fit(X, y)
    for features in (unseen_X, X):
        log_proba = model.predict_log_proba(features)
        proba = model.predict_proba(features)
        assert not np.isnan(log_proba).any() and not np.isnan(proba).any()
        np.testing.assert_allclose(logsumexp(log_proba), 0.0, atol=1e-12)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_array_equal(model.predict(features), log_proba.argmax(axis=1))


def test_posterior_is_jll_normalised_and_predict_is_argmax(data, unseen_X):
    X, y = data
    model = BernoulliNB(alpha=1.0).fit(X, y)
    jll = model.predict_joint_log_proba(unseen_X)
    np.testing.assert_allclose(model.predict_log_proba(unseen_X), jll - logsumexp(jll)[:, None], atol=1e-12)
    predicted = model.predict(unseen_X)
    assert predicted.dtype == np.int64
    np.testing.assert_array_equal(predicted, jll.argmax(axis=1))
    assert model.score(X, y) == pytest.approx(np.mean(model.predict(X) == y))


def test_alpha_zero_unseen_pixel_makes_class_impossible(data):
    X, y = data
    model = BernoulliNB(alpha=0.0, beta=1.0).fit(X, y)
    assert model.feature_count_[3, 0] == 0  # class 3 never has pixel 0 on
    x = X[y == 3][:1].copy()
    x[0, 0] = 1
    jll = model.predict_joint_log_proba(x)
    assert np.isneginf(jll[0, 3])
    log_proba = model.predict_log_proba(x)
    proba = model.predict_proba(x)
    assert not np.isnan(log_proba).any() and not np.isnan(proba).any()
    assert proba[0, 3] == 0.0 and np.isneginf(log_proba[0, 3])
    assert model.predict(x)[0] != 3
    assert 0 <= model.predict(x)[0] < N_CLASSES


# Hand-made: classes 0 and 1 only, 4 pixels.
#   class 0: [1,0,1,0], [1,1,0,0] -> p = [1, .5, .5, 0]
#   class 1: [0,0,1,1], [0,0,1,1] -> p = [0, 0, 1, 1]
HAND_X = np.array([[1, 0, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]], dtype=np.uint8)
HAND_Y = np.array([0, 0, 1, 1])


def test_every_class_impossible_fewest_impossible_features_win():
    model = fit_ten(BernoulliNB(alpha=0.0), HAND_X, HAND_Y)
    # x = [1,1,1,1]: class 0 has 1 impossible pixel (3), class 1 has 2 (0, 1) but a better rest
    x = np.array([[1, 1, 1, 1]])
    assert np.isneginf(model.predict_joint_log_proba(x)).all()
    proba = model.predict_proba(x)
    np.testing.assert_allclose(proba[0], np.eye(N_CLASSES)[0], atol=0)
    assert model.predict(x)[0] == 0
    assert not np.isnan(model.predict_log_proba(x)).any()


def test_every_class_impossible_ties_ranked_by_likelihood():
    model = fit_ten(BernoulliNB(alpha=0.0), HAND_X, HAND_Y)
    # x = [1,0,1,1]: one impossible pixel each. Rest: class 0 .5*.5, class 1 1*1*1; equal priors.
    x = np.array([[1, 0, 1, 1]])
    assert np.isneginf(model.predict_joint_log_proba(x)).all()
    proba = model.predict_proba(x)[0]
    np.testing.assert_allclose(proba[:2], [0.2, 0.8], rtol=1e-12)
    assert (proba[2:] == 0).all()
    assert model.predict(x)[0] == 1
    np.testing.assert_allclose(model.predict_log_proba(x)[0, :2], np.log([0.2, 0.8]), rtol=1e-12)


def test_fallback_is_the_vanishing_pseudo_count_limit():
    xs = np.array([[1, 1, 1, 1], [1, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 0]])
    exact = BernoulliNB(alpha=0.0).fit(HAND_X, HAND_Y).predict_proba(xs)
    nearly = BernoulliNB(alpha=1e-9).fit(HAND_X, HAND_Y).predict_proba(xs)
    np.testing.assert_allclose(exact, nearly, atol=1e-6)


def test_class_without_examples(unseen_X):
    X, y = make_data(missing_class=7)
    model = fit_ten(BernoulliNB(alpha=1.0), X, y)
    assert model.class_count_[7] == 0 and np.isneginf(model.class_log_prior_[7])
    np.testing.assert_allclose(model.feature_prob_[7], 0.5)
    for features in (X, unseen_X, 1 - unseen_X):
        assert (model.predict(features) != 7).all()
        assert (model.predict_proba(features)[:, 7] == 0).all()
    # alpha = beta = 0: 0/0 for the empty class is defined as 0.5, nothing is NaN
    for prior in ("empirical", "uniform"):
        model = fit_ten(BernoulliNB(alpha=0.0, beta=0.0, prior=prior), X, y)
        np.testing.assert_allclose(model.feature_prob_[7], 0.5)
        for array in (
            model.feature_log_prob_,
            model.feature_log_neg_prob_,
            model.class_log_prior_,
            model.predict_joint_log_proba(unseen_X),
            model.predict_log_proba(unseen_X),
            model.predict_proba(unseen_X),
        ):
            assert not np.isnan(array).any()
        if prior == "empirical":
            assert (model.predict(np.vstack([X, unseen_X])) != 7).all()


# -- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "X, y",
    [
        (np.zeros(5, dtype=np.uint8), np.zeros(5, dtype=int)),  # 1-D X
        (np.zeros((5, 2, 2), dtype=np.uint8), np.zeros(5, dtype=int)),  # 3-D X
        (np.zeros((5, 3), dtype=np.uint8), np.zeros(4, dtype=int)),  # y too short
        (np.zeros((5, 3), dtype=np.uint8), np.zeros((5, 1), dtype=int)),  # y 2-D
        (np.full((5, 3), 2), np.zeros(5, dtype=int)),  # not binary
        (np.full((5, 3), 0.5), np.zeros(5, dtype=int)),
        (np.array([[0.0, np.nan, 1.0]] * 5), np.zeros(5, dtype=int)),  # NaN
        (np.zeros((5, 3), dtype=np.uint8), np.zeros(5, dtype=int)),  # one class: nothing to tell apart
        (np.zeros((5, 3), dtype=np.uint8), np.array([0, 1, 2, 3, np.inf])),  # infinite label
        (np.zeros((5, 3), dtype=np.uint8), np.array([0, 1, 2, 3, 1.5])),  # fraction
        (np.zeros((5, 3), dtype=np.uint8), np.array([0, 1, 2, 3, np.nan])),
        (np.zeros((5, 3), dtype=np.uint8), np.array([0, "1", None, 3, 4], dtype=object)),  # mixed objects
        (np.zeros((0, 3), dtype=np.uint8), np.zeros(0, dtype=int)),  # nothing to fit
    ],
)
def test_fit_rejects_bad_input(X, y):
    with pytest.raises(ValueError):
        BernoulliNB().fit(X, y)


def test_whole_number_float_labels_are_accepted(data):
    X, y = data
    a = BernoulliNB().fit(X, y)
    b = BernoulliNB().fit(X, y.astype(np.float64))
    np.testing.assert_array_equal(a.feature_count_, b.feature_count_)


@pytest.mark.parametrize("method", ["predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"])
def test_predict_rejects_bad_input(data, method):
    X, y = data
    model = BernoulliNB().fit(X, y)
    for bad in (
        np.zeros((2, N_FEATURES + 1)),
        np.zeros((2, N_FEATURES - 1)),
        np.zeros(N_FEATURES),
        np.full((2, N_FEATURES), 2),
        np.full((2, N_FEATURES), np.nan),
    ):
        with pytest.raises(ValueError):
            getattr(model, method)(bad)


def test_score_rejects_bad_labels(data):
    X, y = data
    model = BernoulliNB().fit(X, y)
    with pytest.raises(ValueError):
        model.score(X, y[:-1])
    with pytest.raises(ValueError):
        model.score(X, np.full(len(y), 11))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.predict(np.zeros((1, 3))),
        lambda m: m.predict_proba(np.zeros((1, 3))),
        lambda m: m.predict_log_proba(np.zeros((1, 3))),
        lambda m: m.predict_joint_log_proba(np.zeros((1, 3))),
        lambda m: m.score(np.zeros((1, 3)), [0]),
        lambda m: m.sample(1, 0),
        lambda m: m.inpaint(np.zeros(3), np.ones(3, dtype=bool)),
        lambda m: m.feature_prob_,
    ],
)
def test_unfitted_model_says_so(call):
    with pytest.raises(NotFittedError, match="not fitted") as caught:
        call(BernoulliNB())
    assert isinstance(caught.value, AttributeError) and isinstance(caught.value, ValueError)
