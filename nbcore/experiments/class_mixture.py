"""The class's mixture of styles (``BernoulliMixtureNB``, K styles per digit fitted by EM) read leave one student
out, and a sentence when the class's drawings cannot support K styles.

EM's soft counts cannot be subtracted as the class's model's counts are, so the mixture is fitted once per
student left out. Features are 0/1 uint8 (n, n_features), labels (n,) the digits meant, students (n,) ids.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..models.bernoulli import BernoulliNB
from ..models.mixture import BernoulliMixtureNB

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # optional: without it BLAS keeps its own thread count
    threadpool_limits = None


def check_components(components, template: BernoulliNB | None = None) -> int:
    """``components`` (styles per digit of the class's mixture) as an int if it is a whole number >= 1, else
    ValueError with a sentence; also when it is above 1 and ``template``'s alpha or beta is 0 (EM needs both)."""
    if isinstance(components, bool) or not isinstance(components, (int, np.integer)) or components < 1:
        raise ValueError(
            f"components (styles per digit of the class's mixture) must be a whole number of 1 or more, "
            f"got {components!r}; 1 is the class's model alone"
        )
    components = int(components)
    if components > 1 and template is not None:
        beta = template.alpha if template.beta is None else template.beta
        if not (template.alpha > 0 and beta > 0):
            raise ValueError(
                f"the class's mixture needs alpha and beta above 0 (got alpha = {template.alpha:g}, beta = "
                f"{beta:g}): a style that never saw ink at a pixel could never explain a drawing with ink there"
            )
    return components


def _one_blas_thread():
    """BLAS held to one thread while EM runs: its products are thin, and on a shared 2-core machine whose other
    core was busy, two OpenBLAS threads made a leave-one-student-out pass at 10 styles per digit on
    ``load_digits()`` 3.5x slower than one (7.2 s against 2.1 s; alike on an idle core), as ``models/softmax.py``
    measured for its own training."""
    return contextlib.nullcontext() if threadpool_limits is None else threadpool_limits(1, user_api="blas")


def mixture_leave_one_student_out(
    features: np.ndarray,
    labels: np.ndarray,
    students: np.ndarray,
    template: BernoulliNB,
    components: int,
    seed: int = 0,
) -> np.ndarray:
    """Each drawing's digit as read by the class's mixture of ``components`` styles per digit fitted (EM,
    ``random_state=seed``) on every other student's drawings: int64 (n,), -1 everywhere with fewer than two
    students. ``features`` 0/1 (n, n_features), ``labels`` (n,), ``students`` (n,) ids; the mixture takes
    ``template``'s alpha, beta and prior (both pseudo-counts above 0). One EM fit per student.

    A digit no other student drew is not among that fit's classes, so it is never read: as the class's model
    with an empirical prior. A digit with fewer other drawings than styles starts several styles from the same
    drawing (seeds are drawn with replacement), and those stay alike: see ``components_note``.
    """
    components = check_components(components, template)
    readings = np.full(len(students), -1, np.int64)
    ids, positions = np.unique(students, return_inverse=True)
    if len(ids) < 2:
        return readings
    with _one_blas_thread():
        for index in range(len(ids)):
            rows = positions == index
            model = BernoulliMixtureNB(
                n_components=components,
                alpha=template.alpha,
                beta=template.beta,
                prior=template.prior,
                random_state=seed,
            )
            model.fit(features[~rows], labels[~rows])
            readings[rows] = model.predict(features[rows])
    return readings


def fewest_to_learn_from(labels: np.ndarray, students: np.ndarray, digits: np.ndarray) -> tuple[int, int] | None:
    """(drawings, digit): the fewest drawings of one of ``digits`` (bool (10,)) that a leave-one-student-out
    model learns from when it reads a student who drew that digit, counting only digits other students drew
    too; None when there is no such digit."""
    ids, positions = np.unique(students, return_inverse=True)
    per_student = np.zeros((len(ids), 10), np.int64)
    np.add.at(per_student, (positions, labels), 1)
    others = per_student.sum(axis=0) - per_student
    usable = (per_student > 0) & (others > 0) & np.asarray(digits, bool)[None, :]
    if not usable.any():
        return None
    fewest = np.where(usable, others, np.iinfo(np.int64).max).min(axis=0)
    digit = int(np.argmin(fewest))
    return int(fewest[digit]), digit


def components_note(labels: np.ndarray, students: np.ndarray, digits: np.ndarray, components: int) -> str | None:
    """A sentence when ``components`` styles per digit are more than the drawings can support: some model, reading
    a student, has fewer drawings of one of ``digits`` (bool (10,)) from the others than it has styles. None
    otherwise (and at ``components`` = 1)."""
    found = fewest_to_learn_from(labels, students, digits) if components > 1 else None
    if found is None or found[0] >= components:
        return None
    fewest, digit = found
    advice = (
        "1 style per digit (the class's model) is all these drawings support"
        if fewest == 1
        else f"{fewest} styles per digit or fewer give every style a drawing of its own"
    )
    return (
        f"{components} styles per digit is more than the class's drawings can support: with one student left out, "
        f"the mixture can have as few as {fewest} drawing{'s' if fewest != 1 else ''} of {digit} to learn from, "
        f"so some of its styles start from the same drawing and stay alike. {advice[:1].upper() + advice[1:]}."
    )
