"""The class store in one SQLite file (the standard library's sqlite3, WAL mode): the embedded default.

Every replica on a machine opens the same file; WAL lets the teacher's page read while students write,
and each write is one ``BEGIN IMMEDIATE`` transaction, so concurrent processes serialize on the file's
lock (``busy_timeout`` waits for it). A connection is opened per call: Streamlit runs each script in a
thread of its own, and opening a local file costs tens of microseconds. One more connection stays open
for the store's life: when the last connection to a WAL file closes, SQLite checkpoints and syncs the
log and deletes it, which made every call pay a disk sync (about 50 ms a send, measured by
devtools/class_store_bench.py; about 1.4 ms with this connection held).

A file of an older schema is migrated in place, in one transaction, when a store opens it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .primitives import failing_as_unavailable
from .records import KEEP_AFTER_END_SECONDS, Answer, ClassInfo, Presence, StoredDrawing
from .store import ClassStore

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 10_000
SCHEMA = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE classes (
    code TEXT PRIMARY KEY, key_digest BLOB NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL,
    ended_at REAL, period INTEGER NOT NULL DEFAULT 1, pace INTEGER);
CREATE INDEX classes_by_end ON classes (expires_at);
CREATE TABLE drawings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
    student TEXT NOT NULL, meant INTEGER NOT NULL, frame BLOB NOT NULL, bayes BLOB NOT NULL,
    softmax BLOB NOT NULL, sent_at REAL NOT NULL, period INTEGER NOT NULL DEFAULT 1);
CREATE INDEX drawings_in_period ON drawings (code, period, id);
CREATE INDEX drawings_by_student_in_period ON drawings (code, period, student, id);
CREATE TABLE answers (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, period INTEGER NOT NULL,
    question TEXT NOT NULL, student TEXT NOT NULL, after_reveal INTEGER NOT NULL, choice TEXT NOT NULL,
    answered_at REAL NOT NULL,
    PRIMARY KEY (code, period, question, student, after_reveal));
CREATE TABLE reveals (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, period INTEGER NOT NULL,
    question TEXT NOT NULL, revealed_at REAL,
    PRIMARY KEY (code, period, question));
CREATE TABLE presence (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, student TEXT NOT NULL, step INTEGER,
    seen_at REAL NOT NULL,
    PRIMARY KEY (code, student));
CREATE TABLE budgets (
    name TEXT NOT NULL, window INTEGER NOT NULL, used INTEGER NOT NULL, forget_after REAL NOT NULL,
    PRIMARY KEY (name, window));
"""
# schema 1 -> 2: classes gain their end, period and pace; drawings their period; answers their period and the
# after-the-reveal kind, reveals their period and time (unknown for old ones: NULL); presence is new. The
# tables whose primary key changes are rebuilt. Everything schema 1 held is in period 1.
MIGRATE_FROM_1 = """
ALTER TABLE classes ADD COLUMN ended_at REAL;
ALTER TABLE classes ADD COLUMN period INTEGER NOT NULL DEFAULT 1;
ALTER TABLE classes ADD COLUMN pace INTEGER;
ALTER TABLE drawings ADD COLUMN period INTEGER NOT NULL DEFAULT 1;
DROP INDEX drawings_by_class;
DROP INDEX drawings_by_student;
CREATE INDEX drawings_in_period ON drawings (code, period, id);
CREATE INDEX drawings_by_student_in_period ON drawings (code, period, student, id);
ALTER TABLE answers RENAME TO answers_1;
CREATE TABLE answers (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, period INTEGER NOT NULL,
    question TEXT NOT NULL, student TEXT NOT NULL, after_reveal INTEGER NOT NULL, choice TEXT NOT NULL,
    answered_at REAL NOT NULL,
    PRIMARY KEY (code, period, question, student, after_reveal));
INSERT INTO answers SELECT code, 1, question, student, 0, choice, answered_at FROM answers_1;
DROP TABLE answers_1;
ALTER TABLE reveals RENAME TO reveals_1;
CREATE TABLE reveals (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, period INTEGER NOT NULL,
    question TEXT NOT NULL, revealed_at REAL,
    PRIMARY KEY (code, period, question));
INSERT INTO reveals SELECT code, 1, question, NULL FROM reveals_1;
DROP TABLE reveals_1;
CREATE TABLE presence (
    code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, student TEXT NOT NULL, step INTEGER,
    seen_at REAL NOT NULL,
    PRIMARY KEY (code, student));
UPDATE meta SET value = '2' WHERE name = 'schema_version';
"""
MIGRATIONS = {1: MIGRATE_FROM_1}  # the schema a file has -> the statements that bring it one version up
CLASS_COLUMNS = "code, created_at, expires_at, ended_at, period, pace"
ENDED_AT = "coalesce(ended_at, expires_at)"  # a class's end, once it has ended


