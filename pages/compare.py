"""Compare: naive Bayes (generative) beside softmax regression (discriminative)."""

import numpy as np
import streamlit as st

from lab import display, i18n, links, model_choice
from lab.data import mixtures, mnist, models
from lab.figures import describe, diagnostics, digits, line_charts, notation, style
from lab.i18n import _, ngettext
from lab.model_settings import prior_name
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

st.title(_("Naive Bayes vs. softmax regression"))
st.markdown(
    _(
        "Naive Bayes models how digits are **written**, p(x | y), and turns it around with Bayes' rule. "
        "Softmax regression models only the **decision**, p(y | x), fitted by gradient steps on pixel/255. "
        "The discriminative model is more accurate on MNIST; the generative one can also sample digits "
        "and fill in missing pixels (see Samples and Inpainting)."
    )
)

fit_seconds = i18n.decimal(softmax_training["fit_seconds"], 2)
if softmax_training["cache"] == "hit":
    fit_seconds = _("{seconds}  (trained earlier, loaded from cache)").format(seconds=fit_seconds)
naive_bayes = _("Naive Bayes (T={threshold}, α={alpha}, β={beta}, {prior})").format(
    threshold=settings.threshold,
    alpha=notation.general(settings.alpha),
    beta=notation.general(settings.beta),
    prior=prior_name(settings.prior),
)
summary = {
    "": [_("Train accuracy"), _("Test accuracy"), _("Mean train log-likelihood (nats)"), _("Fit time (s)")],
    naive_bayes: [
        i18n.decimal(bayes.train_accuracy, 4),
        i18n.decimal(bayes.test_accuracy, 4),
        f"{i18n.decimal(bayes.mean_train_loglik, 2)}  (log p(x, y))",  # a number and a formula, no words
        i18n.decimal(models.counted_fit_seconds(settings), 3),
    ],
    _("Softmax regression (default preset)"): [
        i18n.decimal(softmax.train_accuracy, 4),
        i18n.decimal(softmax.test_accuracy, 4),
        f"{i18n.decimal(softmax.mean_train_loglik, 3)}  (log p(y | x))",
        fit_seconds,
    ],
}
# the mixture's column comes last, once the rest of the page is drawn: where its curve is not at hand (the textbook's
# settings are prepared) the mixture is fitted first, seconds behind a bar under the table, the page readable meanwhile
summary_table = st.empty()
summary_table.table(summary)
st.caption(
    _(
        "The log-likelihoods measure different things: naive Bayes scores the whole image, softmax "
        "regression only the label given the image."
    )
)
mixture_note = st.container()

st.subheader(_("Where they go wrong"))
bayes_confusion = confusion_matrix(labels, bayes.test_predictions)
softmax_confusion = confusion_matrix(labels, softmax.test_predictions)
off_diagonal = ~np.eye(10, dtype=bool)
shared_max = float(max(bayes_confusion[off_diagonal].max(), softmax_confusion[off_diagonal].max()))
# one under the other: side by side, at 1024 px with the sidebar open, each cell was too small for its count
for matrix, name, key in (
    (bayes_confusion, _("Naive Bayes"), "compare_confusion_bayes"),
    (softmax_confusion, _("Softmax regression"), "compare_confusion_softmax"),
):
    display.chart(
        diagnostics.confusion_heatmap(matrix, name, shared_max),
        key=key,
        table=(
            _("{model}: the confusion matrix as a table").format(model=name),
            describe.confusion_rows(matrix, _("true"), _("predicted")),
        ),
    )
st.caption(_("Same colour scale for both, saturated at the largest off-diagonal count so that the mistakes show."))

disagree = np.flatnonzero(bayes.test_predictions != softmax.test_predictions)
st.markdown(
    _(
        "The two models disagree on **{count}** of {total} test images. Some of them, each "
        "titled *naive Bayes' answer · softmax's answer · the true digit*:"
    ).format(count=i18n.integer(len(disagree)), total=i18n.integer(len(labels)))
)
batch = links.counter(_("Batch"), "compare_batch", _("Other disagreements"), "compare_new_batch", ":material/shuffle:")
shown = np.random.default_rng(batch).choice(disagree, size=min(12, len(disagree)), replace=False)
# short titles, four images a row: "NB 3 · SM 5 · true 5" ran into its neighbours at six a row
titles = [f"{bayes.test_predictions[i]} · {softmax.test_predictions[i]} · {labels[i]}" for i in shown]
display.chart(
    digits.image_grid(splits.test_images[shown], titles, columns=4, zrange=(0, 255), height_per_row=170),
    key="compare_disagreements",
)

st.subheader(_("What each model looks at"))
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
st.caption(_("Naive Bayes: per-pixel log-odds of ink for each digit."))
display.chart(
    digits.class_heatmaps(weights, _("weight"), colorscale=style.DIVERGING_SCALE, zrange=(-weight_limit, weight_limit)),
    key="compare_weights",
)
st.caption(
    _(
        "Softmax regression: the weight on each pixel for each digit. Red regions vote against the digit: "
        "the model learned where ink must *not* be, which naive Bayes never compares across digits."
    )
)

