"""What a class shares, kept in one store every server process reads: classes, drawings, poll answers, presence.

``records`` defines what a class, a drawing and an answer are; ``bounds`` how much a class holds and what an
argument may be; ``store`` the interface (``ClassStore``) and ``primitives`` what a back end provides under it:
``sqlite_store`` (the embedded default, one file in the data directory) and ``redis_store`` (several machines;
its Lua scripts in ``redis_scripts``) implement it; ``backends.open_store`` picks one from a setting. ``codes``
makes and checks class codes, teacher keys and anonymous student ids; ``export`` turns drawings and answers into
files (``.npz``, CSV).
"""

from .backends import open_store, store_setting
from .bounds import PER_CLASS, PER_STUDENT
from .codes import CODE_RULE, class_code, new_code, new_teacher_key, student_id
from .records import (
    KEEP_AFTER_END_SECONDS,
    KEEP_SECONDS,
    OPERATOR,
    Answer,
    ClassInfo,
    Drawing,
    NewClass,
    Presence,
    Refused,
    Tally,
)
from .store import ENDED, NOT_OPEN, ClassStore

__all__ = [
    "CODE_RULE",
    "ENDED",
    "KEEP_AFTER_END_SECONDS",
    "KEEP_SECONDS",
    "NOT_OPEN",
    "OPERATOR",
    "PER_CLASS",
    "PER_STUDENT",
    "Answer",
    "ClassInfo",
    "ClassStore",
    "Drawing",
    "NewClass",
    "Presence",
    "Refused",
    "Tally",
    "class_code",
    "new_code",
    "new_teacher_key",
    "open_store",
    "store_setting",
    "student_id",
]
