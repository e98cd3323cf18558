"""The class gallery's section on the class's model: a naive Bayes trained on the class's drawings beside
MNIST's (and, with K above 1, the class's mixture of K styles per digit), its accuracies leave one student out,
P(x | y) and the curve of accuracy against drawings per digit. No student is named. The results are kept in
``lab/data/class_models.py``; this lays them out."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from lab import display, i18n, links, refresh, store_outage
from lab.class_gallery import drawings_text, students_text
from lab.data import class_models, mixtures, models
from lab.figures import class_model
from lab.i18n import N_, _, ngettext, sentences
from lab.model_choice import NEEDS_SMOOTHING
from lab.model_settings import Settings, prior_phrase
from lab.settings import current_settings
from nbcore.experiments.class_mixture import fewest_to_learn_from
from nbcore.experiments.class_model import MIN_DRAWINGS, MIXTURE, ClassEvaluation, Shortage

MODEL_REFRESH_SECONDS = 10  # measured again at most this often, and only when the drawings have changed
COMPONENTS_KEY = "class_components"  # the class's mixture: styles per digit, in the link
PAIR_ROW_PX = 130  # a row of P(x | y) tiles: square tiles at a projector's width, less blank space on a phone
# the per-digit table's column headers, translated where it is shown
SHORT_NAMES = {
    "mnist": N_("MNIST's"),
    "class": N_("class's"),
    MIXTURE: N_("class's mixture"),
    "mnist_plus_class": N_("MNIST + class"),
}
# the models' names in words (nbcore's ``model_names``, which the command line prints in English)
MODEL_NAMES = {"mnist": N_("MNIST's model"), "class": N_("the class's model")}
# nbcore's ``curve_note``, said in the reader's language (the same English, so the catalogue finds it)
CURVE_NOTE = N_(
    "No curve yet: its models learn each digit from other students than the ones they read, and some digits have "
    "been drawn by too few students."
)


def percent(value: float | None) -> str:
    return "—" if value is None or not np.isfinite(value) else i18n.percent(value)


def number(value: float) -> str:
    """``value`` as ``{:g}`` writes it (1, 0.5, 0.01), in the reader's form."""
    written = f"{value:g}"
    places = len(written.split(".")[1]) if "." in written and "e" not in written else 0
    return i18n.decimal(value, places)


def model_names(evaluation: ClassEvaluation, weight: int) -> dict[str, str]:
    """Each model's name in words, in the reader's language; MNIST + the class with its weight."""
    names = {}
    for name in evaluation.models:
        if name == MIXTURE:
            names[name] = ngettext(
                "the class's mixture ({k} style per digit)",
                "the class's mixture ({k} styles per digit)",
                evaluation.components,
            ).format(k=i18n.integer(evaluation.components))
        elif name == "mnist_plus_class":
            names[name] = _("MNIST + the class ×{weight}").format(weight=i18n.integer(weight))
        else:
            names[name] = _(MODEL_NAMES.get(name, name))
    return names


