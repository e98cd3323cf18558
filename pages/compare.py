"""Compare: naive Bayes (generative) beside softmax regression (discriminative)."""

import numpy as np
import streamlit as st

from lab import display, links, model_choice
from lab.data import mixtures, mnist, models
from lab.figures import charts, describe, diagnostics, digits, style
from lab.settings import current_settings
from nbcore.explain import pixel_log_odds
from nbcore.metrics import confusion_matrix, reliability

settings = current_settings()
splits = mnist.splits()
bayes = models.evaluation(settings)
softmax = models.softmax(deskew=settings.deskew)
softmax_training = models.softmax_training(deskew=settings.deskew)
labels = splits.test_labels
MIXTURE_COMPONENTS = 10  # the mixture's styles per digit in the table (a K of the prepared curve)

st.title("Naive Bayes vs. softmax regression")
st.markdown(
    "Naive Bayes models how digits are **written**, p(x | y), and turns it around with Bayes' rule. "
    "Softmax regression models only the **decision**, p(y | x), fitted by gradient steps on pixel/255. "
    "The discriminative model is more accurate on MNIST; the generative one can also sample digits "
    "and fill in missing pixels (see Samples and Inpainting)."
)

fit_seconds = softmax_training["fit_seconds"]
summary = {
    "": ["Train accuracy", "Test accuracy", "Mean train log-likelihood (nats)", "Fit time (s)"],
    f"Naive Bayes (T={settings.threshold}, α={settings.alpha:g}, β={settings.beta:g}, {settings.prior})": [
        f"{bayes.train_accuracy:.4f}",
        f"{bayes.test_accuracy:.4f}",
        f"{bayes.mean_train_loglik:.2f}  (log p(x, y))",
        f"{models.counted_fit_seconds(settings):.3f}",
    ],
    "Softmax regression (default preset)": [
        f"{softmax.train_accuracy:.4f}",
        f"{softmax.test_accuracy:.4f}",
        f"{softmax.mean_train_loglik:.3f}  (log p(y | x))",
        f"{fit_seconds:.2f}" + ("  (trained earlier, loaded from cache)" if softmax_training["cache"] == "hit" else ""),
    ],
}
# the mixture's column comes last, once the rest of the page is drawn: where its curve is not at hand (the textbook's
# settings are prepared) the mixture is fitted first, seconds behind a bar under the table, the page readable meanwhile
summary_table = st.empty()
summary_table.table(summary)
st.caption(
    "The log-likelihoods measure different things: naive Bayes scores the whole image, softmax "
    "regression only the label given the image."
)
mixture_note = st.container()

st.subheader("Where they go wrong")
bayes_confusion = confusion_matrix(labels, bayes.test_predictions)
softmax_confusion = confusion_matrix(labels, softmax.test_predictions)
off_diagonal = ~np.eye(10, dtype=bool)
shared_max = float(max(bayes_confusion[off_diagonal].max(), softmax_confusion[off_diagonal].max()))
# one under the other: side by side, at 1024 px with the sidebar open, each cell was too small for its count
for matrix, name, key in (
    (bayes_confusion, "Naive Bayes", "compare_confusion_bayes"),
    (softmax_confusion, "Softmax regression", "compare_confusion_softmax"),
):
    display.chart(
        diagnostics.confusion_heatmap(matrix, name, shared_max),
        key=key,
        table=(f"{name}: the confusion matrix as a table", describe.confusion_rows(matrix, "true", "predicted")),
    )
st.caption("Same colour scale for both, saturated at the largest off-diagonal count so that the mistakes show.")

disagree = np.flatnonzero(bayes.test_predictions != softmax.test_predictions)
st.markdown(
    f"The two models disagree on **{len(disagree):,}** of 10,000 test images. Some of them, each "
    "titled *naive Bayes' answer · softmax's answer · the true digit*:"
)
batch = links.counter("Batch", "compare_batch", "Other disagreements", "compare_new_batch", ":material/shuffle:")
shown = np.random.default_rng(batch).choice(disagree, size=min(12, len(disagree)), replace=False)
# short titles, four images a row: "NB 3 · SM 5 · true 5" ran into its neighbours at six a row
titles = [f"{bayes.test_predictions[i]} · {softmax.test_predictions[i]} · {labels[i]}" for i in shown]
display.chart(
    digits.image_grid(splits.test_images[shown], titles, columns=4, zrange=(0, 255), height_per_row=170),
    key="compare_disagreements",
)

