"""Which language this session reads, chosen by the link, the browser or the reader, and kept like a setting.

``?lang=zh`` in the link wins; without it the browser's language (``st.context.locale``) if the lab speaks it,
else English. The link carries the language whenever it is not the one the reader's browser alone would get, so a reload, a
page change and *Copy link for students* keep a choice, and a teacher's link without one lets each student's
browser choose. It is not a setting a teacher can lock or that *Reset all* changes: each student can switch their
own page. (Not ``bind="query-params"``: Streamlit would write the choice as it is shown, ``?lang=Español``.)
"""

from __future__ import annotations

import datetime as dt

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lab import i18n
from lab.i18n import _

PARAM = "lang"  # the choice's key and its name in the link
_REFUSED = "_language_refused"  # session_state: a link's language the lab does not speak, to be said once


def choose() -> i18n.Language:
    """Settle this run's language (first run: the link's, else the browser's, else English) and make it current."""
    if PARAM not in st.session_state:
        asked = st.query_params.get(PARAM)
        code = i18n.best_match(asked)
        if asked is not None and code is None:
            st.session_state[_REFUSED] = True
        st.session_state[PARAM] = code or _browsers_language()
    language = activate()
    if language.code != _browsers_language():
        st.query_params[PARAM] = language.code
    elif PARAM in st.query_params:
        del st.query_params[PARAM]
    return language


def _browsers_language() -> str:
    """The language the reader's browser alone would get: its own if the lab speaks it, else English."""
    return i18n.best_match(st.context.locale) or i18n.SOURCE_LANGUAGE


def activate() -> i18n.Language:
    """Make this session's chosen language current."""
    return i18n.activate(_session_language() or i18n.SOURCE_LANGUAGE)


def _session_language() -> str | None:
    """The session's chosen language, or None outside a session's thread (a job's thread, the command line)."""
    # no public way to ask whether this thread runs a session's script (st.session_state outside one warns)
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    return st.session_state.get(PARAM)


# a widget's callback and a fragment's run each start in a thread that no run has given a language
i18n.read_reader_language_with(_session_language)


def selector() -> None:
    """The language choice in the sidebar: each language named in itself, one press to change."""
    languages = i18n.languages()
    st.sidebar.segmented_control(
        _("Language"),
        list(languages),
        format_func=lambda code: languages[code].name,
        required=True,
        key=PARAM,
        help=_("The language of every page for you; each student can choose their own."),
    )
    if st.session_state.pop(_REFUSED, False):
        st.toast(
            _("The link asks for a language the lab does not speak, so it is shown in {language}.").format(
                language=i18n.current().name
            ),
            icon=":material/translate:",
        )


def names() -> dict[str, str]:
    """Each language's name (as the selector shows it) and its BCP 47 tag, for the page's ``lang`` marks."""
    return {language.name: language.tag for language in i18n.languages().values()}


def reader_zone() -> dt.tzinfo:
    """The reader's time zone, as their browser reports it (the server's when it reports none)."""
    return i18n.zone(st.context.timezone)


def clock(moment: float) -> str:
    """A moment (Unix seconds) as the reader reads it: their zone, their form, the day when it is not today."""
    return i18n.clock(moment, reader_zone())
