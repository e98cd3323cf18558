"""Spam filter: naive Bayes over the words of SMS messages, tuned on held-out data, tested once."""

import streamlit as st

from lab import figures_extra, state
from nbcore import metrics, spam

CALIBRATION_BINS = 20  # over [0, 1]; the top posterior of two classes fills the upper 10
MODEL_NAMES = {"multinomial": "Multinomial (word counts)", "bernoulli": "Bernoulli (word present or not)"}
EXAMPLE = "WINNER!! You have been selected to receive a £900 prize reward. Call 09061701461 to claim now"

st.title("Spam filter")
texts, labels = state.sms()
experiments = state.spam_experiments()
sizes = [len(part) for part in spam.stratified_split(labels)]
st.markdown(f"The SMS Spam Collection: {len(texts):,} text messages, {int(labels.sum()):,} of them spam. "
            f"A fixed, seeded split keeps the spam share in every part: **{sizes[0]:,} training** messages "
            f"(counted), **{sizes[1]:,} held-out** messages (to choose the smoothing strength k) and "
            f"**{sizes[2]:,} test** messages, used once at the end. A word's probability in a class is smoothed "
            "as if every word had been seen k extra times.")

event_model = st.radio("Event model", list(MODEL_NAMES), format_func=MODEL_NAMES.get, horizontal=True,
                       key="spam_event_model")
experiment = experiments[event_model]
model = experiment.model

chosen, heldout, test, baseline = st.columns(4)
chosen.metric("k chosen on held-out data", f"{experiment.chosen_k:g}")
heldout.metric("Held-out accuracy at that k", f"{experiment.chosen_heldout_accuracy:.4f}")
test.metric("Test accuracy (measured once)", f"{experiment.test_accuracy:.4f}",
            f"{experiment.test_accuracy - experiment.baseline_accuracy:+.4f} vs. baseline")
baseline.metric(f"Baseline: always '{experiment.baseline_label}'", f"{experiment.baseline_accuracy:.4f}",
                help="The most frequent label in the training set, given to every test message.")

curve, bars = st.columns([1.6, 1], gap="large")
with curve:
    st.plotly_chart(figures_extra.log_x_curve(
        experiment.k_grid, {MODEL_NAMES[name]: result.heldout_accuracy for name, result in experiments.items()},
        "smoothing strength k (log scale)", "held-out accuracy", "Choosing k on the held-out messages",
        marked={MODEL_NAMES[name]: result.chosen_k for name, result in experiments.items()}),
        width="stretch", key="spam_heldout_curve")
with bars:
    st.plotly_chart(figures_extra.accuracy_bars(
        {**{MODEL_NAMES[name]: result.test_accuracy for name, result in experiments.items()},
         f"Baseline (always '{experiment.baseline_label}')": experiment.baseline_accuracy},
        "Test accuracy at the chosen k"), width="stretch", key="spam_test_bars")
st.caption("Stars mark the k with the best held-out accuracy (ties go to the smaller k). Too little smoothing "
           "trusts rare words too much; too much drowns the evidence in pseudo-counts.")

# -- one message ----------------------------------------------------------------------------------
st.header("Try a message")
# The longest SMS in the collection has 911 characters; the server cuts anything longer (#18: a
# 20 MB message took 10.7 s and stalled every other session).
message = st.text_area("Message", EXAMPLE, height=100, key="spam_message", max_chars=2000)
explanation = model.explain(message)
if not explanation.words:
    st.info("No words found in this message (it is empty, or only emoji, symbols or spaces), so the model "
            "has no evidence and falls back on what it assumes before reading: "
            f"p(spam) = {explanation.spam_probability:.4f}.")
else:
    unknown = int((~explanation.known).sum())
    verdict = "spam" if explanation.spam_probability > 0.5 else "ham"
    st.metric(f"p(spam | message) — classified as {verdict}", f"{explanation.spam_probability:.6f}")
    st.caption(f"{len(explanation.words):,} distinct words, {unknown:,} of them never seen in training "
               "(ignored). Log-odds = base + the sum of the bars = "
               f"{explanation.log_odds:+.2f} nats.")
base_label = "prior" if event_model == "multinomial" else "prior + all words absent"
st.plotly_chart(figures_extra.word_contributions(
    explanation.words, explanation.contributions, explanation.known, base_label, explanation.base_log_odds,
    "What each word adds to the spam log-odds"), width="stretch", key="spam_contributions")

# -- words ----------------------------------------------------------------------------------------
st.header("The words the model relies on")
spammy, hammy = st.columns(2)
spammy.markdown("**Most spammy**: largest log p(w|spam) − log p(w|ham)")
spammy.dataframe(model.word_table(15, "spammy"), hide_index=True, width="stretch")
hammy.markdown("**Most hammy**: smallest log p(w|spam) − log p(w|ham)")
hammy.dataframe(model.word_table(15, "hammy"), hide_index=True, width="stretch")
frequent_spam, frequent_ham = st.columns(2)
frequent_spam.markdown("**Largest P(W|spam)**: frequent in spam, often just frequent")
frequent_spam.dataframe(model.word_table(15, "spam"), hide_index=True, width="stretch")
frequent_ham.markdown("**Largest P(W|ham)**")
frequent_ham.dataframe(model.word_table(15, "ham"), hide_index=True, width="stretch")

# -- confidence -----------------------------------------------------------------------------------
st.header("How sure, and how right?")
calibration = metrics.reliability(experiment.test_probabilities, experiment.test_labels, CALIBRATION_BINS)
least = 1 / model.n_classes  # the top posterior is never below this
histogram, diagram = st.columns(2, gap="large")
with histogram:
    st.plotly_chart(figures_extra.confidence_histogram(
        calibration.bin_edges, calibration.count, calibration.accuracy,
        "Confidence (top posterior) on the test messages", x_min=least), width="stretch", key="spam_confidence")
with diagram:
    st.plotly_chart(figures_extra.reliability_diagram(
        calibration.bin_edges, calibration.confidence, calibration.accuracy, calibration.count,
        f"Reliability diagram (ECE = {calibration.ece:.4f})", x_min=least), width="stretch", key="spam_reliability")
top = calibration.count[-1]
st.caption("A calibrated model is right 80% of the time when it says 80%: its bars would sit on the diagonal. "
           f"Here {top:,} of the {len(experiment.test_labels):,} test messages get a confidence of at least "
           f"{calibration.bin_edges[-2]:.2f}; their mean confidence is {calibration.confidence[-1]:.4f} and "
           f"{calibration.accuracy[-1]:.2%} of them are right. Naive Bayes counts every word as independent "
           "evidence, so long messages pile up evidence and posteriors crowd near 0 or 1; the few lower bins hold "
           "so few messages that their bars are noisy. ECE (expected calibration error) is the gap between "
           "confidence and accuracy, averaged over bins weighted by their message counts.")
