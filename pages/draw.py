"""Draw: a digit from the canvas or a picture, framed like MNIST, classified and explained."""

import numpy as np
import streamlit as st

import nbcore
from lab import figures, model_view, shell, state
from lab.canvas import digit_canvas
from nbcore.preprocess import ImageInputError, ink_from_canvas_png, ink_from_upload, model_input

settings = state.current_settings()
with st.sidebar:  # a new threshold's "Binarizing…" and "Counting pixels…" spinners show here: the canvas stays put
    model = state.model(settings)
softmax = state.softmax(deskew=settings.deskew).model

st.title("Draw a digit")
st.session_state.setdefault("canvas_generation", 0)


def clear_canvas() -> None:
    st.session_state.canvas_generation += 1
    st.session_state.draw_frame = None
    st.session_state.draw_input = None
    st.session_state.draw_png = None


@shell.fragment(page="draw")
def digit_and_verdict(settings: state.Settings, model: nbcore.BernoulliNB, softmax: nbcore.SoftmaxRegression) -> None:
    """Canvas or upload, both predictions and the evidence map: a stroke reruns this part only, not the page."""
    source, seen, verdict = st.columns([1.15, 1, 1.25], gap="medium")
    with source:
        mode = st.segmented_control("Input", ["Draw", "Upload a picture"], default="Draw", key="draw_mode")
        if mode == "Upload a picture":
            upload = st.file_uploader("A photo or scan of one digit (PNG, JPEG, …)", key="draw_upload")
            frame = made_from = None
            if upload is not None:
                if st.session_state.get("upload_id") != upload.file_id:  # decode a picture once, not on every rerun
                    try:
                        outcome = model_input(ink_from_upload(upload.getvalue())), None
                    except ImageInputError as error:
                        outcome = None, str(error)
                    st.session_state.upload_id, st.session_state.upload_outcome = upload.file_id, outcome
                made_from, problem = st.session_state.upload_outcome
                frame = None if made_from is None else made_from.frame
                if problem:
                    st.error(problem)
                elif frame is None:
                    st.warning("No digit found in this picture: it looks blank.")
        else:
            brush = st.slider("Brush width", 8, 40, model_view.MNIST_LIKE_BRUSH, key="draw_brush",
                              help=f"{model_view.MNIST_LIKE_BRUSH} draws strokes as wide as MNIST's once framed.")
            drawing = digit_canvas(brush, key=f"canvas_{st.session_state.canvas_generation}",
                                   restore=st.session_state.get("draw_png"))
            st.button("🧽 Clear", on_click=clear_canvas, key="draw_clear")
            if drawing is not None and drawing != st.session_state.get("draw_png"):
                try:
                    made_from = model_input(ink_from_canvas_png(drawing))
                    st.session_state.draw_frame = None if made_from is None else made_from.frame
                    st.session_state.draw_input, st.session_state.draw_png = made_from, drawing
                except ImageInputError as error:
                    st.error(str(error))
            frame = st.session_state.get("draw_frame")
            made_from = st.session_state.get("draw_input")
            if made_from is not None and made_from.frame is not frame:  # a frame set directly (tests, Inpainting)
                made_from = None

    if frame is None:
        with seen:
            st.info("✏️ Draw a digit on the black canvas (or upload a picture) to see what naive Bayes makes of "
                    "it.")
        return

    frame = model_view.model_frame(frame, settings.deskew)
    features = nbcore.binarize(frame[None], settings.threshold)
    posterior = model.predict_proba(features)[0]
    ranking = np.argsort(-posterior, kind="stable")
    predicted, runner_up = int(ranking[0]), int(ranking[1])

    softmax_posterior = softmax.predict_proba(frame[None])[0]
    softmax_predicted = int(np.argmax(softmax_posterior))
    with verdict:
        bayes_column, softmax_column = st.columns(2)
        bayes_column.metric("Naive Bayes prediction", str(predicted), f"p = {posterior[predicted]:.4f}",
                            delta_color="off", delta_arrow="off")
        softmax_column.metric("Softmax prediction", str(softmax_predicted),
                              f"p = {softmax_posterior[softmax_predicted]:.4f}", delta_color="off",
                              delta_arrow="off")
        st.plotly_chart(figures.posterior_comparison({"naive Bayes": posterior, "softmax": softmax_posterior}),
                        width="stretch", key="draw_posteriors")
    # written after the verdict so that the prediction reaches the browser first
    with seen:
        model_view.show(frame, made_from, settings.deskew, settings.threshold, model, softmax)

    evidence = model.evidence(features[0], predicted, runner_up).reshape(28, 28)
    evidence_title = f"Evidence: log p(xᵢ | {predicted}) − log p(xᵢ | {runner_up}) per pixel"
    st.plotly_chart(figures.difference_map(evidence, evidence_title, "nats"), width="stretch", key="draw_evidence")
    with np.errstate(invalid="ignore"):  # +inf and -inf pixels (no smoothing) have no sum
        total = float(evidence.sum())
    if np.isfinite(total):
        st.caption(f"Blue pixels speak for {predicted}, red ones for the runner-up {runner_up}; "
                   f"they sum to {total:.2f} nats, the log-likelihood ratio of the two.")
    else:
        ratio = "+∞" if total > 0 else "−∞" if total < 0 else "undefined (∞ − ∞)"
        st.caption(f"Blue pixels speak for {predicted}, red ones for the runner-up {runner_up}; "
                   f"{int(np.isinf(evidence).sum())} pixels are impossible for one of them (no smoothing), so the "
                   f"log-likelihood ratio of the two is {ratio}.")


digit_and_verdict(settings, model, softmax)
