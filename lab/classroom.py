"""A class in the dashboard: who is asking (a student of a class, its teacher, a stranger) and what they may do.

* The class of a run: the frame calls ``join_from_link`` once per full run; it reads ``?class=CODE`` (or the
  class the session joined before a page change), checks it, keeps it in the address, and pages read the
  result with ``membership()`` / ``student_class()`` / ``teacher_class()``. A code that names no class gets
  ``store.NOT_OPEN``, the same sentence for a miss and a deleted class, and counts against a budget per
  client address and per session, so codes cannot be guessed at speed. An ended class is still found (its
  pages say "ended at hh:mm"); the store refuses its sends and answers.
* The student: an anonymous id made from a secret the browser keeps (``localStorage``, through a small
  component), so a reload, a new tab or a new session of the same browser is the same student.
* The teacher: the teacher link carries ``?key=``; the key is checked against the store, then taken out
  of the address bar (the projector shows it) and kept by the browser, so a reload stays the teacher.
* Budgets (``ClassStore.take``, shared by every replica): sends per student and per client address,
  misses, new classes (per session and per address, or a passphrase). A whole class may reach the server
  through one school NAT address, so the per-address budgets are sized for sixty students at once; the
  per-student and per-session ones do the fine work.
"""

from __future__ import annotations

import hmac
import os
import re
import time
from dataclasses import dataclass

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lab import language, store_outage
from lab.class_sentences import nbcore_sentence, refusal
from lab.data import class_store
from lab.i18n import N_, _
from nbcore.classroom import CODE_RULE, Refused, class_code, student_id
from nbcore.classroom.records import ClassInfo, StoreUnavailable
from nbcore.classroom.store import NOT_OPEN

CLASS_PARAM, KEY_PARAM = "class", "key"
MINUTE, HOUR = 60.0, 3600.0
SENDS_PER_STUDENT = 10  # a minute: a drawing every six seconds is far beyond drawing, checking and sending
SENDS_PER_ADDRESS = 120  # a minute: sixty students behind one NAT address sending twice at once
MISSES_PER_SESSION = 5  # a minute: a mistyped code or two
MISSES_PER_ADDRESS = 30  # a minute: a class behind one address typing a code wrong
NEW_CLASSES_PER_SESSION = 2  # an hour: a teacher makes one a period; a second for a mistake
NEW_CLASSES_PER_SESSION_WITH_PASSPHRASE = 10  # an hour: a teacher preparing several groups
NEW_CLASSES_PER_ADDRESS = 200  # an hour: sixty students behind one address pressing twice stay well under it
PASSPHRASE_SETTING = "NBCORE_TEACHER_PASSPHRASE"
BROWSER_PENDING = N_("Your browser has not answered yet: wait a second, then send again.")
TOO_FAST = N_("Too many tries from here in the last minute: wait a minute, then try again.")
ADDRESS = re.compile(r"[0-9A-Fa-f:.]{2,45}")

_browser_memory = st.components.v2.component(
    "naive_bayes_lab_browser_memory",
    html="",
    js="""
export default function ({ data, setStateValue }) {
  const storageKey = "nblab:" + data.name;
  let value = null;
  try {
    if (data.remember) window.localStorage.setItem(storageKey, data.remember);
    value = window.localStorage.getItem(storageKey);
  } catch (error) {  // storage blocked (a private window in some browsers): this page only
    value = data.remember || null;
  }
  if (!value && data.create) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    try { window.localStorage.setItem(storageKey, value); } catch (error) {}
  }
  if (value !== data.known) setStateValue("value", value);
}
""",
)


def browser_memory(name: str, *, create_secret: bool = False, remember: str | None = None) -> str | None:
    """What this browser keeps under ``name`` (None until the browser has answered, one rerun later).

    ``create_secret``: if nothing is kept, keep 128 random bits (hex); ``remember``: keep this value.
    Whatever comes back is the visitor's to forge: callers check it.
    """
    key = f"browser_memory_{name}"
    held = st.session_state.get(key)
    known = held.get("value") if isinstance(held, dict) else None
    result = _browser_memory(
        key=key,
        data={"name": name, "create": create_secret, "remember": remember, "known": known},
        default={"value": None},
        on_value_change=lambda: None,
        width="content",
        height="content",
    )
    value = result.get("value")
    return value if isinstance(value, str) and len(value) <= 256 else None


