"""The frame every page runs in: page list, navigation, shared sidebar, MNIST loaded first.

The navigation is the app's own list of ``st.page_link``s (Streamlit's sidebar list nests ``div``s in a ``ul``,
which screen readers announce wrongly: axe's ``list`` and ``listitem`` rules); each page's browser title names it.

The run budget and the timing line that every run passes through are in ``lab/runs.py``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from lab import class_period, classroom, links, preload, presentation, runs, settings
from lab.data import mnist

ROOT = Path(__file__).resolve().parents[1]
# the browser tab's icon, served by this server: the Material icon Streamlit would fetch from Google's font
# server is missing offline (Material Symbols' "calculate", Apache 2.0, drawn from the font Streamlit bundles)
FAVICON = Path(__file__).resolve().parent / "favicon.png"

# section -> (page file relative to the repository, title, Material icon: bundled with Streamlit, so
# it shows on lab PCs without an emoji font)
PAGES = {
    "Teaching": [
        ("pages/teach.py", "Your class", ":material/co_present:"),
        ("pages/lesson.py", "Guided lesson", ":material/school:"),
        ("pages/gallery.py", "Class gallery", ":material/groups:"),
    ],
    "Naive Bayes on MNIST": [
        ("pages/home.py", "Home", ":material/home:"),
        ("pages/heatmaps.py", "Heatmaps", ":material/grid_on:"),
        ("pages/draw.py", "Draw", ":material/draw:"),
        ("pages/smoothing.py", "Smoothing", ":material/tune:"),
        ("pages/samples.py", "Samples", ":material/casino:"),
        ("pages/inpainting.py", "Inpainting", ":material/extension:"),
        ("pages/compare.py", "Compare", ":material/balance:"),
        ("pages/deskew.py", "Deskew", ":material/rotate_right:"),
        ("pages/mixture.py", "Beyond naive", ":material/category:"),
    ],
    "Beyond MNIST": [
        ("pages/gaussian.py", "Gaussian NB", ":material/bar_chart:"),
        ("pages/spam.py", "Spam filter", ":material/mail:"),
        ("pages/xor.py", "XOR exercise", ":material/call_split:"),
    ],
}

# Pages with no MNIST naive Bayes of their own: the model settings would be controls that change nothing
# there (and Gaussian NB has a class prior of its own). Their values stay in the session for the others.
WITHOUT_MODEL_SETTINGS = ("pages/gaussian.py", "pages/spam.py", "pages/xor.py", "pages/teach.py")
_WITHOUT_MODEL_SETTINGS = {
    title for pages in PAGES.values() for path, title, _ in pages if path in WITHOUT_MODEL_SETTINGS
}


APP_NAME = "Naive Bayes Lab"


def browser_title(page_title: str) -> str:
    """The browser tab's title for a page: "Draw · Naive Bayes Lab" (WCAG 2.4.2: each page its own title)."""
    return APP_NAME if page_title == "Home" else f"{page_title} · {APP_NAME}"


def navigation_links(sections: dict[str, list]) -> None:
    """Every page (``sections``: what ``st.navigation`` was given) as a link in the sidebar, under its section's
    name; Streamlit marks the current one (bold, shaded) and the style sheet's script adds ``aria-current="page"``
    to it (lab/presentation.py). The ``st.Page`` objects, not their paths: a path is resolved on disk per link and
    per run."""
    with st.sidebar.container(key=presentation.NAVIGATION_KEY):
        for section, pages in sections.items():
            st.markdown(f"**{section}**")
            for page in pages:
                st.page_link(page, width="stretch")


def run(default_page: str = "pages/home.py") -> None:
    """Draw the navigation and the sidebar settings, make sure MNIST is loaded, run the chosen page.

    ``default_page`` is what the bare URL shows (tests use it to open one page directly).
    """
    with runs.whole_run() as this_run:  # first: a session flooding reruns is stopped before any work
        links.begin_run()
        presenting = presentation.presenter_mode()
        # the icon before the navigation: st.navigation would make the page's Material icon the tab's, which the
        # browser fetches from Google's font server (missing offline); the title once the page is known
        st.set_page_config(
            page_icon=str(FAVICON),
            layout="wide",
            initial_sidebar_state="collapsed" if presenting else "auto",
        )
        sections = {
            section: [
                st.Page(str(ROOT / path), title=title, icon=icon, default=path == default_page)
                for path, title, icon in pages
            ]
            for section, pages in PAGES.items()
        }
        navigation = st.navigation(sections, position="hidden")
        st.set_page_config(page_title=browser_title(navigation.title))
        navigation_links(sections)
        this_run.page = (navigation.url_path or navigation.title).replace(" ", "_")
        if navigation.title not in _WITHOUT_MODEL_SETTINGS and settings.sidebar().deskew:
            mnist.splits(deskew=True)  # every page's models need the deskewed images: made here, with a bar
        presentation.sidebar_toggle()
        presentation.apply_style(presenting)
        preload.preload_elements()
        mnist.splits()
        joined = classroom.join_from_link()
        if joined is not None:
            class_badge(joined, on_lesson=navigation.url_path == "lesson")
        navigation.run()
        links.sidebar_tools(
            tuple(settings.KEYS.values()) + (presentation.STATE_KEY,),
            teachers_only=(presentation.STATE_KEY, classroom.KEY_PARAM),
        )
        links.end_run()


def class_badge(joined: classroom.Membership, on_lesson: bool) -> None:
    """The line at the top of every page in a class: which class and its state; leave it (a student) or open its
    page (its teacher). Nothing takes a student out of a class without saying so. A student's pages other than
    the lesson (which polls for the teacher's step itself) keep a heartbeat."""
    code = joined.info.code
    ended = classroom.ended_sentence(joined.info)
    with st.container(horizontal=True, vertical_alignment="center", key="class_badge", gap="small"):
        if isinstance(joined, classroom.TeacherClass):
            st.markdown(f":material/co_present: **Teaching class {code}**" + (f" · {ended}" if ended else ""))
            page_link("pages/teach.py", "Your class page", query_params={classroom.CLASS_PARAM: code})
        else:
            st.markdown(f":material/groups: **Class {code}**" + (f" · {ended}" if ended else ""))
            st.button("Leave class", icon=":material/logout:", key="class_leave", on_click=classroom.leave_class)
            if not on_lesson:
                class_period.heartbeat(joined)


def page_path(path: str) -> str:
    """The page file ``path`` (as in ``PAGES``) as ``st.page_link`` and ``st.switch_page`` take it."""
    return str(ROOT / path)


def page_link(path: str, label: str, query_params: dict[str, str] | None = None) -> None:
    """A link to the page file ``path`` (as in ``PAGES``) with its icon."""
    icon = next(icon for pages in PAGES.values() for page, _, icon in pages if page == path)
    st.page_link(page_path(path), label=label, icon=icon, query_params=query_params)


# ``st.fragment`` for the part of a page that reruns on its own (a stroke on Draw reruns only that part), counted
# against the session's run budget and timed like a whole run
fragment = runs.fragment
