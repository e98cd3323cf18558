"""The SQLite class store's file of schema 1 (the first released), migrated in place to schema 2 with everything
it held, or left untouched when the migration fails."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from nbcore.classroom import codes
from nbcore.classroom.records import KEEP_SECONDS, Tally
from nbcore.classroom.sqlite_store import SqliteStore, StoreFileError
from tests.nbcore.class_store_helpers import Clock, frame, posterior, send, student

# nbcore/classroom/sqlite_store.py's SCHEMA at schema version 1 (commit 5027553), verbatim: what teachers'
# store files hold
SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, key_digest BLOB NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS classes_by_end ON classes (expires_at);
CREATE TABLE IF NOT EXISTS drawings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
    student TEXT NOT NULL, meant INTEGER NOT NULL, frame BLOB NOT NULL, bayes BLOB NOT NULL,
    softmax BLOB NOT NULL, sent_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS drawings_by_class ON drawings (code, id);
CREATE INDEX IF NOT EXISTS drawings_by_student ON drawings (code, student, id);
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
    question TEXT NOT NULL, student TEXT NOT NULL, choice TEXT NOT NULL, answered_at REAL NOT NULL,
    PRIMARY KEY (code, question, student));
CREATE TABLE IF NOT EXISTS reveals (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, question TEXT NOT NULL,
    PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS budgets (
    name TEXT NOT NULL, window INTEGER NOT NULL, used INTEGER NOT NULL, forget_after REAL NOT NULL,
    PRIMARY KEY (name, window));
"""


def a_schema_1_file(path, now: float) -> list[int]:
    """A store file as schema 1's code left it: class OLD1 (teacher key "the-teacher-key") with three drawings
    of two students, two answers and a reveal, class OTHER2 with one drawing. The drawing ids."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    for statement in SCHEMA_1.split(";"):
        db.execute(statement)
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    for code, created in (("OLD1", now - 600), ("OTHER2", now - 300)):
        db.execute(
            "INSERT INTO classes VALUES (?, ?, ?, ?)",
            (code, codes.key_digest("the-teacher-key"), created, created + KEEP_SECONDS),
        )
    ids = []
    for code, who, meant in (("OLD1", 1, 3), ("OTHER2", 9, 0), ("OLD1", 2, 5), ("OLD1", 1, 8)):
        cursor = db.execute(
            "INSERT INTO drawings (code, student, meant, frame, bayes, softmax, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                code,
                student(who),
                meant,
                frame(meant).tobytes(),
                posterior(meant).tobytes(),
                posterior(0).tobytes(),
                now,
            ),
        )
        ids.append(cursor.lastrowid)
    db.execute("INSERT INTO answers VALUES ('OLD1', 'prior', ?, '3', ?)", (student(1), now - 60))
    db.execute("INSERT INTO answers VALUES ('OLD1', 'prior', ?, '5', ?)", (student(2), now - 50))
    db.execute("INSERT INTO reveals VALUES ('OLD1', 'prior')")
    db.execute("INSERT INTO budgets VALUES ('new:address:10.0.0.1', 1, 2, ?)", (now + 3600,))
    db.close()
    return ids


def test_a_schema_1_file_is_migrated_in_place_and_keeps_everything(tmp_path):
    clock = Clock()
    path = tmp_path / "classes.sqlite3"
    ids = a_schema_1_file(path, clock.now)
    store = SqliteStore(path, clock=clock)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone() == ("2",)
    info = store.class_info("OLD1")
    assert (info.created_at, info.expires_at) == (clock.now - 600, clock.now - 600 + KEEP_SECONDS)
    assert (info.ended_at, info.period, info.pace) == (None, 1, None) and info.is_open(clock.now)
    assert store.is_teacher("OLD1", "the-teacher-key")
    kept = store.drawings("OLD1")
    assert [d.id for d in kept] == [ids[0], ids[2], ids[3]] and [d.meant for d in kept] == [3, 5, 8]
    np.testing.assert_array_equal(kept[0].frame, frame(3))
    assert kept[2].bayes_prediction == 8 and [d.id for d in store.drawings("OTHER2")] == [ids[1]]
    assert store.tally("OLD1", "prior") == Tally({"3": 1, "5": 1}, {}) and store.revealed("OLD1") == {"prior"}
    assert [a.answered_at for a in store.answers("OLD1")] == [clock.now - 60, clock.now - 50]
    # what schema 2 adds works on the migrated classes
    assert store.answer("OLD1", student(3), "prior", "1") is False  # revealed before the migration: locked
    assert send(store, "OLD1", 1).id > max(ids)  # ids keep increasing
    store.check_in("OLD1", student(1), 2)
    assert store.new_period("OLD1", "the-teacher-key").period == 2 and store.drawings("OLD1") == ()
    assert len(store.drawings("OLD1", period=1)) == 4
    store.delete_class("OTHER2", "the-teacher-key")  # deleting cascades through the rebuilt tables
    assert store.class_info("OTHER2") is None
    SqliteStore(path, clock=clock)  # opened again: nothing more to migrate
    assert len(store.drawings("OLD1", period=1)) == 4


def test_a_failed_migration_leaves_the_schema_1_file_as_it_was(tmp_path):
    path = tmp_path / "classes.sqlite3"
    a_schema_1_file(path, Clock().now)
    with sqlite3.connect(path) as db:  # something in the way of the migration's last step
        db.execute("CREATE TABLE presence (anything TEXT)")
    with pytest.raises(StoreFileError, match="cannot be opened"):
        SqliteStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone() == ("1",)
        assert [row[1] for row in db.execute("PRAGMA table_info(answers)")] == [
            "code",
            "question",
            "student",
            "choice",
            "answered_at",
        ]
        assert db.execute("SELECT count(*) FROM drawings").fetchone() == (4,)
