"""BernoulliMixtureNB's parameters and input: bad ones refused with a sentence, no partial_fit, get_params, clone
and set_params (what EM depends on refused, the prior derived again or fixed by unlabeled images), styles started
from distinct images, fewer than two labelled classes said in words."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from nbcore import BernoulliMixtureNB, BernoulliNB
from tests.nbcore.test_mixture import UNLABELED, binary_data, hide_labels

# -- parameters and input ------------------------------------------------------------------------------------
BAD_PARAMS = [
    ({"n_components": 0}, "n_components"),
    ({"n_components": 1.5}, "n_components"),
    ({"n_components": True}, "n_components"),
    ({"alpha": 0.0}, "alpha"),
    ({"beta": 0.0}, "beta"),
    ({"alpha": -1.0}, "alpha"),
    ({"max_iter": 0}, "max_iter"),
    ({"max_iter": 2.5}, "max_iter"),
    ({"tol": -1e-3}, "tol"),
    ({"unlabeled_weight": -1}, "unlabeled_weight"),
    ({"unlabeled_weight": float("nan")}, "unlabeled_weight"),
    ({"prior": "flat"}, "prior"),
    ({"threshold": float("inf")}, "threshold"),
]


@pytest.mark.parametrize("params, name", BAD_PARAMS, ids=[repr(params) for params, _ in BAD_PARAMS])
def test_bad_parameters_are_stored_and_refused_by_fit_with_a_sentence(params, name):
    X, y = binary_data(40, 6, 0)
    model = BernoulliMixtureNB(**params)  # stored as given: clone and set_params never raise
    assert model.get_params()[name] is params[name]
    with pytest.raises(ValueError, match=name) as caught:
        model.fit(X, y)
    assert len(str(caught.value).split()) >= 4, str(caught.value)
    assert not hasattr(model, "classes_")


def test_bad_input_is_refused_with_a_sentence():
    X, y = binary_data(40, 6, 0)
    labelled_once = np.where(y == 1, 1, UNLABELED)
    bad_fits = [
        (X * 2, y, "binary"),  # not 0/1
        (np.where(X == 1, 0.5, 0.0), y, "binary"),
        (X, np.full(40, UNLABELED), "2 classes"),  # nothing labelled
        (X, labelled_once, "2 classes"),  # one labelled class
        (X, y[:-1], "shape"),
    ]
    for bad_X, bad_y, message in bad_fits:
        with pytest.raises(ValueError, match=message) as caught:
            BernoulliMixtureNB(n_components=2).fit(bad_X, bad_y)
        assert len(str(caught.value).split()) >= 4, str(caught.value)
    model = BernoulliMixtureNB(n_components=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="binary"):
        model.predict(X * 2)
    before = model.feature_log_prob_.copy()
    with pytest.raises(ValueError):
        model.fit(X * 2, y)
    np.testing.assert_array_equal(model.feature_log_prob_, before)  # a refused fit keeps the old one


def test_there_is_no_partial_fit():
    """EM needs every image at once: partial_fit is absent, so scikit-learn's tools do not offer it."""
    assert not hasattr(BernoulliMixtureNB(), "partial_fit")
    assert hasattr(BernoulliNB(), "partial_fit")


def test_clone_and_get_params_round_trip():
    params = {
        "n_components": 4,
        "alpha": 0.5,
        "beta": 2.0,
        "prior": "uniform",
        "threshold": None,
        "max_iter": 30,
        "tol": 1e-5,
        "unlabeled_weight": 0.1,
        "random_state": 3,
    }
    model = BernoulliMixtureNB(**params)
    assert model.get_params() == params
    X, y = binary_data(60, 8, 0)
    model.fit(X, y)
    copy = clone(model)
    assert copy.get_params() == params and not hasattr(copy, "classes_")
    assert BernoulliMixtureNB(**copy.get_params()).get_params() == params
    np.testing.assert_array_equal(copy.fit(X, y).predict_proba(X), model.predict_proba(X))
    assert repr(BernoulliMixtureNB()) == "BernoulliMixtureNB()"
    assert repr(BernoulliMixtureNB(n_components=2)) == "BernoulliMixtureNB(n_components=2)"


