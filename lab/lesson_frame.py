"""The guided lesson's frame: what a step is, the step in the link, Back and Next, predict-then-reveal questions.

A step's words are data (``Step``, ``Question``; the steps are in ``lab/lesson_steps.py``), marked for the
catalogue and translated here where they are shown; what it measures and shows is the page's
(``pages/lesson.py``). The step lives in the link (``?lesson=3``), so
a teacher can hand out any step. A question's committed answer lives in ``st.session_state`` until
"Answer again". An answer is kept, sent and counted as the option's value (``str(option)``), never as the words
it is shown in, so students reading different languages count in one tally.

Taken as a class (``take_part``: the page opened through a class's link), a student's answer goes to the
class store, one per student and question, and the truth shows once the teacher reveals it; the
teacher's page shows how the class answered, live, and the button that reveals it to everyone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from lab import class_period, class_store, classroom, display, focus, i18n, pace_listener, refresh, shell, store_outage
from lab.figures import bar_charts
from lab.i18n import _, ngettext
from nbcore.classroom import Refused
from nbcore.classroom.records import StoreUnavailable, Tally
from nbcore.experiments import lesson

QUERY_KEY = "lesson"
CLASS_KEY = "lesson_class"  # session: the classroom.LessonClass the lesson is taken with, or None
_PERIOD_STATE = ("lesson_committed_", "lesson_after_reveal_", "lesson_changing_")  # a question's answer, per period
_ASKED = "lesson_asked"  # session: the Question asked last in this run, which ``feedback`` follows
REFRESH_SECONDS = 3  # how often the teacher's counts and a waiting student's page look again


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


# -- the pace of a class: the teacher leads, students follow -------------------------------------------------
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


@shell.fragment(page="lesson", run_every=class_period.FOLLOW_SECONDS)
def _follow_teacher(joined: classroom.StudentClass, step: int, pace: int | None) -> None:
    """Every ``FOLLOW_SECONDS``: the whole page again when the teacher's step changed, a new period began or the
    class ended (unless live updates are paused: then *Refresh now* moves it); and "still here" for the class."""
    if not refresh.paused() and class_period.changed(joined.info, pace):
        st.rerun(scope="app")
    class_period.check_in(joined, step)


def follow_up(step: Step) -> None:
    """The step's "Try this" with a link to the page where the student can do it, further links, and its sources."""
    st.markdown(":material/science: " + _("**Try this:** {task}").format(task=_(step.try_this)))
    for link in (step.try_page, *step.more):
        shell.page_link(link.page, _(link.label), dict(link.query) or None)
    st.caption(_("Read more: {sources}.").format(sources=_("; ").join(_(source) for source in step.sources)))


# -- predict, then reveal ------------------------------------------------------------------------------------------
def take_part(taking: classroom.LessonClass | None) -> None:
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
            counted = classroom.send_answer(taking, key, str(answer))
        except (Refused, ValueError) as refused:
            if isinstance(refused, StoreUnavailable):
                store_outage.refused()
            st.session_state[f"lesson_refused_{key}"] = str(refused)
            return
        st.session_state[_late_key(key)] = not counted
    st.session_state.pop(_changing_key(key), None)
    st.session_state[_committed_key(key)] = answer
    focus.request(f".st-key-lesson_again_{key} button")  # where Reveal (or Send my answer) was
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
            return _ask_the_class(question, prompt, taking)
        return _ask_inside(question, prompt, taking)


def _stored_answer(question: Question, taking: classroom.LessonClass) -> Any:
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


def _ask_inside(question: Question, prompt: str, taking: classroom.LessonClass | None) -> Any:
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
        if key in _revealed(taking.code):
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
    revealed = taking is not None and key in _revealed(taking.code)
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
        st.warning(_("Not sent: {why}").format(why=classroom.nbcore_sentence(refused)), icon=":material/block:")
    return None


@refresh.live("lesson", REFRESH_SECONDS)
def _await_reveal(code: str, key: str) -> None:
    """A student's answer is in: look for the teacher's reveal every few seconds, then show the truth."""
    if key in _revealed(code):
        st.rerun()
    st.caption(
        ":material/hourglass_top: "
        + _(
            "Sent to class {code}. Your teacher reveals the answer to everyone; you can change yours until then."
        ).format(code=code)
    )


def _ask_the_class(question: Question, prompt: str, taking: classroom.LessonClass) -> Any:
    """The teacher's side of a question: the class's answers live, Reveal to the class, then the most common answer
    (the chart, with the right answer marked, comes with ``feedback``)."""
    key = question.key
    st.markdown(":material/quiz: " + _("**Ask the class.** {question}").format(question=prompt))
    refused = st.session_state.pop(f"lesson_refused_{key}", None)  # a Reveal, Reopen or Reset the store refused
    if refused:
        st.warning(classroom.nbcore_sentence(refused), icon=":material/block:")
    if key not in _revealed(taking.code):
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
    counts = (_tally(taking.code, key).value or Tally({}, {})).counted
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


def _teacher_act(taking: classroom.LessonClass, action: str, key: str) -> None:
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


def _revealed(code: str) -> frozenset[str]:
    """The questions revealed to the class (as last known while the store is down: the lesson goes on)."""
    return store_outage.kept(f"revealed:{code}", lambda: class_store.class_store().revealed(code)).value or frozenset()


def _tally(code: str, key: str) -> store_outage.Reading[Tally]:
    """The class's answers to question ``key``, as last known while the store is down."""
    return store_outage.kept(f"tally:{code}:{key}", lambda: class_store.class_store().tally(code, key))


def _reveal_to_class(taking: classroom.LessonClass, key: str) -> None:
    _teacher_act(taking, "reveal", key)
    focus.request(f".st-key-lesson_question_{key}")  # the question's box, where the class's answer now shows


def _answer_chart(question: Question, code: str, right: Any = None) -> None:
    reading = _tally(code, question.key)
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
    _answer_chart(question, code)


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
        _answer_chart(asked, taking.code, right=right_option(asked, verdict))
    if verdict.grade == "exact":
        st.success(_("**Right.** {text}").format(text=text), icon=":material/check_circle:")
    elif verdict.grade == "close":
        st.info(_("**Close.** {text}").format(text=text), icon=":material/near_me:")
    else:
        st.warning(_("**Not quite.** {text}").format(text=text), icon=":material/lightbulb:")
