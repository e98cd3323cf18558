"""Your class: the teacher's page of a period. The join slide for the projector, the lesson's pace, the end
and the downloads."""

import time

import streamlit as st

from lab import class_period, classroom, public_address, refresh, shell
from lab.figures.join_code import qr_png
from nbcore.classroom import KEEP_SECONDS
from nbcore.classroom.records import KEEP_AFTER_END_SECONDS

REFRESH_SECONDS = 3  # how often the count of students and their steps look again
teaching = classroom.teacher_class()


def start_a_class() -> None:
    st.title("Start a class")
    st.markdown(
        "A class shares one code for a period: students join it on their phones or laptops, send drawings to "
        "its gallery and answer the lesson's questions together; you lead the lesson from here and keep what the "
        "class made. No names are kept."
    )
    with st.form("teach_new_class", border=True, enter_to_submit=True):
        passphrase = ""
        if classroom.passphrase_required():
            passphrase = st.text_input(
                "Passphrase for making classes on this server", type="password", max_chars=200, key="teach_passphrase"
            )
        made = st.form_submit_button(
            "New class", icon=":material/group_add:", type="primary", key="teach_new_class_button"
        )
    if made:
        outcome = classroom.new_class(passphrase)
        if isinstance(outcome, str):
            st.warning(outcome, icon=":material/block:")
        else:
            st.rerun()
    st.markdown(
        "Made the class before the lesson on the server's command line (python -m nbcore class new)? Open the "
        "teacher link it printed instead. A student? Type your class's code on the Home page."
    )


def join_slide(code: str) -> None:
    """What the projector shows while students join: the code, a QR code of the link, the short address."""
    address = public_address.student_address(st.context.url)
    link = address.link("draw", **{classroom.CLASS_PARAM: code})
    with st.container(border=True, key="join_slide"):
        left, right = st.columns([3, 2], vertical_alignment="center")
        with left:
            st.markdown("Join on your phone or laptop: scan the code, or go to")
            if address.short:
                st.markdown(f"## {address.short}")
            st.markdown("and type the class code")
            st.markdown(f"# {code}")
            joined_count(code)
        with right:
            if link:
                st.image(qr_png(link), width=300, alt=f"QR code of the student link {link}")
    if link:
        st.code(link, language=None, wrap_lines=True)
    st.caption(address.source)


@refresh.live("teach", REFRESH_SECONDS)
def joined_count(code: str) -> None:
    room = class_period.room(code)
    st.markdown(f"**{room.joined} student{'s' if room.joined != 1 else ''} joined** · {room.here} here now")


def state_line(info) -> None:
    """The period's state: open until when, or ended when and kept until when; the warning before the end."""
    ended = classroom.ended_sentence(info)
    if ended:
        deleted = info.deleted_at(time.time())
        st.info(
            f"{ended} Students can no longer send or answer. Everything it holds is kept until "
            f"{classroom.local_time(deleted)} ({KEEP_AFTER_END_SECONDS // 3600} hours after the end): "
            "download it below before then.",
            icon=":material/event_busy:",
        )
        st.button(
            f"Reopen for {KEEP_SECONDS // 3600} hours",
            icon=":material/restart_alt:",
            key="teach_reopen",
            on_click=class_period.extend,
            args=(teaching,),
        )
        return
    ends = classroom.local_time(info.expires_at)
    if class_period.ends_soon(teaching):
        left = max(0, round(class_period.minutes_left(teaching) or 0))
        st.warning(
            f"Class {info.code} ends at {ends}, in {left} minute{'s' if left != 1 else ''}, unless someone is "
            "active. Keep it longer, or download what it holds below.",
            icon=":material/timer:",
        )
    else:
        st.markdown(
            f"Period {info.period} · open until **{ends}** (it stays open {KEEP_SECONDS // 3600} hours after the "
            "last activity)."
        )
    st.button(
        f"Keep it {KEEP_SECONDS // 3600} more hours",
        icon=":material/more_time:",
        key="teach_extend",
        on_click=class_period.extend,
        args=(teaching,),
    )


