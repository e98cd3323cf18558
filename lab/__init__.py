"""The dashboard's support code: page frame, shared state, figures (imported by app.py and every page)."""

import sys


def leave_old_multipage_mode() -> None:
    """Make app.py's ``st.navigation`` the app's only navigation, from the very first visit on.

    A ``pages/`` folder beside app.py makes Streamlit start in its old multipage mode: until
    app.py has run once (someone opened "/"), a visit to e.g. /draw runs pages/draw.py on its
    own, with Streamlit's automatic page list ("app", "compare", ...) and without the sidebar
    settings. Called when ``lab`` is first imported and whenever a page reads the settings
    before the sidebar made them: in a run of that old mode it switches the mode off (as
    ``st.navigation`` itself does) and reruns the session, this time through app.py. So a
    class that opens a link to /draw together on a fresh server gets the whole app.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # another Streamlit layout: nothing to switch off
        return
    if PagesManager.uses_pages_directory or _in_old_multipage_run():
        PagesManager.uses_pages_directory = False
        if get_script_run_ctx() is not None and _in_old_multipage_run():
            import streamlit as st

            st.rerun()


def _in_old_multipage_run() -> bool:
    """Whether the caller runs inside a script run of Streamlit's old (pages/ folder) mode."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_mpa_v1" and "streamlit" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


leave_old_multipage_mode()
