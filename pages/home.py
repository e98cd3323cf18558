"""Home: what naive Bayes assumes, the data, and how well the current model does."""

import numpy as np
import streamlit as st

from lab import classroom, links, shell
from lab.data import mnist, models
from lab.figures import digits
from lab.settings import current_settings

settings = current_settings()
splits = mnist.splits()
result = models.evaluation(settings)

st.title("Naive Bayes Lab")
if classroom.membership() is None:
    with st.form("home_join", border=True, enter_to_submit=True):
        with st.container(horizontal=True, vertical_alignment="bottom"):
            typed = st.text_input("In a class? Type its code", max_chars=16, placeholder="XK4P9QRT", key="home_code")
            join = st.form_submit_button("Join", icon=":material/login:", type="primary")
    if join:
        outcome = classroom.join(typed)
        if isinstance(outcome, str):
            st.warning(outcome, icon=":material/link_off:")
        else:
            st.switch_page(shell.page_path("pages/draw.py"), query_params={classroom.CLASS_PARAM: outcome.info.code})
st.markdown(
    """
A naive Bayes classifier asks, for every digit *y*, how likely the picture would be **if** the writer
had meant *y*, and weighs that by how common *y* is: p(y | x) ∝ p(y) · p(x | y).
Its one bold simplification: once the digit is known, every pixel is treated as an independent coin flip,
so p(x | y) is a product of 784 per-pixel probabilities p(xᵢ | y). Training is nothing more than counting
how often each pixel is inked for each digit. The assumption is plainly false (neighbouring pixels of a stroke
go together), yet the classifier gets most digits right — the pages of this lab show where it works and where it breaks.
"""
)

accuracy, train_accuracy, sizes = st.columns(3)
accuracy.metric("Test accuracy (10,000 images)", f"{result.test_accuracy:.4f}")
train_accuracy.metric("Training accuracy (60,000 images)", f"{result.train_accuracy:.4f}")
sizes.metric("Pixels per image", "28 × 28 = 784")
st.caption(
    f"Current settings: threshold {settings.threshold}, α = {settings.alpha:g}, β = {settings.beta:g}, "
    f"{settings.prior} prior, deskew {'on' if settings.deskew else 'off'} (change them in the sidebar)."
)

st.subheader("The data")
class_counts = np.bincount(splits.train_labels, minlength=10)
st.markdown(
    f"{len(splits.train_labels):,} training images and {len(splits.test_labels):,} test images "
    "of handwritten digits, 28 × 28 pixels in 256 grey levels. Training images per digit:"
)
st.table({str(digit): [f"{count:,}"] for digit, count in enumerate(class_counts)}, hide_index=True)

st.subheader("Test images: predicted / true")
batch_number = links.counter("Batch", "home_batch", "Another random batch", "home_new_batch", ":material/shuffle:")
batch = np.random.default_rng(batch_number).choice(len(splits.test_labels), size=18, replace=False)
predicted = result.test_predictions[batch]
tiles, captions = digits.prediction_tiles(splits.test_images[batch], predicted, splits.test_labels[batch])
truth = splits.test_labels[batch]
# what a screen reader says instead of the picture: the frame colour and the ✗ are for the eye
descriptions = [
    f"Handwritten {true}, predicted {guess}: {'wrong' if guess != true else 'right'}"
    for guess, true in zip(predicted, truth)
]
st.image(tiles, caption=captions, width=118, alt=descriptions)
errors = int(np.sum(predicted != truth))
st.caption(
    f"{errors} of 18 wrong in this batch: marked ✗ before the caption and framed in red; right ones are "
    f"framed in green. Batch {batch_number}."
)
