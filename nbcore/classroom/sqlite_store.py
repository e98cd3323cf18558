"""The class store in one SQLite file (the standard library's sqlite3, WAL mode): the embedded default.

Every replica on a machine opens the same file; WAL lets the teacher's page read while students write,
and each write is one ``BEGIN IMMEDIATE`` transaction, so concurrent processes serialize on the file's
lock (``busy_timeout`` waits for it). A connection is opened per call: Streamlit runs each script in a
thread of its own, and opening a local file costs tens of microseconds.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .store import ClassInfo, ClassStore, StoredDrawing, failing_as_unavailable

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 10_000
SCHEMA = """
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


class StoreFileError(OSError):
    """The store's file cannot be used; the message says what to do."""


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
                    for statement in SCHEMA.split(";"):  # executescript would commit the transaction
                        db.execute(statement)
                    found = db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
                    if found is None:
                        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                    elif int(found[0]) != SCHEMA_VERSION:
                        raise StoreFileError(
                            f"The class store {self.path} has schema version {found[0]}, this program knows "
                            f"{SCHEMA_VERSION}: move the file away (its classes are lost) or run the matching version."
                        )
        except sqlite3.DatabaseError as error:
            raise StoreFileError(
                f"The class store {self.path} cannot be opened ({error}): move the damaged file away and "
                "start again; a new, empty store is made in its place."
            ) from error

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

    def _purge(self, now: float) -> None:
        with self._write() as db:
            db.execute("DELETE FROM classes WHERE expires_at <= ?", (now,))
            db.execute("DELETE FROM budgets WHERE forget_after <= ?", (now,))

    def _insert_class(self, info: ClassInfo, key_digest: bytes, max_classes: int) -> int | str:
        with self._write() as db:
            if db.execute("SELECT 1 FROM classes WHERE code = ?", (info.code,)).fetchone():
                return "taken"
            (open_classes,) = db.execute("SELECT count(*) FROM classes").fetchone()
            if open_classes >= max_classes:
                return "full"
            db.execute(
                "INSERT INTO classes VALUES (?, ?, ?, ?)", (info.code, key_digest, info.created_at, info.expires_at)
            )
            return 0

    def _class(self, code: str) -> tuple[ClassInfo, bytes] | None:
        with self._connection() as db:
            row = db.execute(
                "SELECT created_at, expires_at, key_digest FROM classes WHERE code = ?", (code,)
            ).fetchone()
        return None if row is None else (ClassInfo(code, row[0], row[1]), bytes(row[2]))

    def _set_expiry(self, code: str, expires_at: float) -> None:
        with self._write() as db:
            db.execute("UPDATE classes SET expires_at = ? WHERE code = ?", (expires_at, code))

    def _delete_class(self, code: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM classes WHERE code = ?", (code,))

    def _open(self, db: sqlite3.Connection, code: str, now: float, active_until: float) -> bool:
        """Whether ``code`` is open at ``now``; if so it stays open until at least ``active_until``."""
        changed = db.execute(
            "UPDATE classes SET expires_at = max(expires_at, ?) WHERE code = ? AND expires_at > ?",
            (active_until, code, now),
        ).rowcount
        return changed == 1

    def _insert_drawing(
        self, code: str, drawing: StoredDrawing, per_class: int, per_student: int, active_until: float
    ) -> int | str:
        with self._write() as db:
            if not self._open(db, code, drawing.sent_at, active_until):
                return "missing"
            (held,) = db.execute("SELECT count(*) FROM drawings WHERE code = ?", (code,)).fetchone()
            (own,) = db.execute(
                "SELECT count(*) FROM drawings WHERE code = ? AND student = ?", (code, drawing.student)
            ).fetchone()
            if held >= per_class and own < per_student:
                return "full"
            if own >= per_student:  # the student's own oldest make room
                db.execute(
                    "DELETE FROM drawings WHERE id IN (SELECT id FROM drawings WHERE code = ? AND student = ? "
                    "ORDER BY id LIMIT ?)",
                    (code, drawing.student, own - per_student + 1),
                )
            cursor = db.execute(
                "INSERT INTO drawings (code, student, meant, frame, bayes, softmax, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    code,
                    drawing.student,
                    drawing.meant,
                    drawing.frame,
                    drawing.bayes,
                    drawing.softmax,
                    drawing.sent_at,
                ),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def _select_drawings(self, code: str, student: str | None) -> list[StoredDrawing]:
        query = "SELECT id, student, meant, frame, bayes, softmax, sent_at FROM drawings WHERE code = ?"
        parameters: tuple = (code,)
        if student is not None:
            query, parameters = query + " AND student = ?", (code, student)
        with self._connection() as db:
            rows = db.execute(query + " ORDER BY id", parameters).fetchall()
        return [StoredDrawing(r[0], r[1], r[2], bytes(r[3]), bytes(r[4]), bytes(r[5]), r[6]) for r in rows]

    def _delete_drawings(self, code: str, drawing_id: int | None = None, student: str | None = None) -> int:
        query = "DELETE FROM drawings WHERE code = ?"
        parameters: list[object] = [code]
        if drawing_id is not None:
            query, parameters = query + " AND id = ?", [*parameters, drawing_id]
        if student is not None:
            query, parameters = query + " AND student = ?", [*parameters, student]
        with self._write() as db:
            return db.execute(query, parameters).rowcount

    def _put_answer(self, code: str, student: str, question: str, choice: str, now: float, active_until: float) -> bool:
        with self._write() as db:
            if not self._open(db, code, now, active_until):
                return False
            db.execute(
                "INSERT INTO answers VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, question, student) "
                "DO UPDATE SET choice = excluded.choice, answered_at = excluded.answered_at",
                (code, question, student, choice, now),
            )
            return True

    def _count_answers(self, code: str, question: str) -> dict[str, int]:
        with self._connection() as db:
            rows = db.execute(
                "SELECT choice, count(*) FROM answers WHERE code = ? AND question = ? GROUP BY choice",
                (code, question),
            ).fetchall()
        return {choice: count for choice, count in rows}

    def _all_answers(self, code: str) -> list[tuple[str, str]]:
        with self._connection() as db:
            rows = db.execute("SELECT question, choice FROM answers WHERE code = ?", (code,)).fetchall()
        return [(question, choice) for question, choice in rows]

    def _put_reveal(self, code: str, question: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO reveals VALUES (?, ?)", (code, question))

    def _revealed(self, code: str) -> set[str]:
        with self._connection() as db:
            return {row[0] for row in db.execute("SELECT question FROM reveals WHERE code = ?", (code,))}

    def _take(self, name: str, window: int, cost: int, forget_after: float) -> int:
        with self._write() as db:
            (used,) = db.execute(
                "INSERT INTO budgets VALUES (?, ?, ?, ?) ON CONFLICT (name, window) DO UPDATE SET used = used + ? "
                "RETURNING used",
                (name, window, cost, forget_after, cost),
            ).fetchone()
        return int(used)
