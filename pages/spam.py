"""Spam filter: naive Bayes over the words of SMS messages, tuned on held-out data, tested once."""

import streamlit as st

import nbcore
from lab import display, i18n, links, presentation
from lab.data import spam_filter
from lab.figures import bar_charts, diagnostics, line_charts, notation
from lab.i18n import N_, _, ngettext, pgettext
from nbcore import metrics
from nbcore.datasets import sms
from nbcore.experiments import spam

CALIBRATION_BINS = 20  # over [0, 1]; the top posterior of two classes fills the upper 10
MODEL_NAMES = {"multinomial": N_("Multinomial (word counts)"), "bernoulli": N_("Bernoulli (word present or not)")}
SHORT_NAMES = {"multinomial": N_("Multinomial"), "bernoulli": N_("Bernoulli")}  # the test-accuracy bars' names
# The longest SMS in the collection has 911 characters; the server cuts anything longer (a 20 MB
# message took 10.7 s and stalled every other session).
MESSAGE_MAX_CHARS = 2000
# words in each of the four word tables: static tables (st.dataframe's grid took about 0.3 s of the page's drawing)
WORDS_SHOWN = 10
# the model knows English words only: the example message stays English in every language


def label_name(label: str) -> str:
    """A class of message ("ham", "spam", as the collection names them) in the reader's words."""
    return pgettext("SMS class", "spam") if label == "spam" else pgettext("SMS class", "ham")


st.title(_("Spam filter"))
data_dir = nbcore.default_data_dir()
missing = st.empty()
if not (data_dir / sms.SMS_FILE).exists():
    # said before the download is tried: offline, the error below then comes with what to do about it
    with missing.container():
        st.markdown(
            _(
                "This page trains naive Bayes on the **SMS Spam Collection** ({messages} text messages, {spam} of "
                "them spam; UCI Machine Learning Repository) and shows: how the smoothing strength is chosen on "
                "held-out messages, the test accuracy of a word-count and a word-presence model against "
                "always guessing 'ham', what each word of a message you type adds to the spam score, the "
                "words the model relies on, and how sure it is compared with how often it is right."
            ).format(messages=i18n.integer(5574), spam=i18n.integer(747))
        )
        # the server's own folders are not every visitor's business: say what sets the folder instead
        st.markdown(
            _(
                "The collection is not in the server's data folder yet (the folder `NBCORE_DATA_DIR` names; "
                "`~/.cache/nbcore` when it is not set). The page downloads it when the server can reach the "
                "internet. Without a network, run this once on a machine that has one, then copy the file it "
                "writes into that folder, or set `NBCORE_DATA_DIR` to a folder holding it and restart the server:"
            )
        )
        st.code('python -c "from nbcore.datasets import sms; print(sms.ensure_sms())"', language="bash")
        st.markdown(_("Meanwhile, the **XOR exercise** and **Gaussian NB** pages need no download."))
texts, labels = spam_filter.sms()
missing.empty()
experiments = spam_filter.experiments()
sizes = [len(part) for part in spam.stratified_split(labels)]
st.markdown(
    _(
        "The SMS Spam Collection: {messages} text messages, {spam} of them spam. "
        "A fixed, seeded split keeps the spam share in every part: **{training} training** messages "
        "(counted), **{held_out} held-out** messages (to choose the smoothing strength k) and "
        "**{test} test** messages, used once at the end. A word's probability in a class is smoothed "
        "as if every word had been seen k extra times."
    ).format(
        messages=i18n.integer(len(texts)),
        spam=i18n.integer(labels.sum()),
        training=i18n.integer(sizes[0]),
        held_out=i18n.integer(sizes[1]),
        test=i18n.integer(sizes[2]),
    )
)

event_model = links.widget(
    st.radio,
    _("Event model"),
    "spam_event_model",
    format_func=lambda name: _(MODEL_NAMES[name]),
    horizontal=True,
)
experiment = experiments[event_model]
model = experiment.model

# two by two: four metrics in a row cut their labels ("k chosen on held…") at 1024 px with the sidebar open
chosen, heldout = st.columns(2)
test, baseline = st.columns(2)
chosen.metric(_("k chosen on held-out data"), notation.general(experiment.chosen_alpha))
heldout.metric(_("Held-out accuracy at that k"), i18n.decimal(experiment.chosen_heldout_accuracy, 4))
test.metric(
    _("Test accuracy (measured once)"),
    i18n.decimal(experiment.test_accuracy, 4),
    _("{difference} vs. baseline").format(
        difference=notation.signed(experiment.test_accuracy - experiment.baseline_accuracy, 4)
    ),
)
baseline.metric(
    _("Baseline: always '{label}'").format(label=label_name(experiment.baseline_label)),
    i18n.decimal(experiment.baseline_accuracy, 4),
    help=_("The most frequent label in the training set, given to every test message."),
)

curve, bars = st.columns([1.4, 1], gap="medium")
with curve:
    display.chart(
        line_charts.curves(
            experiment.alpha_grid,
            {_(MODEL_NAMES[name]): result.heldout_accuracy for name, result in experiments.items()},
            _("{quantity} (log scale)").format(quantity="k"),
            _("held-out accuracy"),
            _("Choosing k on the held-out messages"),
            log_x=True,
            marked={_(MODEL_NAMES[name]): result.chosen_alpha for name, result in experiments.items()},
        ),
        key="spam_heldout_curve",
    )
with bars:
    baseline_name = _("Baseline")
    display.chart(
        bar_charts.accuracy_bars(
            {
                **{_(SHORT_NAMES[name]): result.test_accuracy for name, result in experiments.items()},
                baseline_name: experiment.baseline_accuracy,
            },
            _("Test accuracy, chosen k"),
            baseline=baseline_name,
        ),
        key="spam_test_bars",
    )
