"""The guided lesson's questions: predict, then reveal. An answer is committed before the measured truth shows.

A question's committed answer lives in ``st.session_state`` until "Answer again". An answer is kept, sent and
counted as the option's value (``str(option)``), never as the words it is shown in, so students reading different
languages count in one tally.

Taken as a class (``take_part``: the page opened through a class's link), a student's answer goes to the
class store, one per student and question, and the truth shows once the teacher reveals it; the
teacher's page shows how the class answered, live, and the button that reveals it to everyone
(``lab/lesson_polls.py``).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from lab import classroom, focus, lesson_polls, refresh, store_outage
from lab.class_sentences import nbcore_sentence
from lab.data import class_store
from lab.i18n import _
from lab.lesson_frame import Question
from lab.lesson_polls import REFRESH_SECONDS, LessonClass
from nbcore.classroom import Refused
from nbcore.classroom.records import StoreUnavailable
from nbcore.experiments import lesson

CLASS_KEY = "lesson_class"  # session: the LessonClass the lesson is taken with, or None
_PERIOD_STATE = ("lesson_committed_", "lesson_after_reveal_", "lesson_changing_")  # a question's answer, per period
_ASKED = "lesson_asked"  # session: the Question asked last in this run, which ``feedback`` follows


def take_part(taking: LessonClass | None) -> None:
    """Take this run's questions with a class (a student or its teacher), or alone (None); with a class, the pause
    for the parts that look for the class's answers and reveals by themselves."""
    st.session_state[CLASS_KEY] = taking
    if taking is not None:
        refresh.controls(REFRESH_SECONDS)
        _forget_an_earlier_period()


def _forget_an_earlier_period() -> None:
    """A new period asks every question afresh: answers this session sent in an earlier one are not shown again."""
    joined = classroom.membership()
    period = None if joined is None else (joined.info.code, joined.info.period)
    if st.session_state.get("lesson_period") not in (None, period):
        for name in [name for name in st.session_state if str(name).startswith(_PERIOD_STATE)]:
            del st.session_state[name]
    st.session_state["lesson_period"] = period


def _committed_key(key: str) -> str:
    return f"lesson_committed_{key}"


def _commit(key: str) -> None:
    answer = st.session_state.get(f"lesson_answer_{key}")
    if answer is None:  # Reveal before choosing: say so, reveal nothing
        st.session_state[f"lesson_unanswered_{key}"] = True
        return
    taking = st.session_state.get(CLASS_KEY)
    if taking is not None:
        try:
            counted = lesson_polls.send_answer(taking, key, str(answer))
        except (Refused, ValueError) as refused:
            if isinstance(refused, StoreUnavailable):
                store_outage.refused()
            st.session_state[f"lesson_refused_{key}"] = str(refused)
            return
        st.session_state[_late_key(key)] = not counted
    st.session_state.pop(_changing_key(key), None)
    st.session_state[_committed_key(key)] = answer
    focus.request(f".st-key-lesson_again_{key} button")  # where Reveal (or Send my answer) was


def _late_key(key: str) -> str:
    return f"lesson_after_reveal_{key}"


def _answer_again(key: str) -> None:
    st.session_state.pop(_committed_key(key), None)
    st.session_state[_changing_key(key)] = True  # not the stored answer again: the student is choosing anew
    focus.request(f".st-key-lesson_reveal_{key} button")


def _changing_key(key: str) -> str:
    return f"lesson_changing_{key}"


def ask(question: Question, **fields) -> Any:
    """Ask ``question`` (its prompt, translated, filled with ``fields``: numbers already in the reader's form); the
    committed answer (an option's value), or None until it is revealed.

    Alone, Reveal reveals. In a class, a student's answer waits for the teacher's reveal (and is locked from
    then on), and the teacher gets the class's most common answer once revealed. The caller then measures the
    truth and calls ``feedback``.
    """
    taking = st.session_state.get(CLASS_KEY)
    st.session_state[_ASKED] = question
    prompt = _(question.prompt).format(**fields)
    with st.container(border=True, key=f"lesson_question_{question.key}"):
        if taking is not None and taking.teacher_key is not None:
            return lesson_polls.ask_the_class(question, prompt, taking)
        return _ask_inside(question, prompt, taking)


def _stored_answer(question: Question, taking: LessonClass) -> Any:
    """The answer this student sent earlier (a reload, another replica), as the question's option; or None."""
    if taking.student is None:
        return None
    try:
        sent = class_store.class_store().student_answer(taking.code, taking.student, question.key)
    except StoreUnavailable:
        store_outage.noticed()
        return None
    except Refused:
        return None
    if sent is None:
        return None
    option = next((option for option in question.options if str(option) == sent.choice), None)
    if option is not None:
        st.session_state[_committed_key(question.key)] = option
        st.session_state[_late_key(question.key)] = sent.after_reveal
    return option


