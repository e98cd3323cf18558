"""nbcore's estimators inside scikit-learn: partial_fit, clone, cross-validation, grid search, pipelines and
scikit-learn's own estimator checks. scikit-learn is a development dependency: nbcore never imports it
(``__sklearn_tags__``, which only scikit-learn calls, imports it when called)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from functools import partial

import numpy as np
import pytest
import sklearn.naive_bayes as sklearn_nb
from sklearn.base import clone
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer, MinMaxScaler
from sklearn.utils.estimator_checks import estimator_checks_generator
from sklearn.utils.validation import check_is_fitted

from nbcore import (
    BernoulliMixtureNB,
    BernoulliNB,
    ChainBayesNet,
    GaussianNB,
    MultinomialNB,
    NotFittedError,
    SoftmaxRegression,
    binarize,
)
from nbcore.datasets.mnist import MnistSplits
from nbcore.experiments.evaluate import bernoulli_learner
from nbcore.inputs import InputForm
from tests.conftest import REPO

ESTIMATORS = [BernoulliNB, MultinomialNB, GaussianNB, ChainBayesNet, SoftmaxRegression]


def small_data(estimator: type, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of the kind each estimator reads, labels among 3, 5, 8."""
    rng = np.random.default_rng(seed)
    if estimator is ChainBayesNet:
        X = (rng.random((n, 2)) < 0.5).astype(np.uint8)
    elif estimator is GaussianNB:
        X = rng.normal(size=(n, 6))
    elif estimator is SoftmaxRegression:
        X = rng.random((n, 6))  # pixel/255
    else:
        X, _ = discrete_data(estimator, n, seed)
    return X, rng.choice([3, 5, 8], size=n)


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


# -- the parameter protocol and the fitted state ----------------------------------------------------
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_clone_copies_the_parameters_as_given_and_not_the_fit(estimator):
    X, y = small_data(estimator, 40, 0)
    params = {"prior": "uniform"} if estimator is not SoftmaxRegression else {"epochs": 2, "seed": 4}
    model = estimator(**params).fit(X, y)
    copy = clone(model)
    assert type(copy) is estimator and copy is not model
    for name, value in model.get_params(deep=True).items():
        assert copy.get_params(deep=False)[name] is value, name  # the same object, as scikit-learn requires
    assert not hasattr(copy, "classes_") and not hasattr(copy, "n_features_in_")
    np.testing.assert_array_equal(copy.fit(X, y).predict_proba(X), model.predict_proba(X))
    assert repr(copy) == repr(model) and repr(estimator()) == f"{estimator.__name__}()"


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_no_fitted_attribute_before_fit_and_not_fitted_error_after_hasattr(estimator):
    model = estimator()
    assert [name for name in vars(model) if name.endswith("_")] == []
    for name in ("classes_", "n_features_in_", "class_count_", "feature_prob_", "beta_", "coef_"):
        assert not hasattr(model, name), name  # hasattr is False: nothing raises through it
    with pytest.raises(NotFittedError, match="not fitted") as caught:
        model.predict(small_data(estimator, 3, 0)[0])
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, AttributeError)
    with pytest.raises(SklearnNotFittedError):
        check_is_fitted(model)
    check_is_fitted(model.fit(*small_data(estimator, 40, 0)))


BAD_PARAMS = {
    BernoulliNB: {"alpha": -1.0},
    MultinomialNB: {"alpha": 0.0},
    GaussianNB: {"var_smoothing": float("nan")},
    ChainBayesNet: {"prior": "flat"},
    SoftmaxRegression: {"epochs": 0},
}


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_parameters_are_stored_as_given_and_checked_by_fit(estimator):
    bad = BAD_PARAMS[estimator]
    model = estimator(**bad)  # no error yet: clone and set_params must never raise for a value fit refuses
    assert model.set_params(**bad) is model and model.get_params()[next(iter(bad))] is bad[next(iter(bad))]
    with pytest.raises(ValueError, match=next(iter(bad))):
        model.fit(*small_data(estimator, 40, 0))
    assert not hasattr(model, "classes_")
    with pytest.raises(ValueError, match="unknown parameter"):
        model.set_params(smoothing=1.0)


