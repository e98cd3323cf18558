"""The frame every page runs in: page list, navigation, shared sidebar, MNIST loaded first.

The navigation is the app's own list of ``st.page_link``s (Streamlit's sidebar list nests ``div``s in a ``ul``,
which screen readers announce wrongly: axe's ``list`` and ``listitem`` rules); each page's browser title names it.

The run budget and the timing line that every run passes through are in ``lab/runs.py``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from lab import (
    class_period,
    classroom,
    language,
    link_names,
    links,
    preload,
    presentation,
    runs,
    settings,
    store_outage,
)
from lab.data import mnist
from lab.display import escape_markdown
from lab.i18n import N_, _

ROOT = Path(__file__).resolve().parents[1]
# the browser tab's icon, served by this server: the Material icon Streamlit would fetch from Google's font
# server is missing offline (Material Symbols' "calculate", Apache 2.0, drawn from the font Streamlit bundles)
FAVICON = Path(__file__).resolve().parent / "favicon.png"

# section -> (page file relative to the repository, title, Material icon: bundled with Streamlit, so
# it shows on lab PCs without an emoji font); section names and titles in English, shown in the reader's language
PAGES = {
    N_("Teaching"): [
        ("pages/teach.py", N_("Your class"), ":material/co_present:"),
        ("pages/lesson.py", N_("Guided lesson"), ":material/school:"),
        ("pages/gallery.py", N_("Class gallery"), ":material/groups:"),
    ],
    N_("Naive Bayes on MNIST"): [
        ("pages/home.py", N_("Home"), ":material/home:"),
        ("pages/heatmaps.py", N_("Heatmaps"), ":material/grid_on:"),
        ("pages/draw.py", N_("Draw"), ":material/draw:"),
        ("pages/smoothing.py", N_("Smoothing"), ":material/tune:"),
        ("pages/samples.py", N_("Samples"), ":material/casino:"),
        ("pages/inpainting.py", N_("Inpainting"), ":material/extension:"),
        ("pages/compare.py", N_("Compare"), ":material/balance:"),
        ("pages/deskew.py", N_("Deskew"), ":material/rotate_right:"),
        ("pages/mixture.py", N_("Beyond naive"), ":material/category:"),
    ],
    N_("Beyond MNIST"): [
        ("pages/gaussian.py", N_("Gaussian NB"), ":material/bar_chart:"),
        ("pages/spam.py", N_("Spam filter"), ":material/mail:"),
        ("pages/xor.py", N_("XOR exercise"), ":material/call_split:"),
    ],
}

# Pages with no MNIST naive Bayes of their own: the model settings would be controls that change nothing
# there (and Gaussian NB has a class prior of its own). Their values stay in the session for the others.
WITHOUT_MODEL_SETTINGS = ("pages/gaussian.py", "pages/spam.py", "pages/xor.py", "pages/teach.py")

APP_NAME = N_("Naive Bayes Lab")
HOME = "pages/home.py"


def browser_title(path: str, page_title: str) -> str:
    """The browser tab's title for the page file ``path`` titled ``page_title`` (in the reader's language):
    "Draw · Naive Bayes Lab" (WCAG 2.4.2: each page its own title), the app's name alone at Home."""
    if path == HOME:
        return _(APP_NAME)
    return _("{page} · {app}").format(page=page_title, app=_(APP_NAME))


def navigation_links(sections: dict[str, list]) -> None:
    """Every page (``sections``: what ``st.navigation`` was given) as a link in the sidebar, under its section's
    name; Streamlit marks the current one (bold, shaded) and the style sheet's script adds ``aria-current="page"``
    to it (lab/presentation.py). The ``st.Page`` objects, not their paths: a path is resolved on disk per link and
    per run."""
    with st.sidebar.container(key=presentation.NAVIGATION_KEY):
        for section, pages in sections.items():
            st.markdown(f"**{escape_markdown(section)}**")
            for page in pages:
                st.page_link(page, width="stretch")