def _ask_inside(question: Question, prompt: str, taking: LessonClass | None) -> Any:
    key = question.key
    st.markdown(":material/quiz: " + _("**Predict, then reveal.** {question}").format(question=prompt))
    committed = st.session_state.get(_committed_key(key))
    if committed is None and taking is not None and not st.session_state.get(_changing_key(key)):
        committed = _stored_answer(question, taking)
    if committed is not None:
        if taking is None:
            st.markdown(_("Your answer: **{answer}**").format(answer=question.show(committed)))
            st.button(
                _("Answer again"),
                icon=":material/undo:",
                key=f"lesson_again_{key}",
                on_click=_answer_again,
                args=(key,),
            )
            return committed
        if key in lesson_polls.revealed_questions(taking.code):
            late = st.session_state.get(_late_key(key), False)
            said = (
                _("Your answer: **{answer}** (sent after the reveal: kept apart, not counted)")
                if late
                else _("Your answer: **{answer}** (locked at the reveal)")
            )
            st.markdown(said.format(answer=question.show(committed)))
            return committed
        st.markdown(_("Your answer: **{answer}**").format(answer=question.show(committed)))
        st.button(
            _("Change my answer"),
            icon=":material/undo:",
            key=f"lesson_again_{key}",
            on_click=_answer_again,
            args=(key,),
        )
        _await_reveal(taking.code, key)
        return None
    widget_key = f"lesson_answer_{key}"
    if question.kind == "choice":
        short = max(len(question.show(option)) for option in question.options) <= 12  # short options side by side
        st.radio(
            _("Your answer"),
            question.options,
            index=None,
            format_func=question.show,
            key=widget_key,
            label_visibility="collapsed",
            horizontal=short,
        )
    else:
        st.select_slider(
            _("Your guess"), question.options, value=question.start, format_func=question.show, key=widget_key
        )
    revealed = taking is not None and key in lesson_polls.revealed_questions(taking.code)
    if revealed:
        st.caption(_("Your teacher has revealed this one: an answer now is kept apart and does not change the count."))
    st.button(
        _("Reveal") if taking is None else _("Send my answer to class {code}").format(code=taking.code),
        icon=":material/visibility:" if taking is None else ":material/send:",
        key=f"lesson_reveal_{key}",
        type="primary",
        on_click=_commit,
        args=(key,),
    )
    if st.session_state.pop(f"lesson_unanswered_{key}", False):
        st.caption(_("Choose an answer first: the lab reveals the truth only once you have committed to one."))
    refused = st.session_state.pop(f"lesson_refused_{key}", None)
    if refused:  # the choice stays: one press sends it again
        st.warning(_("Not sent: {why}").format(why=nbcore_sentence(refused)), icon=":material/block:")
    return None


@refresh.live("lesson", REFRESH_SECONDS)
def _await_reveal(code: str, key: str) -> None:
    """A student's answer is in: look for the teacher's reveal every few seconds, then show the truth."""
    if key in lesson_polls.revealed_questions(code):
        st.rerun()
    st.caption(
        ":material/hourglass_top: "
        + _(
            "Sent to class {code}. Your teacher reveals the answer to everyone; you can change yours until then."
        ).format(code=code)
    )


def right_option(question: Question, verdict: lesson.Verdict) -> Any:
    """The question's option that the truth behind ``verdict`` makes right: the correct choice, or the guess
    nearest the truth."""
    if question.kind == "choice":
        return next((option for option in question.options if str(option) == str(verdict.truth)), None)
    return min(question.options, key=lambda option: abs(float(option) - float(verdict.truth)))


def _for_the_class() -> bool:
    """Whether this page is a class's teacher's (projected: the lesson speaks of the class, not to one student)."""
    taking = st.session_state.get(CLASS_KEY)
    return taking is not None and taking.teacher_key is not None


def revealed(question: Question, **fields) -> str:
    """The measured truth of ``question``: its reveal, translated and filled with ``fields`` (numbers already in the
    reader's form); on a class's teacher's page worded for the class ("the class's most common answer")."""
    template = question.class_reveal if question.class_reveal is not None and _for_the_class() else question.reveal
    return _(template).format(**fields)


def feedback(verdict: lesson.Verdict, text: str) -> None:
    """The measured truth in ``text`` (``revealed``), framed by how close the committed answer was. To a class's
    teacher, the class's answers with the right one marked."""
    taking = st.session_state.get(CLASS_KEY)
    asked = st.session_state.get(_ASKED)
    if taking is not None and _for_the_class() and isinstance(asked, Question):
        lesson_polls.answer_chart(asked, taking.code, right=right_option(asked, verdict))
    if verdict.grade == "exact":
        st.success(_("**Right.** {text}").format(text=text), icon=":material/check_circle:")
    elif verdict.grade == "close":
        st.info(_("**Close.** {text}").format(text=text), icon=":material/near_me:")
    else:
        st.warning(_("**Not quite.** {text}").format(text=text), icon=":material/lightbulb:")
