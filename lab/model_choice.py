"""The choice of generative model on the pages that generate or fill in digits: naive Bayes, or the mixture of
styles with K styles per digit. Both choices live in the link (``?model=mixture&components=20``) under the
names every page shares.
"""

from __future__ import annotations

import streamlit as st

import nbcore
from lab import links
from lab.data import mixtures, models
from lab.i18n import N_, _
from lab.link_names import MIXTURE, NAIVE
from lab.model_settings import Settings

MODEL_KEY, COMPONENTS_KEY = "model", "components"

MODEL_NAMES = {NAIVE: N_("Naive Bayes"), MIXTURE: N_("Mixture of styles")}  # translated where shown
# marked for the catalogue; shown as _(NEEDS_SMOOTHING)
NEEDS_SMOOTHING = N_(
    "The mixture of styles needs α and β above 0: a style that never saw ink at a pixel could never explain "
    "a digit with ink there, and EM stalls. Move α and β in the sidebar above 0 to see it."
)


def components_slider(label: str | None = None) -> int:
    """The number of styles per digit, 1 to 50, in the link as ``components`` (``label``: "Styles per digit K")."""
    return int(
        links.widget(
            st.slider,
            _("Styles per digit K") if label is None else label,
            COMPONENTS_KEY,
            help=_(
                "How many ways to write each digit the model may learn. 1 is naive Bayes; 1, 2, 5, 10, 20 and 50 "
                "are ready at the textbook's settings, others are fitted when first asked for (seconds)."
            ),
        )
    )


def generative_model(settings: Settings) -> tuple[str, nbcore.BernoulliNB | nbcore.BernoulliMixtureNB]:
    """The model choice (a radio, and K when it is the mixture) and the chosen fitted model: ``(name, model)``.

    At α = 0 or β = 0 the mixture cannot be fitted: the page says so and shows naive Bayes.
    """
    # the options are shown as their link values ("naive", "mixture"), their names under them: Streamlit keeps a
    # radio's shown option in the link, so a name there would make the link ?model=Mixture+of+styles
    choice = links.widget(
        st.radio,
        _("Model"),
        MODEL_KEY,
        captions=tuple(_(name) for name in MODEL_NAMES.values()),
        horizontal=True,
        help=_(
            "Naive Bayes: every pixel an independent coin given the digit. Mixture of styles: first a style "
            "of the digit, then every pixel an independent coin given the style."
        ),
    )
    if choice == NAIVE:
        return NAIVE, models.model(settings)
    n_components = components_slider()
    if not mixtures.supported(settings):
        st.warning(
            _("{reason} Naive Bayes is shown meanwhile.").format(reason=_(NEEDS_SMOOTHING)), icon=":material/info:"
        )
        return NAIVE, models.model(settings)
    return MIXTURE, mixtures.model(settings, n_components)
