"""Your class: the teacher's page of a period. The join slide for the projector, the lesson's pace, the end
and the downloads."""

import time

import streamlit as st

from lab import class_period, classroom, i18n, language, public_address, refresh, shell, store_outage
from lab.figures.join_code import qr_png
from lab.i18n import N_, _, ngettext
from nbcore.classroom import KEEP_SECONDS
from nbcore.classroom.records import KEEP_AFTER_END_SECONDS

REFRESH_SECONDS = 3  # how often the count of students and their steps look again
teaching = classroom.teacher_class()


def start_a_class() -> None:
    st.title(_("Start a class"))
    st.markdown(
        _(
            "A class shares one code for a period: students join it on their phones or laptops, send drawings to "
            "its gallery and answer the lesson's questions together; you lead the lesson from here and keep what "
            "the class made. No names are kept."
        )
    )
    with st.form("teach_new_class", border=True, enter_to_submit=True):
        passphrase = ""
        if classroom.passphrase_required():
            passphrase = st.text_input(
                _("Passphrase for making classes on this server"),
                type="password",
                max_chars=200,
                key="teach_passphrase",
            )
        made = st.form_submit_button(
            _("New class"), icon=":material/group_add:", type="primary", key="teach_new_class_button"
        )
    if made:
        outcome = classroom.new_class(passphrase)
        if isinstance(outcome, str):
            st.warning(outcome, icon=":material/block:")
        else:
            st.rerun()
    st.markdown(
        _(
            "Made the class before the lesson on the server's command line ({command})? Open the teacher link it "
            "printed instead. A student? Type your class's code on the Home page."
        ).format(command="python -m nbcore class new")
    )


def join_slide(code: str) -> None:
    """What the projector shows while students join: the code, a QR code of the link, the short address."""
    address = public_address.student_address(st.context.url)
    link = address.link("draw", **{classroom.CLASS_PARAM: code})
    with st.container(border=True, key="join_slide"):
        left, right = st.columns([3, 2], vertical_alignment="center")
        with left:
            # the address and the code are shown large between the two halves of the sentence
            st.markdown(_("Join on your phone or laptop: scan the code, or go to"))
            if address.short:
                st.markdown(f"## {address.short}")
            st.markdown(_("and type the class code"))
            st.markdown(f"# {code}")
            joined_count(code)
        with right:
            if link:
                st.image(qr_png(link), width=300, alt=_("QR code of the student link {link}").format(link=link))
    if link:
        st.code(link, language=None, wrap_lines=True)
    st.caption(address.source)


@refresh.live("teach", REFRESH_SECONDS)
def joined_count(code: str) -> None:
    reading = class_period.room(code)
    room = reading.value
    if room is not None:
        st.markdown(
            ngettext(
                "**{joined} student joined** · {here} here now",
                "**{joined} students joined** · {here} here now",
                room.joined,
            ).format(joined=i18n.integer(room.joined), here=i18n.integer(room.here))
        )
    store_outage.mark(reading)


def state_line(info) -> None:
    """The period's state: open until when, or ended when and kept until when; the warning before the end."""
    ended = classroom.ended_sentence(info)
    hours = KEEP_SECONDS // 3600
    if ended:
        deleted = info.deleted_at(time.time())
        kept_hours = KEEP_AFTER_END_SECONDS // 3600
        st.info(
            ngettext(
                "{ended} Students can no longer send or answer. Everything it holds is kept until {time} ({hours} "
                "hour after the end): download it below before then.",
                "{ended} Students can no longer send or answer. Everything it holds is kept until {time} ({hours} "
                "hours after the end): download it below before then.",
                kept_hours,
            ).format(ended=ended, time=language.clock(deleted), hours=i18n.integer(kept_hours)),
            icon=":material/event_busy:",
        )
        st.button(
            ngettext("Reopen for {hours} hour", "Reopen for {hours} hours", hours).format(hours=i18n.integer(hours)),
            icon=":material/restart_alt:",
            key="teach_reopen",
            on_click=class_period.extend,
            args=(teaching,),
        )
        return
    ends = language.clock(info.expires_at)
    if class_period.ends_soon(teaching):
        left = max(0, round(class_period.minutes_left(teaching) or 0))
        st.warning(
            ngettext(
                "Class {code} ends at {time}, in {minutes} minute, unless someone is active. Keep it longer, or "
                "download what it holds below.",
                "Class {code} ends at {time}, in {minutes} minutes, unless someone is active. Keep it longer, or "
                "download what it holds below.",
                left,
            ).format(code=info.code, time=ends, minutes=i18n.integer(left)),
            icon=":material/timer:",
        )
    else:
        st.markdown(
            ngettext(
                "Period {period} · open until **{time}** (it stays open {hours} hour after the last activity).",
                "Period {period} · open until **{time}** (it stays open {hours} hours after the last activity).",
                hours,
            ).format(period=info.period, time=ends, hours=i18n.integer(hours))
        )
    st.button(
        ngettext("Keep it {hours} more hour", "Keep it {hours} more hours", hours).format(hours=i18n.integer(hours)),
        icon=":material/more_time:",
        key="teach_extend",
        on_click=class_period.extend,
        args=(teaching,),
    )


