"""Draw: a digit from the canvas or a picture, framed like MNIST, classified and explained.

Layout for every screen: the verdict sits directly above the canvas in a box of a fixed least height (the
prompt before the first stroke, the two predictions after it; lab/presentation.py), so whatever screen shows
the canvas shows the answer too, and nothing moves under a finger between strokes. The explanation (evidence
map, both posteriors) fills the column beside it, or follows below on a phone.

Without a pointer: "A test image" picks one of MNIST's test images by number (the keyboard's and a switch
user's way to a prediction), and a polite live region announces each new verdict (lab/live_region.py).
"""

import numpy as np
import streamlit as st

import nbcore
from lab import (
    class_period,
    classroom,
    display,
    focus,
    i18n,
    link_names,
    links,
    live_region,
    model_view,
    picture_input,
    preload,
    send_form,
    shell,
)
from lab.canvas import Brush, digit_canvas, report_server_reading, send_live_models
from lab.data import mnist, models
from lab.figures import bar_charts, describe, digits
from lab.i18n import _, ngettext
from lab.model_settings import Settings
from lab.settings import current_settings
from nbcore.preprocess import ImageInputError, ModelInput, ink_from_canvas_png, model_input

BRUSH = link_names.row("draw_brush")  # the brush width in the link: its name, default and bounds
CONFIDENT = 0.99  # naive Bayes this sure while softmax reads another digit: say what that means

settings = current_settings()
with st.sidebar:  # a new threshold's "Binarizing…" and "Counting pixels…" spinners show here: the canvas stays put
    model = models.model(settings)
softmax = models.softmax(deskew=settings.deskew).model

st.title(_("Draw a digit"))
joined = classroom.student_class()  # the class the frame found in the link, with the browser's student id
if joined is not None:
    class_period.check_in(joined, None)
# the containers that show what the page read from the canvas's drawing: its Clear hides them (lab/canvas.py); not
# the live region, which stays to announce the next verdict
READ_FROM_DRAWING = ("draw_metrics", "draw_explanation", "draw_send", "draw_read")


def uploaded_input() -> tuple[np.ndarray | None, ModelInput | None]:
    """The framed (28, 28) digit of the uploaded picture and how it was made, or (None, None) with a sentence why."""
    upload = st.file_uploader(
        _("A photo or scan of one digit ({formats})").format(formats=picture_input.upload_formats()),
        key="draw_upload",
        on_change=focus.request,
        args=('.st-key-draw_upload [data-testid="stFileUploaderDropzone"] button',),  # not the page's top
    )
    st.caption(
        _(
            "Up to {size} MB: crop a larger photo to the digit, or save it smaller. Dark ink on light paper and "
            "light ink on dark both work."
        ).format(size=i18n.integer(st.get_option("server.maxUploadSize")))
    )
    if upload is None:
        picture_input.forget()  # a removed file's message goes with it
        return None, None
    swap = bool(st.session_state.get("draw_swap_ink", False))  # the toggle below, shown once a digit is read
    made_from, dark_ink, problem = picture_input.read_once(upload, swap)
    if problem:
        st.error(picture_input.image_problem(problem))  # kept in nbcore's words, said in the language of this run
    elif made_from is None:
        st.warning(_("No digit found in this picture: it looks blank."))
    else:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.caption(
                _("Read as dark ink on light paper.") if dark_ink else _("Read as light ink on a dark background.")
            )
            st.toggle(
                _("Swap ink and paper"),
                key="draw_swap_ink",
                help=_(
                    "Ink is taken to be the part of the picture that covers less of its edges. If the digit "
                    "below looks like a filled block with a hole, that guess was wrong: swap."
                ),
            )
    return (None if made_from is None else made_from.frame), made_from


def next_test_image(count: int) -> None:
    st.session_state.draw_test_image = (int(st.session_state.get("draw_test_image", 0)) + 1) % count


def test_image_input() -> tuple[np.ndarray, None]:
    """One of MNIST's test images, chosen by its number or stepped through with a button: a prediction without
    drawing, for the keyboard and switch access. Returns the (28, 28) image and no ModelInput (nothing was framed)."""
    splits = mnist.splits()
    count = len(splits.test_labels)
    with st.container(horizontal=True, vertical_alignment="bottom"):
        index = links.widget(
            st.number_input,
            _("Test image (0 to {last})").format(last=i18n.integer(count - 1)),
            "draw_test_image",
            min_value=0,
            max_value=count - 1,
        )
        st.button(
            _("Next test image"),
            icon=":material/skip_next:",
            on_click=next_test_image,
            args=(count,),
            key="draw_test_next",
            disabled=links.locked("draw_test_image"),
        )
    st.caption(
        _("Test image {index} of MNIST: a handwritten {digit}.").format(
            index=i18n.integer(int(index)), digit=int(splits.test_labels[int(index)])
        )
    )
    return splits.test_images[int(index)], None


