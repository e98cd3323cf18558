"""The class gallery's widgets: the class code of a link (``?class=ABCD``), and Draw's "send" form.

Without a valid class code nothing is shared and no form is shown. The raw query value is never
shown or used: only a code that passed ``gallery.class_code`` (letters A-Z and digits) reaches a page.
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from lab import gallery, state

LINK_KEY = "class"  # ?class=ABCD
SESSION_KEY = "gallery_class"  # the code of this session's link, kept when Streamlit drops the query on a page switch
SENT_KEY = "gallery_sent"  # (code, drawing digest, digit meant) of the last drawing sent, against double sends


def link_class_code() -> str | None:
    """This session's class code: the link's ``?class=`` if valid, else the one an earlier link of this session gave.

    An invalid value in the link gives a small notice (without repeating it) and no class code.
    """
    if LINK_KEY in st.query_params:
        code = gallery.class_code(st.query_params.get(LINK_KEY))
        if code is None:
            st.caption(
                f":material/info: The class code in this link was ignored: a class code is {gallery.CODE_RULE}. "
                "Nothing is shared with a class."
            )
        st.session_state[SESSION_KEY] = code
        return code
    return st.session_state.get(SESSION_KEY)


def offer(frame: np.ndarray, bayes_posterior: np.ndarray, softmax_posterior: np.ndarray) -> None:
    """On Draw, with a class code in the link: a form to send this drawing, with the digit meant, to the class gallery.

    ``frame`` uint8 (28, 28), the framed drawing; ``bayes_posterior`` and ``softmax_posterior`` (10,).
    """
    code = link_class_code()
    if code is None:
        return
    with st.form("gallery_send", clear_on_submit=True, enter_to_submit=False, border=True):
        st.markdown(f"**Share with class {code}** (anonymous: no name is sent)")
        meant = st.segmented_control("The digit I meant", options=list(range(10)), key="gallery_meant")
        sent = st.form_submit_button("Send to the class gallery", icon=":material/send:", key="gallery_send_button")
    if not sent:
        return
    if meant is None:
        st.warning("Pick the digit you meant, then send.", icon=":material/touch_app:")
        return
    drawing_id = (code, hashlib.sha256(np.ascontiguousarray(frame).tobytes()).hexdigest(), int(meant))
    if st.session_state.get(SENT_KEY) == drawing_id:
        st.info(f"This {meant} is already in class {code}'s gallery.", icon=":material/done_all:")
        return
    try:
        state.class_gallery().add(code, frame, int(meant), bayes_posterior, softmax_posterior)
    except ValueError as error:  # e.g. no smoothing left a posterior undefined
        st.warning(f"This drawing could not be sent: {error}.", icon=":material/error:")
        return
    st.session_state[SENT_KEY] = drawing_id
    st.success(f"Sent: your {meant} is in class {code}'s gallery.", icon=":material/check_circle:")


def teacher_class_code() -> str | None:
    """The class code the teacher's page shows: from the link, else a new one, or as typed; kept in the link so a
    reload keeps it."""
    linked = link_class_code()
    st.session_state.setdefault("gallery_code_input", linked or gallery.new_code())
    with st.container(horizontal=True, vertical_alignment="bottom"):
        typed = st.text_input(
            "Class code",
            key="gallery_code_input",
            max_chars=8,
            placeholder="e.g. " + gallery.EXAMPLE_CODE,
            help=f"Any {gallery.CODE_RULE}. Students who open Draw with this code in the link "
            "can send their drawings here.",
        )
        st.button("New code", icon=":material/casino:", key="gallery_new_code", on_click=_new_code)
    if not typed.strip():
        if LINK_KEY in st.query_params:  # nothing typed: no class in the link either
            del st.query_params[LINK_KEY]
        return None
    code = gallery.class_code(typed)
    if code is None:
        st.warning(f"That is not a class code: a class code is {gallery.CODE_RULE}.", icon=":material/error:")
        return None
    st.session_state[SESSION_KEY] = code
    if st.query_params.get(LINK_KEY) != code:
        st.query_params[LINK_KEY] = code
    return code


def _new_code() -> None:
    st.session_state["gallery_code_input"] = gallery.new_code()


def students_link(code: str) -> str:
    """The address of Draw with this class code, for students (relative when the page's own address is unknown)."""
    here = st.context.url or ""
    base = here.split("?", 1)[0].rstrip("/")
    if base.endswith("/gallery"):
        base = base[: -len("/gallery")]
    elif not base.startswith("http"):
        base = ""
    return f"{base}/draw?{LINK_KEY}={code}"
