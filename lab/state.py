"""The one place where the dashboard caches shared data and models, and holds the sidebar settings.

Shared by every session of the server (``st.cache_resource``, backed by ``_STORE`` so that a
client's ``clear_cache`` message cannot drop it), never mutated: the MNIST arrays (as published, and
deskewed), the binarized features and the per-(threshold, deskew) counts. A session's settings
(threshold, alpha, beta, prior, deskew) live in ``st.session_state``; a model for them is derived
from the shared counts in about a millisecond.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import streamlit as st

from lab import jobs, links, startup
import nbcore
from nbcore.datasets.iris import IRIS_FEATURES, load_iris
from nbcore.datasets.mnist import MnistSplits
from nbcore.datasets.sms import SpamDataError, load_sms
from nbcore.deskew import deskew_all
from nbcore.experiments import evaluate, spam
from nbcore.experiments.evaluate import learning_curve, mean_true_class_loglik
from nbcore.models.naive_bayes import GaussianNB

THRESHOLDS = (1, 64, 128, 192)
# alpha/beta slider stops: 0, then a log-like scale up to 100
SMOOTHING_STOPS = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0)


@dataclass(frozen=True)
class Settings:
    """Binarization threshold (pixel >= threshold is ink), Beta(alpha, beta) smoothing, class prior, and
    whether every image (training, test, drawn) is deskewed first."""

    threshold: int = 128
    alpha: float = 1.0
    beta: float = 1.0
    prior: str = "empirical"
    deskew: bool = False


TEXTBOOK = Settings()
COURSE_NOTE = Settings(threshold=1, alpha=1.0, beta=1.0, prior="uniform")
# setting name -> its sidebar widget's key, which is also its name in the link (lab/links.py)
_KEYS = {"threshold": "threshold", "alpha": "alpha", "beta": "beta", "prior": "prior", "deskew": "deskew"}


@dataclass(frozen=True)
class Features:
    """Binarized MNIST at one threshold: 0/1 uint8 (n, 784), and the test set packed for fast scoring."""

    train: np.ndarray
    test: np.ndarray
    train_packed: nbcore.PackedBinary
    test_packed: nbcore.PackedBinary


@dataclass(frozen=True)
class Evaluation:
    """A model for one Settings and what it does on MNIST."""

    model: nbcore.BernoulliNB
    test_log_proba: np.ndarray  # (10000, 10)
    test_predictions: np.ndarray  # (10000,)
    train_accuracy: float
    test_accuracy: float
    mean_train_loglik: float  # nats per image, log p(x, y_true)


# -- shared resources ------------------------------------------------------------------------
def _read_only(value, _seen: set[int] | None = None):
    """Mark every numpy array reachable from ``value`` read-only and return ``value``.

    Walks dataclass fields, dict values, tuples and lists, and the attributes of nbcore objects
    (fitted models), so that no session can change what all sessions share.
    """
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return value
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            _read_only(getattr(value, field.name), seen)
    elif isinstance(value, dict):
        for item in value.values():
            _read_only(item, seen)
    elif isinstance(value, (tuple, list)):
        for item in value:
            _read_only(item, seen)
    elif type(value).__module__.startswith("nbcore") and hasattr(value, "__dict__"):
        for item in vars(value).values():
            _read_only(item, seen)
    return value


def _shared(function):
    """For functions under ``st.cache_resource``: what they return is shared, so make its arrays read-only."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return _read_only(function(*args, **kwargs))
    return wrapper


class _ServerStore:
    """What every session shares, kept for the server's lifetime where a client's ``clear_cache`` cannot reach.

    Any visitor can send Streamlit's ``clear_cache`` message (the menu item is hidden, the message
    is not), and it empties every ``st.cache_resource`` for all sessions. The shared functions below
    sit under ``st.cache_resource`` *and* keep their results here: after a clear, the cache's miss
    calls them again and gets the same object back from this store in microseconds, so nothing is
    reloaded or retrained and no background job is started a second time. Each function keeps at
    most ``max_entries`` results (least recently used dropped first), as its cache does; both hold
    the same objects, so this costs no memory beyond what the caches held before a clear.
    """

    def __init__(self) -> None:
        self._values: dict[str, OrderedDict] = {}
        self._making: dict[tuple, threading.Lock] = {}  # one lock per (function, key): each result is made once
        self._lock = threading.Lock()

    def get(self, name: str, key: tuple, make, max_entries: int | None):
        with self._lock:
            values = self._values.setdefault(name, OrderedDict())
            making = self._making.setdefault((name, key), threading.Lock())
        with making:
            with self._lock:
                if key in values:
                    values.move_to_end(key)
                    return values[key]
            value = make()
            with self._lock:
                values[key] = value
                while max_entries is not None and len(values) > max_entries:
                    values.popitem(last=False)
                self._making.pop((name, key), None)
            return value

    def forget(self, name: str, key: tuple | None = None) -> None:
        """Drop one result of ``name`` (every result when ``key`` is None)."""
        with self._lock:
            if key is None:
                self._values.pop(name, None)
            else:
                self._values.get(name, OrderedDict()).pop(key, None)


