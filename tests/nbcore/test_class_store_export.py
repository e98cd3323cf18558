"""The class's exports (nbcore/classroom/export.py) from what the store holds: arrays, the drawings' .npz that
`class evaluate` reads, and CSV files that number students without their ids and never run as formulas."""

from __future__ import annotations

import csv
import io

import numpy as np

from nbcore.classroom.export import answers_csv, as_arrays, drawings_npz, to_csv
from nbcore.classroom.records import Answer
from nbcore.experiments.class_drawings import load_drawings
from tests.nbcore.class_store_helpers import send, student


def test_arrays_and_csv_number_students_without_their_ids(make_store):
    store = make_store()
    code = store.create_class().info.code
    for who in (7, 3, 7):
        send(store, code, who, meant=who)
    arrays = as_arrays(store.drawings(code))
    assert arrays.students.tolist() == [1, 2, 1] and arrays.meant.tolist() == [7, 3, 7]
    text = to_csv(store.drawings(code)).decode()
    assert text.splitlines()[0].startswith("student,meant,naive_bayes,softmax,pixel0,")
    assert student(7) not in text and len(text.splitlines()) == 4


def test_exported_drawings_are_what_class_evaluate_reads(make_store, tmp_path):
    store = make_store()
    code = store.create_class().info.code
    sent = [send(store, code, who, meant=digit, seed=digit) for who, digit in ((7, 1), (3, 2), (7, 9))]
    path = tmp_path / "class.npz"
    path.write_bytes(drawings_npz(store.drawings(code)))
    with np.load(path, allow_pickle=False) as arrays:
        assert sorted(arrays.files) == ["frames", "labels", "students"]
        assert arrays["frames"].dtype == np.uint8 and arrays["frames"].shape == (3, 28, 28)
        assert arrays["labels"].dtype == np.int64 and arrays["students"].dtype == np.int64
    loaded = load_drawings(path)
    np.testing.assert_array_equal(loaded.frames, np.stack([d.frame for d in sent]))
    assert loaded.labels.tolist() == [1, 2, 9] and loaded.students.tolist() == [1, 2, 1]


def test_exported_answers_number_students_and_never_run_as_formulas():
    rows = [
        Answer("a" * 16, "prior", "3", 1_800_000_000.0, False),
        Answer("b" * 16, "prior", "=HYPERLINK(1)", 1_800_000_001.5, False),
        Answer("a" * 16, "prior", "-192.16", 1_800_000_002.0, True),
        Answer("b" * 16, "likelihood", '5, "and" more\nlines', 1_800_000_003.0, False),
    ]
    text = answers_csv(rows).decode("utf-8")
    assert "a" * 16 not in text and "b" * 16 not in text
    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed == [
        ["student", "question", "answer", "answered_at", "after_reveal"],
        ["1", "prior", "3", "2027-01-15T08:00:00Z", "no"],
        ["2", "prior", "'=HYPERLINK(1)", "2027-01-15T08:00:01Z", "no"],
        ["1", "prior", "-192.16", "2027-01-15T08:00:02Z", "yes"],
        ["2", "likelihood", '5, "and" more\nlines', "2027-01-15T08:00:03Z", "no"],
    ]
    assert answers_csv([]).decode() == "student,question,answer,answered_at,after_reveal\n"