def client_address() -> str:
    """The visitor's address: the connection's, or behind our nginx (a loopback peer) the last X-Forwarded-For."""
    direct = st.context.ip_address  # None for a loopback peer: our nginx, or someone on this machine
    if not isinstance(direct, str):
        forwarded = st.context.headers.get("X-Forwarded-For")
        # nginx appends the address it saw: the last entry is the one to trust
        direct = forwarded.split(",")[-1].strip() if isinstance(forwarded, str) else ""
    return direct if ADDRESS.fullmatch(direct) else "local" if not direct else "other"


def _session() -> str:
    """This session's id: ``st.session_state`` would not do, a client's clear_cache message empties it."""
    context = get_script_run_ctx()
    return context.session_id if context is not None else "none"


def within_budget(*budgets: tuple[str, int, float], cost: int = 1) -> bool:
    """Count ``cost`` uses of each (name, limit, window seconds) budget; False if any is spent (0: only look)."""
    store = class_store.class_store()
    return all([store.take(name, limit, window, cost) for name, limit, window in budgets])  # count each


# -- who is asking: a class's student, its teacher, or neither -----------------------------------------
@dataclass(frozen=True)
class StudentClass:
    """A student's class: ``info`` of the class (open or ended), ``student`` the anonymous id (None until the
    browser answers)."""

    info: ClassInfo
    student: str | None


@dataclass(frozen=True)
class TeacherClass:
    """A class whose teacher this session has shown to be: its info (open or ended) and the key."""

    info: ClassInfo
    key: str


@dataclass(frozen=True)
class UnansweredClass:
    """A class the link or the session names while the store does not answer and the session knows nothing more
    of it (a page opened or reloaded during an outage): its code, and whether this browser holds a teacher key for
    it (unchecked: nothing is shown or done with it before the store answers)."""

    code: str
    teacher: bool


Membership = StudentClass | TeacherClass
_MEMBERSHIP = "class_membership"  # session: this run's Membership or None, set by the frame
_UNANSWERED = "class_unanswered"  # session: this run's UnansweredClass or None, set by the frame


def now() -> float:
    return time.time()


def ended_sentence(info: ClassInfo) -> str | None:
    """ "Class X ended at 14:05." for an ended class (the reader's time zone and form, the day when not today),
    None while it is open."""
    ended = info.ended(now())
    if ended is None:
        return None
    return _("Class {code} ended at {time}.").format(code=info.code, time=language.clock(ended))


def join_from_link() -> Membership | None:
    """The frame's first step on every full run: read the class from the link (``?class=``, ``&key=``) or the
    session, check it once, keep it in the link (so a reload, a page change and a shared link keep it), and
    return it for the frame's badge. Pages read the result with ``membership()``. While the store does not
    answer: the class of the session's last run, or else ``unanswered_class()``, the one the link names."""
    unanswered = None
    try:
        found: Membership | None = _checked_teacher_class()
        if found is None:
            found = _linked_student_class()
    except StoreUnavailable:  # the class as last known, or at least its code: never a page without its class
        store_outage.noticed()
        found = _last_known_class()
        unanswered = _unanswered_class() if found is None else None
    except Refused as refused:
        st.warning(refusal(refused), icon=":material/block:")
        found = None
    st.session_state[_MEMBERSHIP], st.session_state[_UNANSWERED] = found, unanswered
    if found is not None and st.query_params.get(CLASS_PARAM) != found.info.code:
        st.query_params[CLASS_PARAM] = found.info.code
    return found


def _linked_code() -> str | None:
    return class_code(st.query_params.get(CLASS_PARAM)) if CLASS_PARAM in st.query_params else None


def _last_known_class() -> Membership | None:
    """The class this session was in on its last run, unless the link now names another."""
    last = membership()
    return last if last is not None and _linked_code() in (None, last.info.code) else None


def _unanswered_class() -> UnansweredClass | None:
    """The class the link (or the session) names, with whether this browser says it is its teacher: the key in
    the link, the session's, or the one the browser keeps (read from the component's last answer, which
    ``_checked_teacher_class`` drew on this run before the store refused, if it got that far)."""
    code = _linked_code() or st.session_state.get("teacher_code") or st.session_state.get("class_code")
    if not code:
        return None
    held = st.session_state.get(f"browser_memory_teacher-{code}")
    teacher = (
        bool(st.query_params.get(KEY_PARAM))
        or st.session_state.get("teacher_code") == code
        or (isinstance(held, dict) and bool(held.get("value")))
    )
    return UnansweredClass(code, teacher)


