"""Gaussian NB: a bell curve per feature and class, on iris (two features at a time) and on MNIST pixels."""

import numpy as np
import streamlit as st

from lab import display, i18n, links
from lab.data import gaussian, models
from lab.figures import digits, line_charts, notation, regions
from lab.i18n import N_, _
from lab.model_settings import TEXTBOOK, prior_name
from nbcore.experiments.gaussian import probability_grid
from nbcore.features import pca
from nbcore.models.gaussian import GaussianNB

GRID_MARGIN = 0.5  # cm beyond the data on each side of the decision-region plot
# iris's measurements and species (as the data names them) in the reader's words
FEATURE_NAMES = {
    "sepal_length": N_("sepal length (cm)"),
    "sepal_width": N_("sepal width (cm)"),
    "petal_length": N_("petal length (cm)"),
    "petal_width": N_("petal width (cm)"),
}
SPECIES = {"setosa": N_("setosa"), "versicolor": N_("versicolor"), "virginica": N_("virginica")}
# scikit-learn's parameter name, the same in every language (the text explains it)
VAR_SMOOTHING = "var_smoothing"

st.title(_("Gaussian naive Bayes"))
st.markdown(
    _(
        "When features are measurements rather than on/off pixels, naive Bayes can model each one, within "
        "each class, as a normal distribution: {formula}. Training is computing a mean "
        "and a variance per feature and class; prediction adds the log-densities and the log prior, then "
        "normalises over classes."
    ).format(formula="p(xⱼ | y) = N(xⱼ; μⱼᵧ, σ²ⱼᵧ)")
)

# -- iris -------------------------------------------------------------------------------------------
st.header(_("Iris: three species, four measurements"))
data = gaussian.iris()
names = [
    _(FEATURE_NAMES[name]) if name in FEATURE_NAMES else name.replace("_", " ") + " (cm)" for name in data.feature_names
]
species = [_(SPECIES[name]) if name in SPECIES else name for name in data.class_names]
controls, plot = st.columns([1, 1.8], gap="medium")
with controls:
    first = links.widget(st.selectbox, _("Feature on the x axis"), "gauss_x", format_func=names.__getitem__)
    second = links.widget(st.selectbox, _("Feature on the y axis"), "gauss_y", format_func=names.__getitem__)
    prior = links.widget(
        st.radio,
        _("Class prior"),
        "gauss_prior",
        format_func=prior_name,
        horizontal=True,
        help=_("Iris has 50 flowers of each species, so both priors are 1/3 here and agree."),
    )
    distinct = first != second
    if distinct:
        pair = data.features[:, [first, second]]
        model = GaussianNB(prior=prior).fit(pair, data.labels)
    all_four = GaussianNB(prior=prior).fit(data.features, data.labels)
    # short labels under one heading, one under the other: side by side, or long, they were cut
    # ("Training accuracy, these two fe…") in this column at 1024 px
    st.markdown(_("**Training accuracy**"))
    if distinct:
        st.metric(_("These two features"), i18n.decimal(model.score(pair, data.labels), 3))
    st.metric(_("All four features"), i18n.decimal(all_four.score(data.features, data.labels), 3))
    if not distinct:
        st.warning(_("Pick two different features to see a 2-D decision map."))
    st.caption(
        _(
            "Each species has its own marker shape and colour. Solid lines: where p(species | x) = 0.5, the "
            "edge of that species' region. "
            "Dotted ellipses: each species' fitted Gaussian at 1σ and 2σ — always axis-aligned, "
            "because naive Bayes ignores how the two measurements vary together."
        )
    )
if distinct:
    with plot:
        low, high = pair.min(axis=0) - GRID_MARGIN, pair.max(axis=0) + GRID_MARGIN
        xs, ys, proba = probability_grid(model, (low[0], high[0]), (low[1], high[1]))
        display.chart(
            regions.decision_regions(
                xs,
                ys,
                proba,
                pair,
                data.labels,
                species,
                model.theta_,
                model.var_,
                (names[first], names[second]),
                _("Most probable species, and each species' Gaussian"),
            ),
            key="gauss_regions",
        )

