"""Class gallery: what a class drew on Draw and how naive Bayes and softmax read it, live, for the teacher."""

import numpy as np
import streamlit as st

from lab import display, gallery, gallery_ui, state
from lab.figures import diagnostics, digits, export
from nbcore.metrics import class_errors, confusion_matrix

REFRESH_SECONDS = 5
SHOWN = 60  # newest drawings in the grid on screen; the downloads hold them all

st.title("Class gallery")
st.markdown(
    "Give your class a code: every drawing a student sends from Draw with that code in the link appears "
    f"here within {REFRESH_SECONDS} seconds, with the digit the student meant and what naive Bayes and "
    "softmax read. No names are kept; other codes cannot see it."
)
code = gallery_ui.teacher_class_code()
store = state.class_gallery()


def drawings_sentence(count: int) -> str:
    return f"{count} drawing{'s' if count != 1 else ''}"


def instead_text(row: np.ndarray) -> str:
    """ "5 ×2, 3 ×1": the other digits a meant digit was read as, most frequent first."""
    order = np.argsort(-row, kind="stable")
    return ", ".join(f"{digit} ×{row[digit]}" for digit in order if row[digit] > 0) or "—"


@st.fragment(run_every=REFRESH_SECONDS)
def live_gallery(code: str) -> None:
    """Everything that changes as students send drawings; reruns by itself every ``REFRESH_SECONDS``."""
    drawings = store.drawings(code)
    if not drawings:
        st.metric("Drawings", 0)
        st.info(
            f"No drawings in class {code}'s gallery yet. This page looks again every {REFRESH_SECONDS} s.",
            icon=":material/hourglass_empty:",
        )
        return
    arrays = gallery.as_arrays(drawings)
    frames, meant, bayes, softmax = arrays.frames, arrays.meant, arrays.bayes, arrays.softmax
    bayes_confusion, softmax_confusion = confusion_matrix(meant, bayes), confusion_matrix(meant, softmax)

    bayes_errors, softmax_errors = class_errors(bayes_confusion), class_errors(softmax_confusion)
    with st.container(horizontal=True):
        st.metric("Drawings", len(drawings))
        st.metric("Naive Bayes read right", f"{bayes_errors.accuracy:.0%}")
        st.metric("Softmax read right", f"{softmax_errors.accuracy:.0%}")

    st.subheader("What the class drew")
    newest = slice(None, -SHOWN - 1, -1)
    tiles, captions = digits.drawing_tiles(frames[newest], meant[newest], bayes[newest], softmax[newest])
    st.image(tiles, caption=captions, width=tiles[0].shape[1])
    st.caption(
        ("Newest first. " if len(drawings) <= SHOWN else f"The newest {SHOWN} of {len(drawings)}. ")
        + "Red frame and ✗: naive Bayes (NB) read another digit than the one meant; SM: softmax."
    )

    st.subheader("Meant vs read")
    with st.container(horizontal=True):
        for matrix, name, key in (
            (bayes_confusion, "naive Bayes", "gallery_confusion_bayes"),
            (softmax_confusion, "softmax", "gallery_confusion_softmax"),
        ):
            with st.container(width=440):
                display.chart(
                    diagnostics.meant_confusion(matrix, name),
                    key=key,
                    alt=f"Confusion matrix of the digit meant against {name}'s reading, {len(drawings)} drawings",
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
            lambda: gallery.to_csv(store.drawings(code)),
            file_name=f"class-{code}-gallery.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/table:",
            key="gallery_csv",
            help="One row per drawing: meant digit, naive Bayes' and softmax's readings, "
            "then the 784 pixels (0-255) of the 28 × 28 frame, row by row.",
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
    drawings = store.drawings(code)
    arrays = gallery.as_arrays(drawings)
    return export.gallery_png(
        arrays.frames,
        arrays.meant,
        arrays.bayes,
        arrays.softmax,
        title=f"Class {code}: {drawings_sentence(len(drawings))}",
        confusions={
            "Meant vs naive Bayes": confusion_matrix(arrays.meant, arrays.bayes),
            "Meant vs softmax": confusion_matrix(arrays.meant, arrays.softmax),
        },
    )


if code is None:
    st.info(
        f"Type a class code ({gallery.CODE_RULE}) or press **New code**, then give your students the link "
        "this page shows.",
        icon=":material/groups:",
    )
else:
    st.markdown("Students open Draw with the code in the link, draw, pick the digit they meant and send:")
    st.code(gallery_ui.students_link(code), language=None, wrap_lines=True)
    live_gallery(code)
    with st.popover("Empty this gallery", icon=":material/delete:"):
        st.markdown(
            f"Forget all of class {code}'s drawings now? (They are forgotten anyway "
            f"{gallery.KEEP_SECONDS // 3600} hours after they were sent.)"
        )
        st.button("Empty it", key="gallery_clear", on_click=store.clear, args=(code,), type="primary")