def unanswered_class() -> UnansweredClass | None:
    """The class this run's page belongs to while the store does not answer and nothing more is known of it."""
    found = st.session_state.get(_UNANSWERED)
    return found if isinstance(found, UnansweredClass) else None


def membership() -> Membership | None:
    """This run's class, as the frame found it (None: the page is used alone)."""
    found = st.session_state.get(_MEMBERSHIP)
    return found if isinstance(found, (StudentClass, TeacherClass)) else None


def student_class() -> StudentClass | None:
    """This session's class as a student, or None (alone, or its teacher)."""
    found = membership()
    return found if isinstance(found, StudentClass) else None


def teacher_class() -> TeacherClass | None:
    """The class this session teaches, or None."""
    found = membership()
    return found if isinstance(found, TeacherClass) else None


def leave_class() -> None:
    """Leave this session's class (as a student): the link loses its code; the browser keeps its student id."""
    for key in ("class_code", "class_checked", _MEMBERSHIP, _UNANSWERED):
        st.session_state.pop(key, None)
    if CLASS_PARAM in st.query_params:
        del st.query_params[CLASS_PARAM]


def _linked_student_class() -> StudentClass | None:
    """The class named by the link (``?class=``) or kept by the session, checked; a sentence when it is not one."""
    if CLASS_PARAM in st.query_params:
        raw = st.query_params.get(CLASS_PARAM)
        code = class_code(raw)
        if code is None:
            st.caption(":material/info: " + _("The class code in this link was ignored: it is not a class code."))
            del st.query_params[CLASS_PARAM]
        elif st.session_state.get("class_code") not in (None, code):
            st.info(
                _("This link opened class {code}: you have left class {previous}.").format(
                    code=code, previous=st.session_state["class_code"]
                ),
                icon=":material/swap_horiz:",
            )
        if code is not None:
            st.session_state["class_code"] = code
    code = st.session_state.get("class_code")
    if not code:
        return None
    return _checked_student_class(code)


def join(raw: object) -> StudentClass | str:
    """Join the class whose code a student typed: the class, or a sentence why not (misses are budgeted)."""
    code = class_code(raw)
    if code is None:
        return _("That is not a class code: a class code is {rule}, like {example}.").format(
            rule=nbcore_sentence(CODE_RULE), example="XK4P9QRT"
        )
    try:
        joined = _checked_student_class(code, quiet=True)
    except Refused as refused:
        return refusal(refused)
    if joined is None:
        return st.session_state.pop("class_refusal", None) or nbcore_sentence(NOT_OPEN)
    st.session_state["class_code"] = code
    return joined


def _checked_student_class(code: str, quiet: bool = False) -> StudentClass | None:
    """The class ``code`` if it exists (open or ended), with this browser's student id; None with a sentence
    (shown, or kept for the caller when ``quiet``) when it does not."""
    first = st.session_state.get("class_checked") != code  # misses are budgeted; a known class is read each run
    misses = (
        ("miss:session:" + _session(), MISSES_PER_SESSION, MINUTE),
        ("miss:address:" + client_address(), MISSES_PER_ADDRESS, MINUTE),
    )

    def refuse(sentence: str, icon: str) -> None:
        st.session_state.pop("class_checked", None)
        if st.session_state.get("class_code") == code:
            st.session_state.pop("class_code", None)
        if quiet:
            st.session_state["class_refusal"] = sentence
        else:
            st.warning(sentence, icon=icon)

    # spent miss budgets refuse hits too: otherwise a guesser would still tell a hit from a miss
    if first and not within_budget(*misses, cost=0):
        refuse(_(TOO_FAST), ":material/timer:")
        return None
    info = class_store.class_store().class_info(code)
    if info is None:  # never made, or deleted: one sentence for both
        if first:
            within_budget(*misses)
        refuse(nbcore_sentence(NOT_OPEN), ":material/link_off:")
        return None
    st.session_state["class_checked"] = code
    return StudentClass(info, student_id(browser_memory("student", create_secret=True)))


def send_drawing(
    joined: StudentClass, frame: np.ndarray, meant: int, bayes_posterior: np.ndarray, softmax_posterior: np.ndarray
) -> str:
    """Send one drawing of this student to their class; the sentence to show. Raises Refused with one."""
    if joined.student is None:
        raise Refused(_(BROWSER_PENDING))
    code = joined.info.code
    ended = ended_sentence(joined.info)
    if ended:
        raise Refused(_("{ended} Your drawings stay with your teacher.").format(ended=ended))
    if not within_budget(
        (f"send:student:{code}:{joined.student}", SENDS_PER_STUDENT, MINUTE),
        ("send:address:" + client_address(), SENDS_PER_ADDRESS, MINUTE),
    ):
        raise Refused(_(TOO_FAST))
    class_store.class_store().add_drawing(code, joined.student, frame, meant, bayes_posterior, softmax_posterior)
    return _("Sent: your {digit} is in class {code}'s gallery.").format(digit=meant, code=code)