scores, explained = pca(data.features, 2)
display.chart(
    regions.pca_scatter(scores, data.labels, species, explained, _("All four measurements, on 2 principal components")),
    key="gauss_pca",
)
st.caption(
    _(
        "PC1 and PC2 are the two directions along which the four measurements vary most together; the "
        "percentages are their shares of the variance ({share} between them). Setosa stands "
        "apart on all four; versicolor and virginica overlap, which is where every model errs."
    ).format(share=i18n.percent(explained.sum()))
)

# -- MNIST ------------------------------------------------------------------------------------------
st.header(_("MNIST pixels as Gaussians: {parameter} matters").format(parameter=VAR_SMOOTHING))
mnist = gaussian.gaussian_mnist(TEXTBOOK.deskew)  # MNIST as published: no Deskew setting on this page
default_var_smoothing = mnist.model.var_smoothing  # the model is fitted at the default, 1e-9 as in scikit-learn
st.markdown(
    _(
        "Treat each pixel (scaled to 0–1) as a Gaussian per digit. Many border pixels are exactly 0 in every "
        "training image of a digit, so their variance is 0 and one stray speck of ink would make the digit "
        "impossible. As scikit-learn does, every variance gets ε = var_smoothing × (largest pixel variance) "
        "added. The default 1e-9 leaves those pixels almost certain; a larger ε lets the model forgive ink "
        "in unusual places."
    )
)
chosen = links.widget(
    st.select_slider,
    VAR_SMOOTHING,
    "gauss_var_smoothing",
    default=default_var_smoothing,
    options=mnist.var_smoothing,
    format_func=lambda value: f"{value:.0e}",
)
position = mnist.var_smoothing.index(chosen)
default_accuracy = float(mnist.test_accuracy[mnist.var_smoothing.index(default_var_smoothing)])
# the textbook's model: this page has no model settings in its sidebar
bernoulli_accuracy = models.evaluation(TEXTBOOK).test_accuracy
zero_variance = float(np.mean(mnist.model.class_var_ == 0))
# two by two: three in a row cut their labels at 1024 px with the sidebar open
first_metric, second_metric = st.columns(2)
third_metric, unused = st.columns(2)
first_metric.metric(
    _("Test accuracy at var_smoothing = {value}").format(value=f"{chosen:.0e}"),
    i18n.decimal(mnist.test_accuracy[position], 4),
    _("{difference} vs. the default {default}").format(
        difference=notation.signed(mnist.test_accuracy[position] - default_accuracy, 4),
        default=f"{default_var_smoothing:.0e}",
    )
    if chosen != default_var_smoothing
    else None,
)
second_metric.metric(_("ε added to every variance"), notation.scientific(chosen * mnist.model.max_feature_var_))
third_metric.metric(_("Pixel × digit pairs with zero variance"), i18n.percent(zero_variance, 1))
series = _("Gaussian NB, test accuracy")
display.chart(
    line_charts.curves(
        mnist.var_smoothing,
        {series: mnist.test_accuracy},
        _("{quantity} (log scale)").format(quantity=VAR_SMOOTHING),
        _("test accuracy"),
        _("Gaussian NB on MNIST against var_smoothing"),
        log_x=True,
        marked={series: chosen},
        references={
            _("Bernoulli NB, textbook settings: {accuracy}").format(
                accuracy=i18n.decimal(bernoulli_accuracy, 4)
            ): bernoulli_accuracy
        },
    ),
    key="gauss_curve",
)
st.caption(
    _(
        "This curve is measured on the test set to show how much the setting matters. To choose a value for "
        "real, compare values on held-out data and test once at the end (the Spam filter page does that)."
    )
)
display.chart(
    digits.class_heatmaps(
        mnist.model.theta_.reshape(-1, 28, 28),
        _("mean μ"),
        zrange=(0.0, 1.0),
        titles=[_("μ for {digit}").format(digit=digit) for digit in range(10)],
    ),
    key="gauss_means",
)
