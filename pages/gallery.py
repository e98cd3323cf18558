"""Class gallery: the teacher's page. What the class drew on Draw and how naive Bayes and softmax read it, live."""

import numpy as np
import streamlit as st

from lab import class_model_view, class_sentences, classroom, display, i18n, presentation, refresh, shell, store_outage
from lab.class_gallery import gallery_png, misread_table, remove_sentence
from lab.data import class_store, gallery_views
from lab.figures import describe
from lab.i18n import _, ngettext, sentences
from nbcore.classroom import PER_CLASS, PER_STUDENT, Refused
from nbcore.classroom.export import as_arrays, to_csv
from nbcore.metrics import class_errors, confusion_matrix

REFRESH_SECONDS = 3
SHOWN = gallery_views.GALLERY_SHOWN

st.title(_("Class gallery"))
teaching = classroom.teacher_class()


@refresh.live("gallery", REFRESH_SECONDS)
def live_gallery(code: str) -> None:
    """Everything that changes as students send drawings; reruns by itself every ``REFRESH_SECONDS`` (unless paused)."""
    reading = store_outage.kept(f"drawings:{code}", lambda: class_store.class_store().drawings(code))
    store_outage.mark(reading)
    drawings = reading.value
    if drawings is None:  # never read in this session: the page fills in once the store answers
        return
    if not drawings:
        st.metric(_("Drawings"), 0)
        st.info(
            _(
                "Nothing sent to class {code} yet. This page looks again every {seconds} s (unless its live updates "
                "are paused)."
            ).format(code=code, seconds=i18n.integer(REFRESH_SECONDS)),
            icon=":material/hourglass_empty:",
        )
        return
    arrays = as_arrays(drawings)
    bayes_confusion = confusion_matrix(arrays.meant, arrays.bayes)
    softmax_confusion = confusion_matrix(arrays.meant, arrays.softmax)
    bayes_errors, softmax_errors = class_errors(bayes_confusion), class_errors(softmax_confusion)
    with st.container(horizontal=True):
        st.metric(_("Drawings"), i18n.integer(len(drawings)))
        st.metric(_("Students"), i18n.integer(int(arrays.students.max())))
        st.metric(_("Naive Bayes read right"), i18n.percent(bayes_errors.accuracy))
        st.metric(_("Softmax read right"), i18n.percent(softmax_errors.accuracy))

    view = gallery_views.gallery_view(
        code, drawings, presentation.chart_font_px()
    )  # tiles and figures, made again only when the drawings change
    st.subheader(_("What the class drew"))
    st.image(list(view.tiles), caption=list(view.captions), width=view.tile_width, alt=list(view.descriptions))
    if len(drawings) <= SHOWN:
        shown = _("Newest first.")
    else:
        shown = _("The newest {shown} of {total}.").format(shown=i18n.integer(SHOWN), total=i18n.integer(len(drawings)))
    st.caption(
        sentences(
            shown,
            _(
                "Red frame and ✗: naive Bayes (NB) read another digit than the one meant; SM: softmax. Each tile names "
                "its drawing (#) and its anonymous student."
            ),
        )
    )

    st.subheader(_("Meant vs read"))
    count = len(drawings)
    readers = (  # each model's chart: its text alternative, its table's label and the table's column names
        (
            ngettext(
                "Confusion matrix of the digit meant against naive Bayes's reading, {n} drawing",
                "Confusion matrix of the digit meant against naive Bayes's reading, {n} drawings",
                count,
            ),
            _("Meant vs naive Bayes as a table"),
            _("naive Bayes read"),
        ),
        (
            ngettext(
                "Confusion matrix of the digit meant against softmax's reading, {n} drawing",
                "Confusion matrix of the digit meant against softmax's reading, {n} drawings",
                count,
            ),
            _("Meant vs softmax as a table"),
            _("softmax read"),
        ),
    )
    with st.container(horizontal=True):
        for (figure, title), matrix, (alt, table_label, read), key in zip(
            view.confusions,
            (bayes_confusion, softmax_confusion),
            readers,
            ("gallery_confusion_bayes", "gallery_confusion_softmax"),
        ):
            with st.container(width=440):
                display.chart(
                    figure,
                    key=key,
                    restyle=False,
                    prepared_title=title,
                    alt=alt.format(n=i18n.integer(count)),
                    table=(table_label, describe.confusion_rows(matrix, _("meant"), read)),
                )

    st.subheader(_("Which digits fool naive Bayes"))
    fooled = bayes_errors.most_misread()
    if fooled is None:
        st.markdown(_("Naive Bayes has read every drawing so far as the digit meant."))
    else:
        st.markdown(
            _("Most often fooled by **{digit}s**: wrong on {wrong} of {count}, mostly read as **{instead}**.").format(
                digit=fooled,
                wrong=i18n.integer(bayes_errors.wrong[fooled]),
                count=i18n.integer(bayes_errors.count[fooled]),
                instead=int(np.argmax(bayes_errors.instead[fooled])),
            )
        )
    st.table(misread_table(bayes_errors, softmax_errors), hide_index=True)

    st.subheader(_("Download"))
    with st.container(horizontal=True):
        st.download_button(
            _("Gallery as CSV"),
            lambda: to_csv(class_store.class_store().drawings(code)),
            file_name=f"class-{code}-gallery.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/table:",
            key="gallery_csv",
            disabled=not reading.live,  # made when clicked: from the store
            help=_(
                "One row per drawing: student number (1 = the first to send), meant digit, naive Bayes' and "
                "softmax's readings, then the 784 pixels (0-255) of the 28 × 28 frame, row by row. No names or ids."
            ),
        )
        st.download_button(
            _("Figures as PNG"),
            lambda: gallery_png(code),
            file_name=f"class-{code}-gallery.png",
            mime="image/png",
            on_click="ignore",
            icon=":material/image:",
            key="gallery_png",
            disabled=not reading.live,
            help=_("The drawings with both readings and the two confusion matrices, in one picture."),
        )


