"""Settings in the link: what a page shows can be handed out as a URL, survives a reload, and can be locked.

Every control that changes what a page shows is bound to the URL query with Streamlit's own
``bind="query-params"`` (its key is the parameter's name): opening the link reproduces the view
and a reload keeps it. Streamlit writes a moved control into the address in place of the current
history entry, so the browser's Back button returns to the previous page (whose entry holds the
settings it was left with), not to the previous value. This module adds what a classroom needs on top:

* ``widget(st.slider, label, name, ...)``: such a widget, under a name of ``lab/link_names.py``'s table, which gives
  its default (to Streamlit and to the Reset buttons) and, unless the page gives them, its options or bounds;
  disabled and marked "(locked)" when the teacher's link locks it (``?lock=alpha,threshold``);
* ``component_value(label, name, told)``: the same for a control a page's component draws and moves in the
  browser without a run (Draw's brush width, ``COMPONENT_HELD``);
* a notice naming each control whose value in the link could not be used (Streamlit then shows
  the default and drops the value); the link's own text is never shown back;
* "Reset this page" and "Reset all", and a "Copy link for students" box with locks to choose.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlencode

import streamlit as st

from lab import i18n, link_names
from lab.i18n import _

LOCK_PARAM = link_names.row("lock").name
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_MAX_LOCKS = 20
# session_state keys of this module
_REQUESTED, _BOUND, _LOCKED = "_links_requested", "_links_bound", "_links_locked"
# how a widget takes its starting value: a position in its options, or ``default``; every other kind takes ``value``
_STARTS_BY_INDEX = ("radio", "selectbox")
_STARTS_BY_DEFAULT = ("segmented_control", "pills")
# link values a page's component holds (moved in the browser: no run; the page learns the value with the
# component's next message), integers within their row's bounds. A page that does not draw the component drops its
# value from the link.
COMPONENT_HELD = ("draw_brush",)
_HELD = "_links_held"  # session_state key: the COMPONENT_HELD names this run's page drew
_RESETS = "_links_resets"  # session_state key: how many times a Reset button was pressed (components follow it)


def begin_run() -> None:
    """Before any widget: note what the link asks for, and the locks it sets (they hold for the session)."""
    query = {key: st.query_params.get(key) for key in st.query_params.keys()}
    st.session_state[_REQUESTED] = query
    st.session_state[_BOUND] = {}  # key -> (label, default), in the order the page draws them
    st.session_state[_HELD] = set()
    if LOCK_PARAM in query:
        names = str(query[LOCK_PARAM])[:1000].split(",")
        st.session_state[_LOCKED] = {name for name in names[:_MAX_LOCKS] if _NAME.fullmatch(name)}
    locks = st.session_state.get(_LOCKED)
    if locks:
        st.query_params[LOCK_PARAM] = ",".join(sorted(locks))


def locked(key: str) -> bool:
    return key in st.session_state.get(_LOCKED, ())


def widget(kind: Callable, label: str, key: str, **arguments):
    """Draw ``kind`` (``st.slider``, ``st.radio``, ...) with its value in the link under ``key``; return its value.

    ``key``'s row of ``lab/link_names.py`` gives where the widget starts and what the Reset buttons go back to
    (``default=`` only for a row whose default is the data's) and its ``options`` or bounds unless the page gives
    them (they are the data's); ``arguments`` are ``kind``'s own (``help``, ``format_func``, ...).
    """
    row = link_names.row(key)
    default = arguments.pop("default") if row.default is link_names.DATA else row.default
    name = getattr(kind, "__name__", "")
    if row.values is not None and "options" not in arguments:
        arguments["options"] = row.values
    if row.bounds is not None and "min_value" not in arguments:
        arguments["min_value"], arguments["max_value"] = row.bounds
    if "format_func" in arguments:
        _in_this_language(key, list(arguments["options"]), arguments["format_func"])
    if name in _STARTS_BY_INDEX:
        arguments["index"] = list(arguments["options"]).index(default)
    else:
        arguments["default" if name in _STARTS_BY_DEFAULT else "value"] = default
    return kind(**arguments, **control(label, key, default))


def _in_this_language(key: str, options: list, format_func: Callable[[object], str]) -> None:
    """A choice's value in the link as this reader's words for it, when the link wrote it in another language.

    Streamlit writes a bound choice into the link as it shows it (``format_func``): a link made by a reader of
    Chinese says ``draw_mode=上传图片``. Read by a reader of Spanish, that would be refused; it is the same option.
    (Streamlit then leaves it out of the link until the control is moved: a bound parameter cannot be written.)"""
    asked = st.query_params.get(key)
    if asked is None or asked in {str(format_func(option)) for option in options}:
        return
    for code in i18n.languages():
        with i18n.speaking(code):
            found = next((option for option in options if str(format_func(option)) == asked), None)
        if found is not None:
            # the widget takes its first value from the link as the page was opened: the option is given here
            st.session_state[key] = found
            st.session_state[_REQUESTED][key] = str(found)  # used, as end_run will see
            return


def control(label: str, key: str, default) -> dict:
    """``label``, ``key``, ``bind`` and ``disabled`` for a widget whose value lives in the link under ``key``
    (``widget`` draws one; ``default`` is what the Reset buttons go back to)."""
    # a fragment's rerun draws its controls again: a dict, so no repeats
    st.session_state.setdefault(_BOUND, {})[key] = (label, default)
    return dict(label=shown_label(label, key), key=key, bind="query-params", disabled=locked(key))


def shown_label(label: str, key: str) -> str:
    """A control's label as shown: marked "(locked)" when the teacher's link locks ``key``."""
    return _("{control} (locked)").format(control=label) if locked(key) else label


def resets() -> int:
    """How many times this session pressed a Reset button: a component holding a value (``component_value``) takes
    the page's value again when this changes, and keeps its own otherwise."""
    return int(st.session_state.get(_RESETS, 0))


def component_value(label: str, key: str, told: object = None) -> int:
    """The integer under ``key`` (a ``COMPONENT_HELD`` name) for a control a page's component draws: ``told``, what
    the component says it was moved to (ignored unless a whole number within its row's bounds, and when locked),
    else the link's value, else its row's default. The link is kept to it (``default`` left out, as Streamlit does for a widget);
    registered like a widget's, so the Reset buttons, the locks and the notice for an unusable link value treat it
    the same way."""
    row = link_names.row(key)
    assert key in COMPONENT_HELD and row.bounds is not None, key
    lowest, highest = map(int, row.bounds)
    default = int(row.default)  # type: ignore[call-overload]
    st.session_state.setdefault(_BOUND, {})[key] = (label, default)
    st.session_state.setdefault(_HELD, set()).add(key)

    def usable(value: object) -> int | None:
        if isinstance(value, str) and re.fullmatch(r"[0-9]{1,6}", value):
            value = int(value)
        return value if type(value) is int and lowest <= value <= highest else None

    value = None if locked(key) else usable(told)
    if value is None:
        value = usable(st.query_params.get(key))
    value = default if value is None else value
    if value == default:
        if key in st.query_params:
            del st.query_params[key]  # end_run names a value it could not use (the default written out is not)
    elif st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)
    st.session_state[key] = value  # what end_run compares the link's text with
    return value


def end_run() -> None:
    """After the page: say which values of the link could not be used (Streamlit dropped them from the link)."""
    requested = st.session_state.get(_REQUESTED, {})
    bound = st.session_state.get(_BOUND, {})
    ignored = [
        label
        for key, (label, _) in bound.items()
        if key in requested
        and st.query_params.get(key) != requested[key]
        and str(requested[key]) not in _spellings(st.session_state.get(key))
    ]
    if ignored:
        st.toast(
            i18n.ngettext(
                "The link's value for {controls} could not be used, so the default is shown.",
                "The link's values for {controls} could not be used, so the defaults are shown.",
                len(ignored),
            ).format(controls=_(", ").join(_("“{control}”").format(control=label) for label in ignored)),
            icon=":material/link_off:",
            duration="infinite",
        )  # stays until closed: a page can take seconds to draw under it


def _spellings(value) -> set[str]:
    """How a link may write ``value`` when it is the control's default (Streamlit then drops it from the link)."""
    if isinstance(value, bool):
        return {str(value).lower(), str(value)}
    if isinstance(value, (int, float)):
        return {str(value), f"{value:g}"}
    return {str(value)}


def _reset(defaults: dict) -> None:
    """Set each unlocked control of ``defaults`` (key -> default) to its default (and so its link value)."""
    st.session_state[_RESETS] = resets() + 1
    for key, default in defaults.items():
        if not locked(key):
            st.session_state[key] = default
            if key in COMPONENT_HELD and key in st.query_params:
                del st.query_params[key]  # the component takes the default from the next run's data


def sidebar_tools(settings_keys: tuple[str, ...], teachers_only: tuple[str, ...] = ()) -> None:
    """Reset buttons and the link for students, at the foot of the sidebar (after the page has run); the
    link leaves out ``teachers_only`` parameters (presenter mode, a teacher key)."""
    bound = st.session_state.get(_BOUND, {})
    for key in set(COMPONENT_HELD) - st.session_state.get(_HELD, set()):
        if key in st.query_params:
            del st.query_params[key]  # a value of another page's component: not this page's to carry on
    defaults = {key: default for key, (_, default) in bound.items()}
    page_defaults = {key: default for key, default in defaults.items() if key not in settings_keys}
    with st.sidebar:
        left, right = st.columns(2)
        if page_defaults:  # a page without choices of its own gets no button (a disabled one is hard to read)
            left.button(
                _("Reset this page"),
                icon=":material/restart_alt:",
                on_click=_reset,
                args=(page_defaults,),
                width="stretch",
                key="links_reset_page",
                help=_("This page's own choices back to their defaults (the model settings stay)."),
            )
        right.button(
            _("Reset all"),
            icon=":material/history:",
            on_click=_reset,
            args=(defaults,),
            width="stretch",
            key="links_reset_all",
            help=_("Everything back to the textbook settings and page defaults."),
        )
        with st.popover(_("Copy link for students"), icon=":material/link:", width="stretch"):
            lock = st.multiselect(
                _("Lock for students"),
                list(bound),
                format_func=lambda key: bound[key][0],
                key="links_lock_choice",
                help=_("Locked controls show their value but cannot be moved."),
                placeholder=_("Choose controls to lock"),
            )
            st.code(share_link(lock, teachers_only), language=None, wrap_lines=True)
            st.caption(_("The link opens this page with every setting as it is now."))


def share_link(lock: list[str], teachers_only: tuple[str, ...] = ()) -> str:
    """This page's URL with the current settings (and ``lock``) in its query, without ``teachers_only`` ones."""
    left_out = (LOCK_PARAM, *teachers_only)
    query = {key: st.query_params.get(key) for key in st.query_params.keys() if key not in left_out}
    if lock:
        query[LOCK_PARAM] = ",".join(lock)
    base = st.context.url or ""  # None without a browser (AppTest): the query alone
    return base + ("?" + urlencode(query) if query else "")


def counter(label: str, key: str, button: str, button_key: str, icon: str) -> int:
    """A number kept in the link (a random batch, a sample seed) and a button that steps it; returns it."""

    def step() -> None:
        st.session_state[key] = min(st.session_state.get(key, 0) + 1, link_names.COUNTER_MAX)

    with st.container(horizontal=True, vertical_alignment="bottom"):
        value = widget(st.number_input, label, key, step=1, width=150)
        st.button(button, icon=icon, on_click=step, key=button_key, disabled=locked(key))
    return int(value)