def test_set_params_on_a_fitted_model_rederives_and_keeps_its_counts():
    """The one place nbcore goes beyond scikit-learn: a fitted model takes a new alpha from its counts."""
    X, y = discrete_data(BernoulliNB, 80, 0)
    model = BernoulliNB(alpha=1.0).fit(X, y)
    counts = model.feature_count_.copy()
    with pytest.raises(ValueError, match="alpha"):
        model.set_params(alpha=-1.0)  # checked now: a fitted model cannot hold a bad value
    assert model.alpha == 1.0
    model.set_params(alpha=0.25)
    np.testing.assert_array_equal(model.feature_count_, counts)
    np.testing.assert_array_equal(model.feature_log_prob_, BernoulliNB(alpha=0.25).fit(X, y).feature_log_prob_)


# -- threshold: scikit-learn's binarize, with nbcore's pixel >= T rule ------------------------------
def test_threshold_is_pixel_at_least_t_where_sklearn_binarize_is_greater_than_b():
    X = np.array([[0.0, 0.5, 0.7], [0.5, 0.2, 0.9], [0.6, 0.5, 0.1], [0.1, 0.9, 0.5]])
    y = np.array([0, 0, 1, 1])
    ours = BernoulliNB(threshold=0.5).fit(X, y)
    np.testing.assert_array_equal(ours.feature_count_, [[1, 1, 2], [1, 2, 1]])  # 0.5 counts as on
    np.testing.assert_array_equal(ours.feature_count_, BernoulliNB().fit(X >= 0.5, y).feature_count_)
    theirs = sklearn_nb.BernoulliNB(binarize=0.5).fit(X, y)
    np.testing.assert_array_equal(theirs.feature_count_, [[0, 0, 2], [1, 1, 0]])  # 0.5 counts as off
    # on integer pixels, threshold=T is binarize=T - 1
    pixels = np.random.default_rng(0).integers(0, 256, size=(200, 30), dtype=np.uint8)
    labels = np.arange(200) % 4
    for threshold in (1, 128, 255):
        ours = BernoulliNB(threshold=threshold).fit(pixels, labels)
        theirs = sklearn_nb.BernoulliNB(binarize=threshold - 1).fit(pixels, labels)
        np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
        np.testing.assert_allclose(ours.predict_log_proba(pixels), theirs.predict_log_proba(pixels), atol=1e-10)


def test_threshold_takes_image_stacks_and_sparse_input_and_is_fixed_by_the_counts():
    images = np.random.default_rng(1).integers(0, 256, size=(60, 4, 5), dtype=np.uint8)
    labels = np.arange(60) % 3
    model = BernoulliNB(threshold=128).fit(images, labels)
    np.testing.assert_array_equal(model.feature_count_, BernoulliNB().fit(binarize(images, 128), labels).feature_count_)
    assert model.n_features_in_ == 20
    import scipy.sparse

    sparse = BernoulliNB(threshold=128).fit(scipy.sparse.csr_matrix(images.reshape(60, -1)), labels)
    np.testing.assert_array_equal(sparse.feature_count_, model.feature_count_)
    with pytest.raises(ValueError, match="sparse"):
        BernoulliNB(threshold=0).fit(scipy.sparse.csr_matrix(images.reshape(60, -1)), labels)
    for change in (lambda: model.set_params(threshold=64), lambda: model.with_params(threshold=64)):
        with pytest.raises(ValueError, match="threshold=128"):
            change()
    assert model.threshold == 128
    assert model.with_params(alpha=0.5).threshold == 128  # re-alpha keeps the threshold the counts were made at


# -- scikit-learn's model selection and pipelines, on a slice of the real MNIST ----------------------
@pytest.fixture(scope="module")
def mnist_slice(mnist):
    """2,000 training images as raw pixel rows (uint8 (2000, 784)) and their labels."""
    return mnist["train_images"][:2000].reshape(2000, -1), mnist["train_labels"][:2000]


@pytest.mark.slow
@pytest.mark.parametrize(
    "model",
    [BernoulliNB(threshold=128), GaussianNB(var_smoothing=0.1), SoftmaxRegression(epochs=1)],
    ids=["bernoulli", "gaussian", "softmax"],
)
def test_cross_val_score_equals_a_manual_split(mnist_slice, model):
    pixels, labels = mnist_slice
    X = pixels / 255.0 if isinstance(model, GaussianNB) else pixels
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    scores = cross_val_score(model, X, labels, cv=folds)
    manual = [
        type(model)(**model.get_params()).fit(X[train], labels[train]).score(X[test], labels[test])
        for train, test in folds.split(X, labels)
    ]
    np.testing.assert_allclose(scores, manual, rtol=0, atol=1e-12)
    assert scores.min() > 0.5  # each fold learned digits


