"""The dashboard's support code: page frame, shared state, figures (imported by app.py and every page)."""


def _only_app_navigation() -> None:
    """Make app.py's ``st.navigation`` the app's only navigation, from the very first visit on.

    A ``pages/`` folder beside app.py makes Streamlit start in its old multipage mode: until
    app.py has run once (someone opened "/"), a visit to e.g. /draw runs pages/draw.py on its
    own, with Streamlit's automatic page list ("app", "compare", ...) and without the sidebar
    settings, for every visitor. Every page imports ``lab``, so the first such run switches
    that mode off (as ``st.navigation`` itself does) and reruns, this time through app.py.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # another Streamlit layout: nothing to switch off
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if get_script_run_ctx() is not None:
            import streamlit as st

            st.rerun()


_only_app_navigation()
