"""The class gallery's parts that are not layout: its wording, the table of misread digits, the teacher's
removals and the gallery as one PNG. ``pages/gallery.py`` lays them out."""

from __future__ import annotations

import numpy as np

from lab import class_sentences, classroom, i18n
from lab.data import class_store, gallery_views
from lab.figures import export
from lab.i18n import N_, _, ngettext
from nbcore.classroom import Refused
from nbcore.classroom.export import as_arrays
from nbcore.metrics import ClassErrors, confusion_matrix


def drawings_text(count: int) -> str:
    """ "1 drawing", "57 drawings", in the reader's language."""
    return ngettext("{n} drawing", "{n} drawings", count).format(n=i18n.integer(count))


def students_text(count: int) -> str:
    """ "1 student", "3 students", in the reader's language."""
    return ngettext("{n} student", "{n} students", count).format(n=i18n.integer(count))


# the table's column headers, translated where it is shown
MISREAD_COLUMNS = (
    N_("meant"),
    N_("drawings"),
    N_("naive Bayes wrong"),
    N_("naive Bayes read instead"),
    N_("softmax wrong"),
)


def instead_text(row: np.ndarray) -> str:
    """ "5 ×2, 3 ×1": the other digits a meant digit was read as, most frequent first."""
    order = np.argsort(-row, kind="stable")
    return ", ".join(f"{digit} ×{row[digit]}" for digit in order if row[digit] > 0) or "—"


def misread_table(bayes_errors: ClassErrors, softmax_errors: ClassErrors) -> dict[str, list]:
    """One row per digit the class has sent: its drawings, how often each model read another digit, and which."""
    sent = np.flatnonzero(bayes_errors.count > 0)

    def wrong(errors: ClassErrors, digit) -> str:
        return f"{i18n.integer(errors.wrong[digit])} ({i18n.percent(errors.error_rate[digit])})"

    columns: tuple[list, ...] = (
        [str(digit) for digit in sent],
        [int(bayes_errors.count[digit]) for digit in sent],
        [wrong(bayes_errors, digit) for digit in sent],
        [instead_text(bayes_errors.instead[digit]) for digit in sent],
        [wrong(softmax_errors, digit) for digit in sent],
    )
    return {_(header): column for header, column in zip(MISREAD_COLUMNS, columns)}


def gallery_png(code: str) -> bytes:
    """The PNG of the gallery as it is when the button is clicked: an exported file, in English like the CSV (and
    the bundled font has only Latin letters)."""
    arrays = as_arrays(class_store.class_store().drawings(code))
    count = len(arrays.meant)
    heading = f"Class {code}: {count} drawing{'s' if count != 1 else ''}"
    return export.gallery_png(
        arrays.frames,
        arrays.meant,
        arrays.bayes,
        arrays.softmax,
        title=heading,
        confusions={
            "Meant vs naive Bayes": confusion_matrix(arrays.meant, arrays.bayes),
            "Meant vs softmax": confusion_matrix(arrays.meant, arrays.softmax),
        },
    )


def remove_sentence(teaching: classroom.TeacherClass, target: str) -> str:
    """Carry out a removal the teacher typed; what happened, in a sentence."""
    code, key = teaching.info.code, teaching.key
    try:
        if target.isdigit():
            removed = class_store.class_store().remove_drawing(code, key, int(target))
            if removed:
                return _("Removed drawing #{number}.").format(number=target)
            return _("No drawing #{number} in this class.").format(number=target)
        students = {d.student for d in class_store.class_store().drawings(code) if d.student.startswith(target)}
        if len(target) < gallery_views.STUDENT_LABEL or len(students) != 1:
            return _("No single student's label starts with “{label}”: type the five characters under a tile.").format(
                label=target[:16]
            )
        removed = class_store.class_store().remove_student(code, key, students.pop())
        return ngettext("Removed {n} drawing of {label}.", "Removed {n} drawings of {label}.", removed).format(
            n=i18n.integer(removed), label=target
        )
    except Refused as refused:
        return class_sentences.refusal(refused)