def test_grid_search_over_alpha_matches_rederiving_from_the_counts(mnist_slice):
    """GridSearchCV refits for every alpha; nbcore counts once per fold and re-derives: the same scores."""
    pixels, labels = mnist_slice
    alphas = [0.01, 0.1, 1.0, 10.0, 100.0]
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=1)
    search = GridSearchCV(BernoulliNB(threshold=128), {"alpha": alphas}, cv=folds).fit(pixels, labels)
    per_fold = []
    for train, test in folds.split(pixels, labels):
        counted = BernoulliNB(threshold=128).fit(pixels[train], labels[train])
        per_fold.append([counted.with_params(alpha=alpha).score(pixels[test], labels[test]) for alpha in alphas])
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], np.mean(per_fold, axis=0), rtol=0, atol=1e-12)
    assert search.best_params_ == {"alpha": alphas[int(np.argmax(np.mean(per_fold, axis=0)))]}
    assert isinstance(search.best_estimator_, BernoulliNB) and search.best_estimator_.threshold == 128


def test_pipeline_binarizer_then_bernoulli_is_the_threshold_parameter(mnist_slice):
    pixels, labels = mnist_slice
    train, test = slice(0, 1500), slice(1500, 2000)
    pipeline = make_pipeline(Binarizer(threshold=127), BernoulliNB()).fit(pixels[train], labels[train])
    inside = BernoulliNB(threshold=128).fit(pixels[train], labels[train])
    np.testing.assert_array_equal(pipeline.predict_proba(pixels[test]), inside.predict_proba(pixels[test]))
    pipeline.set_params(bernoullinb__alpha=0.1)  # a fitted step re-derives from its counts
    np.testing.assert_array_equal(pipeline.predict(pixels[test]), inside.with_params(alpha=0.1).predict(pixels[test]))
    scaled = make_pipeline(MinMaxScaler(clip=True), SoftmaxRegression(epochs=1)).fit(pixels[train], labels[train])
    assert scaled.score(pixels[test], labels[test]) > 0.7


