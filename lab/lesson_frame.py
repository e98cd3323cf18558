"""The guided lesson's frame: what a step is, the step in the link, Back and Next, predict-then-reveal questions.

A step's words are data (``Step``, ``Question``; the ten steps are in ``lab/lesson_steps.py``); what it
measures and shows is the page's (``pages/lesson.py``). The step lives in the link (``?lesson=3``), so
a teacher can hand out any step. A question's committed answer lives in ``st.session_state`` until
"Answer again".

Taken as a class (``take_part``: the page opened through a class's link), a student's answer goes to the
class store, one per student and question, and the truth shows once the teacher reveals it; the
teacher's page shows how the class answered, live, and the button that reveals it to everyone.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from lab import classroom, display, focus, refresh, shell, state
from lab.figures import charts
from nbcore.classroom import Refused
from nbcore.experiments import lesson

QUERY_KEY = "lesson"
CLASS_KEY = "lesson_class"  # session: the classroom.LessonClass the lesson is taken with, or None
REFRESH_SECONDS = 3  # how often the teacher's counts and a waiting student's page look again


@dataclass(frozen=True)
class Link:
    """A link to one of the lab's pages (a path in ``shell.PAGES``) and its label."""

    page: str
    label: str


@dataclass(frozen=True)
class Question:
    """A question the student answers before the measured truth shows.

    ``kind`` "choice": a radio over ``options``, nothing chosen at first; "guess": a select slider
    starting at ``start``. An option is shown as ``shown_as.format(option)``, or ``shown_as[option]``
    for a mapping. ``prompt`` and ``reveal`` are ``str.format`` templates the page fills with what it
    measured.
    """

    key: str
    prompt: str
    kind: str
    options: tuple
    reveal: str
    shown_as: str | Mapping[Any, str] = "{}"
    start: Any = None

    def show(self, option) -> str:
        return self.shown_as[option] if isinstance(self.shown_as, Mapping) else self.shown_as.format(option)


@dataclass(frozen=True)
class Step:
    """One step's words: its ``texts`` by role (``str.format`` templates), questions, "Try this" and sources."""

    title: str
    texts: Mapping[str, str]
    try_this: str
    try_page: Link
    sources: tuple[str, ...]
    questions: tuple[Question, ...] = ()
    more: tuple[Link, ...] = ()  # further pages to follow, after "Try this"

    def question(self, key: str) -> Question:
        return next(question for question in self.questions if question.key == key)

    def text(self, role: str, **fields) -> str:
        return self.texts[role].format(**fields)


# -- the frame of every step ----------------------------------------------------------------------------------
def go_to(step: int) -> None:
    st.query_params[QUERY_KEY] = str(step)


def start_again(place: str) -> None:
    """Step 1, the focus on its Next in the same row (the button pressed is gone: the focus would go to the top)."""
    go_to(1)
    focus.request(f".st-key-lesson_next_{place} button")


def requested_step(n_steps: int) -> int:
    """The step in the link; a value that is not a step number in range gives step 1 and a small notice."""
    try:
        return lesson.parse_step(st.query_params.get_all(QUERY_KEY), n_steps) or 1
    except ValueError:
        st.caption(
            f":material/info: The link's lesson step was not understood (it should be a number from 1 to "
            f"{n_steps}), so the lesson starts at step 1."
        )
        go_to(1)
        return 1


def navigation(step: int, n_steps: int, place: str) -> None:
    """Back, the step counter and Next in one row (``place`` keeps the keys of the two rows apart)."""
    # no disabled buttons at either end: their grey text is too faint on a projector
    with st.container(horizontal=True, vertical_alignment="center", key=f"lesson_nav_{place}"):
        if step > 1:
            st.button(
                "Back", icon=":material/arrow_back:", on_click=go_to, args=(step - 1,), key=f"lesson_back_{place}"
            )
        st.markdown(f"**Step {step} of {n_steps}**")
        if step < n_steps:
            st.button(
                "Next", icon=":material/arrow_forward:", on_click=go_to, args=(step + 1,), key=f"lesson_next_{place}"
            )
        else:
            st.button(
                "Start again",
                icon=":material/replay:",
                on_click=start_again,
                args=(place,),
                key=f"lesson_restart_{place}",
            )


