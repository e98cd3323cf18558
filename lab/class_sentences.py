"""nbcore's sentences in the reader's language: the class store's refusals and the command line's, as a page shows
them (nbcore writes English only, and some of its sentences name a class or a number)."""

from __future__ import annotations

import re

from lab import i18n
from lab.i18n import N_, _
from nbcore.classroom import CODE_RULE, ENDED
from nbcore.classroom.records import UNAVAILABLE
from nbcore.classroom.store import NOT_OPEN, TEACHER_ONLY

# nbcore's sentences (the store's refusals, the command line's too), in the reader's language where a page shows them
_NBCORE_SENTENCES = {
    UNAVAILABLE: N_("The class store is not answering right now; the rest of the lab works. Try again in a minute."),
    NOT_OPEN: N_("There is no open class with this code: check it with your teacher."),
    ENDED: N_("This class has ended: ask your teacher for the new code."),
    TEACHER_ONLY: N_("Only this class's teacher can do that: open the page through the teacher link."),
    CODE_RULE: N_("4 to 12 letters A–Z or digits 0–9"),
}
# nbcore's refusals that name a class or a number: (their English form, the message with the same placeholders)
_NBCORE_PATTERNS = (
    (
        r"Class (?P<code>\S+) already exists: choose another code\.",
        N_("Class {code} already exists: choose another code."),
    ),
    (
        r"This server holds (?P<count>\d+) open classes, as many as it keeps: try again later\.",
        N_("This server holds {count} open classes, as many as it keeps: try again later."),
    ),
    (
        r"Class (?P<code>\S+) holds (?P<count>\d+) periods, as many as it keeps: make a new class\.",
        N_("Class {code} holds {count} periods, as many as it keeps: make a new class."),
    ),
    (
        r"Class (?P<code>\S+)'s gallery holds (?P<count>\d+) drawings, as many as it keeps: ask your teacher to make "
        r"room\.",
        N_("Class {code}'s gallery holds {count} drawings, as many as it keeps: ask your teacher to make room."),
    ),
    (
        r"Class (?P<code>\S+) has (?P<count>\d+) students, as many as it keeps: ask your teacher\.",
        N_("Class {code} has {count} students, as many as it keeps: ask your teacher."),
    ),
    (r"A class code is (?P<rule>.+)\.", N_("A class code is {rule}.")),
)


def nbcore_sentence(text: str) -> str:
    """One of nbcore's sentences (a refusal, ``NOT_OPEN``, ``CODE_RULE``) or of ``lab/classroom.py``'s (``TOO_FAST``)
    in the reader's language; any other text as it is."""
    if text in _NBCORE_SENTENCES:
        return _(_NBCORE_SENTENCES[text])
    for pattern, message in _NBCORE_PATTERNS:
        found = re.fullmatch(pattern, text)
        if found:
            fields = found.groupdict()
            if "count" in fields:
                fields["count"] = i18n.integer(int(fields["count"]))
            if "rule" in fields:
                fields["rule"] = nbcore_sentence(fields["rule"])
            return _(message).format(**fields)
    return _(text) if text else text


def refusal(refused: BaseException) -> str:
    """What a page says for a refusal (``Refused``, a drawing's ``ValueError``): its sentence in the reader's language."""
    return nbcore_sentence(str(refused))
