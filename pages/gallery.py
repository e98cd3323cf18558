"""Class gallery: the teacher's page. What the class drew on Draw and how naive Bayes and softmax read it, live."""

import numpy as np
import streamlit as st

from lab import class_model_view, class_store, classroom, display, refresh, shell
from lab.class_gallery import gallery_png, misread_table, plural, remove_sentence
from lab.figures import describe
from nbcore.classroom import PER_CLASS, PER_STUDENT, Refused
from nbcore.classroom.export import as_arrays, to_csv
from nbcore.metrics import class_errors, confusion_matrix

REFRESH_SECONDS = 3
SHOWN = class_store.GALLERY_SHOWN

st.title("Class gallery")
teaching = classroom.teacher_class()


@refresh.live("gallery", REFRESH_SECONDS)
def live_gallery(code: str) -> None:
    """Everything that changes as students send drawings; reruns by itself every ``REFRESH_SECONDS`` (unless paused)."""
    try:
        drawings = class_store.class_store().drawings(code)
    except Refused as refused:  # the store is down: say so, look again at the next refresh
        st.warning(str(refused), icon=":material/cloud_off:")
        return
    if not drawings:
        st.metric("Drawings", 0)
        st.info(
            f"Nothing sent to class {code} yet. This page looks again every {REFRESH_SECONDS} s "
            "(unless its live updates are paused).",
            icon=":material/hourglass_empty:",
        )
        return
    arrays = as_arrays(drawings)
    bayes_confusion = confusion_matrix(arrays.meant, arrays.bayes)
    softmax_confusion = confusion_matrix(arrays.meant, arrays.softmax)
    bayes_errors, softmax_errors = class_errors(bayes_confusion), class_errors(softmax_confusion)
    with st.container(horizontal=True):
        st.metric("Drawings", len(drawings))
        st.metric("Students", int(arrays.students.max()))
        st.metric("Naive Bayes read right", f"{bayes_errors.accuracy:.0%}")
        st.metric("Softmax read right", f"{softmax_errors.accuracy:.0%}")

    view = class_store.gallery_view(code, drawings)  # tiles and figures, made again only when the drawings change
    st.subheader("What the class drew")
    st.image(list(view.tiles), caption=list(view.captions), width=view.tile_width, alt=list(view.descriptions))
    st.caption(
        ("Newest first. " if len(drawings) <= SHOWN else f"The newest {SHOWN} of {len(drawings)}. ")
        + "Red frame and ✗: naive Bayes (NB) read another digit than the one meant; SM: softmax. "
        "Each tile names its drawing (#) and its anonymous student."
    )

    st.subheader("Meant vs read")
    with st.container(horizontal=True):
        for (figure, title), matrix, name, key in zip(
            view.confusions,
            (bayes_confusion, softmax_confusion),
            ("naive Bayes", "softmax"),
            ("gallery_confusion_bayes", "gallery_confusion_softmax"),
        ):
            with st.container(width=440):
                display.chart(
                    figure,
                    key=key,
                    restyle=False,
                    prepared_title=title,
                    alt=f"Confusion matrix of the digit meant against {name}'s reading, {len(drawings)} drawings",
                    table=(f"Meant vs {name} as a table", describe.confusion_rows(matrix, "meant", f"{name} read")),
                )

    st.subheader("Which digits fool naive Bayes")
    fooled = bayes_errors.most_misread()
    if fooled is None:
        st.markdown("Naive Bayes has read every drawing so far as the digit meant.")
    else:
        st.markdown(
            f"Most often fooled by **{fooled}s**: wrong on {bayes_errors.wrong[fooled]} of "
            f"{bayes_errors.count[fooled]}, mostly read as **{int(np.argmax(bayes_errors.instead[fooled]))}**."
        )
    st.table(misread_table(bayes_errors, softmax_errors), hide_index=True)

    st.subheader("Download")
    with st.container(horizontal=True):
        st.download_button(
            "Gallery as CSV",
            lambda: to_csv(class_store.class_store().drawings(code)),
            file_name=f"class-{code}-gallery.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/table:",
            key="gallery_csv",
            help="One row per drawing: student number (1 = the first to send), meant digit, naive Bayes' and "
            "softmax's readings, then the 784 pixels (0-255) of the 28 × 28 frame, row by row. No names or ids.",
        )
        st.download_button(
            "Figures as PNG",
            lambda: gallery_png(code),
            file_name=f"class-{code}-gallery.png",
            mime="image/png",
            on_click="ignore",
            icon=":material/image:",
            key="gallery_png",
            help="The drawings with both readings and the two confusion matrices, in one picture.",
        )


def moderate(teaching: classroom.TeacherClass) -> None:
    """Remove a drawing or a student's drawings, or empty this period's gallery: the teacher's key only."""
    code, key = teaching.info.code, teaching.key
    with st.expander("Moderate this class", icon=":material/shield_person:"):
        with st.form("gallery_remove", clear_on_submit=True, border=False):
            target = st.text_input(
                "Remove a drawing (#, e.g. 41) or every drawing of a student (their 5 letters, e.g. 3fa2c)",
                max_chars=16,
                key="gallery_remove_target",
            )
            remove = st.form_submit_button("Remove", icon=":material/delete:")
        if remove and target.strip():
            st.write(remove_sentence(teaching, target.strip().lower().lstrip("#")))
        with st.container(horizontal=True, vertical_alignment="center"):
            sure = st.checkbox("Yes, remove every drawing", key="gallery_clear_sure")
            if st.button("Empty the gallery", icon=":material/delete_sweep:", disabled=not sure, key="gallery_clear"):
                st.write(f"Removed {plural(class_store.class_store().clear(code, key), 'drawing')}.")


if teaching is None:
    st.markdown(
        "A class shares its drawings here: students open Draw through the class's link, draw, say which "
        "digit they meant and send; the teacher sees them live with what both models read, on this page. "
        "No names are kept."
    )
    if classroom.student_class() is not None:
        st.info("This is your teacher's view of the class: send your drawings from Draw.", icon=":material/draw:")
        shell.page_link("pages/draw.py", "Draw")
    else:
        st.markdown("A teacher starts a class, and opens this gallery, from the class page.")
        shell.page_link("pages/teach.py", "Your class")

if teaching is not None:
    code = teaching.info.code
    st.markdown(f"### Class {code}, period {teaching.info.period}")
    ended = classroom.ended_sentence(teaching.info)
    if ended:
        st.info(f"{ended} The drawings stay here until you delete the class.", icon=":material/event_busy:")
    st.caption(
        f"Each student keeps their newest {PER_STUDENT} drawings; the class holds up to {PER_CLASS} a period. "
        "The join slide, the end of the class and the downloads are on the class page."
    )
    refresh.controls(REFRESH_SECONDS)
    live_gallery(code)
    moderate(teaching)
    class_model_view.section(code)