def follow_up(step: Step) -> None:
    """The step's "Try this" with a link to the page where the student can do it, further links, and its sources."""
    st.markdown(f":material/science: **Try this:** {step.try_this}")
    for link in (step.try_page, *step.more):
        shell.page_link(link.page, link.label)
    st.caption("Read more: " + "; ".join(step.sources) + ".")


# -- predict, then reveal ------------------------------------------------------------------------------------------
def take_part(taking: classroom.LessonClass | None) -> None:
    """Take this run's questions with a class (a student or its teacher), or alone (None); with a class, the pause
    for the parts that look for the class's answers and reveals by themselves."""
    st.session_state[CLASS_KEY] = taking
    if taking is not None:
        refresh.controls(REFRESH_SECONDS)


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
            classroom.send_answer(taking, key, str(answer))
        except (Refused, ValueError) as refused:
            st.session_state[f"lesson_refused_{key}"] = str(refused)
            return
    st.session_state[_committed_key(key)] = answer
    focus.request(f".st-key-lesson_again_{key} button")  # where Reveal (or Send my answer) was


def _answer_again(key: str) -> None:
    st.session_state.pop(_committed_key(key), None)
    focus.request(f".st-key-lesson_reveal_{key} button")


def ask(question: Question, **fields) -> Any:
    """Ask ``question`` (its prompt filled with ``fields``); the committed answer, or None until it is revealed.

    Alone, Reveal reveals. In a class, a student's answer waits for the teacher's reveal, and the
    teacher gets the class's most common answer once revealed. The caller then measures the truth and
    calls ``feedback``.
    """
    taking = st.session_state.get(CLASS_KEY)
    prompt = question.prompt.format(**fields)
    with st.container(border=True, key=f"lesson_question_{question.key}"):
        if taking is not None and taking.teacher_key is not None:
            return _ask_the_class(question, prompt, taking)
        return _ask_inside(question, prompt, taking)


def _ask_inside(question: Question, prompt: str, taking: classroom.LessonClass | None) -> Any:
    key = question.key
    st.markdown(f":material/quiz: **Predict, then reveal.** {prompt}")
    committed = st.session_state.get(_committed_key(key))
    if committed is not None:
        st.markdown(f"Your answer: **{question.show(committed)}**")
        st.button(
            "Answer again", icon=":material/undo:", key=f"lesson_again_{key}", on_click=_answer_again, args=(key,)
        )
        if taking is None or key in _revealed(taking.code):
            return committed
        _await_reveal(taking.code, key)
        return None
    widget_key = f"lesson_answer_{key}"
    if question.kind == "choice":
        short = max(len(question.show(option)) for option in question.options) <= 12  # short options side by side
        st.radio(
            "Your answer",
            question.options,
            index=None,
            format_func=question.show,
            key=widget_key,
            label_visibility="collapsed",
            horizontal=short,
        )
    else:
        st.select_slider(
            "Your guess", question.options, value=question.start, format_func=question.show, key=widget_key
        )
    st.button(
        "Reveal" if taking is None else f"Send my answer to class {taking.code}",
        icon=":material/visibility:" if taking is None else ":material/send:",
        key=f"lesson_reveal_{key}",
        type="primary",
        on_click=_commit,
        args=(key,),
    )
    if st.session_state.pop(f"lesson_unanswered_{key}", False):
        st.caption("Choose an answer first: the lab reveals the truth only once you have committed to one.")
    refused = st.session_state.pop(f"lesson_refused_{key}", None)
    if refused:
        st.warning(refused, icon=":material/block:")
    return None