REFIT_CHANGES = [
    {"n_components": 2},
    {"alpha": 0.5},
    {"beta": 3.0},
    {"threshold": 0.5},
    {"max_iter": 7},
    {"tol": 0.1},
    {"unlabeled_weight": 0.5},
    {"random_state": 1},
]


def test_set_params_refuses_what_em_depends_on_and_rederives_the_prior():
    X, y = binary_data(90, 10, 0)
    model = BernoulliMixtureNB(n_components=3, random_state=0).fit(X, y)
    proba = model.predict_proba(X)
    for change in REFIT_CHANGES:
        name = next(iter(change))
        with pytest.raises(ValueError, match=name):
            model.set_params(**change)
        assert model.get_params()[name] == BernoulliMixtureNB(n_components=3, random_state=0).get_params()[name]
    np.testing.assert_array_equal(model.predict_proba(X), proba)
    with pytest.raises(ValueError, match="alpha"):
        model.with_params(alpha=0.5)
    uniform = model.with_params(prior="uniform")  # a new model from these counts; this one is unchanged
    np.testing.assert_array_equal(model.predict_proba(X), proba)
    model.set_params(prior="uniform")
    np.testing.assert_array_equal(model.class_log_prior_, np.full(3, -np.log(3)))
    fresh = BernoulliMixtureNB(n_components=3, prior="uniform", random_state=0).fit(X, y)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), fresh.predict_joint_log_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(uniform.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    with pytest.raises(ValueError, match="prior"):
        model.set_params(prior="flat")
    assert model.prior == "uniform"


def test_the_prior_is_fixed_by_a_fit_that_counted_unlabeled_images():
    """With unlabeled images the class prior weighs their soft counts in every E-step: a new prior needs a new fit,
    so set_params and with_params refuse it; without them it is re-derived as before."""
    X, y = binary_data(120, 10, 0)
    model = BernoulliMixtureNB(n_components=2, random_state=0).fit(X, hide_labels(y, 40))
    assert model.unlabeled_count_ == 80.0
    with pytest.raises(ValueError, match="prior"):
        model.set_params(prior="uniform")
    assert model.prior == "empirical"
    with pytest.raises(ValueError, match="prior"):
        model.with_params(prior="uniform")
    with pytest.raises(ValueError, match="prior"):
        model.with_params(alpha=1.0).set_params(prior="uniform")  # the clone knows what was counted
    labelled_only = BernoulliMixtureNB(n_components=2, unlabeled_weight=0.0, random_state=0).fit(X, hide_labels(y, 40))
    assert labelled_only.unlabeled_count_ == 0.0
    labelled_only.set_params(prior="uniform")  # nothing unlabeled was counted: re-derived, no refit


def test_styles_start_from_distinct_images_so_copies_cannot_tie_two_styles():
    """A class of 30 copies of one image and 70 of its opposite: every seed separates the two styles (a start from
    two copies of one image would keep both styles at the average forever)."""
    pattern = np.array([[1] * 4 + [0] * 4, [0] * 4 + [1] * 4], dtype=np.uint8)
    X = np.vstack([np.repeat(pattern, [30, 70], axis=0), np.eye(8, dtype=np.uint8)])
    y = np.r_[np.zeros(100, dtype=int), np.ones(8, dtype=int)]
    for seed in range(6):
        styles = BernoulliMixtureNB(n_components=2, random_state=seed).fit(X, y).feature_prob_[0][:, [0, 7]]
        assert np.abs(styles[0] - styles[1]).min() > 0.9, (seed, styles)


def test_no_labelled_class_pair_is_said_in_words():
    X, y = binary_data(30, 5, 0)
    with pytest.raises(ValueError, match=r"found 0 labelled image\(s\) of 0 class\(es\).*-1 marks an unlabeled"):
        BernoulliMixtureNB(n_components=2).fit(X, np.full(30, -1))
    with pytest.raises(ValueError, match=r"found 10 labelled image\(s\) of 1 class"):
        BernoulliMixtureNB(n_components=2).fit(X, np.r_[np.zeros(10, dtype=int), np.full(20, -1)])
