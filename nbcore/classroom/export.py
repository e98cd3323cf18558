"""A class's drawings and answers as files to take away: arrays, ``.npz`` (what ``python -m nbcore class
evaluate --frames`` reads), and CSV. Students are numbered 1, 2, ... in order of appearance: no ids leave the
store."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from .records import FRAME_BYTES, FRAME_SHAPE, Answer, Drawing


@dataclass(frozen=True)
class DrawingArrays:
    """Drawings as arrays: ``frames`` uint8 (n, 28, 28); ``meant``, ``bayes``, ``softmax`` int64 (n,) digits;
    ``students`` int64 (n,): 1 for the first student to send, 2 for the next, ... (no ids leave the store)."""

    frames: np.ndarray
    meant: np.ndarray
    bayes: np.ndarray
    softmax: np.ndarray
    students: np.ndarray


def as_arrays(drawings: Sequence[Drawing]) -> DrawingArrays:
    """The frames, digits meant, both models' predictions and student numbers of ``drawings``, in order."""
    frames = np.stack([d.frame for d in drawings]) if drawings else np.zeros((0,) + FRAME_SHAPE, np.uint8)
    numbers: dict[str, int] = {}
    students = [numbers.setdefault(d.student, len(numbers) + 1) for d in drawings]
    return DrawingArrays(
        frames,
        np.array([d.meant for d in drawings], dtype=np.int64),
        np.array([d.bayes_prediction for d in drawings], dtype=np.int64),
        np.array([d.softmax_prediction for d in drawings], dtype=np.int64),
        np.array(students, dtype=np.int64),
    )


CSV_HEADER = ["student", "meant", "naive_bayes", "softmax"] + [f"pixel{i}" for i in range(FRAME_BYTES)]


def to_csv(drawings: Sequence[Drawing]) -> bytes:
    """UTF-8 CSV, a header then one row per drawing: student number, meant digit, naive Bayes' and softmax's
    predictions, then the 784 pixels of the 28x28 frame in row-major order (0-255; ``pixel0`` top left)."""
    arrays = as_arrays(drawings)
    rows = np.column_stack(
        [
            arrays.students,
            arrays.meant,
            arrays.bayes,
            arrays.softmax,
            arrays.frames.reshape(len(drawings), FRAME_BYTES).astype(np.int64),
        ]
    )
    text = io.StringIO()
    text.write(",".join(CSV_HEADER) + "\n")
    if len(rows):
        np.savetxt(text, rows, fmt="%d", delimiter=",")
    return text.getvalue().encode("utf-8")


def drawings_npz(drawings: Sequence[Drawing]) -> bytes:
    """An ``.npz`` of ``frames`` uint8 (n, 28, 28), ``labels`` int64 (n,) the digits meant and ``students``
    int64 (n,) numbers, in sending order: exactly what ``class evaluate --frames`` reads."""
    arrays = as_arrays(drawings)
    out = io.BytesIO()
    np.savez_compressed(out, frames=arrays.frames, labels=arrays.meant, students=arrays.students)
    return out.getvalue()


ANSWERS_HEADER = ["student", "question", "answer", "answered_at", "after_reveal"]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


def answers_csv(answers: Sequence[Answer]) -> bytes:
    """UTF-8 CSV, a header then one row per answer in the order given: ``student`` (1, 2, ... by first answer),
    ``question``, ``answer``, ``answered_at`` (ISO 8601, UTC, to the second), ``after_reveal`` (yes/no)."""
    numbers: dict[str, int] = {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ANSWERS_HEADER)
    for answer in answers:
        writer.writerow(
            [
                numbers.setdefault(answer.student, len(numbers) + 1),
                answer.question,
                _cell(answer.choice),
                datetime.fromtimestamp(answer.answered_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "yes" if answer.after_reveal else "no",
            ]
        )
    return out.getvalue().encode("utf-8")


def _cell(text: str) -> str:
    """``text`` as a spreadsheet shows it, never runs it: a leading ``'`` before what would start a formula,
    numbers such as -3.5 kept as they are."""
    if text.startswith(FORMULA_STARTS) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() == text