@pytest.mark.slow
def test_nbcore_does_not_import_sklearn():
    code = (
        "import sys, nbcore, numpy as np\n"
        "model = nbcore.BernoulliNB(threshold=1).fit(np.eye(4), [0, 1, 0, 1])\n"
        "model.with_params(alpha=2).predict(np.eye(4)); repr(model)\n"
        "sys.exit('sklearn' in sys.modules)\n"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


# -- scikit-learn's own estimator checks ------------------------------------------------------------
NOT_SKLEARN_CLASSES = {
    "check_estimators_unfitted": "nbcore raises its own NotFittedError (a ValueError and an AttributeError, as "
    "scikit-learn's is); the check wants scikit-learn's class, which nbcore does not import",
    "check_supervised_y_2d": "a column-vector y is refused with a ValueError; scikit-learn ravels it and warns with "
    "its own DataConversionWarning, which nbcore does not import",
}
PIXELS_ONLY = (
    "SoftmaxRegression reads pixels: uint8, or floats in [0, 1] (pixel/255), so that raw float pixels are "
    "refused rather than learned badly; the check feeds other numbers"
)
TWO_BINARY_FEATURES = (
    "ChainBayesNet is the XOR exercise's network over exactly two 0/1 features; the check feeds other numbers "
    "or another number of features"
)
DOMAIN_CHECKS = {
    SoftmaxRegression: [
        "check_estimators_overwrite_params",
        "check_dont_overwrite_parameters",
        "check_estimators_fit_returns_self",
        "check_readonly_memmap_input",
        "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit",
        "check_estimators_dtypes",
        "check_pipeline_consistency",
        "check_estimators_pickle",
        "check_f_contiguous_array_estimator",
        "check_classifier_data_not_an_array",
        "check_classifiers_classes",
        "check_classifiers_train",
        "check_classifiers_regression_target",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_fit2d_1sample",
        "check_fit2d_1feature",
        "check_dict_unchanged",
        "check_fit_idempotent",
        "check_fit_check_is_fitted",
        "check_n_features_in",
        "check_fit2d_predict1d",
        "check_requires_y_none",
    ],
    ChainBayesNet: [
        "check_fit_score_takes_y",
        "check_estimators_overwrite_params",
        "check_dont_overwrite_parameters",
        "check_estimators_fit_returns_self",
        "check_readonly_memmap_input",
        "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit",
        "check_estimators_dtypes",
        "check_dtype_object",
        "check_estimators_empty_data_messages",
        "check_pipeline_consistency",
        "check_estimators_nan_inf",
        "check_estimators_pickle",
        "check_f_contiguous_array_estimator",
        "check_classifier_data_not_an_array",
        "check_classifiers_one_label",
        "check_classifiers_classes",
        "check_estimators_partial_fit_n_features",
        "check_classifiers_train",
        "check_classifiers_regression_target",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_fit2d_1sample",
        "check_fit2d_1feature",
        "check_dict_unchanged",
        "check_fit_idempotent",
        "check_fit_check_is_fitted",
        "check_n_features_in",
        "check_fit2d_predict1d",
        "check_requires_y_none",
    ],
    BernoulliMixtureNB: ["check_classifiers_classes"],
}
UNLABELED_IS_MINUS_ONE = (
    "BernoulliMixtureNB reads the label -1 as an unlabeled image (scikit-learn's semi-supervised convention, whose "
    "own LabelPropagation, LabelSpreading and SelfTrainingClassifier the check exempts by name); the check fits "
    "the labels -1 and 1, which leaves one class"
)
DOMAIN_REASON = {
    SoftmaxRegression: PIXELS_ONLY,
    ChainBayesNet: TWO_BINARY_FEATURES,
    BernoulliMixtureNB: UNLABELED_IS_MINUS_ONE,
}


def expected_failed_checks(model) -> dict[str, str]:
    """The checks that cannot apply to this model, by name, with the reason."""
    reason = DOMAIN_REASON.get(type(model))
    return {**NOT_SKLEARN_CLASSES, **{name: reason for name in DOMAIN_CHECKS.get(type(model), []) if reason}}


# Not generated at all: it runs only with SCIPY_ARRAY_API=1 set before SciPy is first imported (it skips
# otherwise), which would change SciPy for the whole test run; no nbcore model declares array API support.
NOT_RUN = {"check_array_api_input"}


def check_name(check) -> str:
    """A check's name with its keywords, e.g. check_classifiers_train(readonly_memmap=True)."""
    keywords = {}
    while isinstance(check, partial):
        keywords = {**check.keywords, **keywords}
        check = check.func
    arguments = ",".join(f"{key}={value}" for key, value in keywords.items())
    return f"{check.__name__}({arguments})" if arguments else check.__name__


def sklearn_checks() -> list:
    """(model, check) for every check scikit-learn has for these models; expected failures are strict xfails.

    One instance per estimator. BernoulliNB binarizes real features at 0.5: with threshold=None it reads 0/1
    input only, the same model after binarizing, held to scikit-learn's by tests/nbcore/test_estimators.py.
    """
    models = [
        BernoulliNB(threshold=0.5),
        MultinomialNB(),
        GaussianNB(),
        SoftmaxRegression(),
        ChainBayesNet(),
        BernoulliMixtureNB(n_components=2, threshold=0.5, random_state=0),
    ]
    checks = []
    with warnings.catch_warnings():  # scikit-learn warns that these do not inherit from its BaseEstimator
        warnings.filterwarnings("ignore", "Estimator .* does not inherit", UserWarning)
        for model in models:
            for case in estimator_checks_generator(
                model, expected_failed_checks=expected_failed_checks(model), mark="xfail", xfail_strict=True
            ):
                check = case.values[1] if hasattr(case, "values") else case[1]
                if check_name(check).split("(")[0] not in NOT_RUN:
                    checks.append(case)
    return checks


@pytest.mark.parametrize(
    "model, check",
    sklearn_checks(),
    ids=lambda value: check_name(value) if callable(value) and not hasattr(value, "fit") else repr(value),
)
def test_sklearn_estimator_checks(model, check):
    check(model)


def test_the_learning_curve_learner_reads_its_form_and_knows_every_digit(mnist_slice):
    pixels, labels = mnist_slice
    images = pixels.reshape(-1, 28, 28)
    # 30 training images need not hold every digit; the test part has them all
    splits = MnistSplits(images[:30], labels[:30], images[1000:], labels[1000:])
    accuracy = bernoulli_learner(InputForm(128), alpha=0.5)(splits, 0)
    reference = BernoulliNB(alpha=0.5).partial_fit(binarize(pixels[:30], 128), labels[:30], classes=np.arange(10))
    assert reference.classes_.tolist() == list(range(10))
    assert accuracy == reference.score(binarize(pixels[1000:], 128), labels[1000:])
    # a model binarizing inside itself, as scikit-learn's BernoulliNB does, reads the same features
    inside = BernoulliNB(alpha=0.5, threshold=128).partial_fit(images[:30], labels[:30], classes=np.arange(10))
    assert accuracy == inside.score(images[1000:], labels[1000:])