_STORE = _ServerStore()


def _kept(max_entries: int | None = None, key=lambda *args: args):
    """Keep the decorated function's results in ``_STORE`` (place it under ``st.cache_resource``).

    ``key(*args)`` names a result (default: all arguments; leave out those the cache ignores, ``_x``).
    """
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args):
            return _STORE.get(function.__qualname__, key(*args), lambda: function(*args), max_entries)
        return wrapper
    return decorate


def forget_shared(*cached_functions) -> None:
    """Drop every result of these cached functions, from their caches and from ``_STORE``, as a restart would."""
    for function in cached_functions:
        _STORE.forget(function.__qualname__)
        function.clear()


def _finished(job_function, *args, label: str):
    """The result of the cached ``BackgroundJob`` ``job_function(*args)``; waits behind a progress bar headed ``label``.

    The bar is drawn here, outside the cached function and only while waiting, so that later runs have
    nothing to replay (``lab/jobs.py``). A job that failed leaves its cache, so the next run starts it
    again, and its exception is raised here.
    """
    job = job_function(*args)
    slot = st.empty()  # in every run, so that what follows keeps its place (a canvas that moved would be re-made)
    if not job.future.done():
        slot.progress(0.0, text=f"{label}…")
        job.wait(lambda fraction, message: slot.progress(min(max(fraction, 0.0), 1.0), text=f"{label}: {message}"))
        slot.empty()
    if job.future.exception() is not None:
        _STORE.forget(job_function.__qualname__, args)
        job_function.clear(*args)
    return job.future.result()


@st.cache_resource(show_spinner=False)
@_kept()
def _mnist_load(data_dir: str) -> jobs.BackgroundJob:
    """The server's one load of MNIST from ``data_dir``: the one begun at start-up (app.py's lifespan), else a new one."""
    return startup.take_prefetched(data_dir) or jobs.BackgroundJob(
        lambda progress: nbcore.load_mnist_splits(root=data_dir, progress=progress)).start("nbcore-load")


@st.cache_resource(show_spinner=False)
@_kept()
@_shared
def _mnist_splits(data_dir: str) -> MnistSplits:
    """Both splits of the finished load (``mnist()`` has waited for it)."""
    return MnistSplits(*_mnist_load(data_dir).future.result())


def mnist() -> MnistSplits:
    """Both MNIST splits, loaded once per server; a progress bar while loading, a clear stop on errors."""
    data_dir = str(nbcore.default_data_dir())
    try:
        _finished(_mnist_load, data_dir, label="Preparing MNIST")
    except nbcore.MnistDataError as error:
        st.error(f"MNIST is not available. {error}")
        st.stop()
    return _mnist_splits(data_dir)


def _loaded() -> MnistSplits:
    """The cached splits, for use inside other cached functions (``mnist()`` has run first on the page)."""
    return _mnist_splits(str(nbcore.default_data_dir()))


@st.cache_resource(show_spinner=False)
@_kept()
def _deskew_job(data_dir: str) -> jobs.BackgroundJob:
    """Both splits deskewed (``nbcore.deskew``), in the background: (train images, test images), uint8."""
    splits = _mnist_splits(data_dir)

    def run(progress):
        train = deskew_all(splits.train_images, progress=lambda fraction, message: progress(fraction * 6 / 7, message))
        test = deskew_all(splits.test_images, progress=lambda fraction, message: progress(
            (6 + fraction) / 7, message.replace("image", "test image")))
        return train, test
    return jobs.BackgroundJob(run).start("nbcore-deskew")


@st.cache_resource(show_spinner=False)
@_kept()
@_shared
def _deskewed_splits(data_dir: str) -> MnistSplits:
    """Both splits with every image deskewed (``deskewed_mnist()`` has waited for the job)."""
    splits = _mnist_splits(data_dir)
    train, test = _deskew_job(data_dir).future.result()
    return MnistSplits(train, splits.train_labels, test, splits.test_labels)


