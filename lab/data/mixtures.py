"""Beyond naive: mixtures of naive Bayes styles for the sidebar's settings, and the unlabeled-digit curves.

Every figure is measured by ``nbcore.experiments.mixture`` on MNIST in the settings' input form. The curve over
the K grid (every K's model with it) and the unlabeled-digit curves are read from what ``python -m nbcore
prepare`` kept (the textbook's settings, Deskew off), else fitted once per server behind a progress bar; a K
off the grid is fitted once per server and settings, about a second per EM iteration at K = 50.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.caching import background, shared
from lab.data import data_dir, mnist
from lab.i18n import N_, _, ngettext
from lab.model_settings import Settings
from nbcore.experiments import mixture as experiment
from nbcore.models.mixture import BernoulliMixtureNB
from nbcore.prepared.disk import folder_of
from nbcore.prepared.mixtures import MixtureCurve, PreparedMixtures, UnlabeledCurves, UnlabeledDigits

SEED = 0  # EM's random start for every mixture the pages show (the command line compares seeds)


def supported(settings: Settings) -> bool:
    """Whether a mixture can be fitted at these settings: EM needs both pseudo-counts above 0."""
    return settings.alpha > 0 and settings.beta > 0


def _curve_label(settings: Settings) -> str:
    if settings.deskew:
        return _("Fitting 1 to 50 styles per digit on deskewed MNIST")
    return _("Fitting 1 to 50 styles per digit")


def _curve_result(settings: Settings) -> MixtureCurve:
    return MixtureCurve(
        mnist.loaded(settings.deskew), settings.threshold, settings.alpha, settings.beta, settings.prior, seed=SEED
    )


@background(_curve_label, "nbcore-mixture", max_entries=8)
def curve(settings: Settings, progress) -> PreparedMixtures:
    """Test accuracy and held-out log p(x | y) for every K of the grid, and each K's fitted mixture."""
    return _curve_result(settings).get(folder_of(data_dir()), progress).value


def curve_ready(settings: Settings) -> bool:
    """Whether ``curve(settings)`` is at hand: prepared in the data folder, or made by this server already.
    Pages ask before they start a fit of every K (a minute or more) that no one asked for."""
    return curve.done(settings) or _curve_result(settings).is_prepared(folder_of(data_dir()))


def _fit_label(settings: Settings, n_components: int) -> str:
    if settings.deskew:
        message = ngettext(
            "Fitting {k} style per digit on deskewed MNIST",
            "Fitting {k} styles per digit on deskewed MNIST",
            n_components,
        )
    else:
        message = ngettext("Fitting {k} style per digit", "Fitting {k} styles per digit", n_components)
    return message.format(k=n_components)


@background(_fit_label, "nbcore-mixture-fit", max_entries=16)
def _fitted(settings: Settings, n_components: int, progress) -> BernoulliMixtureNB:
    features = mnist.features(settings.input_form)
    model = experiment.MixtureSettings(
        settings.threshold, settings.alpha, settings.beta, settings.prior, settings.deskew
    ).model(n_components, SEED)
    for iteration in model.fit_steps(features.train, mnist.loaded(settings.deskew).train_labels):
        progress(iteration / model.max_iter, f"EM iteration {iteration}")
    return model


def model(settings: Settings, n_components: int) -> BernoulliMixtureNB:
    """The mixture of ``n_components`` styles per digit at these settings: the curve's own when the curve is at
    hand and holds K, else fitted for K alone (seconds, behind a progress bar)."""
    if n_components in experiment.COMPONENT_GRID and curve_ready(settings):
        return curve(settings).models[n_components]
    return _fitted(settings, n_components)


def model_ready(settings: Settings, n_components: int) -> bool:
    """Whether ``model(settings, n_components)`` is at hand without a fit (prepared, or made by this server)."""
    on_curve = n_components in experiment.COMPONENT_GRID and curve_ready(settings)
    return on_curve or _fitted.done(settings, n_components)


@dataclass(frozen=True)
class Measured:
    """What a mixture does on the test images: accuracy, mean log p(x | y) in nats, and EM's iterations."""

    test_accuracy: float
    mean_test_loglik: float
    n_iter: int


def scores(settings: Settings, n_components: int) -> Measured:
    """What ``model(settings, n_components)`` does on the test images: the curve's figures when the curve is at
    hand and holds K, else those of the mixture fitted for K alone (behind its progress bar), scored once."""
    if n_components in experiment.COMPONENT_GRID and curve_ready(settings):
        measured = curve(settings)
        at = measured.components.index(n_components)
        return Measured(
            float(measured.test_accuracy[at]), float(measured.mean_test_loglik[at]), int(measured.n_iter[at])
        )
    _fitted(settings, n_components)  # waits behind the fit's progress bar while EM runs
    return _scored(settings, n_components)


@shared(N_("Scoring the mixture on the test images…"), max_entries=16)
def _scored(settings: Settings, n_components: int) -> Measured:
    fitted = _fitted.result(settings, n_components)
    features = mnist.features(settings.input_form)
    accuracy, loglik = experiment.score_mixture(fitted, features.test, mnist.loaded(settings.deskew).test_labels)
    return Measured(accuracy, loglik, int(fitted.n_iter_))


def _unlabeled_label(settings: Settings) -> str:
    if settings.deskew:
        return _("Fitting with unlabeled digits on deskewed MNIST")
    return _("Fitting with unlabeled digits")


def _unlabeled_result(settings: Settings) -> UnlabeledDigits:
    return UnlabeledDigits(
        mnist.loaded(settings.deskew), settings.threshold, settings.alpha, settings.beta, settings.prior, seed=SEED
    )


@background(_unlabeled_label, "nbcore-unlabeled", max_entries=8)
def unlabeled(settings: Settings, progress) -> UnlabeledCurves:
    """Test accuracy with 1, 10 or 100 labelled digits per class and the rest unlabeled at each weight λ."""
    return _unlabeled_result(settings).get(folder_of(data_dir()), progress).value


def unlabeled_ready(settings: Settings) -> bool:
    """Whether ``unlabeled(settings)`` is at hand (prepared, or made by this server already)."""
    return unlabeled.done(settings) or _unlabeled_result(settings).is_prepared(folder_of(data_dir()))