st.subheader("What each model looks at")
log_odds, log_odds_limit = pixel_log_odds(bayes.model)
weights = softmax.model.coef_.reshape(10, 28, 28).astype(np.float64)
weight_limit = float(np.max(np.abs(weights)))
# one under the other, like the confusion matrices: ten digits side by side twice were ~35 px each at 1024 px
display.chart(
    digits.class_heatmaps(
        log_odds.reshape(-1, 28, 28),
        "log p/(1−p)",
        colorscale=style.DIVERGING_SCALE,
        zrange=(-log_odds_limit, log_odds_limit),
    ),
    key="compare_log_odds",
)
st.caption("Naive Bayes: per-pixel log-odds of ink for each digit.")
display.chart(
    digits.class_heatmaps(weights, "weight", colorscale=style.DIVERGING_SCALE, zrange=(-weight_limit, weight_limit)),
    key="compare_weights",
)
st.caption(
    "Softmax regression: the weight on each pixel for each digit. Red regions vote against the digit: "
    "the model learned where ink must *not* be, which naive Bayes never compares across digits."
)

st.subheader("Calibration: does 90 % sure mean 90 % right?")
bayes_reliability = reliability(np.exp(bayes.test_log_proba), labels, n_bins=10)
softmax_reliability = reliability(softmax.test_proba, labels, n_bins=10)
display.chart(
    diagnostics.reliability_diagram(
        {
            "naive Bayes": (
                bayes_reliability.confidence,
                bayes_reliability.accuracy,
                bayes_reliability.count,
                bayes_reliability.ece,
            ),
            "softmax regression": (
                softmax_reliability.confidence,
                softmax_reliability.accuracy,
                softmax_reliability.count,
                softmax_reliability.ece,
            ),
        },
        title="Reliability on the 10,000 test images",
    ),
    key="compare_reliability",
)
top_bin = bayes_reliability.count[-1]
st.caption(
    f"Naive Bayes puts {top_bin:,} of 10,000 test images in the top confidence bin (0.9–1.0) and is right "
    f"on {bayes_reliability.accuracy[-1]:.1%} of them; multiplying 784 'independent' pieces of evidence "
    "counts the same stroke many times over, so its posteriors are pushed to 0 or 1."
)

st.subheader("Learning curve: how much data each model needs")
curve = models.softmax_learning_curve(settings.deskew)
bayes_curve = models.bernoulli_learning_curve(settings)
display.chart(
    charts.learning_curves(
        curve["sizes"], {"naive Bayes": bayes_curve["naive Bayes"], "softmax regression": curve["softmax regression"]}
    ),
    key="compare_learning_curve",
)
bayes_ahead = curve["sizes"][bayes_curve["naive Bayes"].mean(axis=1) > curve["softmax regression"].mean(axis=1)]
if len(bayes_ahead):
    st.caption(
        f"With these settings naive Bayes is ahead at {', '.join(f'{size:,}' for size in bayes_ahead)} "
        "training images; softmax regression wins with more data, as Ng and Jordan (2002) describe: the "
        "generative model reaches its (lower) ceiling with far fewer examples."
    )
else:
    st.caption(
        "With these settings softmax regression is ahead at every size. Naive Bayes' advantage with "
        "little data (Ng and Jordan, 2002) shows with lighter smoothing: try α = β = 0.1 in the sidebar."
    )

with mixture_note:
    ready = mixtures.model_ready(settings, MIXTURE_COMPONENTS) and mixtures.model_ready(settings, 1)
    if not mixtures.supported(settings):
        st.info(model_choice.NEEDS_SMOOTHING + " The table leaves it out meanwhile.", icon=":material/info:")
    elif not ready and not st.button(
        f"Fit the mixture of styles ({MIXTURE_COMPONENTS} per digit) at these settings",
        icon=":material/play_arrow:",
        key="compare_fit_mixture",
        help="It is prepared at the textbook's settings. Here EM takes a few seconds, once for everyone on "
        "this server.",
    ):
        st.caption(
            "The mixture of styles (naive Bayes with several ways of writing each digit) is prepared at the "
            "textbook's settings; at these settings it is fitted when you ask for it."
        )
    else:
        mixture = mixtures.scores(settings, MIXTURE_COMPONENTS)
        summary[f"Mixture of styles ({MIXTURE_COMPONENTS} per digit, same settings)"] = [
            "—",
            f"{mixture.test_accuracy:.4f}",
            f"{mixture.mean_test_loglik:.2f}  (log p(x | y), test images)",
            f"{mixture.n_iter} EM iterations",
        ]
        summary_table.table(summary)
        one_style = mixtures.scores(settings, 1)  # naive Bayes itself, scored as the mixture is
        gap = round(mixture.test_accuracy - softmax.test_accuracy, 4)
        side = "above" if gap > 0 else "below" if gap < 0 else "level with"
        st.caption(
            f"The mixture of styles is naive Bayes with {MIXTURE_COMPONENTS} ways of writing each digit, fitted by EM: "
            f"still generative, it reads {mixture.test_accuracy:.2%} of the test images right, {side} softmax "
            f"regression's {softmax.test_accuracy:.2%}. Its log-likelihood is held out: {mixture.mean_test_loglik:.2f} "
            f"nats of log p(x | y) per test image against naive Bayes' {one_style.mean_test_loglik:.2f} (one style "
            "per digit). Its training accuracy is left out: scoring 60,000 images under every style takes over a second."
        )
