"""What the dashboard shares between sessions: the data and models every page reads, each cached once per server.

Every function here is a declaration: ``@shared`` (``st.cache_resource``, read-only results, safe from a
client's ``clear_cache``) or ``@background`` (slow work in a thread, waited for behind a progress bar);
the machinery is in ``lab/caching.py``. Shared, never mutated: the MNIST arrays (as published, and
deskewed), the binarized features and the per-(threshold, deskew) counts. A session's settings
(``lab/settings.py``) live in ``st.session_state``; a model for them is derived from the shared counts
in about a millisecond.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import nbcore
from lab import startup
from lab.caching import background, shared
from lab.gallery import ClassGallery
from lab.settings import THRESHOLDS, Settings, current_settings
from nbcore.datasets.iris import IRIS_FEATURES, load_iris
from nbcore.datasets.mnist import MnistSplits
from nbcore.datasets.sms import SpamDataError, load_sms
from nbcore.deskew import deskew_all
from nbcore.experiments import evaluate, lesson, spam
from nbcore.experiments.evaluate import learning_curve, mean_true_class_loglik
from nbcore.models.naive_bayes import GaussianNB


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


def _data_dir() -> str:
    """The data folder, as an argument of the cached functions (tests and restarts change it)."""
    return str(nbcore.default_data_dir())


# -- MNIST ------------------------------------------------------------------------------------
@background("Preparing MNIST", "nbcore-load", stop_on=(nbcore.MnistDataError, "MNIST is not available."))
def _mnist(data_dir: str, progress) -> MnistSplits:
    """Both splits from ``data_dir``: the load begun at start-up (app.py's lifespan) if it is of this folder, else a
    new one."""
    prefetched = startup.take_prefetched(data_dir)
    if prefetched is not None:
        prefetched.wait(progress)
        return MnistSplits(*prefetched.future.result())
    return MnistSplits(*nbcore.load_mnist_splits(root=data_dir, progress=progress))


def mnist() -> MnistSplits:
    """Both MNIST splits, loaded once per server; a progress bar while loading, a clear stop on errors."""
    return _mnist(_data_dir())


def _loaded() -> MnistSplits:
    """The cached splits, for use inside other cached functions (``mnist()`` has run first on the page)."""
    return _mnist.result(_data_dir())


@background("Deskewing MNIST", "nbcore-deskew")
def _deskewed(data_dir: str, progress) -> MnistSplits:
    """Both splits with every image deskewed (``nbcore.deskew``); labels as published."""
    splits = _mnist.result(data_dir)
    train = deskew_all(splits.train_images, progress=lambda fraction, message: progress(fraction * 6 / 7, message))
    test = deskew_all(
        splits.test_images,
        progress=lambda fraction, message: progress((6 + fraction) / 7, message.replace("image", "test image")),
    )
    return MnistSplits(train, splits.train_labels, test, splits.test_labels)


def deskewed_mnist() -> MnistSplits:
    """MNIST with every image deskewed, made once per server (about 6 s) behind a progress bar."""
    mnist()
    return _deskewed(_data_dir())


def _training_splits(deskew: bool) -> MnistSplits:
    """The splits the models of this deskew setting learn from and are tested on, for cached functions
    (the shell has waited for the deskewed ones behind a progress bar; without it this waits silently)."""
    return _deskewed.result(_data_dir()) if deskew else _loaded()


@shared("Binarizing MNIST…", max_entries=2 * len(THRESHOLDS))
def features(threshold: int, deskew: bool = False) -> Features:
    splits = _training_splits(deskew)
    train = nbcore.binarize(splits.train_images, threshold)
    test = nbcore.binarize(splits.test_images, threshold)
    return Features(train, test, nbcore.PackedBinary.from_dense(train), nbcore.PackedBinary.from_dense(test))


@shared("Counting pixels…", max_entries=2 * len(THRESHOLDS))
def counted_model(threshold: int, deskew: bool = False) -> nbcore.BernoulliNB:
    """BernoulliNB fitted (counted) on the training set at this threshold, deskewed or not; smoothing is
    applied per settings.

    ``fit_seconds_`` records how long the counting took.
    """
    train, labels = features(threshold, deskew).train, _loaded().train_labels
    started = time.perf_counter()
    model = nbcore.BernoulliNB().fit(train, labels)
    model.fit_seconds_ = time.perf_counter() - started
    return model


def counted_fit_seconds(threshold: int, deskew: bool = False) -> float:
    """How long counting the training set took for this threshold (the naive Bayes fit), in seconds."""
    return counted_model(threshold, deskew).fit_seconds_


@shared(max_entries=256)
def evaluation(settings: Settings) -> Evaluation:
    """The naive Bayes model for these settings and its scores on MNIST (deskewed first if they say so)."""
    model = counted_model(settings.threshold, settings.deskew).with_params(
        alpha=settings.alpha, beta=settings.beta, prior=settings.prior
    )
    splits, feats = _loaded(), features(settings.threshold, settings.deskew)
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
        if np.isfinite(train_scores).all()
        else float("-inf"),
    )


def model(settings: Settings | None = None) -> nbcore.BernoulliNB:
    """The BernoulliNB for these settings (default: the session's)."""
    return evaluation(settings or current_settings()).model


# alpha = beta grid for the smoothing curves (0 excluded: its log-likelihood is -inf)
CURVE_ALPHAS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


@shared("Scoring MNIST for every α…", max_entries=16)
def smoothing_curve(threshold: int, prior: str) -> dict[str, np.ndarray]:
    feats, splits = features(threshold), _loaded()
    counted = counted_model(threshold).with_params(prior=prior)
    return evaluate.smoothing_curve(
        counted, feats.train_packed, splits.train_labels, feats.test_packed, splits.test_labels, CURVE_ALPHAS
    )


@shared(max_entries=16)
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


def _softmax_label(preset: str, deskew: bool) -> str:
    return "Softmax regression" + (" on deskewed MNIST" if deskew else "")


@background(_softmax_label, "nbcore-softmax", max_entries=4)
def _softmax(preset: str, deskew: bool = False, progress=None) -> SoftmaxEvaluation:
    """Softmax regression loaded from its disk cache, or trained, and scored on MNIST (deskewed when ``deskew``).

    Deskewed training images have another checksum, so their weights have their own cache file.
    """
    splits = _training_splits(deskew)
    model, info = nbcore.load_or_train_softmax(
        splits.train_images, splits.train_labels, preset=preset, progress=progress
    )
    test_proba = model.predict_proba(splits.test_images)
    test_predictions = test_proba.argmax(axis=1)
    train_log_proba = model.predict_log_proba(splits.train_images)
    return SoftmaxEvaluation(
        model=model,
        info=info,
        test_proba=test_proba,
        test_predictions=test_predictions,
        train_accuracy=float(np.mean(train_log_proba.argmax(axis=1) == splits.train_labels)),
        test_accuracy=float(np.mean(test_predictions == splits.test_labels)),
        mean_train_loglik=mean_true_class_loglik(train_log_proba, splits.train_labels),
    )


def softmax(preset: str = "default", deskew: bool = False) -> SoftmaxEvaluation:
    """Softmax regression trained once per server and deskew setting (weights cached on disk across restarts),
    and its scores on the test images (deskewed too when ``deskew``)."""
    if deskew:
        deskewed_mnist()
    return _softmax(preset, deskew)


def _mnist_learning_curve(learners: dict[str, evaluate.Learner], progress=None) -> dict[str, np.ndarray]:
    """Test accuracy of each named learner over MNIST training-set sizes and seeds (``learning_curve``)."""
    splits = _loaded()
    return learning_curve(
        learners,
        splits.train_images,
        splits.train_labels,
        splits.test_images,
        splits.test_labels,
        evaluate.LEARNING_CURVE_SIZES,
        evaluate.LEARNING_CURVE_SEEDS,
        progress=progress,
    )


@background("Learning curve", "nbcore-curve")
def softmax_learning_curve(progress) -> dict[str, np.ndarray]:
    """Softmax test accuracy over training-set sizes and seeds (about 10 s, once per server)."""
    return _mnist_learning_curve({"softmax regression": evaluate.softmax_learner}, progress)


@shared("Learning curve for naive Bayes…", max_entries=32)
def bernoulli_learning_curve(settings: Settings) -> dict[str, np.ndarray]:
    """Naive Bayes (these settings) test accuracy over the same sizes and seeds (about a second)."""
    learner = evaluate.bernoulli_learner(
        settings.threshold, alpha=settings.alpha, beta=settings.beta, prior=settings.prior
    )
    return _mnist_learning_curve({"naive Bayes": learner})


# -- beyond MNIST: iris, Gaussian naive Bayes on MNIST, the SMS spam filter ----------------------
# var_smoothing grid for the MNIST curve: 1e-12 .. 1, one point per decade
VAR_SMOOTHING_GRID = tuple(10.0**exponent for exponent in range(-12, 1))


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


@shared()
def iris() -> Iris:
    features, labels, class_names = load_iris()
    return Iris(features, labels, class_names, IRIS_FEATURES)


@shared(
    "Fitting Gaussian naive Bayes on MNIST and scoring 13 var_smoothing values…",
    key=lambda data_dir, _splits: (data_dir,),
)
def _gaussian_mnist(data_dir: str, _splits: MnistSplits) -> GaussianMnist:
    train = _splits.train_images.reshape(len(_splits.train_images), -1) / 255.0
    test = _splits.test_images.reshape(len(_splits.test_images), -1) / 255.0
    model = GaussianNB().fit(train, _splits.train_labels)
    accuracy = np.array(
        [model.with_params(var_smoothing=value).score(test, _splits.test_labels) for value in VAR_SMOOTHING_GRID]
    )
    return GaussianMnist(model, VAR_SMOOTHING_GRID, accuracy)


def gaussian_mnist(splits: MnistSplits) -> GaussianMnist:
    """The MNIST GaussianNB and its accuracy curve, computed once per server (splits from ``state.mnist()``)."""
    return _gaussian_mnist(_data_dir(), splits)


@background("SMS Spam Collection", "nbcore-sms", stop_on=(SpamDataError, "The SMS Spam Collection is not available."))
def _sms(data_dir: str, progress) -> tuple[tuple[str, ...], np.ndarray]:
    try:
        texts, labels = load_sms(data_dir, progress=progress)
    except SpamDataError as error:  # shown to every visitor: what to set, not where the server keeps its files
        raise SpamDataError(str(error).replace(data_dir, "the data folder")) from error
    return tuple(texts), labels


def sms() -> tuple[tuple[str, ...], np.ndarray]:
    """All messages and labels (0 = ham, 1 = spam), loaded once per server; a clear stop on errors."""
    return _sms(_data_dir())


@shared("Splitting, counting words and tuning k on the held-out messages…")
def _spam_experiments(data_dir: str) -> dict[str, spam.SpamExperiment]:
    texts, labels = _sms.result(data_dir)
    return {event_model: spam.run_experiment(texts, labels, event_model) for event_model in spam.EVENT_MODELS}


def spam_experiments() -> dict[str, spam.SpamExperiment]:
    """Both event models, each tuned on held-out data and tested once (shared, do not mutate the models)."""
    sms()
    return _spam_experiments(_data_dir())


# -- the guided lesson (pages/lesson.py): answers to its questions, computed once per setting ------------------


@shared("Multiplying 784 probabilities for every test image…", max_entries=32)
def lesson_underflow(settings: Settings) -> dict[str, int]:
    """For the test images: how many products of p(xᵢ | true digit) become 0.0 in float32 and float64."""
    return lesson.underflow_counts(evaluation(settings).model, features(settings.threshold).test, _loaded().test_labels)


@shared("Classifying every test image from its top half…", max_entries=32)
def lesson_top_half_accuracy(settings: Settings) -> float:
    """Test accuracy of naive Bayes (these settings) that sees only the top 14 rows of each image."""
    feats, splits = features(settings.threshold), _loaded()
    return lesson.observed_part_accuracy(
        evaluation(settings).model,
        feats.train,
        splits.train_labels,
        feats.test,
        splits.test_labels,
        nbcore.observed_region("top half"),
    )


@shared(max_entries=40)
def lesson_neighbour_dependence(threshold: int, digit: int) -> np.ndarray:
    """(28, 28): how much a pixel's ink raises its right neighbour's chance of ink, in training images of ``digit``."""
    return lesson.neighbour_dependence(features(threshold).train, _loaded().train_labels, digit)


# -- the class gallery (issue 14): students' drawings per class code, in memory ---------------------


@shared(writable=True)
def class_gallery() -> ClassGallery:
    """The server's one class gallery, shared by every session (bounded in drawings, codes and time)."""
    return ClassGallery()
