"""The guided lesson taken as a class: who takes it, a student's answer sent to the class, and the teacher's side
of each question (the class's answers live, Reveal, Reopen, Reset, the answers as CSV)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from lab import class_period, classroom, display, focus, i18n, refresh, store_outage
from lab.class_sentences import nbcore_sentence
from lab.classroom import BROWSER_PENDING, MINUTE, TOO_FAST, client_address, within_budget
from lab.data import class_store
from lab.figures import bar_charts
from lab.i18n import _, ngettext
from lab.lesson_frame import Question
from nbcore.classroom import Refused
from nbcore.classroom.records import StoreUnavailable, Tally

REFRESH_SECONDS = 3  # how often the teacher's counts and a waiting student's page look again
ANSWERS_PER_ADDRESS = 240  # a minute: sixty students behind one address answering a step's questions at once
ANSWERS_PER_STUDENT = 30  # a minute


@dataclass(frozen=True)
class LessonClass:
    """The lesson taken as a class: its ``code``; a student's anonymous id, or the teacher's key."""

    code: str
    student: str | None = None
    teacher_key: str | None = None


def lesson_class() -> LessonClass | None:
    """The class this session takes the lesson with (the teacher's, through the teacher link, or a student's,
    through the class link), or None: the lesson alone."""
    teaching = classroom.teacher_class()
    if teaching is not None:
        return LessonClass(teaching.info.code, teacher_key=teaching.key)
    joined = classroom.student_class()
    return None if joined is None else LessonClass(joined.info.code, student=joined.student)


def send_answer(taking: LessonClass, question: str, answer: str) -> bool:
    """Record this student's answer to ``question`` in their class: True if it counts (before the reveal,
    replacing an earlier one), False if it came after the reveal (kept apart); Refused with why."""
    if taking.student is None:
        raise Refused(_(BROWSER_PENDING))
    if not within_budget(
        (f"answer:student:{taking.code}:{taking.student}", ANSWERS_PER_STUDENT, MINUTE),
        ("answer:address:" + client_address(), ANSWERS_PER_ADDRESS, MINUTE),
    ):
        raise Refused(_(TOO_FAST))
    return class_store.class_store().answer(taking.code, taking.student, question, answer)


# -- the teacher's side of a question ------------------------------------------------------------------------
def ask_the_class(question: Question, prompt: str, taking: LessonClass) -> Any:
    """The teacher's side of a question: the class's answers live, Reveal to the class, then the most common answer
    (the chart, with the right answer marked, comes with ``lesson_questions.feedback``)."""
    key = question.key
    st.markdown(":material/quiz: " + _("**Ask the class.** {question}").format(question=prompt))
    refused = st.session_state.pop(f"lesson_refused_{key}", None)  # a Reveal, Reopen or Reset the store refused
    if refused:
        st.warning(nbcore_sentence(refused), icon=":material/block:")
    if key not in revealed_questions(taking.code):
        _class_answers(question, taking.code)
        st.button(
            _("Reveal to the class"),
            icon=":material/visibility:",
            key=f"lesson_reveal_class_{key}",
            type="primary",
            on_click=_reveal_to_class,
            args=(taking, key),
        )
        return None
    counts = (_class_tally(taking.code, key).value or Tally({}, {})).counted
    answered = [option for option in question.options if counts.get(str(option), 0) > 0]
    with st.container(horizontal=True):
        st.button(
            _("Reopen"),
            icon=":material/lock_open:",
            key=f"lesson_reopen_{key}",
            on_click=_teacher_act,
            args=(taking, "reopen", key),
            help=_("Hide the truth again and let students answer (answers already counted stay)."),
        )
        with st.popover(_("Reset this question"), icon=":material/restart_alt:"):
            st.markdown(_("Delete every answer to this question and hide the truth again?"))
            st.button(
                _("Yes, reset it"),
                key=f"lesson_reset_{key}",
                on_click=_teacher_act,
                args=(taking, "reset_question", key),
            )
    if not answered:
        st.caption(_("Revealed to the class; no student answered before the reveal."))
        return None
    most = max(answered, key=lambda option: counts[str(option)])
    total = sum(counts.values())
    st.markdown(
        ngettext(
            "{total} student answered before the reveal; the most common answer, **{answer}**, was given by {count}.",
            "{total} students answered before the reveal; the most common answer, **{answer}**, was given by {count}.",
            total,
        ).format(total=i18n.integer(total), answer=question.show(most), count=i18n.integer(counts[str(most)]))
    )
    return most


def _teacher_act(taking: LessonClass, action: str, key: str) -> None:
    assert taking.teacher_key is not None
    try:
        getattr(class_store.class_store(), action)(taking.code, taking.teacher_key, key)
    except Refused as refused:
        if isinstance(refused, StoreUnavailable):
            store_outage.refused()
        st.session_state[f"lesson_refused_{key}"] = str(refused)


def class_answers_download(code: str, period: int) -> None:
    """The teacher's download of this period's answers: one row per student and question."""
    st.download_button(
        _("The class's answers as CSV"),
        lambda: class_period.answers_file(code, period),
        file_name=f"class-{code}-p{period}-answers.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/table:",
        key="lesson_answers_csv",
        help=_(
            "One row per student and question: student number, question, answer, time, and whether it came after "
            "the reveal. No names or ids."
        ),
    )


def revealed_questions(code: str) -> frozenset[str]:
    """The questions revealed to the class (as last known while the store is down: the lesson goes on)."""
    return store_outage.kept(f"revealed:{code}", lambda: class_store.class_store().revealed(code)).value or frozenset()


def _class_tally(code: str, key: str) -> store_outage.Reading[Tally]:
    """The class's answers to question ``key``, as last known while the store is down."""
    return store_outage.kept(f"tally:{code}:{key}", lambda: class_store.class_store().tally(code, key))