def deskewed_mnist() -> MnistSplits:
    """MNIST with every image deskewed, made once per server (about 6 s) behind a progress bar."""
    mnist()
    data_dir = str(nbcore.default_data_dir())
    _finished(_deskew_job, data_dir, label="Deskewing MNIST")
    return _deskewed_splits(data_dir)


def _training_splits(deskew: bool) -> MnistSplits:
    """The splits the models of this deskew setting learn from and are tested on, for cached functions
    (``sidebar_settings`` has made the deskewed ones behind a progress bar; without it this waits silently)."""
    return _deskewed_splits(str(nbcore.default_data_dir())) if deskew else _loaded()


def _deskew_arg(deskew: bool) -> tuple[bool, ...]:
    """The deskew argument for a cached function: left out when False, because Streamlit keys a cache entry by
    the arguments as passed, and callers that omit the default must share the entry."""
    return (True,) if deskew else ()


@st.cache_resource(show_spinner="Binarizing MNIST…", max_entries=2 * len(THRESHOLDS))
@_kept(max_entries=2 * len(THRESHOLDS))
@_shared
def features(threshold: int, deskew: bool = False) -> Features:
    splits = _training_splits(deskew)
    train = nbcore.binarize(splits.train_images, threshold)
    test = nbcore.binarize(splits.test_images, threshold)
    return Features(train, test, nbcore.PackedBinary.from_dense(train), nbcore.PackedBinary.from_dense(test))


@st.cache_resource(show_spinner="Counting pixels…", max_entries=2 * len(THRESHOLDS))
@_kept(max_entries=2 * len(THRESHOLDS))
@_shared
def counted_model(threshold: int, deskew: bool = False) -> nbcore.BernoulliNB:
    """BernoulliNB fitted (counted) on the training set at this threshold, deskewed or not; smoothing is
    applied per settings.

    ``fit_seconds_`` records how long the counting took.
    """
    train, labels = features(threshold, *_deskew_arg(deskew)).train, _loaded().train_labels
    started = time.perf_counter()
    model = nbcore.BernoulliNB().fit(train, labels)
    model.fit_seconds_ = time.perf_counter() - started
    return model


def counted_fit_seconds(threshold: int, deskew: bool = False) -> float:
    """How long counting the training set took for this threshold (the naive Bayes fit), in seconds."""
    return counted_model(threshold, *_deskew_arg(deskew)).fit_seconds_


@st.cache_resource(show_spinner=False, max_entries=256)
@_kept(max_entries=256)
@_shared
def evaluation(settings: Settings) -> Evaluation:
    """The naive Bayes model for these settings and its scores on MNIST (deskewed first if they say so)."""
    model = counted_model(settings.threshold, *_deskew_arg(settings.deskew)).with_params(
        alpha=settings.alpha, beta=settings.beta, prior=settings.prior)
    splits, feats = _loaded(), features(settings.threshold, *_deskew_arg(settings.deskew))
    train_scores = model.predict_joint_log_proba(feats.train_packed)
    test_log_proba = model.predict_log_proba(feats.test_packed)
    test_predictions = model.predict(feats.test_packed)
    return Evaluation(
        model=model,
        test_log_proba=test_log_proba,
        test_predictions=test_predictions,
        train_accuracy=model.score(feats.train_packed, splits.train_labels),
        test_accuracy=float(np.mean(test_predictions == splits.test_labels)),
        mean_train_loglik=mean_true_class_loglik(train_scores, splits.train_labels)
        if np.isfinite(train_scores).all() else float("-inf"),
    )


def model(settings: Settings | None = None) -> nbcore.BernoulliNB:
    """The BernoulliNB for these settings (default: the session's)."""
    return evaluation(settings or current_settings()).model


# -- per-session settings --------------------------------------------------------------------
def current_settings() -> Settings:
    """This session's settings, from the sidebar widgets' state (textbook defaults before first use)."""
    values = {name: st.session_state.get(key, getattr(TEXTBOOK, name)) for name, key in _KEYS.items()}
    return Settings(**values)


def _apply(settings: Settings) -> None:
    for name, key in _KEYS.items():
        st.session_state[key] = getattr(settings, name)