def lesson_pace(info) -> None:
    st.subheader("The lesson")
    code = info.code
    with st.container(horizontal=True):
        shell.page_link("pages/lesson.py", "Open the lesson", query_params={classroom.CLASS_PARAM: code})
        shell.page_link("pages/gallery.py", "Open the gallery", query_params={classroom.CLASS_PARAM: code})
    if info.ended(time.time()) is not None:
        return
    if info.pace is not None:
        st.markdown(
            f"The class follows you, on **step {info.pace}**: your Back and Next on the lesson move every student's "
            "lesson, and nobody can answer a step you have not reached."
        )
    else:
        st.markdown("Students move through the lesson on their own.")
    class_period.pace_button(teaching, 1, key="teach_pace")
    where_students_are(code)


@refresh.live("teach", REFRESH_SECONDS)
def where_students_are(code: str) -> None:
    room = class_period.room(code)
    if not room.on_step:
        st.caption("No student is on the lesson right now.")
        return
    st.markdown(
        "On the lesson now: " + ", ".join(f"step {step}: {count}" for step, count in room.on_step.items()) + "."
    )


DOWNLOADS = (  # (label, file name's end, MIME type, icon, what it holds, the bytes of a class's period)
    (
        "Drawings (.npz)",
        "drawings.npz",
        "application/octet-stream",
        ":material/download:",
        "frames (28 × 28, 0-255), labels (the digit meant) and students (1 = the first to send): what "
        "`python -m nbcore class evaluate --frames` reads.",
        class_period.drawings_file,
    ),
    (
        "Answers (.csv)",
        "answers.csv",
        "text/csv",
        ":material/table:",
        "One row per student and question: student number, question, answer, time, and whether it came after the "
        "reveal. No names or ids.",
        class_period.answers_file,
    ),
)


def downloads(info) -> None:
    st.subheader("Keep what the class made")
    for period in range(info.period, 0, -1):
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown(f"Period {period}{' (this one)' if period == info.period else ''}:")
            for label, ending, mime, icon, holds, made in DOWNLOADS:
                st.download_button(
                    label,
                    lambda made=made, period=period: made(info.code, period),
                    file_name=f"class-{info.code}-p{period}-{ending}",
                    mime=mime,
                    on_click="ignore",
                    icon=icon,
                    key=f"teach_{ending.replace('.', '_')}_{period}",
                    help=holds,
                )


def confirmed(sure: str, label: str, icon: str, key: str, action, help: str | None = None) -> None:
    """A button that works once its checkbox ``sure`` is ticked: for what cannot be undone by a click."""
    with st.container(horizontal=True, vertical_alignment="center"):
        ticked = st.checkbox(sure, key=f"{key}_sure")
        st.button(label, icon=icon, disabled=not ticked, key=key, on_click=action, args=(teaching,), help=help)


def period_controls(info) -> None:
    st.subheader("End of the period")
    if info.ended(time.time()) is None:
        confirmed(
            "Yes, start a new period",
            "New period",
            ":material/skip_next:",
            "teach_new_period",
            class_period.new_period,
            "Same code; drawings, answers and reveals start empty. This period's stay downloadable above.",
        )
        confirmed(
            "Yes, end the class now",
            "End class",
            ":material/stop_circle:",
            "teach_end",
            class_period.end,
            "Students can no longer send or answer; everything stays here for you to download.",
        )
        return
    st.markdown("Downloaded what you need? You can delete the class now rather than wait.")
    confirmed(
        "Yes, delete the class and everything it holds",
        "Delete the class",
        ":material/delete_forever:",
        "teach_delete",
        class_period.delete,
    )


def teacher_link(code: str, key: str) -> None:
    with st.expander("Your teacher link: keep it private", icon=":material/key:"):
        st.markdown(
            "Whoever opens it leads and can end this class. This browser remembers it; to use another device, "
            "open this link there."
        )
        address = public_address.student_address(st.context.url)
        st.code(
            address.link("teach", **{classroom.CLASS_PARAM: code, classroom.KEY_PARAM: key}) or "",
            language=None,
            wrap_lines=True,
        )


outcome = class_period.last_outcome()
if outcome is not None:
    kind, sentence = outcome
    (st.success if kind == "success" else st.warning)(sentence)

if teaching is None:
    start_a_class()
else:
    info = teaching.info
    st.title(f"Class {info.code}")
    refresh.controls(REFRESH_SECONDS)
    state_line(info)
    if info.ended(time.time()) is None:
        join_slide(info.code)
    lesson_pace(info)
    downloads(info)
    period_controls(info)
    teacher_link(info.code, teaching.key)
