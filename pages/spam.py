"""Spam filter: naive Bayes over the words of SMS messages, tuned on held-out data, tested once."""

import streamlit as st

import nbcore
from lab import display, links
from lab.data import spam_filter
from lab.figures import charts, diagnostics, notation
from nbcore import metrics
from nbcore.datasets import sms
from nbcore.experiments import spam

CALIBRATION_BINS = 20  # over [0, 1]; the top posterior of two classes fills the upper 10
MODEL_NAMES = {"multinomial": "Multinomial (word counts)", "bernoulli": "Bernoulli (word present or not)"}
# The longest SMS in the collection has 911 characters; the server cuts anything longer (a 20 MB
# message took 10.7 s and stalled every other session).
MESSAGE_MAX_CHARS = 2000
# words in each of the four word tables: static tables (st.dataframe's grid took about 0.3 s of the page's drawing)
WORDS_SHOWN = 10
EXAMPLE = "WINNER!! You have been selected to receive a £900 prize reward. Call 09061701461 to claim now"

st.title("Spam filter")
data_dir = nbcore.default_data_dir()
missing = st.empty()
if not (data_dir / sms.SMS_FILE).exists():
    # said before the download is tried: offline, the error below then comes with what to do about it
    with missing.container():
        st.markdown(
            "This page trains naive Bayes on the **SMS Spam Collection** (5,574 text messages, 747 of them "
            "spam; UCI Machine Learning Repository) and shows: how the smoothing strength is chosen on "
            "held-out messages, the test accuracy of a word-count and a word-presence model against "
            "always guessing 'ham', what each word of a message you type adds to the spam score, the "
            "words the model relies on, and how sure it is compared with how often it is right."
        )
        # the server's own folders are not every visitor's business: say what sets the folder instead
        st.markdown(
            "The collection is not in the server's data folder yet (the folder `NBCORE_DATA_DIR` names; "
            "`~/.cache/nbcore` when it is not set). The page downloads it when the server can reach the "
            "internet. Without a network, run this once on a machine that has one, then copy the file it "
            "writes into that folder, or set `NBCORE_DATA_DIR` to a folder holding it and restart the server:"
        )
        st.code('python -c "from nbcore.datasets import sms; print(sms.ensure_sms())"', language="bash")
        st.markdown("Meanwhile, the **XOR exercise** and **Gaussian NB** pages need no download.")
texts, labels = spam_filter.sms()
missing.empty()
experiments = spam_filter.experiments()
sizes = [len(part) for part in spam.stratified_split(labels)]
st.markdown(
    f"The SMS Spam Collection: {len(texts):,} text messages, {int(labels.sum()):,} of them spam. "
    f"A fixed, seeded split keeps the spam share in every part: **{sizes[0]:,} training** messages "
    f"(counted), **{sizes[1]:,} held-out** messages (to choose the smoothing strength k) and "
    f"**{sizes[2]:,} test** messages, used once at the end. A word's probability in a class is smoothed "
    "as if every word had been seen k extra times."
)

event_model = links.widget(
    st.radio,
    "Event model",
    "spam_event_model",
    list(MODEL_NAMES)[0],
    options=list(MODEL_NAMES),
    format_func=MODEL_NAMES.get,
    horizontal=True,
)
experiment = experiments[event_model]
model = experiment.model

# two by two: four metrics in a row cut their labels ("k chosen on held…") at 1024 px with the sidebar open
chosen, heldout = st.columns(2)
test, baseline = st.columns(2)
chosen.metric("k chosen on held-out data", f"{experiment.chosen_alpha:g}")
heldout.metric("Held-out accuracy at that k", f"{experiment.chosen_heldout_accuracy:.4f}")
test.metric(
    "Test accuracy (measured once)",
    f"{experiment.test_accuracy:.4f}",
    f"{experiment.test_accuracy - experiment.baseline_accuracy:+.4f} vs. baseline",
)
baseline.metric(
    f"Baseline: always '{experiment.baseline_label}'",
    f"{experiment.baseline_accuracy:.4f}",
    help="The most frequent label in the training set, given to every test message.",
)

curve, bars = st.columns([1.4, 1], gap="medium")
with curve:
    display.chart(
        charts.curves(
            experiment.alpha_grid,
            {MODEL_NAMES[name]: result.heldout_accuracy for name, result in experiments.items()},
            "k (log scale)",
            "held-out accuracy",
            "Choosing k on the held-out messages",
            log_x=True,
            marked={MODEL_NAMES[name]: result.chosen_alpha for name, result in experiments.items()},
        ),
        key="spam_heldout_curve",
    )