def moderate(teaching: classroom.TeacherClass) -> None:
    """Remove a drawing or a student's drawings, or empty this period's gallery: the teacher's key only."""
    code, key = teaching.info.code, teaching.key
    with st.expander(_("Moderate this class"), icon=":material/shield_person:"):
        with st.form("gallery_remove", clear_on_submit=True, border=False):
            target = st.text_input(
                _("Remove a drawing (#, e.g. 41) or every drawing of a student (their 5 letters, e.g. 3fa2c)"),
                max_chars=16,
                key="gallery_remove_target",
            )
            remove = st.form_submit_button(_("Remove"), icon=":material/delete:")
        if remove and target.strip():
            st.write(remove_sentence(teaching, target.strip().lower().lstrip("#")))
        with st.container(horizontal=True, vertical_alignment="center"):
            sure = st.checkbox(_("Yes, remove every drawing"), key="gallery_clear_sure")
            if st.button(
                _("Empty the gallery"), icon=":material/delete_sweep:", disabled=not sure, key="gallery_clear"
            ):
                try:
                    removed = class_store.class_store().clear(code, key)
                except Refused as refused:
                    st.warning(class_sentences.refusal(refused), icon=":material/block:")
                else:
                    st.write(
                        ngettext("Removed {n} drawing.", "Removed {n} drawings.", removed).format(
                            n=i18n.integer(removed)
                        )
                    )


unanswered = classroom.unanswered_class()
if teaching is None and unanswered is not None and unanswered.teacher:  # reloaded while the store does not answer
    st.markdown("### " + _("Class {code}").format(code=unanswered.code))
    st.info(
        _("The class's drawings and its model show here by themselves once the class store answers."),
        icon=":material/cloud_off:",
    )
elif teaching is None:
    st.markdown(
        _(
            "A class shares its drawings here: students open Draw through the class's link, draw, say which digit "
            "they meant and send; the teacher sees them live with what both models read, on this page. No names "
            "are kept."
        )
    )
    if classroom.student_class() is not None or unanswered is not None:
        st.info(_("This is your teacher's view of the class: send your drawings from Draw."), icon=":material/draw:")
        shell.page_link("pages/draw.py", _("Draw"))
    else:
        st.markdown(_("A teacher starts a class, and opens this gallery, from the class page."))
        shell.page_link("pages/teach.py", _("Your class"))

if teaching is not None:
    code = teaching.info.code
    st.markdown("### " + _("Class {code}, period {period}").format(code=code, period=teaching.info.period))
    ended = classroom.ended_sentence(teaching.info)
    if ended:
        st.info(
            _("{ended} The drawings stay here until you delete the class.").format(ended=ended),
            icon=":material/event_busy:",
        )
    st.caption(
        _(
            "Each student keeps their newest {per_student} drawings; the class holds up to {per_class} a period. "
            "The join slide, the end of the class and the downloads are on the class page."
        ).format(per_student=i18n.integer(PER_STUDENT), per_class=i18n.integer(PER_CLASS))
    )
    refresh.controls(REFRESH_SECONDS)
    live_gallery(code)
    moderate(teaching)
    class_model_view.section(code)
