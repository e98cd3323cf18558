"""The guided lesson's frame: what a step is, the step in the link, Back and Next, predict-then-reveal questions.

A step's words are data (``Step``, ``Question``; the nine steps are in ``lab/lesson_steps.py``); what it
measures and shows is the page's (``pages/lesson.py``). The step lives in the link (``?lesson=3``), so
a teacher can hand out any step. A question's committed answer lives in ``st.session_state`` until
"Answer again".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from lab import shell
from nbcore.experiments import lesson

QUERY_KEY = "lesson"


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
            st.button("Start again", icon=":material/replay:", on_click=go_to, args=(1,), key=f"lesson_restart_{place}")


def follow_up(step: Step) -> None:
    """The step's "Try this" with a link to the page where the student can do it, further links, and its sources."""
    st.markdown(f":material/science: **Try this:** {step.try_this}")
    for link in (step.try_page, *step.more):
        shell.page_link(link.page, link.label)
    st.caption("Read more: " + "; ".join(step.sources) + ".")


# -- predict, then reveal ------------------------------------------------------------------------------------------
def _committed_key(key: str) -> str:
    return f"lesson_committed_{key}"


def _commit(key: str) -> None:
    answer = st.session_state.get(f"lesson_answer_{key}")
    if answer is None:  # Reveal before choosing: say so, reveal nothing
        st.session_state[f"lesson_unanswered_{key}"] = True
    else:
        st.session_state[_committed_key(key)] = answer


def _answer_again(key: str) -> None:
    st.session_state.pop(_committed_key(key), None)


def ask(question: Question, **fields) -> Any:
    """Ask ``question`` (its prompt filled with ``fields``); the committed answer, or None until Reveal is pressed.

    Once committed, the answer is shown as given, with "Answer again" to take it back; the caller then
    measures the truth and calls ``feedback``.
    """
    with st.container(border=True, key=f"lesson_question_{question.key}"):
        return _ask_inside(question, question.prompt.format(**fields))


def _ask_inside(question: Question, prompt: str) -> Any:
    key = question.key
    st.markdown(f":material/quiz: **Predict, then reveal.** {prompt}")
    committed = st.session_state.get(_committed_key(key))
    if committed is not None:
        st.markdown(f"Your answer: **{question.show(committed)}**")
        st.button(
            "Answer again", icon=":material/undo:", key=f"lesson_again_{key}", on_click=_answer_again, args=(key,)
        )
        return committed
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
        "Reveal",
        icon=":material/visibility:",
        key=f"lesson_reveal_{key}",
        type="primary",
        on_click=_commit,
        args=(key,),
    )
    if st.session_state.pop(f"lesson_unanswered_{key}", False):
        st.caption("Choose an answer first: the lab reveals the truth only once you have committed to one.")
    return None


def feedback(verdict: lesson.Verdict, text: str) -> None:
    """The measured truth in ``text``, framed by how close the committed answer was."""
    if verdict.grade == "exact":
        st.success(f"**Right.** {text}", icon=":material/check_circle:")
    elif verdict.grade == "close":
        st.info(f"**Close.** {text}", icon=":material/near_me:")
    else:
        st.warning(f"**Not quite.** {text}", icon=":material/lightbulb:")