def sidebar_settings() -> Settings:
    """Draw the model settings in the sidebar (each one in the link); they apply on every page."""
    with st.sidebar:
        st.header("Model settings")
        st.select_slider(options=THRESHOLDS, value=TEXTBOOK.threshold,
                         help="128 is the textbook's choice; 1 means 'any ink' (the course note's).",
                         **links.control("Binarization threshold (ink if pixel ≥ T)", _KEYS["threshold"],
                                         TEXTBOOK.threshold))
        st.select_slider(options=SMOOTHING_STOPS, value=TEXTBOOK.alpha, format_func=_format_stop,
                         **links.control("α: pseudo-count for 'pixel on'", _KEYS["alpha"], TEXTBOOK.alpha))
        st.select_slider(options=SMOOTHING_STOPS, value=TEXTBOOK.beta, format_func=_format_stop,
                         **links.control("β: pseudo-count for 'pixel off'", _KEYS["beta"], TEXTBOOK.beta))
        st.radio(options=("empirical", "uniform"), index=0, horizontal=True,
                 help="Empirical: class frequencies in the training set. Uniform: 1/10 each.",
                 **links.control("Class prior", _KEYS["prior"], TEXTBOOK.prior))
        st.radio(options=(False, True), index=0, horizontal=True, format_func=_on_off,
                 help="On: every image is sheared upright by its second moments first; the training images too, "
                      "so both models are retrained (once per server, a few seconds). The published results are "
                      "with deskew off.",
                 **links.control("Deskew", _KEYS["deskew"], TEXTBOOK.deskew))
        presets_locked = any(links.locked(key) for key in _KEYS.values())
        left, right = st.columns(2)
        left.button("Textbook", on_click=_apply, args=(TEXTBOOK,), width="stretch", disabled=presets_locked,
                    help="Reset to the textbook: T = 128, α = β = 1, empirical prior, no deskewing")
        right.button("Course note", on_click=_apply, args=(COURSE_NOTE,), width="stretch", disabled=presets_locked,
                     help="T = 1, α = β = 1, uniform prior, no deskewing")
        settings = current_settings()
        st.caption(f"p(xᵢ=1 | y) = (nᵢᵧ + {_format_stop(settings.alpha)}) / "
                   f"(nᵧ + {_format_stop(settings.alpha)} + {_format_stop(settings.beta)})")
    if settings.deskew:  # every page's models need the deskewed images: made here, with a progress bar
        deskewed_mnist()
    return settings


def _format_stop(value: float) -> str:
    return f"{value:g}"


def _on_off(value: bool) -> str:
    return "on" if value else "off"


# alpha = beta grid for the smoothing curves (0 excluded: its log-likelihood is -inf)
CURVE_ALPHAS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


@st.cache_resource(show_spinner="Scoring MNIST for every α…", max_entries=16)
@_kept(max_entries=16)
@_shared
def smoothing_curve(threshold: int, prior: str) -> dict[str, np.ndarray]:
    feats, splits = features(threshold), _loaded()
    counted = counted_model(threshold).with_params(prior=prior)
    return evaluate.smoothing_curve(counted, feats.train_packed, splits.train_labels,
                                           feats.test_packed, splits.test_labels, CURVE_ALPHAS)


@st.cache_resource(show_spinner=False, max_entries=16)
@_kept(max_entries=16)
@_shared
def zero_smoothing(threshold: int, prior: str) -> dict[str, float]:
    unsmoothed = counted_model(threshold).with_params(alpha=0.0, beta=0.0, prior=prior)
    return evaluate.impossible_true_class(unsmoothed, features(threshold).test_packed, _loaded().test_labels)


# -- softmax regression, for comparison ----------------------------------------------------------
@dataclass(frozen=True)
class SoftmaxEvaluation:
    """The softmax regression and what it does on MNIST (``info`` from load_or_train_softmax)."""

    model: nbcore.SoftmaxRegression
    info: dict
    test_proba: np.ndarray  # (10000, 10)
    test_predictions: np.ndarray  # (10000,)
    train_accuracy: float
    test_accuracy: float
    mean_train_loglik: float  # nats per image, log p(y_true | x)


@st.cache_resource(show_spinner=False, max_entries=4)
@_kept(max_entries=4)
def _softmax_training(preset: str, deskew: bool = False) -> jobs.BackgroundJob:
    """Softmax regression loaded from its disk cache, or trained, in the background: (model, info).

    Deskewed training images have another checksum, so their weights have their own cache file.
    """
    splits = _training_splits(deskew)
    return jobs.BackgroundJob(lambda progress: nbcore.load_or_train_softmax(
        splits.train_images, splits.train_labels, preset=preset, progress=progress)).start("nbcore-softmax")


