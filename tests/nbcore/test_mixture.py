"""BernoulliMixtureNB, naive Bayes whose every class is a mixture of Bernoulli styles fitted by EM.

One style and no unlabeled image is BernoulliNB exactly (MNIST, the SMS collection's words); EM never lowers
the objective it records, and that objective is the documented one; unlabeled images (label -1) at weight 0
change nothing; the fit depends neither on the rows' order nor on anything but random_state; the scorers hold
their definitions. Sampling and inpainting are test_mixture_generation.py's, parameters and bad input
test_mixture_params.py's; both take this module's data and fitted mixtures.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from scipy.special import logsumexp

from nbcore import BernoulliMixtureNB, BernoulliNB, PackedBinary, binarize
from nbcore.datasets.mnist import MnistSplits
from nbcore.experiments import mixture as mixture_experiments
from nbcore.experiments import spam
from tests.nbcore import test_estimators, test_spam

# the fixtures of the modules that own the data: 3,000 / 500 MNIST images binarized at 128, the SMS collection
mnist_subset = test_estimators.mnist_subset
sms_path, sms = test_spam.sms_path, test_spam.sms

UNLABELED = -1
# EM's products are float32: near a maximum its objective moves by noise of about 1e-9 of its size
OBJECTIVE_NOISE = 1e-8


def binary_data(n: int, n_features: int, seed: int, labels=(0, 1, 2)) -> tuple[np.ndarray, np.ndarray]:
    """(X, y): uint8 0/1 features (n, n_features), labels drawn from ``labels``, each present twice or more."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, n_features)) < rng.uniform(0.1, 0.6, n_features)).astype(np.uint8)
    y = rng.choice(np.asarray(labels), size=n)
    y[: 2 * len(labels)] = np.repeat(labels, 2)
    return X, y


def hide_labels(y: np.ndarray, kept: int) -> np.ndarray:
    """int64 labels with all but the first ``kept`` set to -1 (unlabeled)."""
    hidden = np.asarray(y, dtype=np.int64).copy()
    hidden[kept:] = UNLABELED
    return hidden


def objective(model: BernoulliMixtureNB, X, y, weight: float) -> float:
    """The documented EM objective of the model's current parameters, from its float64 scorers: log p(x, y) of the
    labelled images plus ``weight`` times log p(x) of the unlabeled ones plus the log prior density (Beta(alpha,
    beta) smoothing, one pseudo-image per style), over the weighted number of images."""
    unlabeled = y == UNLABELED
    joint = model.predict_joint_log_proba(X[~unlabeled])
    column = np.searchsorted(model.classes_, y[~unlabeled])
    total = joint[np.arange(len(column)), column].sum()
    if unlabeled.any():
        total += weight * model.score_samples(X[unlabeled]).sum()
    log_prior = (
        model.alpha * model.feature_log_prob_.sum()
        + model.beta_ * model.feature_log_neg_prob_.sum()
        + np.log(model.component_weights_).sum()
    )
    return float((total + log_prior) / ((~unlabeled).sum() + weight * unlabeled.sum()))


