"""What refreshes by itself (the class's gallery, its polls, its model) and the visitor's pause for it.

WCAG 2.2.2 asks that content which updates by itself can be paused: a screen reader's user loses their place
when the page changes under them every few seconds, and so does anyone reading slowly. *Pause live updates*
stops every such part of the page for this session; *Refresh now* brings them up to date once.
"""

from __future__ import annotations

import functools

import streamlit as st

from lab import i18n, runs
from lab.i18n import _

PAUSED_KEY = "live_paused"  # the switch's key: per session, not in the link (a shared link starts live)


def paused() -> bool:
    return bool(st.session_state.get(PAUSED_KEY, False))


def live(page: str, seconds: float):
    """``runs.fragment(page, run_every=seconds)``, except while this session has paused live updates: then the same
    fragment without a timer (the same fragment: Streamlit names a fragment by its function and its place)."""

    def decorate(function):
        moving = runs.fragment(page, run_every=seconds)(function)
        still = runs.fragment(page)(function)

        @functools.wraps(function)
        def chosen(*args, **kwargs):
            return (still if paused() else moving)(*args, **kwargs)

        return chosen

    return decorate


def controls(seconds: float) -> None:
    """The pause switch and *Refresh now* (a whole run: every live part of the page looks again)."""
    with st.container(horizontal=True, vertical_alignment="center", key="live_controls"):
        every = i18n.integer(round(seconds)) if float(seconds).is_integer() else i18n.decimal(seconds, 1)
        st.toggle(
            _("Pause live updates"),
            key=PAUSED_KEY,
            help=_(
                "This page looks for new drawings and answers every {seconds} s or so. Paused, it changes only "
                "when you press Refresh now."
            ).format(seconds=every),
        )
        st.button(_("Refresh now"), icon=":material/refresh:", key="live_refresh_now")
