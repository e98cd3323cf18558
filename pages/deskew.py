"""Deskew: the same digits sheared upright, and what that does to both models' accuracy."""

import dataclasses

import numpy as np
import streamlit as st

from lab import display, links
from lab.data import mnist, models
from lab.figures import digits
from lab.settings import current_settings

settings = current_settings()
splits, deskewed = mnist.splits(), mnist.splits(deskew=True)
as_published = dataclasses.replace(settings, deskew=False)
upright = dataclasses.replace(settings, deskew=True)
bayes_before, bayes_after = models.evaluation(as_published), models.evaluation(upright)
softmax_before, softmax_after = models.softmax(deskew=False), models.softmax(deskew=True)

st.title("Deskewing")
st.markdown(
    "People slant their digits by different amounts, and naive Bayes has to learn every slant of every "
    "digit pixel by pixel. **Deskewing** shears each image so that its principal axis is vertical: the "
    "skew is cov(row, column) / var(row) of the ink, each row slides sideways by skew × (row − centre). "
    "Training and test images are deskewed alike, so both models are retrained on upright digits. "
    "Turn it on for every page (Draw included) with **Deskew** in the sidebar."
)

batch = links.counter("Batch", "deskew_batch", "Other digits", "deskew_new_batch", ":material/shuffle:")
shown = np.random.default_rng(batch).choice(len(splits.test_labels), size=6, replace=False)
images = np.concatenate([splits.test_images[shown], deskewed.test_images[shown]])
# the digit above each column only: "5 as written" and "5 deskewed" ran into each other on a phone
titles = [str(splits.test_labels[index]) for index in shown] + [""] * len(shown)
display.chart(
    digits.image_grid(images, titles, columns=6, zrange=(0, 255), title="Top row: as written · bottom row: deskewed"),
    key="deskew_grid",
)

st.subheader("Accuracy on the 10,000 test images")
st.table(
    {
        "": ["As written", "Deskewed", "Change (points)"],
        f"Naive Bayes (T={settings.threshold}, α={settings.alpha:g}, β={settings.beta:g}, {settings.prior})": [
            f"{bayes_before.test_accuracy:.4f}",
            f"{bayes_after.test_accuracy:.4f}",
            f"{100 * (bayes_after.test_accuracy - bayes_before.test_accuracy):+.2f}",
        ],
        "Softmax regression (default preset)": [
            f"{softmax_before.test_accuracy:.4f}",
            f"{softmax_after.test_accuracy:.4f}",
            f"{100 * (softmax_after.test_accuracy - softmax_before.test_accuracy):+.2f}",
        ],
    }
)
st.caption(
    "Each model is tested on images deskewed the same way as the ones it learned from. The published "
    "results (textbook 0.8427, course note 0.8313) are with deskew off."
)
