"""XOR exercise: what naive Bayes learns from XOR, why it fails, and how one extra edge fixes it."""

import numpy as np
import streamlit as st

from lab import display, i18n, links, shell
from lab.figures import notation, regions
from lab.i18n import _
from nbcore.experiments import xor

st.title(_("Exercise: naive Bayes on XOR"))
st.markdown(
    _(
        "Four points, labelled by whether exactly one coordinate is 1: {points}. Which probabilities does naive "
        "Bayes learn, and does it classify the points correctly?"
    ).format(points="(0,0) → 0, (0,1) → 1, (1,0) → 1, (1,1) → 0")
)
st.table(
    {"x₁": xor.XOR_POINTS[:, 0].tolist(), "x₂": xor.XOR_POINTS[:, 1].tolist(), "y": xor.XOR_LABELS.tolist()},
    hide_index=True,
    width="content",
)
k = links.widget(
    st.select_slider,
    _("Laplace smoothing strength k (pseudo-counts per outcome)"),
    "xor_k",
    format_func=notation.general,
)

naive = xor.naive_bayes(k)
network = xor.network(k)
naive_result, network_result = xor.evaluate(naive), xor.evaluate(network)

st.markdown(_("Work it out on paper first: the learned tables, the posteriors and the accuracies are below, folded."))
# an exercise: the answer stays folded until asked for (an expander keeps it one click away, on every screen)
with st.expander(_("Show the answer"), icon=":material/visibility:"):
    learned_naive, learned_network = st.columns(2, gap="large")
    with learned_naive:
        st.subheader(_("Naive Bayes: {edges}").format(edges="y → x₁, y → x₂"))
        st.dataframe(
            {
                _("class y"): [0, 1],
                "p(y)": np.exp(naive.class_log_prior_).tolist(),
                "p(x₁ = 1 | y)": naive.feature_prob_[:, 0].tolist(),
                "p(x₂ = 1 | y)": naive.feature_prob_[:, 1].tolist(),
            },
            hide_index=True,
            width="stretch",
        )
        st.markdown(
            _(
                "Within each class, each coordinate is 1 in exactly one of the two points, so **every** "
                "probability is ½ — for any k, smoothing only pulls ½ towards ½. Then p(x | y) = ¼ for every "
                "point and class, and the posterior is ½ everywhere."
            )
        )
    with learned_network:
        st.subheader(_("Bayesian network: {edges}").format(edges="y → x₁, y → x₂, x₁ → x₂"))
        st.dataframe(
            {
                _("class y"): [0, 1],
                "p(x₁ = 1 | y)": network.x1_prob_.tolist(),
                "p(x₂ = 1 | x₁ = 0, y)": network.x2_prob_[:, 0].tolist(),
                "p(x₂ = 1 | x₁ = 1, y)": network.x2_prob_[:, 1].tolist(),
            },
            hide_index=True,
            width="stretch",
        )
        st.markdown(
            _(
                "With the edge x₁ → x₂ the model learns p(x₂ | x₁, y): in class 0, x₂ copies x₁; in class "
                "1, x₂ flips it. That dependence *is* XOR, and it is exactly what the naive assumption throws "
                "away."
            )
        )

    display.chart(
        regions.xor_posteriors(
            xor.XOR_POINTS,
            xor.XOR_LABELS,
            {
                _("Naive Bayes"): naive_result.posterior,
                _("With {edge}").format(edge="x₁ → x₂"): network_result.posterior,
            },
        ),
        key="xor_posteriors",
    )

    st.dataframe(
        {
            "x₁": xor.XOR_POINTS[:, 0].tolist(),
            "x₂": xor.XOR_POINTS[:, 1].tolist(),
            _("true y"): xor.XOR_LABELS.tolist(),
            _("naive Bayes {posterior}").format(posterior="p(y=1|x)"): naive_result.posterior.tolist(),
            _("naive Bayes predicts"): naive_result.predictions.tolist(),
            _("network {posterior}").format(posterior="p(y=1|x)"): network_result.posterior.tolist(),
            _("network predicts"): network_result.predictions.tolist(),
        },
        hide_index=True,
        width="stretch",
    )
    naive_metric, network_metric = st.columns(2)
    naive_metric.metric(_("Naive Bayes accuracy"), i18n.decimal(naive_result.accuracy, 2))
    network_metric.metric(_("Network accuracy"), i18n.decimal(network_result.accuracy, 2))
    st.caption(
        _(
            "Naive Bayes faces a tie at every point and breaks it towards class 0, so it is right only on the two "
            "class-0 points: no better than a coin. The violated assumption is conditional independence: given "
            "y, knowing x₁ tells you x₂ exactly."
        )
    )
    st.markdown(
        _(
            "**Try it:** set k = 0 (no smoothing). Naive Bayes still learns ½ everywhere, while the network's "
            "table becomes 0s and 1s and its posteriors certain. On MNIST, zero counts are everywhere: a single "
            "pixel never inked for a digit in training rules that digit out."
        )
    )
shell.page_link("pages/smoothing.py", _("Smoothing: what α = β = 0 does to MNIST"))
