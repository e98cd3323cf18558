"""The class gallery's section on the class's model: a naive Bayes trained on the class's drawings beside
MNIST's (and, with K above 1, the class's mixture of K styles per digit), its accuracies leave one student out,
P(x | y) and the curve of accuracy against drawings per digit. No student is named. The results are kept in
``lab/class_store.py``; this lays them out."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lab import class_store, display, links, refresh
from lab.class_gallery import plural
from lab.data import mixtures, models
from lab.figures import class_model
from lab.model_choice import NEEDS_SMOOTHING
from lab.settings import Settings, current_settings
from nbcore.experiments.class_model import DEFAULT_WEIGHT, MIN_DRAWINGS, MIXTURE, ClassEvaluation

MODEL_REFRESH_SECONDS = 10  # measured again at most this often, and only when the drawings have changed
WEIGHTS = (0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # MNIST digits one class drawing counts as
COMPONENTS_KEY = "class_components"  # the class's mixture: styles per digit, in the link
MAX_COMPONENTS = 10  # a class's few hundred drawings per digit support no more; each K is one EM fit per student
PAIR_ROW_PX = 130  # a row of P(x | y) tiles: square tiles at a projector's width, less blank space on a phone
SHORT_NAMES = {"mnist": "MNIST's", "class": "class's", MIXTURE: "class's mixture", "mnist_plus_class": "MNIST + class"}


def percent(value: float | None) -> str:
    return "—" if value is None or not np.isfinite(value) else f"{value:.0%}"


@refresh.live("gallery", MODEL_REFRESH_SECONDS)
def section(code: str) -> None:
    """A naive Bayes trained on the class's drawings beside MNIST's: accuracies leave one student out, P(x | y)
    and the curve of accuracy against drawings per digit. No student is named."""
    st.subheader("The class's model")
    st.markdown(
        "A naive Bayes that learns from this class's drawings (the digit each student meant), beside MNIST's, "
        "which learned from 60,000 strangers' digits. Each student's drawings are read only by models that "
        "never saw that student."
    )
    snapshot = class_store.class_snapshot(code)
    if not snapshot.ids:
        st.info(
            f"No drawings yet: once students send some, the class's model learns from them here. A digit gets "
            f"an accuracy once the class has sent {MIN_DRAWINGS} drawings of it, from two students or more.",
            icon=":material/hourglass_empty:",
        )
        return
    settings = class_store.class_model_settings(current_settings())
    weight = st.select_slider(
        options=WEIGHTS,
        value=int(DEFAULT_WEIGHT),
        format_func=lambda stop: f"×{stop:,}",
        help="MNIST + the class adds the class's counts, each drawing counted this many times, to MNIST's "
        "6,000 digits a class: 0 is MNIST's model, a large weight the class's.",
        **links.control(
            "MNIST + the class: one class drawing counts as this many MNIST digits",
            "gallery_weight",
            int(DEFAULT_WEIGHT),
        ),
    )
    components = components_slider(settings)
    if components > 1:  # fitted here first, where its spinner shows (class_evaluation then finds it made)
        class_store.class_mixture_readings(snapshot, settings, components)
    evaluation = class_store.class_evaluation(snapshot, settings, float(weight), components)
    names = {**evaluation.names, "mnist_plus_class": f"MNIST + the class ×{weight:,}"}
    with st.container(horizontal=True):
        for name, score in evaluation.models.items():
            st.metric(names[name][:1].upper() + names[name][1:], percent(score.accuracy))
    st.caption(
        f"{plural(int(evaluation.drawings_per_digit.sum()), 'drawing')} from "
        f"{plural(evaluation.students, 'student')}. Read right, each student's drawings by models that never "
        "saw that student: "
        + "; ".join(
            f"{names[name]} {score.correct} of {score.read}" if score.accuracy is not None else f"{names[name]} —"
            for name, score in evaluation.models.items()
        )
        + f". Every model: pixel ≥ {settings.threshold}, α = {settings.alpha:g}, β = {settings.beta:g}, "
        f"{settings.prior} prior (the sidebar's settings; drawings are read as sent, not deskewed)."
    )
    if evaluation.shortage is not None:
        st.info(evaluation.shortage.sentence(), icon=":material/info:")
    if evaluation.components_note is not None:
        st.info(evaluation.components_note, icon=":material/info:")
    with st.expander("Each digit", icon=":material/table:"):
        st.table(per_digit_table(evaluation), hide_index=True)

    display.chart(
        class_model.probability_pairs(
            evaluation.class_feature_prob,
            models.model(settings).feature_prob_,
            evaluation.drawings_per_digit,
            height_per_row=PAIR_ROW_PX,
        ),
        key="gallery_class_pairs",
        alt="P(pixel on | digit) of the class's model above MNIST's model, for each digit",
    )
    smoothing_note(evaluation.drawings_per_digit, settings)
    class_curve(snapshot, settings)


def components_slider(settings: Settings) -> int:
    """The class's mixture's styles per digit K (1: the class's model alone), in the link as ``class_components``;
    the K to evaluate: 1, with a sentence, when α or β is 0 (EM needs both above 0)."""
    components = int(
        links.widget(
            st.slider,
            "The class's mixture: styles per digit K",
            COMPONENTS_KEY,
            1,
            min_value=1,
            max_value=MAX_COMPONENTS,
            help="Above 1, a mixture of K naive Bayes styles per digit also learns from the class's drawings (EM), "
            "read like the class's model: each student by a mixture fitted without them. 1 is the class's model "
            "alone, which is that mixture with one style. A new K takes seconds for a full class.",
        )
    )
    if components > 1 and not mixtures.supported(settings):
        st.info(NEEDS_SMOOTHING + " The class's model alone is shown meanwhile.", icon=":material/info:")
        return 1
    return components


def smoothing_note(drawings_per_digit: np.ndarray, settings: Settings) -> None:
    """Why the class's P(x | y) of a digit with few drawings is pale all over: the smoothing, in numbers."""
    few = sorted({int(count) for count in drawings_per_digit if count < MIN_DRAWINGS})
    alpha, beta = settings.alpha, settings.beta
    if not few or alpha + beta == 0:  # no smoothing: nothing pale to explain (and 0/0 for a digit never drawn)
        return
    shown = ", ".join(
        f"{count} drawing{'s' if count != 1 else ''}: {alpha / (count + alpha + beta):.2f} for a pixel none inked, "
        f"{(count + alpha) / (count + alpha + beta):.2f} for one all inked"
        for count in few[:3]
    )
    st.caption(
        f"A digit with few drawings shows mostly the smoothing, not the class's ink: with α = {alpha:g} and "
        f"β = {beta:g}, P(x = 1 | y) = (inked + α) / (drawings + α + β). With {shown}."
    )


def per_digit_table(evaluation: ClassEvaluation) -> dict[str, list[str]]:
    """Each digit's drawings and each model's accuracy on them ("—" where too few to measure)."""
    table = {
        "digit": [str(digit) for digit in range(10)],
        "drawings": [str(int(count)) for count in evaluation.drawings_per_digit],
    }
    for name, score in evaluation.models.items():
        table[SHORT_NAMES[name]] = [percent(value) for value in score.per_digit]
    return table


def class_curve(snapshot: class_store.ClassSnapshot, settings: Settings) -> None:
    """The accuracy of the class's model against drawings per digit, drawn in a thread: this session's last one
    for this class is shown (or a sentence) until the one for the current drawings is ready."""
    drawn = class_store.class_curve(snapshot, settings)
    shown_key = "gallery_class_curve"
    if drawn is not None:
        st.session_state[shown_key] = (snapshot.code, settings, len(snapshot.ids), drawn)
        count = len(snapshot.ids)
    else:
        last = st.session_state.get(shown_key)
        if last is None or last[:2] != (snapshot.code, settings):
            st.caption(
                f"Drawing the curve of accuracy against drawings per digit for these "
                f"{plural(len(snapshot.ids), 'drawing')}: it shows here within {MODEL_REFRESH_SECONDS} s or so.",
            )
            return
        _, _, count, drawn = last
    curve, note = drawn
    if curve is None:
        st.caption(
            note
            or f"The curve of accuracy against drawings per digit needs drawings from two students or more, and "
            f"a digit with {MIN_DRAWINGS} drawings."
        )
        return
    display.chart(
        class_model.accuracy_against_drawings(
            curve.sizes, {class_model.CLASS_NAME: curve.accuracy["class"]}, curve.mnist, curve.overtake, height=380
        ),
        key="gallery_class_curve",
        alt="Accuracy of the class's model against the class's drawings per digit, with MNIST's model's accuracy",
    )
    most = int(curve.sizes[-1])
    if curve.overtake is None:
        sentence = (
            f"Within the drawings there are (up to {plural(most, 'drawing')} of a digit from other students), "
            "the class's model does not read better than MNIST's yet."
        )
    else:
        sentence = (
            f"The class's model reads better than MNIST's from **{plural(curve.overtake, 'drawing')} per digit** on."
        )
    stale = (
        f" This curve is of the {count} drawings there were a moment ago; it is being drawn again for the "
        f"{len(snapshot.ids)} there are now."
        if count != len(snapshot.ids)
        else ""
    )
    st.markdown(sentence)
    st.caption(
        f"Each point: the class's model learns at most that many drawings of each digit from some students and "
        f"reads the others' (students in {curve.folds} groups, mean of {curve.repeats} random draws)." + stale
    )