def _reveal_to_class(taking: LessonClass, key: str) -> None:
    _teacher_act(taking, "reveal", key)
    focus.request(f".st-key-lesson_question_{key}")  # the question's box, where the class's answer now shows


def answer_chart(question: Question, code: str, right: Any = None) -> None:
    """How the class answered ``question`` so far, as bars (``right``: the right option, marked once revealed), and
    how many answered after the reveal."""
    reading = _class_tally(code, question.key)
    store_outage.mark(reading)
    tally = reading.value or Tally({}, {})
    counted = sum(tally.counted.values())
    late = sum(tally.after_reveal.values())
    if right is None:
        title = ngettext(
            "Class {code}: {count} student answered so far", "Class {code}: {count} students answered so far", counted
        )
        alt = _("How many students of class {code} gave each answer, {count} in all")
    else:
        title = ngettext(
            "Class {code}: {count} student answered before the reveal",
            "Class {code}: {count} students answered before the reveal",
            counted,
        )
        alt = _("How many students of class {code} gave each answer, {count} in all; the right answer is {answer}")
    # the bars in the options' order, counted by value: the same tally whatever language each student read
    labels = [question.show(option) for option in question.options]
    display.chart(
        bar_charts.answer_counts(
            labels,
            [tally.counted.get(str(option), 0) for option in question.options],
            title.format(code=code, count=i18n.integer(counted)),
            right=None if right is None else question.options.index(right),
        ),
        key=f"lesson_class_answers_{question.key}",
        alt=alt.format(code=code, count=i18n.integer(counted), answer="" if right is None else question.show(right)),
    )
    if late:
        st.caption(
            ngettext(
                "{count} more answered after the reveal: kept apart, not in the chart.",
                "{count} more answered after the reveal: kept apart, not in the chart.",
                late,
            ).format(count=i18n.integer(late))
        )


@refresh.live("lesson", REFRESH_SECONDS)
def _class_answers(question: Question, code: str) -> None:
    """How the class has answered so far, as bars, for the projector; looks again every few seconds."""
    answer_chart(question, code)
