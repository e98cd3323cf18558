"""The class's model: naive Bayes trained on a class's drawings beside MNIST's, kept per drawings and settings.

A class's drawings are named by a ``ClassSnapshot`` (their ids), so a refresh with nothing new costs the store's read
and nothing else; the evaluation's maths is ``nbcore/experiments/class_model.py``."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from lab.caching import background, shared
from lab.data import class_store, models
from lab.i18n import N_
from lab.model_settings import Settings
from nbcore.classroom.export import as_arrays
from nbcore.experiments.class_curve import Curve
from nbcore.experiments.class_mixture import mixture_leave_one_student_out
from nbcore.experiments.class_model import ClassEvaluation, class_features, evaluate_class


@dataclass(frozen=True, eq=False)
class ClassSnapshot:
    """A class's drawings at one moment, named by ``code`` and ``ids`` (its drawings' ids, oldest first): two
    snapshots with the same name are equal and hash alike, whatever their arrays, so results are kept per name.

    ``frames`` uint8 (n, 28, 28) framed like MNIST (not deskewed), ``meant`` int64 (n,) the digits meant,
    ``students`` int64 (n,) 1 for the first student to send, 2 for the next, ...
    """

    code: str
    ids: tuple[int, ...]
    frames: np.ndarray
    meant: np.ndarray
    students: np.ndarray

    def __hash__(self) -> int:
        return hash((self.code, self.ids))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassSnapshot) and (self.code, self.ids) == (other.code, other.ids)


def class_snapshot(code: str) -> ClassSnapshot:
    """The drawings of the open class ``code`` as they are now (none if it is not open)."""
    drawings = class_store.class_store().drawings(code)
    arrays = as_arrays(drawings)
    return ClassSnapshot(code, tuple(d.id for d in drawings), arrays.frames, arrays.meant, arrays.students)


def class_model_settings(settings: Settings) -> Settings:
    """The settings of the models that read a class's drawings: ``settings`` without deskew, since drawings are
    stored framed like MNIST, not deskewed (MNIST's model is ``model()`` of these)."""
    return replace(settings, deskew=False)


MIXTURE_SEED = 0  # EM's random start for the class's mixture, as the command line's (class evaluate --components)


@shared(
    spinner=N_("Fitting the class's mixture of styles, once for each student left out…"),
    max_entries=32,
    key=lambda snapshot, settings, components: (snapshot.code, snapshot.ids, settings, components),
)
def class_mixture_readings(snapshot: ClassSnapshot, settings: Settings, components: int) -> np.ndarray:
    """Each drawing's digit as read by the class's mixture of ``components`` (> 1) styles per digit, fitted on the
    other students' drawings: int64 (n,), -1 with fewer than two students. One EM fit per student (2 to 5 s for
    ``load_digits()`` as a class of 20 at 2 to 10 styles: docs/class-model.md); kept apart from the weight, which
    it does not depend on, so the weight slider never refits it. ``settings`` without deskew, α and β above 0."""
    mnist_model = models.model(settings)
    features, unused_rows = class_features(snapshot.frames, mnist_model, settings.threshold)
    return mixture_leave_one_student_out(
        features, snapshot.meant, snapshot.students, mnist_model, components, MIXTURE_SEED
    )


@shared(
    max_entries=64,
    key=lambda snapshot, settings, weight, components: (snapshot.code, snapshot.ids, settings, weight, components),
)
def class_evaluation(
    snapshot: ClassSnapshot, settings: Settings, weight: float, components: int = 1
) -> ClassEvaluation:
    """The three models on a class's drawings, leave one student out, without the curve (a second at most for a
    full class); ``settings`` without deskew, MNIST + the class at ``weight``; with ``components`` > 1 the class's
    mixture of that many styles per digit too (``class_mixture_readings``; α and β above 0). Made again only when
    the drawings (their ids), the settings, the weight or the styles change."""
    return evaluate_class(
        snapshot.frames,
        snapshot.meant,
        snapshot.students,
        models.model(settings),
        weight=weight,
        threshold=settings.threshold,
        curve=False,
        seed=MIXTURE_SEED,
        components=components,
        mixture_readings=class_mixture_readings(snapshot, settings, components) if components > 1 else None,
    )


@background(N_("The class's curve"), "nbcore-class-curve", max_entries=8)
def _class_curve(snapshot: ClassSnapshot, settings: Settings, progress) -> tuple[Curve | None, str | None]:
    """(the curve of accuracy against class drawings per digit, or None; the sentence why there is none, in
    English: ``lab/class_model_view.py`` says it in the reader's language)."""
    evaluation = evaluate_class(
        snapshot.frames, snapshot.meant, snapshot.students, models.model(settings), threshold=settings.threshold
    )
    return evaluation.curve, evaluation.curve_note


def class_curve(snapshot: ClassSnapshot, settings: Settings) -> tuple[Curve | None, str | None] | None:
    """The class's curve for these drawings and settings (without deskew) if it is drawn; else None, having
    started drawing it in a thread (seconds for a full class): a page shows it on a later run, never waits."""
    models.model(settings)  # made here if need be, where a spinner can show: the thread finds it made
    arguments = _class_curve.arguments(snapshot, settings)
    job = _class_curve.job(*arguments)
    if not job.future.done():
        return None
    error = job.future.exception()
    if error is not None:
        _class_curve.jobs.forget(arguments)  # the next run tries again
        raise error
    return job.future.result()