st.caption(
    _(
        "Stars mark the k with the best held-out accuracy (ties go to the smaller k). Too little smoothing "
        "trusts rare words too much; too much drowns the evidence in pseudo-counts."
    )
)

# -- one message ----------------------------------------------------------------------------------
st.header(_("Try a message"))
with st.container(key=presentation.in_english("spam_message")):  # the SMS is English, as the model's words are
    message = links.widget(st.text_area, _("Message"), "spam_message", height=100, max_chars=MESSAGE_MAX_CHARS)
explanation = spam.explain(experiment.vocabulary, model, message)
if not explanation.words:
    st.info(
        _(
            "No words found in this message (it is empty, or only emoji, symbols or spaces), so the model "
            "has no evidence and falls back on what it assumes before reading: p(spam) = {probability}."
        ).format(probability=i18n.decimal(explanation.spam_probability, 4))
    )
else:
    unknown = int((~explanation.known).sum())
    verdict = label_name("spam" if explanation.spam_probability > 0.5 else "ham")
    st.metric(
        _("p(spam | message) — classified as {verdict}").format(verdict=verdict),
        i18n.decimal(explanation.spam_probability, 6),
    )
    st.caption(
        ngettext(
            "{words} distinct word, {unknown} of them never seen in training (ignored). "
            "Log-odds = base + the sum of the bars = {log_odds} nats.",
            "{words} distinct words, {unknown} of them never seen in training (ignored). "
            "Log-odds = base + the sum of the bars = {log_odds} nats.",
            len(explanation.words),
        ).format(
            words=i18n.integer(len(explanation.words)),
            unknown=i18n.integer(unknown),
            log_odds=notation.signed(explanation.log_odds, 2),
        )
    )
base_label = _("prior") if event_model == "multinomial" else _("prior + all words absent")
display.chart(
    bar_charts.word_contributions(
        explanation.words,
        explanation.contributions,
        explanation.known,
        base_label,
        explanation.base_log_odds,
        _("What each word adds to the spam log-odds"),
    ),
    key="spam_contributions",
)

# -- words ----------------------------------------------------------------------------------------
st.header(_("The words the model relies on"))


def word_table(by: str) -> dict[str, list[str]]:
    """``spam.word_table``'s top words for ``by``, its numbers as text: a static table draws fast on any screen."""
    table = spam.word_table(experiment.vocabulary, model, WORDS_SHOWN, by)
    return {
        _("word"): table["word"],
        "p(w|spam)": [notation.scientific(value) for value in table["p(w|spam)"]],
        "p(w|ham)": [notation.scientific(value) for value in table["p(w|ham)"]],
        _("log-odds"): [notation.signed(value, 2).replace("-", "−") for value in table["log-odds"]],
    }


LOG_ODDS = "log p(w|spam) − log p(w|ham)"
spammy, hammy = st.columns(2)
spammy.markdown(_("**Most spammy**: largest {log_odds}").format(log_odds=LOG_ODDS))
spammy.table(word_table("spammy"), hide_index=True)
hammy.markdown(_("**Most hammy**: smallest {log_odds}").format(log_odds=LOG_ODDS))
hammy.table(word_table("hammy"), hide_index=True)
frequent_spam, frequent_ham = st.columns(2)
frequent_spam.markdown(
    _("**Largest {probability}**: frequent in spam, often just frequent").format(probability="P(W|spam)")
)
frequent_spam.table(word_table("spam"), hide_index=True)
frequent_ham.markdown(_("**Largest {probability}**").format(probability="P(W|ham)"))
frequent_ham.table(word_table("ham"), hide_index=True)

# -- confidence -----------------------------------------------------------------------------------
st.header(_("How sure, and how right?"))
calibration = metrics.reliability(experiment.test_probabilities, experiment.test_labels, CALIBRATION_BINS)
least = 1 / len(model.classes_)  # the top posterior is never below this
histogram, diagram = st.columns(2, gap="large")
with histogram:
    display.chart(
        diagnostics.confidence_histogram(
            calibration.bin_edges,
            calibration.count,
            calibration.accuracy,
            _("Confidence on the test messages"),
            x_min=least,
        ),
        key="spam_confidence",
    )
with diagram:
    display.chart(
        diagnostics.reliability_diagram(
            {
                _(MODEL_NAMES[event_model]): (
                    calibration.confidence,
                    calibration.accuracy,
                    calibration.count,
                    calibration.ece,
                )
            },
            title=_("Reliability on the test messages"),
            unit=_("messages"),
            x_min=least,
            height=460,
        ),
        key="spam_reliability",
    )
top = calibration.count[-1]
st.caption(
    _(
        "A calibrated model is right {share} of the time when it says {share}: its points would sit on the "
        "diagonal. Here {top} of the {total} test messages get a confidence of at least {edge}; their mean "
        "confidence is {confidence} and {accuracy} of them are right. Naive Bayes counts every word as independent "
        "evidence, so long messages pile up evidence and posteriors crowd near 0 or 1; the few lower bins hold "
        "so few messages that their points are noisy (hover a point for its count). ECE (expected calibration "
        "error) is the gap between confidence and accuracy, averaged over bins weighted by their message counts."
    ).format(
        share=i18n.percent(0.8),
        top=i18n.integer(top),
        total=i18n.integer(len(experiment.test_labels)),
        edge=i18n.decimal(calibration.bin_edges[-2], 2),
        confidence=i18n.decimal(calibration.confidence[-1], 4),
        accuracy=i18n.percent(calibration.accuracy[-1], 2),
    )
)