def assert_is_bernoulli(mixture: BernoulliMixtureNB, bernoulli: BernoulliNB, test_X, mixture_test_X=None) -> None:
    """The one-style mixture's parameters and every score are BernoulliNB's: to 1e-10, the same predictions.
    ``mixture_test_X``: the same images as the mixture reads them (raw pixels when it binarizes them itself)."""
    mixture_test_X = test_X if mixture_test_X is None else mixture_test_X
    np.testing.assert_array_equal(mixture.classes_, bernoulli.classes_)
    assert mixture.feature_log_prob_.shape[1] == 1
    np.testing.assert_array_equal(mixture.component_weights_, 1.0)
    np.testing.assert_allclose(mixture.feature_log_prob_[:, 0], bernoulli.feature_log_prob_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(mixture.feature_log_neg_prob_[:, 0], bernoulli.feature_log_neg_prob_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(mixture.class_log_prior_, bernoulli.class_log_prior_, rtol=0, atol=1e-12)
    for method in ("predict_joint_log_proba", "predict_proba", "predict_log_proba"):
        np.testing.assert_allclose(
            getattr(mixture, method)(mixture_test_X),
            getattr(bernoulli, method)(test_X),
            rtol=0,
            atol=1e-10,
            err_msg=method,
        )
    np.testing.assert_array_equal(mixture.predict(mixture_test_X), bernoulli.predict(test_X))


ONE_STYLE_PARAMS = [{"alpha": 1.0}, {"alpha": 0.5, "beta": 2.0, "prior": "uniform"}]


@pytest.fixture(scope="module")
def three_styles(mnist_subset):
    """K = 3 fitted on the 3,000 labelled images of ``mnist_subset``."""
    train_X, train_y, _, _ = mnist_subset
    return BernoulliMixtureNB(n_components=3, random_state=0).fit(train_X, train_y)


@pytest.fixture(scope="module")
def two_styles():
    """(model, X, y): class 0 drawn from two opposite styles (the first half of the features on, or the second),
    30 % and 70 %; class 1 from one style; K = 2, fitted."""
    rng = np.random.default_rng(0)
    half = np.r_[np.ones(20), np.zeros(20)]
    first = rng.random(200) < 0.3
    means = np.where(first[:, None], half, 1 - half)
    means[-40:] = 0.5
    X = (rng.random((200, 40)) < np.clip(means, 0.05, 0.95)).astype(np.uint8)
    y = np.r_[np.zeros(160, dtype=int), np.ones(40, dtype=int)]
    return BernoulliMixtureNB(n_components=2, random_state=0).fit(X, y), X, y


# -- one style, labelled images only: BernoulliNB ---------------------------------------------------------
@pytest.mark.parametrize("params", ONE_STYLE_PARAMS, ids=["alpha=1", "alpha=0.5,beta=2,uniform"])
def test_one_style_is_bernoulli_nb_on_mnist_subset(mnist_subset, params):
    train_X, train_y, test_X, _ = mnist_subset
    mixture = BernoulliMixtureNB(n_components=1, random_state=0, **params).fit(train_X, train_y)
    bernoulli = BernoulliNB(**params).fit(train_X, train_y)
    assert_is_bernoulli(mixture, bernoulli, test_X)
    np.testing.assert_array_equal(mixture.feature_count_[:, 0], bernoulli.feature_count_)
    np.testing.assert_allclose(mixture.class_feature_prob_, bernoulli.feature_prob_, rtol=0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("params", ONE_STYLE_PARAMS, ids=["alpha=1", "alpha=0.5,beta=2,uniform"])
def test_one_style_is_bernoulli_nb_on_all_of_mnist(mnist, params):
    """60,000 / 10,000 images; the mixture binarizes the raw images itself (threshold=128, pixel >= 128)."""
    mixture = BernoulliMixtureNB(n_components=1, threshold=128, random_state=0, **params)
    mixture.fit(mnist["train_images"], mnist["train_labels"])
    bernoulli = BernoulliNB(**params).fit(binarize(mnist["train_images"], 128), mnist["train_labels"])
    assert mixture.n_features_in_ == 784
    assert_is_bernoulli(mixture, bernoulli, binarize(mnist["test_images"], 128), mnist["test_images"])


@pytest.mark.parametrize("alpha", [0.3, 1.0])
def test_one_style_is_bernoulli_nb_on_the_sms_words(sms, alpha):
    """The spam filter's binary bag of words, as a scipy sparse matrix, for fitting and for scoring."""
    texts, labels = sms
    vocabulary, bernoulli = spam.fit_text_model(list(texts[:4000]), labels[:4000], "bernoulli", alpha=alpha)
    train_words = spam.word_matrix(vocabulary, bernoulli, list(texts[:4000]))
    test_words = spam.word_matrix(vocabulary, bernoulli, list(texts[4000:]))
    assert scipy.sparse.issparse(train_words) and train_words.max() == 1
    mixture = BernoulliMixtureNB(n_components=1, alpha=alpha, random_state=0).fit(train_words, labels[:4000])
    assert_is_bernoulli(mixture, bernoulli, test_words)


# -- EM's record -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "unlabeled_weight",
    [None, pytest.param(1.0, marks=pytest.mark.slow), 0.1],
    ids=["labelled", "unlabeled-1", "unlabeled-0.1"],
)
def test_em_never_lowers_its_objective_and_stops_below_tol(mnist_subset, unlabeled_weight):
    """K = 3 on 3,000 images (or 300 labelled and 2,700 unlabeled): the objective rises (to float32 noise)
    until it moves by less than tol, where EM stops; the record's fields agree with one another."""
    train_X, train_y, _, _ = mnist_subset
    y = train_y if unlabeled_weight is None else hide_labels(train_y, 300)
    weight = 1.0 if unlabeled_weight is None else unlabeled_weight
    model = BernoulliMixtureNB(n_components=3, unlabeled_weight=weight, tol=1e-4, random_state=0).fit(train_X, y)
    bounds = np.array(model.lower_bounds_)
    rises = np.diff(bounds)
    assert np.all(rises >= -OBJECTIVE_NOISE * np.abs(bounds[1:])), rises.min()
    assert rises.sum() > 1.0  # EM did climb, from its starting styles
    assert model.lower_bound_ == model.lower_bounds_[-1]
    assert model.n_iter_ == len(model.lower_bounds_) < model.max_iter
    assert model.converged_ is True
    assert abs(rises[-1]) < model.tol and np.all(np.abs(rises[:-1]) >= model.tol)


def test_em_stopped_by_max_iter_is_not_converged(mnist_subset):
    train_X, train_y, _, _ = mnist_subset
    model = BernoulliMixtureNB(n_components=3, max_iter=2, random_state=0).fit(train_X[:1000], train_y[:1000])
    assert model.n_iter_ == 2 == len(model.lower_bounds_)
    assert model.converged_ is False and model.lower_bound_ == model.lower_bounds_[-1]


@pytest.mark.parametrize("unlabeled_weight", [None, 0.5], ids=["labelled", "unlabeled-0.5"])
def test_each_recorded_objective_is_the_documented_one_of_the_previous_parameters(mnist_subset, unlabeled_weight):
    """lower_bounds_[i] is measured in iteration i + 1's E-step, on the parameters iteration i's M-step left:
    held against the model's own float64 scorers (EM scores in float32: agreement to 1e-6)."""
    train_X, train_y, _, _ = mnist_subset
    X = train_X[:1500]
    y = train_y[:1500].astype(np.int64) if unlabeled_weight is None else hide_labels(train_y[:1500], 500)
    weight = 1.0 if unlabeled_weight is None else unlabeled_weight
    model = BernoulliMixtureNB(n_components=2, alpha=0.5, unlabeled_weight=weight, max_iter=6, tol=0, random_state=3)
    measured = [objective(model, X, y, weight) for _ in model.fit_steps(X, y)]
    assert len(measured) == 6
    np.testing.assert_allclose(model.lower_bounds_[1:], measured[:-1], rtol=1e-6)


# -- unlabeled images -------------------------------------------------------------------------------------
def test_unlabeled_weight_zero_is_the_fit_on_the_labelled_images_alone(mnist_subset):
    train_X, train_y, _, _ = mnist_subset
    y = hide_labels(train_y, 1000)
    ignoring = BernoulliMixtureNB(n_components=3, unlabeled_weight=0.0, random_state=0).fit(train_X, y)
    alone = BernoulliMixtureNB(n_components=3, random_state=0).fit(train_X[:1000], train_y[:1000])
    for name in ("classes_", "class_count_", "component_count_", "feature_count_", "feature_log_prob_"):
        np.testing.assert_array_equal(getattr(ignoring, name), getattr(alone, name), err_msg=name)
    np.testing.assert_array_equal(ignoring.component_weights_, alone.component_weights_)
    assert ignoring.lower_bounds_ == alone.lower_bounds_ and ignoring.n_iter_ == alone.n_iter_
    # ... and a small weight is not weight 0
    using = BernoulliMixtureNB(n_components=3, unlabeled_weight=0.01, random_state=0).fit(train_X, y)
    assert np.abs(using.feature_log_prob_ - alone.feature_log_prob_).max() > 1e-3


def test_unlabeled_images_are_soft_counts_and_not_a_class():
    """-1 marks an unlabeled image: not among classes_, counted into the classes as soft counts at its weight."""
    X, y = binary_data(120, 10, 0)
    y = y.astype(np.int64)
    y[60:] = UNLABELED
    model = BernoulliMixtureNB(n_components=2, unlabeled_weight=0.25, random_state=0).fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2]
    assert model.class_count_.sum() == pytest.approx(60 + 0.25 * 60, rel=1e-9)
    np.testing.assert_allclose(model.component_count_.sum(axis=1), model.class_count_, rtol=1e-9)
    assert np.all(model.class_count_ > np.bincount(y[:60]))  # every class took a share of the unlabeled
    float_labels = BernoulliMixtureNB(n_components=2, unlabeled_weight=0.25, random_state=0).fit(X, y.astype(float))
    np.testing.assert_array_equal(float_labels.feature_log_prob_, model.feature_log_prob_)  # -1.0 is unlabeled too


def test_string_labels_have_no_unlabeled_label():
    """Only a number -1 is unlabeled: the string "-1" is a class like the others."""
    X, y = binary_data(90, 10, 1)
    names = np.array(["-1", "ham", "spam"])[y]
    model = BernoulliMixtureNB(n_components=2, random_state=0).fit(X, names)
    assert model.classes_.tolist() == ["-1", "ham", "spam"]
    assert model.class_count_.tolist() == np.bincount(y).tolist()
    by_number = BernoulliMixtureNB(n_components=2, random_state=0).fit(X, y + 3)
    np.testing.assert_array_equal(model.predict_proba(X), by_number.predict_proba(X))
    assert set(model.predict(X).tolist()) <= {"-1", "ham", "spam"}


# -- determinism --------------------------------------------------------------------------------------------
def test_same_random_state_same_fit_and_another_state_other_styles(mnist_subset):
    train_X, train_y, test_X, _ = mnist_subset
    X, y = train_X[:1500], train_y[:1500]
    first = BernoulliMixtureNB(n_components=3, random_state=7).fit(X, y)
    again = BernoulliMixtureNB(n_components=3, random_state=7).fit(X, y)
    np.testing.assert_array_equal(again.feature_log_prob_, first.feature_log_prob_)
    np.testing.assert_array_equal(again.predict_proba(test_X), first.predict_proba(test_X))
    assert again.lower_bounds_ == first.lower_bounds_
    other = BernoulliMixtureNB(n_components=3, random_state=8).fit(X, y)
    assert np.abs(other.feature_log_prob_ - first.feature_log_prob_).max() > 0.1  # the seed picks the start


@pytest.mark.parametrize("unlabeled_weight", [None, 1.0], ids=["labelled", "unlabeled"])
def test_the_fit_does_not_depend_on_the_order_of_the_rows(mnist_subset, unlabeled_weight):
    """Rows (and their labels) permuted: the same styles in the same order, the same scores."""
    train_X, train_y, test_X, _ = mnist_subset
    X = train_X[:1500]
    y = train_y[:1500] if unlabeled_weight is None else hide_labels(train_y[:1500], 300)
    weight = 1.0 if unlabeled_weight is None else unlabeled_weight
    order = np.random.default_rng(5).permutation(len(X))
    model = BernoulliMixtureNB(n_components=3, unlabeled_weight=weight, random_state=0).fit(X, y)
    shuffled = BernoulliMixtureNB(n_components=3, unlabeled_weight=weight, random_state=0).fit(X[order], y[order])
    assert shuffled.n_iter_ == model.n_iter_
    np.testing.assert_allclose(shuffled.feature_log_prob_, model.feature_log_prob_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(shuffled.component_weights_, model.component_weights_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(shuffled.predict_proba(test_X), model.predict_proba(test_X), rtol=0, atol=1e-9)


# -- the fitted state ---------------------------------------------------------------------------------------
def test_fitted_shapes_and_style_weights(three_styles, mnist_subset):
    model = three_styles
    _, train_y, test_X, _ = mnist_subset
    assert model.classes_.tolist() == list(range(10))
    assert model.class_count_.shape == (10,) and model.class_count_.tolist() == np.bincount(train_y).tolist()
    assert model.component_count_.shape == model.component_weights_.shape == (10, 3)
    for name in ("feature_count_", "feature_log_prob_", "feature_log_neg_prob_", "feature_prob_"):
        assert getattr(model, name).shape == (10, 3, 784) and getattr(model, name).dtype == np.float64, name
    np.testing.assert_allclose(model.component_weights_.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(model.component_weights_ > 0)
    # p + (1 - p) = 1, to the float32 soft counts' 1e-9 (a feature count a hair above its style's is clipped)
    np.testing.assert_allclose(
        np.exp(model.feature_log_prob_) + np.exp(model.feature_log_neg_prob_), 1.0, rtol=0, atol=1e-8
    )
    assert model.class_feature_prob_.shape == (10, 784)
    style = model.predict_style_log_proba(test_X[:20])
    assert style.shape == (20, 10, 3)
    np.testing.assert_allclose(np.exp(style).sum(axis=(1, 2)), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(logsumexp(style, axis=2), model.predict_log_proba(test_X[:20]), rtol=0, atol=1e-10)


def test_threshold_binarizes_images_inside_the_model_and_is_fixed_by_the_fit(mnist):
    images, labels = mnist["train_images"][:600], mnist["train_labels"][:600]
    inside = BernoulliMixtureNB(n_components=2, threshold=128, random_state=0).fit(images, labels)
    outside = BernoulliMixtureNB(n_components=2, random_state=0).fit(binarize(images, 128), labels)
    np.testing.assert_array_equal(inside.feature_log_prob_, outside.feature_log_prob_)
    np.testing.assert_array_equal(
        inside.predict(mnist["test_images"][:50]), outside.predict(binarize(mnist["test_images"][:50], 128))
    )
    with pytest.raises(ValueError, match="threshold=128"):
        inside.set_params(threshold=64)


# -- scores --------------------------------------------------------------------------------------------------
def test_score_samples_is_log_p_x_and_given_y_log_p_x_given_y(three_styles, mnist_subset):
    model = three_styles
    _, _, test_X, test_y = mnist_subset
    joint = model.predict_joint_log_proba(test_X)
    np.testing.assert_allclose(model.score_samples(test_X), logsumexp(joint, axis=1), rtol=0, atol=1e-10)
    rows = np.arange(len(test_y))
    np.testing.assert_allclose(
        model.score_samples(test_X, test_y), joint[rows, test_y] - model.class_log_prior_[test_y], rtol=0, atol=1e-10
    )
    # log p(x | y) summed over the styles by hand, from the parameters
    x, digit = test_X[0], test_y[0]
    per_style = np.where(x == 1, model.feature_log_prob_[digit], model.feature_log_neg_prob_[digit]).sum(axis=1)
    by_hand = logsumexp(per_style + np.log(model.component_weights_[digit]))
    assert model.score_samples(test_X[:1], test_y[:1])[0] == pytest.approx(by_hand, rel=1e-12)
    with pytest.raises(ValueError, match="no class for"):
        model.score_samples(test_X[:2], [3, 11])


def test_packed_binary_and_sparse_input_score_like_dense(three_styles, mnist_subset):
    model = three_styles
    _, _, test_X, test_y = mnist_subset
    packed, sparse = PackedBinary.from_dense(test_X), scipy.sparse.csr_matrix(test_X)
    np.testing.assert_array_equal(packed.to_dense(), test_X)
    for method in ("predict_joint_log_proba", "predict_proba", "predict_log_proba", "score_samples"):
        dense = getattr(model, method)(test_X)
        np.testing.assert_allclose(getattr(model, method)(packed), dense, rtol=0, atol=1e-12, err_msg=method)
        np.testing.assert_allclose(getattr(model, method)(sparse), dense, rtol=0, atol=1e-10, err_msg=method)
    np.testing.assert_array_equal(model.predict(packed), model.predict(test_X))
    np.testing.assert_allclose(model.score_samples(packed, test_y), model.score_samples(test_X, test_y), atol=1e-12)
    with pytest.raises(ValueError, match="scoring only"):
        BernoulliMixtureNB(n_components=2).fit(packed, test_y)


@pytest.mark.parametrize("n_features", [1, 7, 8, 13, 784])
def test_packed_binary_to_dense_round_trips(n_features):
    X, _ = binary_data(30, n_features, n_features)
    X[0] = 0  # an empty row: no selector entry at all
    np.testing.assert_array_equal(PackedBinary.from_dense(X).to_dense(), X)


def test_sparse_training_input_is_the_dense_fit():
    X, y = binary_data(80, 12, 2)
    dense = BernoulliMixtureNB(n_components=2, random_state=0).fit(X, y)
    sparse = BernoulliMixtureNB(n_components=2, random_state=0).fit(scipy.sparse.csr_array(X), y)
    np.testing.assert_array_equal(sparse.feature_log_prob_, dense.feature_log_prob_)


# -- fit one iteration at a time ------------------------------------------------------------------------------
def test_fit_steps_yields_every_iteration_and_the_model_scores_after_each(mnist_subset):
    train_X, train_y, test_X, test_y = mnist_subset
    X, y = train_X[:1000], hide_labels(train_y[:1000], 200)
    model = BernoulliMixtureNB(n_components=2, unlabeled_weight=0.5, random_state=0)
    seen, accuracies = [], []
    for step in model.fit_steps(X, y):
        seen.append(step)
        assert len(model.lower_bounds_) == model.n_iter_ == step
        accuracies.append(model.score(test_X, test_y))
    assert seen == list(range(1, model.n_iter_ + 1)) and model.n_iter_ > 2
    assert min(accuracies) > 0.3 and accuracies[-1] > 0.5  # a digit classifier after every step
    whole = BernoulliMixtureNB(n_components=2, unlabeled_weight=0.5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.feature_log_prob_, whole.feature_log_prob_)
    assert model.lower_bounds_ == whole.lower_bounds_


def test_fit_with_unlabeled_records_accuracy_after_every_iteration(mnist):
    """nbcore.experiments.mixture runs fit_steps: one accuracy per iteration, the last the model's."""
    splits = MnistSplits(
        mnist["train_images"][:1000],
        mnist["train_labels"][:1000],
        mnist["test_images"][:200],
        mnist["test_labels"][:200],
    )
    settings = mixture_experiments.MixtureSettings(threshold=128, alpha=1.0, beta=1.0, prior="empirical")
    row = mixture_experiments.fit_with_unlabeled(settings, splits, labels_per_digit=10, unlabeled_weight=0.1, seed=0)
    assert row.n_iter == len(row.lower_bounds) == len(row.accuracy_by_iteration) >= 2
    assert row.test_accuracy == row.accuracy_by_iteration[-1] > 0.3
    assert np.all(np.diff(row.lower_bounds) >= -OBJECTIVE_NOISE * np.abs(np.array(row.lower_bounds[1:])))
