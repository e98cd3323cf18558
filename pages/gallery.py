"""Class gallery: the teacher's page. What the class drew on Draw and how naive Bayes and softmax read it, live."""

import numpy as np
import streamlit as st

from lab import class_store, classroom, display, links, refresh, shell
from lab.data import models
from lab.figures import class_model, describe, export
from lab.settings import Settings, current_settings
from nbcore.classroom import PER_CLASS, PER_STUDENT, Refused
from nbcore.classroom.export import as_arrays, to_csv
from nbcore.experiments.class_model import DEFAULT_WEIGHT, MIN_DRAWINGS, MODEL_NAMES, ClassEvaluation
from nbcore.metrics import class_errors, confusion_matrix

REFRESH_SECONDS = 3
SHOWN = class_store.GALLERY_SHOWN
STUDENT_LABEL = class_store.STUDENT_LABEL

st.title("Class gallery")
teaching = classroom.teacher_class()


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def instead_text(row: np.ndarray) -> str:
    """ "5 ×2, 3 ×1": the other digits a meant digit was read as, most frequent first."""
    order = np.argsort(-row, kind="stable")
    return ", ".join(f"{digit} ×{row[digit]}" for digit in order if row[digit] > 0) or "—"


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
    sent = np.flatnonzero(bayes_errors.count > 0)
    st.table(
        {
            "meant": [str(digit) for digit in sent],
            "drawings": [int(bayes_errors.count[digit]) for digit in sent],
            "naive Bayes wrong": [
                f"{bayes_errors.wrong[digit]} ({bayes_errors.error_rate[digit]:.0%})" for digit in sent
            ],
            "naive Bayes read instead": [instead_text(bayes_errors.instead[digit]) for digit in sent],
            "softmax wrong": [
                f"{softmax_errors.wrong[digit]} ({softmax_errors.error_rate[digit]:.0%})" for digit in sent
            ],
        },
        hide_index=True,
    )

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