def lesson_pace(info) -> None:
    st.subheader(_("The lesson"))
    code = info.code
    with st.container(horizontal=True):
        shell.page_link("pages/lesson.py", _("Open the lesson"), query_params={classroom.CLASS_PARAM: code})
        shell.page_link("pages/gallery.py", _("Open the gallery"), query_params={classroom.CLASS_PARAM: code})
    if info.ended(time.time()) is not None:
        return
    if info.pace is not None:
        st.markdown(
            _(
                "The class follows you, on **step {step}**: your Back and Next on the lesson move every student's "
                "lesson, and nobody can answer a step you have not reached."
            ).format(step=info.pace)
        )
    else:
        st.markdown(_("Students move through the lesson on their own."))
    class_period.pace_button(teaching, 1, key="teach_pace")
    where_students_are(code)


@refresh.live("teach", REFRESH_SECONDS)
def where_students_are(code: str) -> None:
    reading = class_period.room(code)
    room = reading.value
    if room is not None and not room.on_step:
        st.caption(_("No student is on the lesson right now."))
    elif room is not None:
        steps = ", ".join(
            _("step {step}: {count}").format(step=step, count=i18n.integer(count))
            for step, count in room.on_step.items()
        )
        st.markdown(_("On the lesson now: {steps}.").format(steps=steps))
    store_outage.mark(reading)


DOWNLOADS = (  # (label, file name's end, MIME type, icon, what it holds, the bytes of a class's period)
    (
        N_("Drawings (.npz)"),
        "drawings.npz",
        "application/octet-stream",
        ":material/download:",
        # frames, labels, students: the file's array names, the same in every language
        N_(
            "frames (28 × 28, 0-255), labels (the digit meant) and students (1 = the first to send): what "
            "`python -m nbcore class evaluate --frames` reads."
        ),
        class_period.drawings_file,
    ),
    (
        N_("Answers (.csv)"),
        "answers.csv",
        "text/csv",
        ":material/table:",
        N_(
            "One row per student and question: student number, question, answer, time, and whether it came after "
            "the reveal. No names or ids."
        ),
        class_period.answers_file,
    ),
)


def downloads(info) -> None:
    st.subheader(_("Keep what the class made"))
    for period in range(info.period, 0, -1):
        with st.container(horizontal=True, vertical_alignment="center"):
            if period == info.period:
                st.markdown(_("Period {period} (this one):").format(period=period))
            else:
                st.markdown(_("Period {period}:").format(period=period))
            for label, ending, mime, icon, holds, made in DOWNLOADS:
                st.download_button(
                    _(label),
                    lambda made=made, period=period: made(info.code, period),
                    file_name=f"class-{info.code}-p{period}-{ending}",
                    mime=mime,
                    on_click="ignore",
                    icon=icon,
                    key=f"teach_{ending.replace('.', '_')}_{period}",
                    disabled=store_outage.outage(),  # made when clicked, from the store
                    help=_(holds),
                )


def confirmed(sure: str, label: str, icon: str, key: str, action, help: str | None = None) -> None:
    """A button that works once its checkbox ``sure`` is ticked: for what cannot be undone by a click."""
    with st.container(horizontal=True, vertical_alignment="center"):
        ticked = st.checkbox(sure, key=f"{key}_sure")
        st.button(label, icon=icon, disabled=not ticked, key=key, on_click=action, args=(teaching,), help=help)


def period_controls(info) -> None:
    st.subheader(_("End of the period"))
    if info.ended(time.time()) is None:
        confirmed(
            _("Yes, start a new period"),
            _("New period"),
            ":material/skip_next:",
            "teach_new_period",
            class_period.new_period,
            _("Same code; drawings, answers and reveals start empty. This period's stay downloadable above."),
        )
        confirmed(
            _("Yes, end the class now"),
            _("End class"),
            ":material/stop_circle:",
            "teach_end",
            class_period.end,
            _("Students can no longer send or answer; everything stays here for you to download."),
        )
        return
    st.markdown(_("Downloaded what you need? You can delete the class now rather than wait."))
    confirmed(
        _("Yes, delete the class and everything it holds"),
        _("Delete the class"),
        ":material/delete_forever:",
        "teach_delete",
        class_period.delete,
    )


def teacher_link(code: str, key: str) -> None:
    with st.expander(_("Your teacher link: keep it private"), icon=":material/key:"):
        st.markdown(
            _(
                "Whoever opens it leads and can end this class. This browser remembers it; to use another device, "
                "open this link there."
            )
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

unanswered = classroom.unanswered_class()
if teaching is None and unanswered is not None:  # reloaded while the store does not answer: still the class's page
    st.title(_("Class {code}").format(code=unanswered.code))
    st.info(
        _(
            "This class's page fills in by itself once the class store answers: the join slide, who is here, the "
            "lesson's pace and the downloads."
        ),
        icon=":material/cloud_off:",
    )
elif teaching is None:
    start_a_class()
else:
    info = teaching.info
    st.title(_("Class {code}").format(code=info.code))
    refresh.controls(REFRESH_SECONDS)
    state_line(info)
    if info.ended(time.time()) is None:
        join_slide(info.code)
    lesson_pace(info)
    downloads(info)
    period_controls(info)
    teacher_link(info.code, teaching.key)