st.subheader(_("Calibration: does 90 % sure mean 90 % right?"))
bayes_reliability = reliability(np.exp(bayes.test_log_proba), labels, n_bins=10)
softmax_reliability = reliability(softmax.test_proba, labels, n_bins=10)
display.chart(
    diagnostics.reliability_diagram(
        {
            _("naive Bayes"): (
                bayes_reliability.confidence,
                bayes_reliability.accuracy,
                bayes_reliability.count,
                bayes_reliability.ece,
            ),
            _("softmax regression"): (
                softmax_reliability.confidence,
                softmax_reliability.accuracy,
                softmax_reliability.count,
                softmax_reliability.ece,
            ),
        },
        title=_("Reliability on the {count} test images").format(count=i18n.integer(len(labels))),
    ),
    key="compare_reliability",
)
top_bin = bayes_reliability.count[-1]
st.caption(
    _(
        "Naive Bayes puts {count} of {total} test images in the top confidence bin ({bin}) and is right "
        "on {accuracy} of them; multiplying 784 'independent' pieces of evidence "
        "counts the same stroke many times over, so its posteriors are pushed to 0 or 1."
    ).format(
        count=i18n.integer(top_bin),
        total=i18n.integer(len(labels)),
        bin=f"{i18n.decimal(0.9, 1)}–{i18n.decimal(1.0, 1)}",
        accuracy=i18n.percent(bayes_reliability.accuracy[-1], 1),
    )
)

st.subheader(_("Learning curve: how much data each model needs"))
curve = models.softmax_learning_curve(settings.deskew)
bayes_curve = models.bernoulli_learning_curve(settings)
display.chart(
    line_charts.learning_curves(
        curve["sizes"],
        {_("naive Bayes"): bayes_curve["naive Bayes"], _("softmax regression"): curve["softmax regression"]},
    ),
    key="compare_learning_curve",
)
bayes_ahead = curve["sizes"][bayes_curve["naive Bayes"].mean(axis=1) > curve["softmax regression"].mean(axis=1)]
if len(bayes_ahead):
    st.caption(
        _(
            "With these settings naive Bayes is ahead at {sizes} training images; softmax regression wins with "
            "more data, as Ng and Jordan (2002) describe: the generative model reaches its (lower) ceiling with far "
            "fewer examples."
        ).format(sizes=_(", ").join(i18n.integer(size) for size in bayes_ahead))
    )
else:
    st.caption(
        _(
            "With these settings softmax regression is ahead at every size. Naive Bayes' advantage with "
            "little data (Ng and Jordan, 2002) shows with lighter smoothing: try α = β = {light} in the sidebar."
        ).format(light=i18n.decimal(0.1, 1))
    )

with mixture_note:
    ready = mixtures.model_ready(settings, MIXTURE_COMPONENTS) and mixtures.model_ready(settings, 1)
    if not mixtures.supported(settings):
        st.info(
            _("{reason} The table leaves it out meanwhile.").format(reason=_(model_choice.NEEDS_SMOOTHING)),
            icon=":material/info:",
        )
    elif not ready and not st.button(
        _("Fit the mixture of styles ({k} per digit) at these settings").format(k=MIXTURE_COMPONENTS),
        icon=":material/play_arrow:",
        key="compare_fit_mixture",
        help=_(
            "It is prepared at the textbook's settings. Here EM takes a few seconds, once for everyone on this server."
        ),
    ):
        st.caption(
            _(
                "The mixture of styles (naive Bayes with several ways of writing each digit) is prepared at the "
                "textbook's settings; at these settings it is fitted when you ask for it."
            )
        )
    else:
        mixture = mixtures.scores(settings, MIXTURE_COMPONENTS)
        summary[_("Mixture of styles ({k} per digit, same settings)").format(k=MIXTURE_COMPONENTS)] = [
            "—",
            i18n.decimal(mixture.test_accuracy, 4),
            _("{loglik}  (log p(x | y), test images)").format(loglik=i18n.decimal(mixture.mean_test_loglik, 2)),
            ngettext("{count} EM iteration", "{count} EM iterations", mixture.n_iter).format(
                count=i18n.integer(mixture.n_iter)
            ),
        ]
        summary_table.table(summary)
        one_style = mixtures.scores(settings, 1)  # naive Bayes itself, scored as the mixture is
        gap = round(mixture.test_accuracy - softmax.test_accuracy, 4)
        if gap > 0:
            reads = _(
                "The mixture of styles is naive Bayes with {k} ways of writing each digit, fitted by EM: still "
                "generative, it reads {mixture} of the test images right, above softmax regression's {softmax}."
            )
        elif gap < 0:
            reads = _(
                "The mixture of styles is naive Bayes with {k} ways of writing each digit, fitted by EM: still "
                "generative, it reads {mixture} of the test images right, below softmax regression's {softmax}."
            )
        else:
            reads = _(
                "The mixture of styles is naive Bayes with {k} ways of writing each digit, fitted by EM: still "
                "generative, it reads {mixture} of the test images right, level with softmax regression's {softmax}."
            )
        st.caption(
            _(
                "{reads} Its log-likelihood is held out: {mixture_loglik} nats of log p(x | y) per test image against "
                "naive Bayes' {naive_loglik} (one style per digit). Its training accuracy is left out: scoring "
                "{train} images under every style takes over a second."
            ).format(
                reads=reads.format(
                    k=MIXTURE_COMPONENTS,
                    mixture=i18n.percent(mixture.test_accuracy, 2),
                    softmax=i18n.percent(softmax.test_accuracy, 2),
                ),
                mixture_loglik=i18n.decimal(mixture.mean_test_loglik, 2),
                naive_loglik=i18n.decimal(one_style.mean_test_loglik, 2),
                train=i18n.integer(len(splits.train_labels)),
            )
        )
