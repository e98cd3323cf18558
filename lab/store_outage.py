"""When the class store stops answering (Redis down, an SQLite file that cannot be written): one way for every page.

* A part of a page reads the store through ``kept``: the store's answer, kept in the session as the part's last
  known state; on ``StoreUnavailable`` that last known state (or None, never known), which the part shows with
  ``mark``, "not live, as last known at 14:03". A teacher's page never turns into one that offers a new class, a
  student's never loses the class (``lab/classroom.py`` keeps the last known class).
* The first refusal of an outage notes when it began (``refused``; a button's callback may call it) and the page
  is drawn again (``noticed``), so that the frame's one notice (``notice``, at the top of every page) says that
  the class store is not answering and what still works.
* Only the notice's watcher ends an outage: every ``RETRY_SECONDS`` it makes one small write (an SQLite file made
  read-only still answers reads; a store that cannot take a send is not back) and, once the store answers, draws
  the whole page again: pages opened before the outage and during it come back without a reload.

WCAG 2.2.2: a visitor who paused live updates (``lab/refresh.py``) asked that the page not change under them, and
the recovery redraws all of it (the gallery's grid, its charts). So a paused page is not redrawn: the watcher's
one line says the store answers again, with a button that brings the page up to date (a status message, WCAG
4.1.3, not content that moves); every other page comes back by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import streamlit as st

from lab import language, refresh, runs
from lab.data import class_store
from lab.i18n import N_, _
from nbcore.classroom.records import StoreUnavailable

RETRY_SECONDS = 3  # how often a page in an outage asks the store again: well within the 10 s a page has to recover
PROBE = "store_outage_probe"  # the budget the watcher's write counts on (never spent: its limit is out of reach)
NOTICE = N_(
    "The class store is not answering. This page keeps what it last knew, marked not live, and brings itself up to "
    "date once the store answers. Everything else in the lab works; a drawing or answer sent meanwhile is not sent, "
    "and stays here to send again."
)
_SINCE = "store_outage_since"  # session: when this session met the store refusing (absent: it answers)
_KEPT = "store_outage_kept"  # session: each part's last known state, name -> (value, when it was read)

T = TypeVar("T")


@dataclass(frozen=True)
class Reading(Generic[T]):
    """What a part shows: ``value`` the store's answer (``live``), or else the last known one read at ``at``
    (seconds since the epoch; None with ``value`` None: never known in this session)."""

    value: T | None
    live: bool
    at: float | None


def outage() -> bool:
    """Whether this session has met the store refusing since the watcher last found it answering."""
    return st.session_state.get(_SINCE) is not None


def refused() -> bool:
    """Note that the store refused (anywhere, a button's callback too); True when this begins an outage."""
    if outage():
        return False
    st.session_state[_SINCE] = time.time()
    return True


def noticed() -> None:
    """A refusal met while a page is drawn (never in a callback): the first of an outage draws the whole page again,
    so its notice shows at the top even when a part that reruns alone (a live count, a stroke on Draw) met it."""
    if refused():
        st.rerun(scope="app")


def kept(name: str, read: Callable[[], T]) -> Reading[T]:
    """``read()``, kept as ``name``'s last known state; while the store refuses, the last known state, not live.
    For a page's drawing, not for callbacks (the first refusal draws the page again: ``noticed``)."""
    try:
        value = read()
    except StoreUnavailable:
        noticed()
        last = st.session_state.get(_KEPT, {}).get(name)
        return Reading(None, False, None) if last is None else Reading(last[0], False, last[1])
    now = time.time()
    st.session_state.setdefault(_KEPT, {})[name] = (value, now)
    return Reading(value, True, now)


def mark(reading: Reading) -> None:
    """Under a part that shows a reading: nothing while live, else that it is not live and as of when."""
    if reading.live:
        return
    if reading.at is None:
        said = _("Not known while the class store is not answering.")
    else:
        said = _("Not live: as the class store last answered, at {time}.").format(time=language.clock(reading.at))
    st.caption(":material/cloud_off: " + said)


def notice_place():
    """The frame's place for the notice, at the top of the page: reserved before anything reads the store."""
    return st.empty()


def notice(place) -> None:
    """After the page: the one notice, with its watcher, in ``place`` while this session is in an outage."""
    if not outage():
        return
    with place.container():
        st.warning(_(NOTICE), icon=":material/cloud_off:")
        _watch()


def answering() -> bool:
    """Whether the store takes a small write now (what the watcher asks every few seconds)."""
    try:
        class_store.class_store().take(PROBE, 1 << 40, 60.0)
    except StoreUnavailable:
        return False
    return True


@runs.fragment(page="outage", run_every=RETRY_SECONDS)
def _watch() -> None:
    with runs.waiting():  # an unreachable host answers only at the client's timeout: other runs go meanwhile
        back = answering()
    if not back:
        return
    st.session_state.pop(_SINCE, None)
    if not refresh.paused():
        st.rerun(scope="app")
    with st.container(horizontal=True, vertical_alignment="center"):
        st.markdown(":material/cloud_done: " + _("The class store answers again; this page is paused."))
        if st.button(_("Bring this page up to date"), icon=":material/refresh:", key="store_outage_refresh"):
            st.rerun(scope="app")
