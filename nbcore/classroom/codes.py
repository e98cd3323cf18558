"""Class codes (read aloud, typed by students), teacher keys (secret) and anonymous student ids."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

CODE_PATTERN = re.compile(r"[A-Z0-9]{4,12}")
CODE_RULE = "4 to 12 letters A–Z or digits 0–9"
NEW_CODE_LENGTH = 8  # 31 symbols ** 8 = 8.5e11 codes: guessing one at the refused rate takes lifetimes
NEW_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to mix up when read off a projector
TEACHER_KEY_BYTES = 24  # 192 random bits
STUDENT_SECRET = re.compile(r"[0-9a-f]{32}")  # what a browser keeps: 128 random bits, hex


def class_code(raw: object) -> str | None:
    """The class code in ``raw`` (surrounding spaces dropped, upper-cased), or None if it is not one."""
    if not isinstance(raw, str) or len(raw) > 64:  # long values are refused before any other work
        return None
    code = raw.strip().upper()
    return code if CODE_PATTERN.fullmatch(code) else None


def new_code() -> str:
    """A random class code of ``NEW_CODE_LENGTH`` symbols that read unambiguously aloud and on a screen."""
    return "".join(secrets.choice(NEW_CODE_LETTERS) for _ in range(NEW_CODE_LENGTH))


def new_teacher_key() -> str:
    """A fresh teacher key: 192 random bits, URL-safe text."""
    return secrets.token_urlsafe(TEACHER_KEY_BYTES)


def key_digest(key: str) -> bytes:
    """What the store keeps of a teacher key (never the key itself): its SHA-256."""
    return hashlib.sha256(key.encode("utf-8", "replace")).digest()


def key_matches(key: object, digest: bytes) -> bool:
    """Whether ``key`` is the teacher key whose digest is ``digest``, compared in constant time."""
    if not isinstance(key, str) or len(key) > 256:
        return False
    return hmac.compare_digest(key_digest(key), digest)


def student_id(secret: object) -> str | None:
    """The anonymous id a store keeps for a browser's secret (16 hex digits), or None for a malformed secret.

    The secret stays in the student's browser; the id cannot be turned back into it, so nobody who sees
    ids (a teacher's page, an export) can send as that student.
    """
    if not isinstance(secret, str) or not STUDENT_SECRET.fullmatch(secret):
        return None
    return hashlib.sha256(b"nblab-student:" + secret.encode()).hexdigest()[:16]