@refresh.live("lesson", REFRESH_SECONDS)
def _await_reveal(code: str, key: str) -> None:
    """A student's answer is in: look for the teacher's reveal every few seconds, then show the truth."""
    if key in _revealed(code):
        st.rerun()
    st.caption(
        f":material/hourglass_top: Sent to class {code}. Your teacher reveals the answer to everyone; "
        "you can change yours until then."
    )


def _ask_the_class(question: Question, prompt: str, taking: classroom.LessonClass) -> Any:
    """The teacher's side of a question: the class's answers live, Reveal to the class, then the most common answer."""
    key = question.key
    st.markdown(f":material/quiz: **Ask the class.** {prompt}")
    _class_answers(question, taking.code)
    if key not in _revealed(taking.code):
        st.button(
            "Reveal to the class",
            icon=":material/visibility:",
            key=f"lesson_reveal_class_{key}",
            type="primary",
            on_click=_reveal_to_class,
            args=(taking, key),
        )
        return None
    counts = _tally(taking.code, key)
    answered = [option for option in question.options if counts.get(str(option), 0) > 0]
    if not answered:
        st.caption("Revealed to the class; nobody has answered yet.")
        return None
    most = max(answered, key=lambda option: counts[str(option)])
    st.markdown(
        f"The class's most common answer: **{question.show(most)}** "
        f"({counts[str(most)]} of {sum(counts.values())} students)"
    )
    return most


def class_answers_download(code: str) -> None:
    """The teacher's download of the class's answers: one row per question and answer, with how many gave it."""
    st.download_button(
        "The class's answers as CSV",
        lambda: answers_csv(state.class_store().answers(code)),
        file_name=f"class-{code}-answers.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/table:",
        key="lesson_answers_csv",
        help="question, answer, students: how many students gave each answer. No names or ids.",
    )


def answers_csv(rows: list[tuple[str, str]]) -> bytes:
    """UTF-8 CSV of (question, answer) rows, one per student: ``question,answer,students`` counts, sorted."""
    counts: dict[tuple[str, str], int] = {}
    for row in rows:
        counts[row] = counts.get(row, 0) + 1
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["question", "answer", "students"])
    for (question, answer), count in sorted(counts.items()):
        writer.writerow([question, answer, count])
    return out.getvalue().encode("utf-8")


def _revealed(code: str) -> frozenset[str]:
    """The questions revealed to the class (none while the store is down: students wait, the lesson goes on)."""
    try:
        return state.class_store().revealed(code)
    except Refused:
        return frozenset()


def _tally(code: str, key: str) -> dict[str, int]:
    try:
        return state.class_store().tally(code, key)
    except Refused:
        return {}


def _reveal_to_class(taking: classroom.LessonClass, key: str) -> None:
    assert taking.teacher_key is not None
    state.class_store().reveal(taking.code, taking.teacher_key, key)
    focus.request(f".st-key-lesson_question_{key}")  # the question's box, where the class's answer now shows


@refresh.live("lesson", REFRESH_SECONDS)
def _class_answers(question: Question, code: str) -> None:
    """How the class has answered so far, as bars, for the projector; looks again every few seconds."""
    counts = _tally(code, question.key)
    total = sum(counts.values())
    display.chart(
        charts.answer_counts(
            [question.show(option) for option in question.options],
            [counts.get(str(option), 0) for option in question.options],
            f"Class {code}: {total} answer{'s' if total != 1 else ''} so far",
        ),
        key=f"lesson_class_answers_{question.key}",
        alt=f"How many students of class {code} gave each answer, {total} in all",
    )


def feedback(verdict: lesson.Verdict, text: str) -> None:
    """The measured truth in ``text``, framed by how close the committed answer was."""
    if verdict.grade == "exact":
        st.success(f"**Right.** {text}", icon=":material/check_circle:")
    elif verdict.grade == "close":
        st.info(f"**Close.** {text}", icon=":material/near_me:")
    else:
        st.warning(f"**Not quite.** {text}", icon=":material/lightbulb:")