@st.cache_resource(show_spinner=False, max_entries=4)
@_kept(max_entries=4)
@_shared
def _softmax_evaluation(preset: str, deskew: bool = False) -> SoftmaxEvaluation:
    splits = _training_splits(deskew)
    model, info = _softmax_training(preset, *_deskew_arg(deskew)).future.result()
    test_proba = model.predict_proba(splits.test_images)
    test_predictions = test_proba.argmax(axis=1)
    train_log_proba = model.predict_log_proba(splits.train_images)
    return SoftmaxEvaluation(
        model=model, info=info, test_proba=test_proba, test_predictions=test_predictions,
        train_accuracy=float(np.mean(train_log_proba.argmax(axis=1) == splits.train_labels)),
        test_accuracy=float(np.mean(test_predictions == splits.test_labels)),
        mean_train_loglik=mean_true_class_loglik(train_log_proba, splits.train_labels))


def softmax(preset: str = "default", deskew: bool = False) -> SoftmaxEvaluation:
    """Softmax regression trained once per server and deskew setting (weights cached on disk across restarts),
    and its scores on the test images (deskewed too when ``deskew``)."""
    if deskew:
        deskewed_mnist()
    _finished(_softmax_training, preset, *_deskew_arg(deskew),
              label="Softmax regression" + (" on deskewed MNIST" if deskew else ""))
    return _softmax_evaluation(preset, *_deskew_arg(deskew))


@st.cache_resource(show_spinner=False)
@_kept()
def _softmax_curve_job() -> jobs.BackgroundJob:
    splits = _loaded()
    return jobs.BackgroundJob(lambda progress: learning_curve(
        {"softmax regression": evaluate.softmax_learner}, splits.train_images, splits.train_labels,
        splits.test_images, splits.test_labels, evaluate.LEARNING_CURVE_SIZES,
        evaluate.LEARNING_CURVE_SEEDS, progress=progress)).start("nbcore-curve")


@st.cache_resource(show_spinner=False)
@_kept()
@_shared
def _softmax_curve() -> dict[str, np.ndarray]:
    return _softmax_curve_job().future.result()


def softmax_learning_curve() -> dict[str, np.ndarray]:
    """Softmax test accuracy over training-set sizes and seeds (about 10 s, once per server)."""
    _finished(_softmax_curve_job, label="Learning curve")
    return _softmax_curve()


@st.cache_resource(show_spinner="Learning curve for naive Bayes…", max_entries=32)
@_kept(max_entries=32)
@_shared
def bernoulli_learning_curve(settings: Settings) -> dict[str, np.ndarray]:
    """Naive Bayes (these settings) test accuracy over the same sizes and seeds (about a second)."""
    splits = _loaded()
    learner = evaluate.bernoulli_learner(settings.threshold, alpha=settings.alpha, beta=settings.beta,
                                                prior=settings.prior)
    return learning_curve({"naive Bayes": learner}, splits.train_images, splits.train_labels, splits.test_images,
                          splits.test_labels, evaluate.LEARNING_CURVE_SIZES,
                          evaluate.LEARNING_CURVE_SEEDS)


# -- beyond MNIST: iris, Gaussian naive Bayes on MNIST, the SMS spam filter ----------------------
# var_smoothing grid for the MNIST curve: 1e-12 .. 1, one point per decade
VAR_SMOOTHING_GRID = tuple(10.0 ** exponent for exponent in range(-12, 1))


@dataclass(frozen=True)
class Iris:
    """Fisher's iris: features float64 (150, 4) in cm, labels int64 (150,) 0..2, species and feature names."""

    features: np.ndarray
    labels: np.ndarray
    class_names: tuple[str, ...]
    feature_names: tuple[str, ...]


@dataclass(frozen=True)
class GaussianMnist:
    """GaussianNB on MNIST pixels / 255: the fitted statistics and test accuracy for every grid value."""

    model: GaussianNB  # fitted on the 60,000 training images at the default var_smoothing
    var_smoothing: tuple[float, ...]
    test_accuracy: np.ndarray  # (len(var_smoothing),)


@st.cache_resource(show_spinner=False)
@_kept()
@_shared
def iris() -> Iris:
    features, labels, class_names = load_iris()
    return Iris(features, labels, class_names, IRIS_FEATURES)