class StoreFileError(OSError):
    """The store's file cannot be used; the message says what to do."""


def _statements(script: str) -> list[str]:
    """The statements of ``script`` (executescript would commit the transaction they must share)."""
    return [statement for statement in script.split(";") if statement.strip()]


@failing_as_unavailable(sqlite3.OperationalError)
class SqliteStore(ClassStore):
    """``ClassStore`` in the SQLite file ``path`` (created with its folder if missing)."""

    def __init__(self, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS, **kwargs) -> None:
        super().__init__(**kwargs)
        self.path = Path(path)
        self.busy_timeout_ms = busy_timeout_ms
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connection() as db:
                db.execute("PRAGMA journal_mode=WAL")
                with self._writing(db):
                    self._make_or_migrate(db)
            self._keeper: sqlite3.Connection | None = sqlite3.connect(self.path, check_same_thread=False)
            self._keeper.execute("SELECT count(*) FROM meta").fetchall()  # a read joins it to the WAL
        except sqlite3.DatabaseError as error:
            raise StoreFileError(
                f"The class store {self.path} cannot be opened ({error}): move the damaged file away and "
                "start again; a new, empty store is made in its place."
            ) from error

    def _make_or_migrate(self, db: sqlite3.Connection) -> None:
        """An empty file gets the schema; a file of an older schema is brought up to this one."""
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone() is None:
            for statement in _statements(SCHEMA):
                db.execute(statement)
            db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            return
        found = db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
        version = int(found[0]) if found is not None and str(found[0]).isdigit() else None
        if version is None or version > SCHEMA_VERSION or version not in (*MIGRATIONS, SCHEMA_VERSION):
            raise StoreFileError(
                f"The class store {self.path} has schema version {found and found[0]}, this program knows "
                f"{SCHEMA_VERSION}: move the file away (its classes are lost) or run the matching version."
            )
        while version < SCHEMA_VERSION:
            for statement in _statements(MIGRATIONS[version]):
                db.execute(statement)
            version += 1

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None)
        try:
            db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: a power cut may lose the last send, never corrupt
            yield db
        finally:
            db.close()

    @contextmanager
    def _writing(self, db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the file's write lock at once (no upgrade deadlocks)."""
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connection() as db, self._writing(db):
            yield db

    def close_connections(self) -> None:
        if self._keeper is not None:
            self._keeper.close()
            self._keeper = None

    @staticmethod
    def _state(db: sqlite3.Connection, code: str, now: float) -> tuple[str, int]:
        """("open" | "ended" | "missing", the current period) of ``code`` at ``now``, inside a transaction."""
        row = db.execute("SELECT expires_at, ended_at, period FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None:
            return "missing", 0
        expires_at, ended_at, period = row
        if ended_at is None and expires_at > now:
            return "open", period
        if (ended_at if ended_at is not None else expires_at) + KEEP_AFTER_END_SECONDS <= now:
            return "missing", period
        return "ended", period

    @staticmethod
    def _touch(db: sqlite3.Connection, code: str, active_until: float) -> None:
        """Activity: the open class ``code`` stays open until at least ``active_until``."""
        db.execute("UPDATE classes SET expires_at = max(expires_at, ?) WHERE code = ?", (active_until, code))

    @staticmethod
    def _info(row: tuple) -> ClassInfo:
        return ClassInfo(*row)

    def _purge(self, now: float, ended_before: float) -> None:
        with self._write() as db:
            db.execute(f"DELETE FROM classes WHERE {ENDED_AT} <= ?", (ended_before,))
            db.execute("DELETE FROM budgets WHERE forget_after <= ?", (now,))

    def _insert_class(self, info: ClassInfo, key_digest: bytes, max_classes: int) -> int | str:
        with self._write() as db:
            if db.execute("SELECT 1 FROM classes WHERE code = ?", (info.code,)).fetchone():
                return "taken"
            (open_classes,) = db.execute(
                "SELECT count(*) FROM classes WHERE ended_at IS NULL AND expires_at > ?", (info.created_at,)
            ).fetchone()
            if open_classes >= max_classes:
                return "full"
            db.execute(
                "INSERT INTO classes (code, key_digest, created_at, expires_at) VALUES (?, ?, ?, ?)",
                (info.code, key_digest, info.created_at, info.expires_at),
            )
            return 0

    def _class(self, code: str) -> tuple[ClassInfo, bytes] | None:
        with self._connection() as db:
            row = db.execute(f"SELECT {CLASS_COLUMNS}, key_digest FROM classes WHERE code = ?", (code,)).fetchone()
        return None if row is None else (self._info(row[:-1]), bytes(row[-1]))

    def _classes(self) -> list[ClassInfo]:
        with self._connection() as db:
            return [self._info(row) for row in db.execute(f"SELECT {CLASS_COLUMNS} FROM classes")]

    def _reopen(self, code: str, expires_at: float) -> None:
        with self._write() as db:
            db.execute("UPDATE classes SET expires_at = ?, ended_at = NULL WHERE code = ?", (expires_at, code))

    def _end(self, code: str, now: float) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE classes SET ended_at = ? WHERE code = ? AND ended_at IS NULL AND expires_at > ?",
                (now, code, now),
            )

    def _delete_class(self, code: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM classes WHERE code = ?", (code,))

    def _new_period(self, code: str, now: float, active_until: float, max_periods: int) -> str:
        with self._write() as db:
            state, period = self._state(db, code, now)
            if state != "open":
                return state
            if period >= max_periods:
                return "full"
            db.execute("UPDATE classes SET period = period + 1, pace = NULL WHERE code = ?", (code,))
            self._touch(db, code, active_until)
            return "ok"

    def _set_pace(self, code: str, step: int | None) -> None:
        with self._write() as db:
            db.execute("UPDATE classes SET pace = ? WHERE code = ?", (step, code))

    def _insert_drawing(
        self, code: str, drawing: StoredDrawing, per_class: int, per_student: int, active_until: float
    ) -> int | str:
        with self._write() as db:
            state, period = self._state(db, code, drawing.sent_at)
            if state != "open":
                return state
            (held,) = db.execute(
                "SELECT count(*) FROM drawings WHERE code = ? AND period = ?", (code, period)
            ).fetchone()
            (own,) = db.execute(
                "SELECT count(*) FROM drawings WHERE code = ? AND period = ? AND student = ?",
                (code, period, drawing.student),
            ).fetchone()
            if held >= per_class and own < per_student:
                return "full"
            if own >= per_student:  # the student's own oldest make room
                db.execute(
                    "DELETE FROM drawings WHERE id IN (SELECT id FROM drawings WHERE code = ? AND period = ? "
                    "AND student = ? ORDER BY id LIMIT ?)",
                    (code, period, drawing.student, own - per_student + 1),
                )
            cursor = db.execute(
                "INSERT INTO drawings (code, period, student, meant, frame, bayes, softmax, sent_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    code,
                    period,
                    drawing.student,
                    drawing.meant,
                    drawing.frame,
                    drawing.bayes,
                    drawing.softmax,
                    drawing.sent_at,
                ),
            )
            self._touch(db, code, active_until)
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def _select_drawings(self, code: str, period: int, student: str | None) -> list[StoredDrawing]:
        query = "SELECT id, student, meant, frame, bayes, softmax, sent_at FROM drawings WHERE code = ? AND period = ?"
        parameters: tuple = (code, period)
        if student is not None:
            query, parameters = query + " AND student = ?", (*parameters, student)
        with self._connection() as db:
            rows = db.execute(query + " ORDER BY id", parameters).fetchall()
        return [StoredDrawing(r[0], r[1], r[2], bytes(r[3]), bytes(r[4]), bytes(r[5]), r[6]) for r in rows]

    def _delete_drawings(
        self, code: str, period: int, drawing_id: int | None = None, student: str | None = None
    ) -> int:
        query = "DELETE FROM drawings WHERE code = ? AND period = ?"
        parameters: list[object] = [code, period]
        if drawing_id is not None:
            query, parameters = query + " AND id = ?", [*parameters, drawing_id]
        if student is not None:
            query, parameters = query + " AND student = ?", [*parameters, student]
        with self._write() as db:
            return db.execute(query, parameters).rowcount

    def _put_answer(self, code: str, student: str, question: str, choice: str, now: float, active_until: float) -> str:
        with self._write() as db:
            state, period = self._state(db, code, now)
            if state != "open":
                return state
            revealed = db.execute(
                "SELECT 1 FROM reveals WHERE code = ? AND period = ? AND question = ?", (code, period, question)
            ).fetchone()
            if revealed:  # kept apart, the student's first one only
                db.execute(
                    "INSERT OR IGNORE INTO answers VALUES (?, ?, ?, ?, 1, ?, ?)",
                    (code, period, question, student, choice, now),
                )
            else:
                db.execute(
                    "INSERT INTO answers VALUES (?, ?, ?, ?, 0, ?, ?) "
                    "ON CONFLICT (code, period, question, student, after_reveal) "
                    "DO UPDATE SET choice = excluded.choice, answered_at = excluded.answered_at",
                    (code, period, question, student, choice, now),
                )
            self._touch(db, code, active_until)
            return "after" if revealed else "counted"

    def _select_answers(
        self, code: str, period: int, question: str | None = None, student: str | None = None
    ) -> list[Answer]:
        query = "SELECT student, question, choice, answered_at, after_reveal FROM answers WHERE code = ? AND period = ?"
        parameters: tuple = (code, period)
        if question is not None:
            query, parameters = query + " AND question = ?", (*parameters, question)
        if student is not None:
            query, parameters = query + " AND student = ?", (*parameters, student)
        with self._connection() as db:
            rows = db.execute(query, parameters).fetchall()
        return [Answer(who, asked, choice, at, bool(after)) for who, asked, choice, at, after in rows]

    def _put_reveal(self, code: str, period: int, question: str, now: float) -> None:
        with self._write() as db:
            db.execute(  # nothing if the class was deleted since the teacher was checked (not a foreign key error)
                "INSERT OR IGNORE INTO reveals SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM classes WHERE code = ?)",
                (code, period, question, now, code),
            )

    def _delete_reveal(self, code: str, period: int, question: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM reveals WHERE code = ? AND period = ? AND question = ?", (code, period, question))

    def _delete_question(self, code: str, period: int, question: str) -> None:
        with self._write() as db:
            for table in ("answers", "reveals"):
                db.execute(
                    f"DELETE FROM {table} WHERE code = ? AND period = ? AND question = ?", (code, period, question)
                )

    def _revealed(self, code: str, period: int) -> set[str]:
        with self._connection() as db:
            rows = db.execute("SELECT question FROM reveals WHERE code = ? AND period = ?", (code, period))
            return {row[0] for row in rows}

    def _check_in(self, code: str, student: str, step: int | None, now: float, max_students: int) -> str:
        with self._write() as db:
            state, _ = self._state(db, code, now)
            if state != "open":
                return state
            updated = db.execute(
                "UPDATE presence SET step = ?, seen_at = ? WHERE code = ? AND student = ?", (step, now, code, student)
            ).rowcount
            if updated:
                return "ok"
            (present,) = db.execute("SELECT count(*) FROM presence WHERE code = ?", (code,)).fetchone()
            if present >= max_students:
                return "full"
            db.execute("INSERT INTO presence VALUES (?, ?, ?, ?)", (code, student, step, now))
            return "ok"

    def _presence(self, code: str) -> dict[str, Presence]:
        with self._connection() as db:
            rows = db.execute("SELECT student, step, seen_at FROM presence WHERE code = ?", (code,)).fetchall()
        return {student: Presence(step, seen_at) for student, step, seen_at in rows}

    def _take(self, name: str, window: int, cost: int, forget_after: float) -> int:
        with self._write() as db:
            (used,) = db.execute(
                "INSERT INTO budgets VALUES (?, ?, ?, ?) ON CONFLICT (name, window) DO UPDATE SET used = used + ? "
                "RETURNING used",
                (name, window, cost, forget_after, cost),
            ).fetchone()
        return int(used)
