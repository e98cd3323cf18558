"""Home: what naive Bayes assumes, the data, and how well the current model does."""

import numpy as np
import streamlit as st

from lab import classroom, i18n, links, shell
from lab.data import mnist, models
from lab.figures import digits, notation
from lab.i18n import _, ngettext
from lab.model_settings import prior_phrase
from lab.settings import current_settings

settings = current_settings()
splits = mnist.splits()
result = models.evaluation(settings)

st.title(_("Naive Bayes Lab"))
if classroom.membership() is None:
    with st.form("home_join", border=True, enter_to_submit=True):
        with st.container(horizontal=True, vertical_alignment="bottom"):
            typed = st.text_input(_("In a class? Type its code"), max_chars=16, placeholder="XK4P9QRT", key="home_code")
            join = st.form_submit_button(_("Join"), icon=":material/login:", type="primary")
    if join:
        outcome = classroom.join(typed)
        if isinstance(outcome, str):
            st.warning(outcome, icon=":material/link_off:")
        else:
            st.switch_page(shell.page_path("pages/draw.py"), query_params={classroom.CLASS_PARAM: outcome.info.code})
st.markdown(
    _(
        "A naive Bayes classifier asks, for every digit *y*, how likely the picture would be **if** the writer "
        "had meant *y*, and weighs that by how common *y* is: {bayes_rule}. "
        "Its one bold simplification: once the digit is known, every pixel is treated as an independent coin flip, "
        "so p(x | y) is a product of 784 per-pixel probabilities p(xᵢ | y). Training is nothing more than counting "
        "how often each pixel is inked for each digit. The assumption is plainly false (neighbouring pixels of a "
        "stroke go together), yet the classifier gets most digits right — the pages of this lab show where it works "
        "and where it breaks."
    ).format(bayes_rule="p(y | x) ∝ p(y) · p(x | y)")
)

accuracy, train_accuracy, sizes = st.columns(3)
accuracy.metric(
    _("Test accuracy ({count} images)").format(count=i18n.integer(len(splits.test_labels))),
    i18n.decimal(result.test_accuracy, 4),
)
train_accuracy.metric(
    _("Training accuracy ({count} images)").format(count=i18n.integer(len(splits.train_labels))),
    i18n.decimal(result.train_accuracy, 4),
)
sizes.metric(_("Pixels per image"), "28 × 28 = 784")
st.caption(
    _(
        "Current settings: threshold {threshold}, α = {alpha}, β = {beta}, {prior}, {deskew} "
        "(change them in the sidebar)."
    ).format(
        threshold=settings.threshold,
        alpha=notation.general(settings.alpha),
        beta=notation.general(settings.beta),
        prior=prior_phrase(settings.prior),
        deskew=_("deskew on") if settings.deskew else _("deskew off"),
    )
)

st.subheader(_("The data"))
class_counts = np.bincount(splits.train_labels, minlength=10)
st.markdown(
    _(
        "{train} training images and {test} test images of handwritten digits, 28 × 28 pixels in 256 grey levels. "
        "Training images per digit:"
    ).format(train=i18n.integer(len(splits.train_labels)), test=i18n.integer(len(splits.test_labels)))
)
st.table({str(digit): [i18n.integer(count)] for digit, count in enumerate(class_counts)}, hide_index=True)

st.subheader(_("Test images: predicted / true"))
batch_number = links.counter(
    _("Batch"), "home_batch", _("Another random batch"), "home_new_batch", ":material/shuffle:"
)
batch = np.random.default_rng(batch_number).choice(len(splits.test_labels), size=18, replace=False)
predicted = result.test_predictions[batch]
tiles, captions = digits.prediction_tiles(splits.test_images[batch], predicted, splits.test_labels[batch])
truth = splits.test_labels[batch]
# what a screen reader says instead of the picture: the frame colour and the ✗ are for the eye
descriptions = [
    (
        _("Handwritten {true}, predicted {predicted}: wrong")
        if guess != true
        else _("Handwritten {true}, predicted {predicted}: right")
    ).format(true=true, predicted=guess)
    for guess, true in zip(predicted, truth)
]
st.image(tiles, caption=captions, width=118, alt=descriptions)
errors = int(np.sum(predicted != truth))
st.caption(
    ngettext(
        "{errors} of {shown} wrong in this batch: marked ✗ before the caption and framed in red; right ones are "
        "framed in green. Batch {batch}.",
        "{errors} of {shown} wrong in this batch: marked ✗ before the caption and framed in red; right ones are "
        "framed in green. Batch {batch}.",
        errors,
    ).format(errors=i18n.integer(errors), shown=len(batch), batch=i18n.integer(batch_number))
)
