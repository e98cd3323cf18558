"""The guided lesson's frame: what a step is, the step in the link, Back and Next, "Try this".

A step's words are data (``Step``, ``Question``; the steps are in ``lab/lesson_steps.py``), marked for the
catalogue and translated here where they are shown; what it measures and shows is the page's
(``pages/lesson.py``). The step lives in the link (``?lesson=3``), so
a teacher can hand out any step. Its questions are asked in ``lab/lesson_questions.py``, a class's side of them in
``lab/lesson_polls.py``, and a class's pace (the teacher leads) is kept in ``lab/lesson_pace.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from lab import focus
from lab.i18n import _
from nbcore.experiments import lesson

QUERY_KEY = "lesson"
# px, a single map's figure: the map itself over 320 px tall, what the back row of a projector room needs
IMAGE_HEIGHT = 490


@dataclass(frozen=True)
class Link:
    """A link to one of the lab's pages (a path in ``shell.PAGES``), its label (marked for the catalogue), and the
    page's settings it opens with (``query``: (name, value) pairs of the page's link, such as
    ``(("model", "mixture"),)``)."""

    page: str
    label: str
    query: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Question:
    """A question the student answers before the measured truth shows.

    ``kind`` "choice": a radio over ``options``, nothing chosen at first; "guess": a select slider
    starting at ``start``. The options are values (what is sent and counted); an option is shown as
    ``shown_as(option)`` (a function, in the reader's language and form), or as the translation of
    ``shown_as[option]`` for a mapping of texts marked for the catalogue, or as ``str(option)``.
    ``prompt`` and ``reveal`` are ``str.format`` templates (marked for the catalogue) the page fills with
    what it measured; ``class_reveal``, where given, is ``reveal`` worded for a class (the teacher's projected
    page), where ``reveal`` speaks to one student ("you said").
    """

    key: str
    prompt: str
    kind: str
    options: tuple
    reveal: str
    shown_as: Callable[[Any], str] | Mapping[Any, str] | None = None
    start: Any = None
    class_reveal: str | None = None

    def show(self, option) -> str:
        if isinstance(self.shown_as, Mapping):
            return _(self.shown_as[option])
        return str(option) if self.shown_as is None else self.shown_as(option)


@dataclass(frozen=True)
class Step:
    """One step's words: its ``texts`` by role (``str.format`` templates), questions, "Try this" and sources, each
    marked for the catalogue and translated when shown. ``title_fields``: (name, value) pairs the title's template
    is filled with."""

    title: str
    texts: Mapping[str, str]
    try_this: str
    try_page: Link
    sources: tuple[str, ...]
    questions: tuple[Question, ...] = ()
    more: tuple[Link, ...] = ()  # further pages to follow, after "Try this"
    title_fields: tuple[tuple[str, Any], ...] = ()

    def question(self, key: str) -> Question:
        return next(question for question in self.questions if question.key == key)

    def text(self, role: str, **fields) -> str:
        """The text of ``role`` in the reader's language, filled with ``fields`` (numbers already written)."""
        return _(self.texts[role]).format(**fields)

    def heading(self) -> str:
        """The step's title in the reader's language."""
        return _(self.title).format(**dict(self.title_fields))


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
            ":material/info: "
            + _(
                "The link's lesson step was not understood (it should be a number from 1 to {last}), so the lesson "
                "starts at step 1."
            ).format(last=n_steps)
        )
        go_to(1)
        return 1


def navigation(step: int, n_steps: int, place: str) -> None:
    """Back, the step counter and Next in one row (``place`` keeps the keys of the two rows apart)."""
    # no disabled buttons at either end: their grey text is too faint on a projector
    with st.container(horizontal=True, vertical_alignment="center", key=f"lesson_nav_{place}"):
        if step > 1:
            st.button(
                _("Back"), icon=":material/arrow_back:", on_click=go_to, args=(step - 1,), key=f"lesson_back_{place}"
            )
        st.markdown(_("**Step {step} of {count}**").format(step=step, count=n_steps))
        if step < n_steps:
            st.button(
                _("Next"),
                icon=":material/arrow_forward:",
                on_click=go_to,
                args=(step + 1,),
                key=f"lesson_next_{place}",
            )
        else:
            st.button(
                _("Start again"),
                icon=":material/replay:",
                on_click=start_again,
                args=(place,),
                key=f"lesson_restart_{place}",
            )


def follow_up(step: Step, page_link: Callable[[str, str, dict[str, str] | None], None]) -> None:
    """The step's "Try this" with a link to the page where the student can do it, further links, and its sources.

    ``page_link(path, label, query)`` draws a link to one of the lab's pages (the shell's, which knows their icons).
    """
    st.markdown(":material/science: " + _("**Try this:** {task}").format(task=_(step.try_this)))
    for link in (step.try_page, *step.more):
        page_link(link.page, _(link.label), dict(link.query) or None)
    st.caption(_("Read more: {sources}.").format(sources=_("; ").join(_(source) for source in step.sources)))
