"""A class period, run by its teacher: the lesson's pace, who is here, the end, the new period, the exports.

The teacher's actions are button callbacks (they run before the page is drawn again, so the page shows their
outcome at once); a refusal (the store down, the class deleted meanwhile) is kept as a sentence the page
shows. Students check in from the pages they take part on, at most every ``CHECK_IN_SECONDS`` unless their
lesson step changed, so the teacher sees who is here and where.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import streamlit as st

from lab import class_sentences, classroom, i18n, pace_listener, runs, store_outage
from lab.data import class_store
from lab.i18n import _, ngettext
from nbcore.classroom import KEEP_SECONDS, ClassInfo, Refused
from nbcore.classroom.export import answers_csv, drawings_npz
from nbcore.classroom.records import StoreUnavailable

WARN_BEFORE_SECONDS = 15 * 60  # the teacher's page warns this long before a class ends on its own
CHECK_IN_SECONDS = 30  # a student's "still here" at most this often when nothing changed
HERE_SECONDS = 120  # a student seen within this long is "here now"
# how often a student's lesson looks for the teacher's step by a run of its own: behind the pace listener
# (lab/pace_listener.py), which moves the page at once, only a safety net and the "still here"; without it
# (NBCORE_FOLLOW=poll) the only way, every 2 s as before #40
FOLLOW_SECONDS = 30 if pace_listener.LISTENING else 2
_OUTCOME = "class_period_outcome"  # session: the teacher's last action and how it went, said when shown


def _act(teaching: classroom.TeacherClass, action: str, **arguments) -> None:
    """Call the store's teacher-only ``action`` for this class; keep what came of it for the page, in words only
    when the page shows it (a button's callback runs before the run has chosen the reader's language)."""
    try:
        getattr(class_store.class_store(), action)(teaching.info.code, teaching.key, **arguments)
    except Refused as refused:
        if isinstance(refused, StoreUnavailable):
            store_outage.refused()
        st.session_state[_OUTCOME] = ("warning", str(refused))
    else:
        st.session_state[_OUTCOME] = ("success", (action, arguments.get("step")))


def _done_sentence(action: str, step: int | None) -> str:
    """What the teacher's ``action`` did, in a sentence."""
    if action == "extend":
        hours = KEEP_SECONDS // 3600
        return ngettext("Kept {hours} hour longer.", "Kept {hours} hours longer.", hours).format(
            hours=i18n.integer(hours)
        )
    if action == "end":
        return _(
            "The class has ended: students can no longer send or answer. Everything it holds is kept for you to "
            "download."
        )
    if action == "new_period":
        return _("A new period has started with the same code: drawings and answers start empty.")
    if action == "delete_class":
        return _("The class and everything it held are deleted.")
    return _("Students follow your step.") if step else _("Students move on their own.")


def extend(teaching: classroom.TeacherClass) -> None:
    _act(teaching, "extend")


def end(teaching: classroom.TeacherClass) -> None:
    _act(teaching, "end")


def new_period(teaching: classroom.TeacherClass) -> None:
    _act(teaching, "new_period")


def delete(teaching: classroom.TeacherClass) -> None:
    _act(teaching, "delete_class")
    if st.session_state.get(_OUTCOME, ("",))[0] == "success":
        for key in ("teacher_code", "teacher_key"):
            st.session_state.pop(key, None)
        classroom.leave_class()


def set_pace(teaching: classroom.TeacherClass, step: int | None) -> None:
    _act(teaching, "set_pace", step=step)


def pace_button(teaching: classroom.TeacherClass, lead_from: int, key: str) -> None:
    """The one button that switches the class's pace: *Lead* (students follow the teacher, starting on ``lead_from``)
    or *Let students move on their own*, whichever the class is not doing now."""
    if teaching.info.pace is not None:
        st.button(
            _("Let students move on their own"),
            icon=":material/lock_open:",
            key=f"{key}_free",
            on_click=set_pace,
            args=(teaching, None),
        )
    else:
        st.button(
            _("Lead: students follow my step"),
            icon=":material/arrow_forward:",
            key=f"{key}_lead",
            on_click=set_pace,
            args=(teaching, lead_from),
            help=_("Students go to step {step}; then your Back and Next on the lesson move everyone.").format(
                step=lead_from
            ),
        )


