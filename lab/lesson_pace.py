"""The pace of a class in the guided lesson: the teacher's page leads the class's step, a student's follows it.

The step itself lives in the link (``lab/lesson_frame.py``); here a leading teacher moves the class's pace to the
step on screen, and a student's page moves to the teacher's step whenever it changes, never ahead of it.
"""

from __future__ import annotations

import time

import streamlit as st

from lab import class_period, classroom, i18n, pace_listener, refresh, runs, store_outage
from lab.i18n import _, ngettext
from lab.lesson_frame import QUERY_KEY, go_to

PACE_SEEN = "lesson_pace_seen"  # session: the teacher's step this student was last moved to


def keep_pace(step: int) -> int:
    """The step to show in a class: a leading teacher's step moves the class's pace; a student follows it (moved
    whenever the teacher moves, never ahead of it) and says where they are. Alone: ``step``."""
    teaching, joined = classroom.teacher_class(), classroom.student_class()
    if teaching is not None and teaching.info.ended(time.time()) is None:
        _lead(teaching, step)
    elif joined is not None and joined.info.ended(time.time()) is None:
        step = _follow(joined, step)
    return step


def _lead(teaching: classroom.TeacherClass, step: int) -> None:
    leading = teaching.info.pace is not None
    if leading and teaching.info.pace != step:
        class_period.set_pace(teaching, step)
        class_period.last_outcome()  # the sentence is for the class page; here the step itself shows it
    with st.container(horizontal=True, vertical_alignment="center", key="lesson_pace"):
        moving = _("Class {code} follows your step.") if leading else _("Class {code} moves on its own.")
        st.markdown(":material/groups: " + moving.format(code=teaching.info.code))
        class_period.pace_button(teaching, step, key="lesson_pace")
        reading = class_period.room(teaching.info.code)
        room = reading.value or class_period.Room(0, 0, {})
        on_this = room.on_step.get(step, 0)
        st.caption(
            ngettext(
                "{on_step} of {here} student here are on this step.",
                "{on_step} of {here} students here are on this step.",
                room.here,
            ).format(on_step=i18n.integer(on_this), here=i18n.integer(room.here))
        )
        store_outage.mark(reading)


def _follow(joined: classroom.StudentClass, step: int) -> int:
    pace = joined.info.pace
    if pace is not None:
        if st.session_state.get(PACE_SEEN) != pace:  # the teacher moved (or this student just came): go along
            st.session_state[PACE_SEEN] = pace
            step = pace
        elif step > pace:
            step = pace
            st.info(
                _("Your teacher leads the lesson: step {step} is as far as the class has gone.").format(step=pace),
                icon=":material/front_hand:",
            )
        elif step < pace:
            st.caption(":material/groups: " + _("The class is on step {step}.").format(step=pace))
        if st.query_params.get(QUERY_KEY) != str(step):
            go_to(step)
    else:
        st.session_state.pop(PACE_SEEN, None)
    class_period.check_in(joined, step)
    if pace_listener.LISTENING:
        pace_listener.listen(joined.info, refresh.paused(), time.time())
    _follow_teacher(joined, step, pace)
    return step


@runs.fragment(page="lesson", run_every=class_period.FOLLOW_SECONDS)
def _follow_teacher(joined: classroom.StudentClass, step: int, pace: int | None) -> None:
    """Every ``FOLLOW_SECONDS``: the whole page again when the teacher's step changed, a new period began or the
    class ended (unless live updates are paused: then *Refresh now* moves it); and "still here" for the class."""
    if not refresh.paused() and class_period.changed(joined.info, pace):
        st.rerun(scope="app")
    class_period.check_in(joined, step)