def gallery_png(code: str) -> bytes:
    """The PNG of the gallery as it is when the button is clicked."""
    arrays = as_arrays(class_store.class_store().drawings(code))
    return export.gallery_png(
        arrays.frames,
        arrays.meant,
        arrays.bayes,
        arrays.softmax,
        title=f"Class {code}: {plural(len(arrays.meant), 'drawing')}",
        confusions={
            "Meant vs naive Bayes": confusion_matrix(arrays.meant, arrays.bayes),
            "Meant vs softmax": confusion_matrix(arrays.meant, arrays.softmax),
        },
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


def remove_sentence(teaching: classroom.TeacherClass, target: str) -> str:
    """Carry out a removal the teacher typed; what happened, in a sentence."""
    code, key = teaching.info.code, teaching.key
    try:
        if target.isdigit():
            removed = class_store.class_store().remove_drawing(code, key, int(target))
            return f"Removed drawing #{target}." if removed else f"No drawing #{target} in this class."
        students = {d.student for d in class_store.class_store().drawings(code) if d.student.startswith(target)}
        if len(target) < STUDENT_LABEL or len(students) != 1:
            return f"No one student's label starts with “{target[:16]}”: give a tile's five letters."
        return f"Removed {plural(class_store.class_store().remove_student(code, key, students.pop()), 'drawing')} of {target}."
    except Refused as refused:
        return str(refused)


# -- the class's model ---------------------------------------------------------------------------------
MODEL_REFRESH_SECONDS = 10  # measured again at most this often, and only when the drawings have changed
WEIGHTS = (0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # MNIST digits one class drawing counts as
PAIR_ROW_PX = 130  # a row of P(x | y) tiles: square tiles at a projector's width, less blank space on a phone
SHORT_NAMES = {"mnist": "MNIST's", "class": "class's", "mnist_plus_class": "MNIST + class"}


def percent(value: float | None) -> str:
    return "—" if value is None or not np.isfinite(value) else f"{value:.0%}"


@refresh.live("gallery", MODEL_REFRESH_SECONDS)
def class_model_section(code: str) -> None:
    """A naive Bayes trained on the class's drawings beside MNIST's: accuracies leave one student out, P(x | y)
    and the curve of accuracy against drawings per digit. No student is named."""
    st.subheader("The class's model")
    st.markdown(
        "A naive Bayes that learns from this class's drawings (the digit each student meant), beside MNIST's, "
        "which learned from 60,000 strangers' digits. Each student's drawings are read only by models that "
        "never saw that student."
    )
    snapshot = class_store.class_snapshot(code)
    if not snapshot.ids:
        st.info(
            f"No drawings yet: once students send some, the class's model learns from them here. A digit gets "
            f"an accuracy once the class has sent {MIN_DRAWINGS} drawings of it, from two students or more.",
            icon=":material/hourglass_empty:",
        )
        return
    settings = class_store.class_model_settings(current_settings())
    weight = st.select_slider(
        options=WEIGHTS,
        value=int(DEFAULT_WEIGHT),
        format_func=lambda stop: f"×{stop:,}",
        help="MNIST + the class adds the class's counts, each drawing counted this many times, to MNIST's "
        "6,000 digits a class: 0 is MNIST's model, a large weight the class's.",
        **links.control(
            "MNIST + the class: one class drawing counts as this many MNIST digits",
            "gallery_weight",
            int(DEFAULT_WEIGHT),
        ),
    )
    evaluation = class_store.class_evaluation(snapshot, settings, float(weight))
    names = {**MODEL_NAMES, "mnist_plus_class": f"MNIST + the class ×{weight:,}"}
    with st.container(horizontal=True):
        for name, score in evaluation.models.items():
            st.metric(names[name][:1].upper() + names[name][1:], percent(score.accuracy))
    st.caption(
        f"{plural(int(evaluation.drawings_per_digit.sum()), 'drawing')} from "
        f"{plural(evaluation.students, 'student')}. Read right, each student's drawings by models that never "
        "saw that student: "
        + "; ".join(
            f"{names[name]} {score.correct} of {score.read}" if score.accuracy is not None else f"{names[name]} —"
            for name, score in evaluation.models.items()
        )
        + f". Every model: pixel ≥ {settings.threshold}, α = {settings.alpha:g}, β = {settings.beta:g}, "
        f"{settings.prior} prior (the sidebar's settings; drawings are read as sent, not deskewed)."
    )
    if evaluation.shortage is not None:
        st.info(evaluation.shortage.sentence(), icon=":material/info:")
    with st.expander("Each digit", icon=":material/table:"):
        st.table(per_digit_table(evaluation), hide_index=True)

    display.chart(
        class_model.probability_pairs(
            evaluation.class_feature_prob,
            models.model(settings).feature_prob_,
            evaluation.drawings_per_digit,
            height_per_row=PAIR_ROW_PX,
        ),
        key="gallery_class_pairs",
        alt="P(pixel on | digit) of the class's model above MNIST's model, for each digit",
    )
    smoothing_note(evaluation.drawings_per_digit, settings)
    class_curve(snapshot, settings)


def smoothing_note(drawings_per_digit: np.ndarray, settings: Settings) -> None:
    """Why the class's P(x | y) of a digit with few drawings is pale all over: the smoothing, in numbers."""
    few = sorted({int(count) for count in drawings_per_digit if count < MIN_DRAWINGS})
    alpha, beta = settings.alpha, settings.beta
    if not few or alpha + beta == 0:  # no smoothing: nothing pale to explain (and 0/0 for a digit never drawn)
        return
    shown = ", ".join(
        f"{count} drawing{'s' if count != 1 else ''}: {alpha / (count + alpha + beta):.2f} for a pixel none inked, "
        f"{(count + alpha) / (count + alpha + beta):.2f} for one all inked"
        for count in few[:3]
    )
    st.caption(
        f"A digit with few drawings shows mostly the smoothing, not the class's ink: with α = {alpha:g} and "
        f"β = {beta:g}, P(x = 1 | y) = (inked + α) / (drawings + α + β). With {shown}."
    )


def per_digit_table(evaluation: ClassEvaluation) -> dict[str, list[str]]:
    """Each digit's drawings and each model's accuracy on them ("—" where too few to measure)."""
    table = {
        "digit": [str(digit) for digit in range(10)],
        "drawings": [str(int(count)) for count in evaluation.drawings_per_digit],
    }
    for name, score in evaluation.models.items():
        table[SHORT_NAMES[name]] = [percent(value) for value in score.per_digit]
    return table


def class_curve(snapshot: class_store.ClassSnapshot, settings: Settings) -> None:
    """The accuracy of the class's model against drawings per digit, drawn in a thread: this session's last one
    for this class is shown (or a sentence) until the one for the current drawings is ready."""
    drawn = class_store.class_curve(snapshot, settings)
    shown_key = "gallery_class_curve"
    if drawn is not None:
        st.session_state[shown_key] = (snapshot.code, settings, len(snapshot.ids), drawn)
        count = len(snapshot.ids)
    else:
        last = st.session_state.get(shown_key)
        if last is None or last[:2] != (snapshot.code, settings):
            st.caption(
                f"Drawing the curve of accuracy against drawings per digit for these "
                f"{plural(len(snapshot.ids), 'drawing')}: it shows here within {MODEL_REFRESH_SECONDS} s or so.",
            )
            return
        _, _, count, drawn = last
    curve, note = drawn
    if curve is None:
        st.caption(
            note
            or f"The curve of accuracy against drawings per digit needs drawings from two students or more, and "
            f"a digit with {MIN_DRAWINGS} drawings."
        )
        return
    display.chart(
        class_model.accuracy_against_drawings(
            curve.sizes, {class_model.CLASS_NAME: curve.accuracy["class"]}, curve.mnist, curve.overtake, height=380
        ),
        key="gallery_class_curve",
        alt="Accuracy of the class's model against the class's drawings per digit, with MNIST's model's accuracy",
    )
    most = int(curve.sizes[-1])
    if curve.overtake is None:
        sentence = (
            f"Within the drawings there are (up to {plural(most, 'drawing')} of a digit from other students), "
            "the class's model does not read better than MNIST's yet."
        )
    else:
        sentence = (
            f"The class's model reads better than MNIST's from **{plural(curve.overtake, 'drawing')} per digit** on."
        )
    stale = (
        f" This curve is of the {count} drawings there were a moment ago; it is being drawn again for the "
        f"{len(snapshot.ids)} there are now."
        if count != len(snapshot.ids)
        else ""
    )
    st.markdown(sentence)
    st.caption(
        f"Each point: the class's model learns at most that many drawings of each digit from some students and "
        f"reads the others' (students in {curve.folds} groups, mean of {curve.repeats} random draws)." + stale
    )


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
    class_model_section(code)
