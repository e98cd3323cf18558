"""The model settings every page shares: what they are, their presets, and their widgets in the sidebar.

A session's settings live in ``st.session_state`` under the sidebar widgets' keys, which are also their names in a
page's link: a ``Settings``'s fields, rows of ``lab/link_names.py``. What the models see of an image under them is
``Settings.input_form``; a model for them is derived from the shared counts in ``lab/data/models.py``.
"""

from __future__ import annotations

import streamlit as st

from lab import link_names, links
from lab.figures import notation
from lab.i18n import _, pgettext
from lab.model_settings import COURSE_NOTE, TEXTBOOK, Settings, prior_name


def current_settings() -> Settings:
    """This session's settings, from the sidebar widgets' state (textbook defaults before first use)."""
    values = {name: st.session_state.get(name, link_names.row(name).default) for name in link_names.SETTINGS}
    return Settings(**values)


def apply(settings: Settings) -> None:
    """Set the sidebar widgets to ``settings`` (a preset button's callback, before the widgets are drawn)."""
    for name in link_names.SETTINGS:
        st.session_state[name] = getattr(settings, name)


def sidebar() -> Settings:
    """Draw the model settings in the sidebar (each one in the link) and return them; they apply on every page."""
    with st.sidebar:
        st.header(_("Model settings"))
        links.widget(
            st.select_slider,
            _("Binarization threshold (ink if pixel ≥ T)"),
            "threshold",
            help=_("128 is the textbook's choice; 1 means 'any ink' (the course note's)."),
        )
        links.widget(
            st.select_slider,
            _("α: pseudo-count for 'pixel on'"),
            "alpha",
            format_func=_format_stop,
        )
        links.widget(
            st.select_slider,
            _("β: pseudo-count for 'pixel off'"),
            "beta",
            format_func=_format_stop,
        )
        links.widget(
            st.radio,
            _("Class prior"),
            "prior",
            horizontal=True,
            format_func=prior_name,
            help=_("Empirical: class frequencies in the training set. Uniform: 1/10 each."),
        )
        links.widget(
            st.radio,
            _("Deskew"),
            "deskew",
            horizontal=True,
            format_func=_on_off,
            help=_(
                "On: every image is sheared upright by its second moments first; the training images too, "
                "so both models are retrained (once per server, a few seconds). The published results are "
                "with deskew off."
            ),
        )
        presets_locked = any(links.locked(name) for name in link_names.SETTINGS)
        left, right = st.columns(2)
        left.button(
            _("Textbook"),
            on_click=apply,
            args=(TEXTBOOK,),
            width="stretch",
            disabled=presets_locked,
            help=_("Reset to the textbook: T = 128, α = β = 1, empirical prior, no deskewing"),
        )
        right.button(
            _("Course note"),
            on_click=apply,
            args=(COURSE_NOTE,),
            width="stretch",
            disabled=presets_locked,
            help=_("T = 1, α = β = 1, uniform prior, no deskewing"),
        )
        settings = current_settings()
        alpha, beta = notation.general(settings.alpha), notation.general(settings.beta)
        st.caption(f"p(xᵢ=1 | y) = (nᵢᵧ + {alpha}) / (nᵧ + {alpha} + {beta})")
    return settings


def _format_stop(value: float) -> str:
    # also the stop's value in the link (Streamlit writes a select slider's shown option there): a number in a link
    # is written one way, so the slider shows 0.5 in every language
    return f"{value:g}"


def _on_off(value: bool) -> str:
    # also the value in the link (Streamlit writes a radio's shown option there): ?deskew=on in English, and a link
    # in any language's words opens in any other (lab/links.py)
    return pgettext("deskew", "on") if value else pgettext("deskew", "off")
