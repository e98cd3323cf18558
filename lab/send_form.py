"""Draw's form that sends a drawing to the student's class, with the digit meant, and what they have sent.

Who the student is and the budgets a send is counted against are ``lab/classroom.py``'s (``send_drawing``).
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from lab import class_sentences, classroom, i18n, store_outage
from lab.data import class_store
from lab.i18n import _, ngettext
from nbcore.classroom import PER_STUDENT, Refused
from nbcore.classroom.records import StoreUnavailable

OWN_SHOWN = 10  # a student's newest drawings shown under the form
MEANT_KEY = "class_meant"  # the form's digit
_OUTCOME = "class_send_outcome"  # session: how the last press went, said once when the form is drawn again


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
        _form(joined, frame, bayes_posterior, softmax_posterior)
    if joined.student is None:
        return
    own = store_outage.kept(f"own:{code}", lambda: class_store.class_store().drawings(code, joined.student))
    if own.value:
        st.caption(
            ngettext(
                "You have sent {n} drawing to class {code} (the newest {kept} are kept):",
                "You have sent {n} drawings to class {code} (the newest {kept} are kept):",
                len(own.value),
            ).format(n=i18n.integer(len(own.value)), code=code, kept=i18n.integer(PER_STUDENT))
        )
        newest = own.value[::-1][:OWN_SHOWN]
        st.image(
            [d.frame for d in newest],
            width=42,
            caption=[str(d.meant) for d in newest],
            alt=[_("Your drawing of a {digit}").format(digit=d.meant) for d in newest],
        )
    store_outage.mark(own)


def _form(
    joined: classroom.StudentClass, frame: np.ndarray, bayes_posterior: np.ndarray, softmax_posterior: np.ndarray
) -> None:
    """The send form, then how its last press went. The digit is cleared only once the drawing is in: a send the
    store refused keeps it (and the canvas its drawing), so one press sends it again."""
    code = joined.info.code
    with st.form("class_send", clear_on_submit=False, enter_to_submit=False, border=True):
        st.segmented_control(
            _("Send to class {code} (anonymous): the digit I meant").format(code=code),
            options=list(range(10)),
            key=MEANT_KEY,
        )
        st.form_submit_button(
            _("Send to the class"),
            icon=":material/send:",
            key="class_send_button",
            on_click=_send,
            args=(joined, frame, bayes_posterior, softmax_posterior),
        )
    outcome = st.session_state.get(_OUTCOME)
    if outcome is None:
        return
    kind, said = outcome
    if kind == "unavailable":  # the page is drawn again from the top, with the notice: the outcome waits for it
        store_outage.noticed()
    del st.session_state[_OUTCOME]
    if kind == "sent":
        st.success(said, icon=":material/check_circle:")
    elif kind == "pick":
        st.warning(_("Pick the digit you meant, then send."), icon=":material/touch_app:")
    elif kind == "already":
        st.info(
            _("This {digit} is already in class {code}'s gallery.").format(digit=said, code=code),
            icon=":material/done_all:",
        )
    elif kind == "unavailable":
        st.warning(
            _(
                "Not sent: the class store is not answering. Your drawing and its digit are kept here: press "
                "Send to the class again in a moment."
            ),
            icon=":material/cloud_off:",
        )
    else:
        st.warning(_("Not sent: {why}").format(why=class_sentences.nbcore_sentence(said)), icon=":material/block:")


def _send(
    joined: classroom.StudentClass, frame: np.ndarray, bayes_posterior: np.ndarray, softmax_posterior: np.ndarray
) -> None:
    """The send button's callback (before the form is drawn again, so a drawing that went in clears its digit)."""
    meant = st.session_state.get(MEANT_KEY)
    digest = (joined.info.code, hashlib.sha256(np.ascontiguousarray(frame).tobytes()).hexdigest(), meant)
    if meant is None:
        st.session_state[_OUTCOME] = ("pick", None)
    elif st.session_state.get("class_last_sent") == digest:
        st.session_state[MEANT_KEY] = None  # in already: done, as after a send
        st.session_state[_OUTCOME] = ("already", meant)
    else:
        try:
            sentence = classroom.send_drawing(joined, frame, int(meant), bayes_posterior, softmax_posterior)
        except StoreUnavailable:  # noted where the outcome is shown: a callback cannot draw the page again
            st.session_state[_OUTCOME] = ("unavailable", None)
        except (Refused, ValueError) as refused:
            st.session_state[_OUTCOME] = ("refused", str(refused))
        else:
            st.session_state["class_last_sent"] = digest
            st.session_state[MEANT_KEY] = None
            st.session_state[_OUTCOME] = ("sent", sentence)