def join_words(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c" in the reader's language."""
    if len(items) == 1:
        return items[0]
    listed = functools.reduce(
        lambda first, second: _("{first}, {second}").format(first=first, second=second), items[:-1]
    )
    return _("{items} and {last}").format(items=listed, last=items[-1])


def shortage_sentence(shortage: Shortage) -> str:
    """What the class's models still need ("2 more 7s"): nbcore's ``Shortage.sentence`` in the reader's language."""
    minimum = i18n.integer(shortage.minimum)
    if shortage.students == 0:
        return _(
            "No drawings yet: MNIST's model reads the first one sent; the class's models need {minimum} drawings "
            "of a digit, from two students or more."
        ).format(minimum=minimum)
    parts = [_("MNIST's model reads every drawing.")]
    if shortage.one_student:
        parts.append(
            _(
                "The class's models are measured once two students or more have sent drawings: each student's "
                "drawings are read by a model trained on the others'."
            )
        )
    if shortage.digits:
        needs = join_words(
            [
                ngettext("{n} more {digit}", "{n} more {digit}s", shortage.minimum - count).format(
                    n=i18n.integer(shortage.minimum - count), digit=digit
                )
                for digit, count in shortage.digits.items()
            ]
        )
        if len(shortage.digits) == 10:
            parts.append(
                _("The class's models give a digit's accuracy from {minimum} drawings of it: {needs}.").format(
                    minimum=minimum, needs=needs
                )
            )
        else:
            parts.append(
                _(
                    "The class's accuracies are over the digits with {minimum} drawings or more; to measure the "
                    "others they need {needs}."
                ).format(minimum=minimum, needs=needs)
            )
    return sentences(*parts)


def components_sentence(evaluation: ClassEvaluation, snapshot: class_models.ClassSnapshot) -> str | None:
    """nbcore's ``components_note`` (more styles per digit than the drawings support) in the reader's language."""
    if evaluation.components_note is None:
        return None
    found = fewest_to_learn_from(snapshot.meant, snapshot.students, evaluation.measured)
    if found is None:  # not the drawings the note was made of: its English rather than a wrong number
        return evaluation.components_note
    fewest, digit = found
    note = ngettext(
        "{k} styles per digit is more than the class's drawings can support: with one student left out, the "
        "mixture can have as few as {fewest} drawing of {digit} to learn from, so some of its styles start from "
        "the same drawing and stay alike.",
        "{k} styles per digit is more than the class's drawings can support: with one student left out, the "
        "mixture can have as few as {fewest} drawings of {digit} to learn from, so some of its styles start from "
        "the same drawing and stay alike.",
        fewest,
    ).format(k=i18n.integer(evaluation.components), fewest=i18n.integer(fewest), digit=digit)
    if fewest == 1:
        advice = _("1 style per digit (the class's model) is all these drawings support.")
    else:
        advice = _("{fewest} styles per digit or fewer give every style a drawing of its own.").format(
            fewest=i18n.integer(fewest)
        )
    return sentences(note, advice)


@refresh.live("gallery", MODEL_REFRESH_SECONDS)
def section(code: str) -> None:
    """A naive Bayes trained on the class's drawings beside MNIST's: accuracies leave one student out, P(x | y)
    and the curve of accuracy against drawings per digit. No student is named."""
    st.subheader(_("The class's model"))
    st.markdown(
        _(
            "A naive Bayes that learns from this class's drawings (the digit each student meant), beside MNIST's, "
            "which learned from {strangers} strangers' digits. Each student's drawings are read only by models "
            "that never saw that student."
        ).format(strangers=i18n.integer(60000))
    )
    reading = store_outage.kept(f"snapshot:{code}", lambda: class_models.class_snapshot(code))
    store_outage.mark(reading)
    snapshot = reading.value
    if snapshot is None:  # never read in this session: the section fills in once the store answers
        return
    if not snapshot.ids:
        st.info(
            _(
                "No drawings yet: once students send some, the class's model learns from them here. A digit gets "
                "an accuracy once the class has sent {minimum} drawings of it, from two students or more."
            ).format(minimum=i18n.integer(MIN_DRAWINGS)),
            icon=":material/hourglass_empty:",
        )
        return
    settings = class_models.class_model_settings(current_settings())
    weight = links.widget(
        st.select_slider,
        _("MNIST + the class: one class drawing counts as this many MNIST digits"),
        "gallery_weight",
        format_func=lambda stop: f"×{i18n.integer(stop)}",
        help=_(
            "MNIST + the class adds the class's counts, each drawing counted this many times, to MNIST's "
            "{per_digit} digits a class: 0 is MNIST's model, a large weight the class's."
        ).format(per_digit=i18n.integer(6000)),
    )
    components = components_slider(settings)
    if components > 1:  # fitted here first, where its spinner shows (class_evaluation then finds it made)
        class_models.class_mixture_readings(snapshot, settings, components)
    evaluation = class_models.class_evaluation(snapshot, settings, float(weight), components)
    names = model_names(evaluation, weight)
    with st.container(horizontal=True):
        for name, score in evaluation.models.items():
            st.metric(names[name][:1].upper() + names[name][1:], percent(score.accuracy))
    scores = functools.reduce(
        lambda first, second: _("{first}; {second}").format(first=first, second=second),
        [
            _("{model} {correct} of {read}").format(
                model=names[name], correct=i18n.integer(score.correct), read=i18n.integer(score.read)
            )
            if score.accuracy is not None
            else f"{names[name]} —"
            for name, score in evaluation.models.items()
        ],
    )
    prior = prior_phrase(settings.prior)
    st.caption(
        sentences(
            _("{drawings} from {students}.").format(
                drawings=drawings_text(int(evaluation.drawings_per_digit.sum())),
                students=students_text(evaluation.students),
            ),
            _("Read right, each student's drawings by models that never saw that student: {scores}.").format(
                scores=scores
            ),
            _(
                "Every model: pixel ≥ {threshold}, α = {alpha}, β = {beta}, {prior} (the sidebar's settings; "
                "drawings are read as sent, not deskewed)."
            ).format(
                threshold=i18n.integer(settings.threshold),
                alpha=number(settings.alpha),
                beta=number(settings.beta),
                prior=prior,
            ),
        )
    )
    if evaluation.shortage is not None:
        st.info(shortage_sentence(evaluation.shortage), icon=":material/info:")
    too_many_styles = components_sentence(evaluation, snapshot)
    if too_many_styles is not None:
        st.info(too_many_styles, icon=":material/info:")
    with st.expander(_("Each digit"), icon=":material/table:"):
        st.table(per_digit_table(evaluation), hide_index=True)

    display.chart(
        class_model.probability_pairs(
            evaluation.class_feature_prob,
            models.model(settings).feature_prob_,
            evaluation.drawings_per_digit,
            height_per_row=PAIR_ROW_PX,
        ),
        key="gallery_class_pairs",
        alt=_("P(pixel on | digit) of the class's model above MNIST's model, for each digit"),
    )
    smoothing_note(evaluation.drawings_per_digit, settings)
    class_curve(snapshot, settings)


def components_slider(settings: Settings) -> int:
    """The class's mixture's styles per digit K (1: the class's model alone), in the link as ``class_components``;
    the K to evaluate: 1, with a sentence, when α or β is 0 (EM needs both above 0)."""
    components = int(
        links.widget(
            st.slider,
            _("The class's mixture: styles per digit K"),
            COMPONENTS_KEY,
            help=_(
                "Above 1, a mixture of K naive Bayes styles per digit also learns from the class's drawings (EM), "
                "read like the class's model: each student by a mixture fitted without them. 1 is the class's "
                "model alone, which is that mixture with one style. A new K takes seconds for a full class."
            ),
        )
    )
    if components > 1 and not mixtures.supported(settings):
        st.info(
            _("{reason} The class's model alone is shown meanwhile.").format(reason=_(NEEDS_SMOOTHING)),
            icon=":material/info:",
        )
        return 1
    return components


def smoothing_note(drawings_per_digit: np.ndarray, settings: Settings) -> None:
    """Why the class's P(x | y) of a digit with few drawings is pale all over: the smoothing, in numbers."""
    few = sorted({int(count) for count in drawings_per_digit if count < MIN_DRAWINGS})
    alpha, beta = settings.alpha, settings.beta
    if not few or alpha + beta == 0:  # no smoothing: nothing pale to explain (and 0/0 for a digit never drawn)
        return
    shown = ", ".join(
        ngettext(
            "{n} drawing: {none} for a pixel none inked, {all} for one all inked",
            "{n} drawings: {none} for a pixel none inked, {all} for one all inked",
            count,
        ).format(
            n=i18n.integer(count),
            none=i18n.decimal(alpha / (count + alpha + beta), 2),
            all=i18n.decimal((count + alpha) / (count + alpha + beta), 2),
        )
        for count in few[:3]
    )
    st.caption(
        _(
            "A digit with few drawings shows mostly the smoothing, not the class's ink: with α = {alpha} and "
            "β = {beta}, P(x = 1 | y) = (inked + α) / (drawings + α + β). With {examples}."
        ).format(alpha=number(alpha), beta=number(beta), examples=shown)
    )


def per_digit_table(evaluation: ClassEvaluation) -> dict[str, list[str]]:
    """Each digit's drawings and each model's accuracy on them ("—" where too few to measure)."""
    table = {
        _("digit"): [str(digit) for digit in range(10)],
        _("drawings"): [i18n.integer(int(count)) for count in evaluation.drawings_per_digit],
    }
    for name, score in evaluation.models.items():
        table[_(SHORT_NAMES[name])] = [percent(value) for value in score.per_digit]
    return table


def class_curve(snapshot: class_models.ClassSnapshot, settings: Settings) -> None:
    """The accuracy of the class's model against drawings per digit, drawn in a thread: this session's last one
    for this class is shown (or a sentence) until the one for the current drawings is ready."""
    drawn = class_models.class_curve(snapshot, settings)
    shown_key = "gallery_class_curve"
    if drawn is not None:
        st.session_state[shown_key] = (snapshot.code, settings, len(snapshot.ids), drawn)
        count = len(snapshot.ids)
    else:
        last = st.session_state.get(shown_key)
        if last is None or last[:2] != (snapshot.code, settings):
            st.caption(
                ngettext(
                    "Drawing the curve of accuracy against drawings per digit for these {n} drawing: it shows here "
                    "within {seconds} s or so.",
                    "Drawing the curve of accuracy against drawings per digit for these {n} drawings: it shows here "
                    "within {seconds} s or so.",
                    len(snapshot.ids),
                ).format(n=i18n.integer(len(snapshot.ids)), seconds=i18n.integer(MODEL_REFRESH_SECONDS)),
            )
            return
        unused_code, unused_settings, count, drawn = last
    curve, note = drawn
    if curve is None:
        st.caption(
            _(note)  # nbcore's curve_note: CURVE_NOTE
            if note
            else _(
                "The curve of accuracy against drawings per digit needs drawings from two students or more, and a "
                "digit with {minimum} drawings."
            ).format(minimum=i18n.integer(MIN_DRAWINGS))
        )
        return
    display.chart(
        class_model.accuracy_against_drawings(
            curve.sizes, {class_model.CLASS_NAME: curve.accuracy["class"]}, curve.mnist, curve.overtake, height=380
        ),
        key="gallery_class_curve",
        alt=_("Accuracy of the class's model against the class's drawings per digit, with MNIST's model's accuracy"),
    )
    most = int(curve.sizes[-1])
    if curve.overtake is None:
        sentence = ngettext(
            "With the drawings so far (up to {n} drawing of a digit from other students), the class's model "
            "does not read better than MNIST's yet.",
            "With the drawings so far (up to {n} drawings of a digit from other students), the class's model "
            "does not read better than MNIST's yet.",
            most,
        ).format(n=i18n.integer(most))
    else:
        sentence = ngettext(
            "The class's model reads better than MNIST's from **{n} drawing per digit** on.",
            "The class's model reads better than MNIST's from **{n} drawings per digit** on.",
            int(curve.overtake),
        ).format(n=i18n.integer(int(curve.overtake)))
    explained = _(
        "Each point: the class's model learns at most that many drawings of each digit from some students and "
        "reads the others' (students in {folds} groups, mean of {repeats} random draws)."
    ).format(folds=i18n.integer(curve.folds), repeats=i18n.integer(curve.repeats))
    if count != len(snapshot.ids):
        explained = sentences(
            explained,
            _(
                "This curve is of the {then} drawings there were a moment ago; it is being drawn again for the {now} "
                "there are now."
            ).format(then=i18n.integer(count), now=i18n.integer(len(snapshot.ids))),
        )
    st.markdown(sentence)
    st.caption(explained)