def brush_width(told: object = None) -> int:
    """The canvas's brush width (px): ``told``, the width a new drawing says it was made with, else the link's; kept
    in the link and registered with its Reset and lock (lab/links.py). The canvas draws the control itself."""
    return links.component_value(_("Brush width"), BRUSH.name, told)


def drawn_input() -> tuple[np.ndarray | None, ModelInput | None]:
    """The framed (28, 28) digit on the canvas and how it was made, or (None, None) while it is blank."""
    brush = Brush(
        width=brush_width(),
        name=BRUSH.name,
        default=link_names.MNIST_LIKE_BRUSH,
        bounds=(link_names.MNIST_LIKE_BRUSH, link_names.MNIST_LIKE_BRUSH) if BRUSH.bounds is None else BRUSH.bounds,
        label=links.shown_label(_("Brush width"), BRUSH.name),
        help=_("{brush} draws strokes as wide as MNIST's once framed.").format(
            brush=i18n.integer(link_names.MNIST_LIKE_BRUSH)
        ),
        locked=links.locked(BRUSH.name),
        resets=links.resets(),
    )
    # its Clear and its brush width are its own: no run
    drawing, told = digit_canvas(
        brush, key="canvas_draw", restore=st.session_state.get("draw_png"), stale=READ_FROM_DRAWING
    )
    if drawing == "":  # cleared in the page since the drawing the page holds was sent (lab/canvas.py)
        st.session_state.draw_frame = st.session_state.draw_input = st.session_state.draw_png = None
    elif drawing is not None and drawing != st.session_state.get("draw_png"):
        brush_width(told)  # the width this drawing was made with, into the link
        try:
            made_from = model_input(ink_from_canvas_png(drawing))
            st.session_state.draw_frame = None if made_from is None else made_from.frame
            st.session_state.draw_input, st.session_state.draw_png = made_from, drawing
        except ImageInputError as error:
            st.error(picture_input.image_problem(str(error)))
    frame, made_from = st.session_state.get("draw_frame"), st.session_state.get("draw_input")
    if made_from is not None and made_from.frame is not frame:  # a frame set directly (tests, Inpainting)
        made_from = None
    return frame, made_from


