"""The class gallery's parts that are not layout: its wording, the table of misread digits, the teacher's
removals and the gallery as one PNG. ``pages/gallery.py`` lays them out."""

from __future__ import annotations

import numpy as np

from lab import class_store, classroom
from lab.figures import export
from nbcore.classroom import Refused
from nbcore.classroom.export import as_arrays
from nbcore.metrics import ClassErrors, confusion_matrix


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def instead_text(row: np.ndarray) -> str:
    """ "5 ×2, 3 ×1": the other digits a meant digit was read as, most frequent first."""
    order = np.argsort(-row, kind="stable")
    return ", ".join(f"{digit} ×{row[digit]}" for digit in order if row[digit] > 0) or "—"


def misread_table(bayes_errors: ClassErrors, softmax_errors: ClassErrors) -> dict[str, list]:
    """One row per digit the class has sent: its drawings, how often each model read another digit, and which."""
    sent = np.flatnonzero(bayes_errors.count > 0)
    return {
        "meant": [str(digit) for digit in sent],
        "drawings": [int(bayes_errors.count[digit]) for digit in sent],
        "naive Bayes wrong": [f"{bayes_errors.wrong[digit]} ({bayes_errors.error_rate[digit]:.0%})" for digit in sent],
        "naive Bayes read instead": [instead_text(bayes_errors.instead[digit]) for digit in sent],
        "softmax wrong": [f"{softmax_errors.wrong[digit]} ({softmax_errors.error_rate[digit]:.0%})" for digit in sent],
    }


def gallery_png(code: str) -> bytes:
    """The PNG of the gallery as it is when the button is clicked."""
    arrays = as_arrays(class_store.class_store().drawings(code))
    return export.gallery_png(
        arrays.frames,
        arrays.meant,
        arrays.bayes,
        arrays.softmax,
        title=f"Class {code}: {plural(len(arrays.meant), 'drawing')}",
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
            return f"Removed drawing #{target}." if removed else f"No drawing #{target} in this class."
        students = {d.student for d in class_store.class_store().drawings(code) if d.student.startswith(target)}
        if len(target) < class_store.STUDENT_LABEL or len(students) != 1:
            return f"No one student's label starts with “{target[:16]}”: give a tile's five letters."
        return f"Removed {plural(class_store.class_store().remove_student(code, key, students.pop()), 'drawing')} of {target}."
    except Refused as refused:
        return str(refused)