def last_outcome() -> tuple[str, str] | None:
    """("success" | "warning", sentence) of the teacher's last action, once, in the reader's language."""
    outcome = st.session_state.pop(_OUTCOME, None)
    if outcome is None:
        return None
    kind, what = outcome
    if kind == "success" and isinstance(what, tuple):
        return kind, _done_sentence(*what)
    return kind, class_sentences.nbcore_sentence(str(what))


def minutes_left(teaching: classroom.TeacherClass) -> float | None:
    """Minutes until an open class ends on its own (None once it has ended)."""
    if teaching.info.ended(time.time()) is not None:
        return None
    return (teaching.info.expires_at - time.time()) / 60


def ends_soon(teaching: classroom.TeacherClass) -> bool:
    left = minutes_left(teaching)
    return left is not None and left * 60 <= WARN_BEFORE_SECONDS


# -- downloads -----------------------------------------------------------------------------------------------
def drawings_file(code: str, period: int) -> bytes:
    """The period's drawings as ``.npz`` (``frames``, ``labels``, ``students``): what ``class evaluate --frames`` reads."""
    return drawings_npz(class_store.class_store().drawings(code, period=period))


def answers_file(code: str, period: int) -> bytes:
    """The period's answers, one row per student and question, with time and before/after the reveal (CSV)."""
    return answers_csv(class_store.class_store().answers(code, period=period))


# -- who is here, and where ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Room:
    """The class's students: ``joined`` ever, ``here`` seen in the last ``HERE_SECONDS``, and how many of those are
    on each lesson step (``on_step``: step -> students, in step order)."""

    joined: int
    here: int
    on_step: dict[int, int]


def room(code: str) -> store_outage.Reading[Room]:
    """Who is in class ``code`` now; while the store refuses, as last known (``store_outage.mark`` says so)."""
    return store_outage.kept(f"room:{code}", lambda: _room(code))


def _room(code: str) -> Room:
    seen = class_store.class_store().presence(code)
    recent = [presence for presence in seen.values() if presence.seen_at >= time.time() - HERE_SECONDS]
    steps: dict[int, int] = {}
    for presence in recent:
        if presence.step is not None:
            steps[presence.step] = steps.get(presence.step, 0) + 1
    return Room(len(seen), len(recent), dict(sorted(steps.items())))


def check_in(joined: classroom.StudentClass, step: int | None) -> None:
    """Tell the class this student is here (on lesson ``step``, or elsewhere: None); at most every
    ``CHECK_IN_SECONDS`` unless the step changed. Quiet: a student's page never fails for it."""
    if joined.student is None or joined.info.ended(time.time()) is not None:
        return
    last = st.session_state.get("class_check_in")
    if last is not None and last[:2] == (joined.info.code, step) and time.time() - last[2] < CHECK_IN_SECONDS:
        return
    try:
        class_store.class_store().check_in(joined.info.code, joined.student, step)
    except StoreUnavailable:
        store_outage.noticed()
        return
    except (Refused, ValueError):
        return
    st.session_state["class_check_in"] = (joined.info.code, step, time.time())


HEARTBEAT_SECONDS = 15  # a student away from the lesson checks in, and looks for the class's end, this often


@runs.fragment(page="class", run_every=HEARTBEAT_SECONDS)
def heartbeat(joined: classroom.StudentClass) -> None:
    """On a student's pages other than the lesson (whose own poll does this): "still here" for the class page's
    count, and the whole page again once the class has ended, so its badge says so without a reload."""
    check_in(joined, None)
    try:
        info = class_store.class_store().class_info(joined.info.code)
    except StoreUnavailable:
        store_outage.noticed()
        return
    except Refused:
        return
    if info is None or info.ended(time.time()) != joined.info.ended(time.time()):
        st.rerun(scope="app")


def changed(seen: ClassInfo, pace: int | None) -> bool:
    """Whether class ``seen`` has moved on since a page showed it with ``pace``: another step, another period, its end."""
    try:
        now = class_store.class_store().class_info(seen.code)
    except StoreUnavailable:
        store_outage.noticed()
        return False
    except Refused:
        return False
    if now is None:
        return True
    live = now.ended(time.time()) is None
    return (now.pace if live else None) != pace or now.period != seen.period or not live
