"""Draw's form that sends a drawing to the student's class, with the digit meant, and what they have sent.

Who the student is and the budgets a send is counted against are ``lab/classroom.py``'s (``send_drawing``).
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from lab import class_store, classroom, i18n
from lab.i18n import _, ngettext
from nbcore.classroom import PER_STUDENT, Refused

OWN_SHOWN = 10  # a student's newest drawings shown under the form


def show(
    joined: classroom.StudentClass, frame: np.ndarray, bayes_posterior: np.ndarray, softmax_posterior: np.ndarray
) -> None:
    """The form that sends this drawing, with the digit meant, to the student's class; then what they sent.

    ``frame`` uint8 (28, 28) framed like MNIST; ``bayes_posterior``, ``softmax_posterior`` (10,) p(y | x).
    """
    code = joined.info.code
    ended = classroom.ended_sentence(joined.info)
    if ended:
        st.info(_("{ended} Your drawings stay with your teacher.").format(ended=ended), icon=":material/event_busy:")
    else:
        _send(joined, frame, bayes_posterior, softmax_posterior)
    try:
        own = class_store.class_store().drawings(code, joined.student) if joined.student is not None else ()
    except Refused:
        own = ()  # the store is down: the form has said so on sending
    if own:
        st.caption(
            ngettext(
                "You have sent {n} drawing to class {code} (the newest {kept} are kept):",
                "You have sent {n} drawings to class {code} (the newest {kept} are kept):",
                len(own),
            ).format(n=i18n.integer(len(own)), code=code, kept=i18n.integer(PER_STUDENT))
        )
        newest = own[::-1][:OWN_SHOWN]
        st.image(
            [d.frame for d in newest],
            width=42,
            caption=[str(d.meant) for d in newest],
            alt=[_("Your drawing of a {digit}").format(digit=d.meant) for d in newest],
        )


def _send(
    joined: classroom.StudentClass, frame: np.ndarray, bayes_posterior: np.ndarray, softmax_posterior: np.ndarray
) -> None:
    code = joined.info.code
    with st.form("class_send", clear_on_submit=True, enter_to_submit=False, border=True):
        meant = st.segmented_control(
            _("Send to class {code} (anonymous): the digit I meant").format(code=code),
            options=list(range(10)),
            key="class_meant",
        )
        sent = st.form_submit_button(_("Send to the class"), icon=":material/send:", key="class_send_button")
    if sent:
        digest = (code, hashlib.sha256(np.ascontiguousarray(frame).tobytes()).hexdigest(), meant)
        if meant is None:
            st.warning(_("Pick the digit you meant, then send."), icon=":material/touch_app:")
        elif st.session_state.get("class_last_sent") == digest:
            st.info(
                _("This {digit} is already in class {code}'s gallery.").format(digit=meant, code=code),
                icon=":material/done_all:",
            )
        else:
            try:
                sentence = classroom.send_drawing(joined, frame, int(meant), bayes_posterior, softmax_posterior)
            except (Refused, ValueError) as refused:
                st.warning(classroom.refusal(refused), icon=":material/block:")
            else:
                st.session_state["class_last_sent"] = digest
                st.success(sentence, icon=":material/check_circle:")