def run(default_page: str = "pages/home.py") -> None:
    """Draw the navigation and the sidebar settings, make sure MNIST is loaded, run the chosen page.

    ``default_page`` is what the bare URL shows (tests use it to open one page directly).
    """
    with runs.whole_run() as this_run:  # first: a session flooding reruns is stopped before any work
        links.begin_run()
        language.choose()
        presenting = presentation.presenter_mode()
        # the icon before the navigation: st.navigation would make the page's Material icon the tab's, which the
        # browser fetches from Google's font server (missing offline); the title once the page is known
        st.set_page_config(
            page_icon=str(FAVICON),
            layout="wide",
            initial_sidebar_state="collapsed" if presenting else "auto",
        )
        paths: dict[int, str] = {}
        sections: dict[str, list] = {}
        for section, pages in PAGES.items():
            sections[_(section)] = []
            for path, title, icon in pages:
                page = st.Page(str(ROOT / path), title=_(title), icon=icon, default=path == default_page)
                paths[id(page)] = path
                sections[_(section)].append(page)
        navigation = st.navigation(sections, position="hidden")  # one of the pages above
        path = paths[id(navigation)]
        st.set_page_config(page_title=browser_title(path, navigation.title))
        navigation_links(sections)
        this_run.page = Path(path).stem
        if path not in WITHOUT_MODEL_SETTINGS and settings.sidebar().deskew:
            mnist.splits(deskew=True)  # every page's models need the deskewed images: made here, with a bar
        language.selector()
        presentation.sidebar_toggle()
        presentation.apply_style(presenting)
        preload.preload_elements()
        mnist.splits()
        outage_notice = store_outage.notice_place()  # above the class: filled after the page, once it is known
        joined = classroom.join_from_link()
        if joined is not None:
            class_badge(joined, on_lesson=navigation.url_path == "lesson")
        else:
            unanswered_badge(classroom.unanswered_class())
        navigation.run()
        store_outage.notice(outage_notice)
        links.sidebar_tools(
            link_names.SETTINGS + (presentation.STATE_KEY,),
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
            badge = _("Teaching class {code}").format(code=code)
            st.markdown(f":material/co_present: **{badge}**" + (f" · {ended}" if ended else ""))
            page_link("pages/teach.py", _("Your class page"), query_params={classroom.CLASS_PARAM: code})
        else:
            badge = _("Class {code}").format(code=code)
            st.markdown(f":material/groups: **{badge}**" + (f" · {ended}" if ended else ""))
            st.button(_("Leave class"), icon=":material/logout:", key="class_leave", on_click=classroom.leave_class)
            if not on_lesson:
                class_period.heartbeat(joined)


def unanswered_badge(unanswered: classroom.UnansweredClass | None) -> None:
    """The class's line on a page opened while the store does not answer: its code, as the link names it."""
    if unanswered is None:
        return
    code = unanswered.code
    with st.container(horizontal=True, vertical_alignment="center", key="class_badge", gap="small"):
        if unanswered.teacher:
            st.markdown(":material/co_present: **" + _("Teaching class {code}").format(code=code) + "**")
            page_link("pages/teach.py", _("Your class page"), query_params={classroom.CLASS_PARAM: code})
        else:
            st.markdown(":material/groups: **" + _("Class {code}").format(code=code) + "**")
            st.button(_("Leave class"), icon=":material/logout:", key="class_leave", on_click=classroom.leave_class)


def page_path(path: str) -> str:
    """The page file ``path`` (as in ``PAGES``) as ``st.page_link`` and ``st.switch_page`` take it."""
    return str(ROOT / path)


def page_link(path: str, label: str, query_params: dict[str, str] | None = None) -> None:
    """A link to the page file ``path`` (as in ``PAGES``) with its icon."""
    icon = next(icon for pages in PAGES.values() for page, _title, icon in pages if page == path)
    st.page_link(page_path(path), label=label, icon=icon, query_params=query_params)


# ``st.fragment`` for the part of a page that reruns on its own (a stroke on Draw reruns only that part), counted
# against the session's run budget and timed like a whole run
fragment = runs.fragment