@shell.fragment(page="draw")
def digit_and_verdict(
    settings: Settings,
    model: nbcore.BernoulliNB,
    softmax: nbcore.SoftmaxRegression,
    joined: classroom.StudentClass | None,
) -> None:
    """Canvas or upload, both predictions and the evidence map: a stroke reruns this part only, not the page."""
    with st.container(horizontal=True, gap="medium"):
        source = st.container(key="draw_source")
        explanation = st.container(key="draw_explanation")
    with source:
        mode = links.widget(
            st.segmented_control,
            _("Input"),
            "draw_mode",
            format_func=_,
            label_visibility="collapsed",
        )
        verdict = st.container(key="draw_verdict")
        uploading, testing = mode == link_names.DRAW_INPUTS[1], mode == link_names.DRAW_INPUTS[2]
        frame, made_from = uploaded_input() if uploading else test_image_input() if testing else drawn_input()
        # a class's Send right under the canvas: on a phone, within a screen of the verdict
        sending = st.container(key="draw_send")
        if uploading or testing:
            brush_width()  # kept in the link while the canvas is not shown

    if frame is None:
        with verdict:  # first in the box on every run: the same live region stays, whatever the box shows
            live_region.announce("", key="draw_announcement")
        verdict.info(
            _("Upload a photo or scan of one digit to see what naive Bayes makes of it.")
            if uploading
            else _("Draw a digit on the black canvas to see what naive Bayes makes of it.")
            if links.locked("draw_mode")
            else _("Draw a digit on the black canvas (or upload a picture) to see what naive Bayes makes of it."),
            icon=":material/upload:" if uploading else ":material/draw:",
        )
        # both charts stand empty where a stroke's charts go, so that the browser makes both plots now and the first
        # stroke only updates them, as every later one does; a hidden metric is the page's first for the same reason
        with explanation:
            st.markdown(_("**Evidence of each pixel**"))
            display.fixed_chart(
                digits.blank_evidence_map, key="draw_evidence", alt=_("The evidence map, empty until there is a digit")
            )
            st.caption(
                _(
                    "Each pixel of your digit will be coloured here by how much it speaks for the predicted digit "
                    "(blue) or for the runner-up (red)."
                )
            )
            display.fixed_chart(
                bar_charts.blank_posterior_comparison, (_("naive Bayes"), "softmax"), key="draw_posteriors"
            )
            preload.hidden_metric(_("Prediction"), "p = –")
        focus.apply("nb_focus_draw")
        return

    framed = frame  # what the class store keeps: framed like MNIST, never deskewed
    seen = settings.input_form.prepare(frame[None])  # what both models get: deskewed if on, and binarized
    frame, features = seen.images[0], seen.features
    posterior = model.predict_proba(features)[0]
    ranking = np.argsort(-posterior, kind="stable")
    predicted, runner_up = int(ranking[0]), int(ranking[1])
    softmax_posterior = softmax.predict_proba(frame[None])[0]
    softmax_predicted = int(np.argmax(softmax_posterior))

    with verdict:
        live_region.announce(
            _("Naive Bayes reads {bayes} (p = {bayes_p}); softmax reads {softmax} (p = {softmax_p}).").format(
                bayes=predicted,
                bayes_p=i18n.decimal(posterior[predicted], 4),
                softmax=softmax_predicted,
                softmax_p=i18n.decimal(softmax_posterior[softmax_predicted], 4),
            ),
            key="draw_announcement",
        )
    with verdict, st.container(horizontal=True, key="draw_metrics"):
        st.metric(
            _("Naive Bayes prediction"),
            str(predicted),
            f"p = {i18n.decimal(posterior[predicted], 4)}",
            delta_color="off",
            delta_arrow="off",
        )
        st.metric(
            _("Softmax prediction"),
            str(softmax_predicted),
            f"p = {i18n.decimal(softmax_posterior[softmax_predicted], 4)}",
            delta_color="off",
            delta_arrow="off",
        )

    evidence = model.evidence(features[0], predicted, runner_up).reshape(28, 28)
    ink = features[0].reshape(28, 28)
    with explanation:
        if posterior[predicted] >= CONFIDENT and softmax_predicted != predicted:
            st.warning(
                _(
                    "Naive Bayes is all but certain of a {bayes} while softmax reads a {softmax}. It treats the 784 "
                    "pixels as independent witnesses, so pixels that always go together are counted again and again "
                    "and its probabilities end up near 0 or 1 even when it is wrong."
                ).format(bayes=predicted, softmax=softmax_predicted),
                icon=":material/warning:",
            )
            shell.page_link(
                "pages/compare.py", _("How sure each model is, and how often rightly: Compare's calibration")
            )
        st.markdown(
            _("**Evidence of each pixel: {predicted} against the runner-up {runner_up}**").format(
                predicted=predicted, runner_up=runner_up
            )
        )
        display.chart(
            digits.evidence_map(evidence, ink, predicted, runner_up),
            key="draw_evidence",
            alt=_(
                "Evidence map: each pixel of the framed digit coloured by how much it speaks for {predicted} (blue) "
                "or {runner_up} (red)"
            ).format(predicted=predicted, runner_up=runner_up),
        )
        with np.errstate(invalid="ignore"):  # +inf and -inf pixels (no smoothing) have no sum
            total = float(evidence.sum())
        if np.isfinite(total):
            st.caption(
                _(
                    "Blue pixels speak for {predicted}, red ones for the runner-up {runner_up}; they sum to {total} "
                    "nats, the log-likelihood ratio of the two. A nat is the natural-log unit: +1 nat makes the data "
                    "e ≈ {e} times likelier under {predicted}."
                ).format(predicted=predicted, runner_up=runner_up, total=i18n.decimal(total, 2), e=i18n.decimal(2.7, 1))
            )
        else:
            ratio = "+∞" if total > 0 else "−∞" if total < 0 else _("undefined (∞ − ∞)")
            impossible = int(np.isinf(evidence).sum())
            st.caption(
                ngettext(
                    "Blue pixels speak for {predicted}, red ones for the runner-up {runner_up}; {n} pixel is "
                    "impossible for one of them (no smoothing), so the log-likelihood ratio of the two is {ratio}.",
                    "Blue pixels speak for {predicted}, red ones for the runner-up {runner_up}; {n} pixels are "
                    "impossible for one of them (no smoothing), so the log-likelihood ratio of the two is {ratio}.",
                    impossible,
                ).format(predicted=predicted, runner_up=runner_up, n=i18n.integer(impossible), ratio=ratio)
            )
        posteriors = {_("naive Bayes"): posterior, "softmax": softmax_posterior}
        display.chart(
            bar_charts.posterior_comparison(posteriors),
            key="draw_posteriors",
            table=(_("Both posteriors as a table"), describe.posterior_rows(posteriors)),
        )
    if joined is not None and not testing:
        with sending:
            send_form.show(joined, framed, posterior, softmax_posterior)
    with source, st.container(key="draw_read"):
        model_view.show(frame, features[0], made_from, settings.input_form, model, softmax)
        drawn_png = st.session_state.get("draw_png")  # None for a frame given otherwise (a test image, a test)
        if not uploading and made_from is not None and drawn_png:  # the canvas shows this in place of its own
            report_server_reading(drawn_png, posterior, softmax_posterior)
    focus.apply("nb_focus_draw")  # past the run budget, a scribbler's next stroke waits after this (lab/runs.py)


digit_and_verdict(settings, model, softmax, joined)
send_live_models(model, softmax, settings.input_form)  # last: an element that shows nothing, under everything
