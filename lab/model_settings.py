"""The model settings every page shares, as a value: what a cache keys on, the presets, the sidebar's stops.

No Streamlit: ``lab/data/`` keys its caches on a ``Settings``, and the sidebar that edits them (``lab/settings.py``)
sits above it. A setting's name in a page's link is in ``lab/link_names.py``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from lab.i18n import N_, _
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


def prior_name(prior: str) -> str:
    """The class prior's value as the reader reads it: "empirical", "uniform" ("empírica", "uniforme")."""
    return _(PRIOR_NAMES[prior]) if prior in PRIOR_NAMES else prior


def prior_phrase(prior: str) -> str:
    """The class prior as a caption names it: "empirical prior", "uniform prior", in the reader's language."""
    return _(PRIOR_PHRASES[prior]) if prior in PRIOR_PHRASES else prior