# -- the teacher --------------------------------------------------------------------------------
def _checked_teacher_class() -> TeacherClass | None:
    code = class_code(st.query_params.get(CLASS_PARAM)) if CLASS_PARAM in st.query_params else None
    code = code or st.session_state.get("teacher_code")
    if not code:
        return None
    linked_key = st.query_params.get(KEY_PARAM)
    held = st.session_state.get("teacher_key") if st.session_state.get("teacher_code") == code else None
    store = class_store.class_store()
    valid = next((key for key in (linked_key, held) if key and store.is_teacher(code, key)), None)
    kept = browser_memory(f"teacher-{code}", remember=valid)  # a reload, or a reconnection to another replica
    if valid is None and kept and store.is_teacher(code, kept):
        valid = kept
    if valid is not None:
        st.session_state["teacher_code"], st.session_state["teacher_key"] = code, valid
        if KEY_PARAM in st.query_params:
            del st.query_params[KEY_PARAM]
        if st.query_params.get(CLASS_PARAM) != code:
            st.query_params[CLASS_PARAM] = code
        info = store.class_info(code)
        return None if info is None else TeacherClass(info, valid)
    if linked_key or held:  # a wrong key: budgeted like a wrong code
        within_budget(("miss:address:" + client_address(), MISSES_PER_ADDRESS, MINUTE))
        st.warning(
            _("This teacher link does not open a class: the class was deleted or the link is incomplete."),
            icon=":material/link_off:",
        )
    return None


def passphrase_required() -> bool:
    """Whether making a class asks for the passphrase the server was started with (``$NBCORE_TEACHER_PASSPHRASE``)."""
    return bool(os.environ.get(PASSPHRASE_SETTING, ""))


def new_class(passphrase: str = "") -> TeacherClass | str:
    """Create a class for this session's teacher: the class, or a sentence why not (the store's refusal too)."""
    try:
        return _new_class(passphrase)
    except Refused as refused:  # the budgets are in the store too
        return refusal(refused)


def _new_class(passphrase: str) -> TeacherClass | str:
    """``new_class``'s work.

    Students pressing the button cannot lock the teacher out: without a passphrase, each session makes at most
    ``NEW_CLASSES_PER_SESSION`` an hour and an address ``NEW_CLASSES_PER_ADDRESS`` (sixty students trying twice
    stay under it); with ``$NBCORE_TEACHER_PASSPHRASE`` set, only its holders make classes, and no address budget
    counts against them (wrong passphrases are budgeted like wrong codes).
    """
    expected = os.environ.get(PASSPHRASE_SETTING, "")
    if expected:
        if not within_budget(("miss:session:" + _session(), MISSES_PER_SESSION, MINUTE), cost=0):
            return _(TOO_FAST)
        if not hmac.compare_digest(passphrase.encode("utf-8", "replace"), expected.encode("utf-8", "replace")):
            within_budget(
                ("miss:session:" + _session(), MISSES_PER_SESSION, MINUTE),
                ("miss:address:" + client_address(), MISSES_PER_ADDRESS, MINUTE),
            )
            return _("That is not the passphrase for making classes on this server: ask whoever runs it.")
        budgets = [("new:session:" + _session(), NEW_CLASSES_PER_SESSION_WITH_PASSPHRASE, HOUR)]
    else:
        budgets = [
            ("new:session:" + _session(), NEW_CLASSES_PER_SESSION, HOUR),
            ("new:address:" + client_address(), NEW_CLASSES_PER_ADDRESS, HOUR),
        ]
    if not within_budget(*budgets):
        return _(
            "This browser (or its network address) made as many classes as it may this hour: use one of them "
            "(its teacher link), or start the server with a passphrase for teachers."
        )
    made = class_store.class_store().create_class()
    st.session_state["teacher_code"], st.session_state["teacher_key"] = made.info.code, made.teacher_key
    st.query_params[CLASS_PARAM] = made.info.code
    browser_memory(f"teacher-{made.info.code}", remember=made.teacher_key)  # now: the next full run may be far
    taught = TeacherClass(made.info, made.teacher_key)
    st.session_state[_MEMBERSHIP] = taught
    return taught
