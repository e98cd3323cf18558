"""Deskew: the same digits sheared upright, and what that does to both models' accuracy."""

import dataclasses

import numpy as np
import streamlit as st

from lab import display, i18n, links
from lab.data import mnist, models
from lab.figures import digits, notation
from lab.i18n import _
from lab.model_settings import prior_name
from lab.settings import current_settings

settings = current_settings()
splits, deskewed = mnist.splits(), mnist.splits(deskew=True)
as_published = dataclasses.replace(settings, deskew=False)
upright = dataclasses.replace(settings, deskew=True)
bayes_before, bayes_after = models.evaluation(as_published), models.evaluation(upright)
softmax_before, softmax_after = models.softmax(deskew=False), models.softmax(deskew=True)

st.title(_("Deskewing"))
st.markdown(
    _(
        "People slant their digits by different amounts, and naive Bayes has to learn every slant of every "
        "digit pixel by pixel. **Deskewing** shears each image so that its principal axis is vertical: the "
        "skew is cov(row, column) / var(row) of the ink, each row slides sideways by skew × (row − centre). "
        "Training and test images are deskewed alike, so both models are retrained on upright digits. "
        "Turn it on for every page (Draw included) with **Deskew** in the sidebar."
    )
)

batch = links.counter(_("Batch"), "deskew_batch", _("Other digits"), "deskew_new_batch", ":material/shuffle:")
shown = np.random.default_rng(batch).choice(len(splits.test_labels), size=6, replace=False)
images = np.concatenate([splits.test_images[shown], deskewed.test_images[shown]])
# the digit above each column only: "5 as written" and "5 deskewed" ran into each other on a phone
titles = [str(splits.test_labels[index]) for index in shown] + [""] * len(shown)
display.chart(
    digits.image_grid(
        images, titles, columns=6, zrange=(0, 255), title=_("Top row: as written · bottom row: deskewed")
    ),
    key="deskew_grid",
)

st.subheader(_("Accuracy on the {count} test images").format(count=i18n.integer(len(splits.test_labels))))
naive_bayes = _("Naive Bayes (T={threshold}, α={alpha}, β={beta}, {prior})").format(
    threshold=settings.threshold,
    alpha=notation.general(settings.alpha),
    beta=notation.general(settings.beta),
    prior=prior_name(settings.prior),
)
st.table(
    {
        "": [_("As written"), _("Deskewed"), _("Change (points)")],
        naive_bayes: [
            i18n.decimal(bayes_before.test_accuracy, 4),
            i18n.decimal(bayes_after.test_accuracy, 4),
            notation.signed(100 * (bayes_after.test_accuracy - bayes_before.test_accuracy), 2),
        ],
        _("Softmax regression (default preset)"): [
            i18n.decimal(softmax_before.test_accuracy, 4),
            i18n.decimal(softmax_after.test_accuracy, 4),
            notation.signed(100 * (softmax_after.test_accuracy - softmax_before.test_accuracy), 2),
        ],
    }
)
st.caption(
    _(
        "Each model is tested on images deskewed the same way as the ones it learned from. The published "
        "results (textbook {textbook}, course note {course_note}) are with deskew off."
    ).format(textbook=i18n.decimal(0.8427, 4), course_note=i18n.decimal(0.8313, 4))
)