@st.cache_resource(show_spinner="Fitting Gaussian naive Bayes on MNIST and scoring 13 var_smoothing values…")
@_kept(key=lambda data_dir, _splits: (data_dir,))
@_shared
def _gaussian_mnist(data_dir: str, _splits: MnistSplits) -> GaussianMnist:
    train = _splits.train_images.reshape(len(_splits.train_images), -1) / 255.0
    test = _splits.test_images.reshape(len(_splits.test_images), -1) / 255.0
    model = GaussianNB().fit(train, _splits.train_labels)
    accuracy = np.array([model.with_params(var_smoothing=value).score(test, _splits.test_labels)
                         for value in VAR_SMOOTHING_GRID])
    return GaussianMnist(model, VAR_SMOOTHING_GRID, accuracy)


def gaussian_mnist(splits: MnistSplits) -> GaussianMnist:
    """The MNIST GaussianNB and its accuracy curve, computed once per server (splits from ``state.mnist()``)."""
    return _gaussian_mnist(str(nbcore.default_data_dir()), splits)


@st.cache_resource(show_spinner=False)
@_kept()
def _sms_load(data_dir: str) -> jobs.BackgroundJob:
    return jobs.BackgroundJob(lambda progress: load_sms(data_dir, progress=progress)).start("nbcore-sms")


@st.cache_resource(show_spinner=False)
@_kept()
@_shared
def _sms(data_dir: str) -> tuple[tuple[str, ...], np.ndarray]:
    texts, labels = _sms_load(data_dir).future.result()
    return tuple(texts), labels


def sms() -> tuple[tuple[str, ...], np.ndarray]:
    """All messages and labels (0 = ham, 1 = spam), loaded once per server; a clear stop on errors."""
    data_dir = str(nbcore.default_data_dir())
    try:
        _finished(_sms_load, data_dir, label="SMS Spam Collection")
    except SpamDataError as error:
        st.error(f"The SMS Spam Collection is not available. {error}")
        st.stop()
    return _sms(data_dir)


@st.cache_resource(show_spinner="Splitting, counting words and tuning k on the held-out messages…")
@_kept()
@_shared
def _spam_experiments(data_dir: str) -> dict[str, spam.SpamExperiment]:
    texts, labels = _sms(data_dir)
    return {event_model: spam.run_experiment(texts, labels, event_model) for event_model in spam.EVENT_MODELS}


def spam_experiments() -> dict[str, spam.SpamExperiment]:
    """Both event models, each tuned on held-out data and tested once (shared, do not mutate the models)."""
    sms()
    return _spam_experiments(str(nbcore.default_data_dir()))


# -- the guided lesson (pages/lesson.py): answers to its questions, computed once per setting ------------------
# (imported here, not at the top, so that this section stays one block apart from the rest of the module)
from nbcore.experiments import lesson  # noqa: E402


@st.cache_resource(show_spinner="Multiplying 784 probabilities for every test image…", max_entries=32)
@_kept(max_entries=32)
@_shared
def lesson_underflow(settings: Settings) -> dict[str, int]:
    """For the test images: how many products of p(xᵢ | true digit) become 0.0 in float32 and float64."""
    return lesson.underflow_counts(evaluation(settings).model, features(settings.threshold).test,
                                   _loaded().test_labels)


@st.cache_resource(show_spinner="Classifying every test image from its top half…", max_entries=32)
@_kept(max_entries=32)
def lesson_top_half_accuracy(settings: Settings) -> float:
    """Test accuracy of naive Bayes (these settings) that sees only the top 14 rows of each image."""
    feats, splits = features(settings.threshold), _loaded()
    return lesson.observed_part_accuracy(evaluation(settings).model, feats.train, splits.train_labels, feats.test,
                                         splits.test_labels, nbcore.observed_region("top half"))


@st.cache_resource(show_spinner=False, max_entries=40)
@_kept(max_entries=40)
@_shared
def lesson_neighbour_dependence(threshold: int, digit: int) -> np.ndarray:
    """(28, 28): how much a pixel's ink raises its right neighbour's chance of ink, in training images of ``digit``."""
    return lesson.neighbour_dependence(features(threshold).train, _loaded().train_labels, digit)


# -- the class gallery (issue 14): students' drawings per class code, in memory ---------------------
from lab.gallery import ClassGallery  # noqa: E402  (kept with its section: the top of this file is edited by others)


@st.cache_resource(show_spinner=False)
@_kept()
def class_gallery() -> ClassGallery:
    """The server's one class gallery, shared by every session (bounded in drawings, codes and time)."""
    return ClassGallery()
