"""Every name a page's link can carry: one table, like TensorFlow Playground's ``state.ts``.

Each ``LinkName`` says what the value is (its type), where a control starts (``default``), the values it takes
(``values``, or ``bounds`` for a number), the pages that read it, and whether a teacher's ``?lock=`` can lock it.
``lab/links.py`` draws a control from its row (``links.widget(st.slider, label, "alpha")``), the sidebar's presets
and ``current_settings`` read the model settings' rows, the class and the lesson name their parameters here, and
``tests/lab/test_link_names.py`` fails on a name used anywhere that this table does not hold. ``python -m
devtools.link_names`` writes the table into docs/classroom.md and docs/accessibility.md.

No Streamlit: a value, not a control. A row whose values depend on the data (a test image's number, a prepared
curve's stops) leaves them to the page (``values`` and ``bounds`` None); so does one whose default is the data's.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from lab.i18n import N_
from lab.model_settings import PRIOR_NAMES, SMOOTHING_STOPS, TEXTBOOK, THRESHOLDS, Settings
from nbcore.experiments.class_model import DEFAULT_WEIGHT
from nbcore.experiments.mixture import MAX_COMPONENTS
from nbcore.features import OBSERVED_REGIONS

EVERY_PAGE = ("every page",)
DIGITS = tuple(range(10))
COUNTER_MAX = 999_999  # a batch or seed number: six digits
DATA = None  # a default, values or bounds that come from the data, given by the page that reads it

# values whose words a control shows translated (the link holds them in the reader's words: lab/links.py)
DRAW_INPUTS = (N_("Draw"), N_("Upload a picture"), N_("Test image"))
HEATMAP_VIEWS = (N_("Probability"), N_("Log-odds"), N_("Difference of two digits"))
INPAINT_SOURCES = (N_("A test image"), N_("My drawing"))
XOR_STOPS = (0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0)  # the XOR page's pseudo-counts
SPAM_EVENT_MODELS = ("multinomial", "bernoulli")
SPAM_EXAMPLE = "WINNER!! You have been selected to receive a £900 prize reward. Call 09061701461 to claim now"
NAIVE, MIXTURE = "naive", "mixture"  # the model a page shows (lab/model_choice.py)
DEFAULT_COMPONENTS = 10  # styles per digit a page's mixture starts at
# a class's few hundred drawings per digit support no more; each K is one EM fit per student
CLASS_MAX_COMPONENTS = 10
CLASS_WEIGHTS = (0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # MNIST digits one class drawing counts as
# the Draw canvas's brush default (px on the 280 px canvas): a digit about 200 px tall drawn with it is framed
# to a stroke width of 2.7 px, MNIST's median being 2.64 px (method in docs/preprocessing.md)
MNIST_LIKE_BRUSH = 24


@dataclass(frozen=True)
class LinkName:
    """One name in a link: ``kind`` the value's type, ``default`` where its control starts (DATA: the page's),
    ``values`` the values it takes or ``bounds`` (lowest, highest) for a number (DATA: the page's; a free text has
    neither), ``pages`` the page files' names that read it, ``lockable`` whether ``?lock=`` can lock it, ``meaning``
    what it holds (the docs' words)."""

    name: str
    kind: type
    default: object
    pages: tuple[str, ...]
    meaning: str
    values: tuple | None = None
    bounds: tuple[float, float] | None = None
    lockable: bool = True


def _setting(name: str, values: tuple, meaning: str) -> LinkName:
    return LinkName(name, type(getattr(TEXTBOOK, name)), getattr(TEXTBOOK, name), EVERY_PAGE, meaning, values)


def _counter(name: str, page: str, meaning: str) -> LinkName:
    return LinkName(name, int, 0, (page,), meaning, bounds=(0, COUNTER_MAX))


TABLE = (
    # the model settings, the sidebar's on every page: a ``Settings``'s fields, by the same names
    _setting("threshold", THRESHOLDS, "binarization threshold T: a pixel ≥ T is ink"),
    _setting("alpha", SMOOTHING_STOPS, "α, the pseudo-count for a pixel on"),
    _setting("beta", SMOOTHING_STOPS, "β, the pseudo-count for a pixel off"),
    _setting("prior", tuple(PRIOR_NAMES), "the class prior"),
    _setting("deskew", (False, True), "every image sheared upright first (the link says on or off)"),
    # the frame's: a reader's, a class's, a teacher's
    LinkName("lang", str, None, EVERY_PAGE, "the reader's language (en, zh, es)", ("en", "zh", "es"), lockable=False),
    LinkName("lock", str, None, EVERY_PAGE, "the controls a teacher locked, by these names", lockable=False),
    LinkName(
        "presenter",
        bool,
        False,
        EVERY_PAGE,
        "presenter mode; left out of a link for students",
        (False, True),
        lockable=False,
    ),
    LinkName("class", str, None, EVERY_PAGE, "a class's code: who joins it", lockable=False),
    LinkName("key", str, None, EVERY_PAGE, "a teacher's key; never in a link for students", lockable=False),
    LinkName("lesson", int, 1, ("lesson",), "the lesson's step", bounds=DATA, lockable=False),
    # the pages' own choices
    LinkName(
        "gallery_weight",
        int,
        int(DEFAULT_WEIGHT),
        ("gallery", "lesson"),
        "MNIST digits one class drawing counts as",
        CLASS_WEIGHTS,
    ),
    LinkName(
        "model",
        str,
        NAIVE,
        ("samples", "inpainting", "compare", "mixture", "lesson"),
        "naive Bayes or the mixture of styles",
        (NAIVE, MIXTURE),
    ),
    LinkName(
        "components",
        int,
        DEFAULT_COMPONENTS,
        ("samples", "inpainting", "compare", "mixture", "lesson"),
        "the mixture's styles per digit",
        bounds=(1, MAX_COMPONENTS),
    ),
    LinkName(
        "class_components",
        int,
        1,
        ("gallery", "lesson"),
        "the class's mixture: styles per digit",
        bounds=(1, CLASS_MAX_COMPONENTS),
    ),
    LinkName("draw_mode", str, DRAW_INPUTS[0], ("draw",), "draw, upload or a test image", DRAW_INPUTS),
    LinkName("draw_test_image", int, 0, ("draw",), "the test image shown", bounds=DATA),
    LinkName(
        "draw_brush",
        int,
        MNIST_LIKE_BRUSH,
        ("draw",),
        "the brush width in pixels (the canvas's own slider)",
        bounds=(8, 40),
    ),
    _counter("home_batch", "home", "which random batch of test images"),
    LinkName(
        "heatmap_view", str, HEATMAP_VIEWS[0], ("heatmaps",), "probability, log-odds or a difference", HEATMAP_VIEWS
    ),
    LinkName("heatmap_digit_a", int, 3, ("heatmaps",), "the first digit compared", DIGITS),
    LinkName("heatmap_digit_b", int, 8, ("heatmaps",), "the second digit compared", DIGITS),
    LinkName("smoothing_digit", int, 2, ("smoothing",), "the digit whose pixels are shown", DIGITS),
    LinkName("smoothing_image", int, 0, ("smoothing",), "the test image whose product is taken", bounds=DATA),
    _counter("deskew_batch", "deskew", "which batch of digits, before and after"),
    _counter("compare_batch", "compare", "which batch of disagreements"),
    LinkName("samples_digit", int, 7, ("samples",), "the digit sampled", DIGITS),
    LinkName("samples_count", int, 8, ("samples",), "how many samples", bounds=(4, 16)),
    _counter("samples_seed", "samples", "the samples' random seed"),
    LinkName(
        "inpaint_source",
        str,
        INPAINT_SOURCES[0],
        ("inpainting",),
        "a test image or the reader's drawing",
        INPAINT_SOURCES,
    ),
    LinkName(
        "inpaint_region",
        str,
        OBSERVED_REGIONS[0],
        ("inpainting",),
        "the part of the image observed",
        tuple(OBSERVED_REGIONS),
    ),
    LinkName("inpaint_fraction", float, 0.3, ("inpainting",), "the share of random pixels observed", bounds=(0.0, 1.0)),
    LinkName("inpaint_index", int, DATA, ("inpainting",), "the test image filled in", DATA),
    LinkName("mixture_digit", int, 7, ("mixture",), "the digit whose styles are shown", DIGITS),
    _counter("mixture_seed", "mixture", "the samples' random seed"),
    LinkName("unlabeled_labels", int, 10, ("mixture",), "labelled digits per class", DATA),
    LinkName("unlabeled_weight", float, 1.0, ("mixture",), "λ, how much an unlabeled digit counts", DATA),
    LinkName("gauss_x", int, 2, ("gaussian",), "iris feature on the x axis", (0, 1, 2, 3)),
    LinkName("gauss_y", int, 3, ("gaussian",), "iris feature on the y axis", (0, 1, 2, 3)),
    LinkName("gauss_prior", str, "empirical", ("gaussian",), "the iris model's class prior", tuple(PRIOR_NAMES)),
    LinkName("gauss_var_smoothing", float, DATA, ("gaussian",), "Gaussian NB's variance smoothing", DATA),
    LinkName("xor_k", float, 1.0, ("xor",), "the XOR models' pseudo-count", XOR_STOPS),
    LinkName("spam_event_model", str, SPAM_EVENT_MODELS[0], ("spam",), "multinomial or Bernoulli", SPAM_EVENT_MODELS),
    LinkName("spam_message", str, SPAM_EXAMPLE, ("spam",), "the message read (2,000 characters at most)"),
)
NAMES = {row.name: row for row in TABLE}
SETTINGS = tuple(field.name for field in fields(Settings))  # the sidebar's rows: a ``Settings``'s fields


def row(name: str) -> LinkName:
    """The table's row for ``name``; a name it does not hold is a mistake in the code, said as such."""
    if name not in NAMES:
        raise KeyError(f"{name!r} is not a name of lab/link_names.py's table: add it there")
    return NAMES[name]