with bars:
    display.chart(
        charts.accuracy_bars(
            {
                **{name.capitalize(): result.test_accuracy for name, result in experiments.items()},
                "Baseline": experiment.baseline_accuracy,
            },
            "Test accuracy, chosen k",
        ),
        key="spam_test_bars",
    )
st.caption(
    "Stars mark the k with the best held-out accuracy (ties go to the smaller k). Too little smoothing "
    "trusts rare words too much; too much drowns the evidence in pseudo-counts."
)

# -- one message ----------------------------------------------------------------------------------
st.header("Try a message")
message = links.widget(st.text_area, "Message", "spam_message", EXAMPLE, height=100, max_chars=MESSAGE_MAX_CHARS)
explanation = spam.explain(experiment.vocabulary, model, message)
if not explanation.words:
    st.info(
        "No words found in this message (it is empty, or only emoji, symbols or spaces), so the model "
        "has no evidence and falls back on what it assumes before reading: "
        f"p(spam) = {explanation.spam_probability:.4f}."
    )
else:
    unknown = int((~explanation.known).sum())
    verdict = "spam" if explanation.spam_probability > 0.5 else "ham"
    st.metric(f"p(spam | message) — classified as {verdict}", f"{explanation.spam_probability:.6f}")
    st.caption(
        f"{len(explanation.words):,} distinct words, {unknown:,} of them never seen in training "
        "(ignored). Log-odds = base + the sum of the bars = "
        f"{explanation.log_odds:+.2f} nats."
    )
base_label = "prior" if event_model == "multinomial" else "prior + all words absent"
display.chart(
    charts.word_contributions(
        explanation.words,
        explanation.contributions,
        explanation.known,
        base_label,
        explanation.base_log_odds,
        "What each word adds to the spam log-odds",
    ),
    key="spam_contributions",
)

# -- words ----------------------------------------------------------------------------------------
st.header("The words the model relies on")


def word_table(by: str) -> dict[str, list[str]]:
    """``spam.word_table``'s top words for ``by``, its numbers as text: a static table draws fast on any screen."""
    table = spam.word_table(experiment.vocabulary, model, WORDS_SHOWN, by)
    return {
        "word": table["word"],
        "p(w|spam)": [notation.scientific(value) for value in table["p(w|spam)"]],
        "p(w|ham)": [notation.scientific(value) for value in table["p(w|ham)"]],
        "log-odds": [f"{value:+.2f}".replace("-", "−") for value in table["log-odds"]],
    }


spammy, hammy = st.columns(2)
spammy.markdown("**Most spammy**: largest log p(w|spam) − log p(w|ham)")
spammy.table(word_table("spammy"), hide_index=True)
hammy.markdown("**Most hammy**: smallest log p(w|spam) − log p(w|ham)")
hammy.table(word_table("hammy"), hide_index=True)
frequent_spam, frequent_ham = st.columns(2)
frequent_spam.markdown("**Largest P(W|spam)**: frequent in spam, often just frequent")
frequent_spam.table(word_table("spam"), hide_index=True)
frequent_ham.markdown("**Largest P(W|ham)**")
frequent_ham.table(word_table("ham"), hide_index=True)

# -- confidence -----------------------------------------------------------------------------------
st.header("How sure, and how right?")
calibration = metrics.reliability(experiment.test_probabilities, experiment.test_labels, CALIBRATION_BINS)
least = 1 / len(model.classes_)  # the top posterior is never below this
histogram, diagram = st.columns(2, gap="large")
with histogram:
    display.chart(
        diagnostics.confidence_histogram(
            calibration.bin_edges,
            calibration.count,
            calibration.accuracy,
            "Confidence on the test messages",
            x_min=least,
        ),
        key="spam_confidence",
    )
with diagram:
    display.chart(
        diagnostics.reliability_diagram(
            {
                MODEL_NAMES[event_model]: (
                    calibration.confidence,
                    calibration.accuracy,
                    calibration.count,
                    calibration.ece,
                )
            },
            title="Reliability on the test messages",
            unit="messages",
            x_min=least,
            height=460,
        ),
        key="spam_reliability",
    )
top = calibration.count[-1]
st.caption(
    "A calibrated model is right 80% of the time when it says 80%: its points would sit on the diagonal. "
    f"Here {top:,} of the {len(experiment.test_labels):,} test messages get a confidence of at least "
    f"{calibration.bin_edges[-2]:.2f}; their mean confidence is {calibration.confidence[-1]:.4f} and "
    f"{calibration.accuracy[-1]:.2%} of them are right. Naive Bayes counts every word as independent "
    "evidence, so long messages pile up evidence and posteriors crowd near 0 or 1; the few lower bins hold "
    "so few messages that their points are noisy (hover a point for its count). ECE (expected calibration error) is the gap between "
    "confidence and accuracy, averaged over bins weighted by their message counts."
)
