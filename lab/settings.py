"""The model settings every page shares: what they are, their presets, and their widgets in the sidebar.

A session's settings live in ``st.session_state`` under the sidebar widgets' keys (``KEYS``), which
are also their names in a page's link (``lab/links.py``). What the models see of an image under them is
``Settings.input_form``; a model for them is derived from the shared counts in ``lab/data/models.py``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import streamlit as st

from lab import links
from lab.figures import notation
from lab.i18n import N_, _, pgettext
from nbcore.experiments.evaluate import PUBLISHED_SETTINGS, SMOOTHING_CURVE_ALPHAS
from nbcore.inputs import InputForm

THRESHOLDS = (1, 64, 128, 192)
# alpha and beta: the sidebar's stops, 0 then the smoothing curves' grid, so every stop is a point on the curve
SMOOTHING_STOPS = (0.0, *SMOOTHING_CURVE_ALPHAS)
# the class prior's values in words (the sidebar's radio and the link), and as a caption names the prior; both
# translated where shown
PRIOR_NAMES = {"empirical": N_("empirical"), "uniform": N_("uniform")}
PRIOR_PHRASES = {"empirical": N_("empirical prior"), "uniform": N_("uniform prior")}


@dataclass(frozen=True)
class Settings:
    """Binarization threshold (pixel >= threshold is ink), Beta(alpha, beta) smoothing, class prior, and
    whether every image (training, test, drawn) is deskewed first."""

    threshold: int = 128
    alpha: float = 1.0
    beta: float = 1.0
    prior: str = "empirical"
    deskew: bool = False

    @property
    def input_form(self) -> InputForm:
        """What every model sees of an image under these settings (deskewed or not, binarized at the threshold)."""
        return InputForm(self.threshold, self.deskew)


TEXTBOOK = Settings(**asdict(PUBLISHED_SETTINGS["textbook"]))
COURSE_NOTE = Settings(**asdict(PUBLISHED_SETTINGS["course note"]))
# setting name -> its sidebar widget's key in st.session_state, which is also its name in the link
KEYS = {"threshold": "threshold", "alpha": "alpha", "beta": "beta", "prior": "prior", "deskew": "deskew"}


def current_settings() -> Settings:
    """This session's settings, from the sidebar widgets' state (textbook defaults before first use)."""
    values = {name: st.session_state.get(key, getattr(TEXTBOOK, name)) for name, key in KEYS.items()}
    return Settings(**values)


def apply(settings: Settings) -> None:
    """Set the sidebar widgets to ``settings`` (a preset button's callback, before the widgets are drawn)."""
    for name, key in KEYS.items():
        st.session_state[key] = getattr(settings, name)


def sidebar() -> Settings:
    """Draw the model settings in the sidebar (each one in the link) and return them; they apply on every page."""
    with st.sidebar:
        st.header(_("Model settings"))
        links.widget(
            st.select_slider,
            _("Binarization threshold (ink if pixel ≥ T)"),
            KEYS["threshold"],
            TEXTBOOK.threshold,
            options=THRESHOLDS,
            help=_("128 is the textbook's choice; 1 means 'any ink' (the course note's)."),
        )
        links.widget(
            st.select_slider,
            _("α: pseudo-count for 'pixel on'"),
            KEYS["alpha"],
            TEXTBOOK.alpha,
            options=SMOOTHING_STOPS,
            format_func=_format_stop,
        )
        links.widget(
            st.select_slider,
            _("β: pseudo-count for 'pixel off'"),
            KEYS["beta"],
            TEXTBOOK.beta,
            options=SMOOTHING_STOPS,
            format_func=_format_stop,
        )
        links.widget(
            st.radio,
            _("Class prior"),
            KEYS["prior"],
            TEXTBOOK.prior,
            options=tuple(PRIOR_NAMES),
            horizontal=True,
            format_func=prior_name,
            help=_("Empirical: class frequencies in the training set. Uniform: 1/10 each."),
        )
        links.widget(
            st.radio,
            _("Deskew"),
            KEYS["deskew"],
            TEXTBOOK.deskew,
            options=(False, True),
            horizontal=True,
            format_func=_on_off,
            help=_(
                "On: every image is sheared upright by its second moments first; the training images too, "
                "so both models are retrained (once per server, a few seconds). The published results are "
                "with deskew off."
            ),
        )
        presets_locked = any(links.locked(key) for key in KEYS.values())
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


def prior_name(prior: str) -> str:
    """The class prior's value as the reader reads it: "empirical", "uniform" ("empírica", "uniforme")."""
    return _(PRIOR_NAMES[prior]) if prior in PRIOR_NAMES else prior


def prior_phrase(prior: str) -> str:
    """The class prior as a caption names it: "empirical prior", "uniform prior", in the reader's language."""
    return _(PRIOR_PHRASES[prior]) if prior in PRIOR_PHRASES else prior
