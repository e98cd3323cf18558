"""Fast drawing on Draw: a child scribbling keeps the canvas, costs no run while the pen moves on, and the drawing
is read by the server once, when the pen rests.

The canvas sends the drawing ``REST_MS`` after a pointer-up with no new stroke (lab/canvas.py); a stroke in that
pause cancels the send. Short strokes three a second, or taps eight a second, each come within the pause of the
last: no run until the scribble stops, and then one, whose verdict (the server's, checked against nbcore reading
the canvas's PNG) the page shows. The canvas must stay on screen with every stroke on it throughout. A browser too
slow for the pace draws later marks later; a mark drawn after the pause has run out may then cost a run of its
own, which the checks allow and the summary counts.
"""

from __future__ import annotations

import base64
import re
import time

import numpy as np
import pytest

from devtools import chromium, draw_page, page_checks
from devtools.rerun_log import RERUN
from lab.canvas import REST_MS
from nbcore import BernoulliNB, binarize
from nbcore.preprocess import ink_from_canvas_png, model_input

STROKES, STROKES_PER_SECOND = 24, 3.0  # one short stroke every 333 ms, for 8 s
TAPS, TAPS_PER_SECOND = 32, 8.0  # quick taps, for 4 s
CATCH_UP_S = 30  # the newest drawing is predicted within this (generous: the machine is shared)
DIAGONAL = ((205.0, 55.0), (125.0, 235.0))  # a 7's downstroke (draw_page.DIGITS[7]), drawn piece by piece
TOP_BAR = [(75.0, 55.0), (205.0, 55.0)]  # the stroke that makes it a 7

PNG_JS = "c => c.toDataURL('image/png')"  # what lab/digit_canvas.js sends at the end of a stroke
MARK_JS = "c => { c.dataset.scribbleMark = 'kept'; }"
MARKED_JS = "c => c.dataset.scribbleMark === 'kept'"


@pytest.fixture(scope="module")
def textbook_model(mnist) -> BernoulliNB:
    """The model Draw uses with the default settings: pixel >= 128, alpha = beta = 1, empirical prior."""
    return BernoulliNB(alpha=1.0, beta=1.0, prior="empirical").fit(
        binarize(mnist["train_images"], 128), mnist["train_labels"]
    )


EVIDENCE_SUM = re.compile(r"they sum to (-?[0-9]+\.[0-9]+) nats")  # pages/draw.py's caption under the evidence map


def expected_verdict(model: BernoulliNB, png_url: str) -> tuple[str, float]:
    """(digit, summed evidence in nats against the runner-up) that Draw must show for the canvas PNG ``png_url``.

    The sum is a fingerprint of the drawing: one more stroke, or one fewer, changes it.
    """
    assert png_url.startswith("data:image/png;base64,") and base64.b64decode(png_url.split(",", 1)[1])
    made_from = model_input(ink_from_canvas_png(png_url))
    assert made_from is not None, "the canvas is blank"
    features = binarize(made_from.frame[None], 128)
    ranking = np.argsort(-model.predict_proba(features)[0], kind="stable")
    return str(ranking[0]), float(model.evidence(features[0], int(ranking[0]), int(ranking[1])).sum())


def shown_verdict(page) -> tuple[str, float] | None:
    """(digit, summed evidence) that the page shows, or None while it shows no prediction."""
    shown, caption = draw_page.read_prediction(page), EVIDENCE_SUM.search(draw_page.draw_signature(page))
    return None if shown is None or caption is None else (shown[0], float(caption.group(1)))


def along(start: draw_page.Point, end: draw_page.Point, count: int) -> list[draw_page.Point]:
    return [
        (start[0] + (end[0] - start[0]) * i / count, start[1] + (end[1] - start[1]) * i / count)
        for i in range(count + 1)
    ]


def draw_runs(server) -> int:
    """The Draw page's runs the server has logged so far (NBCORE_LOG_RERUN_MS=1, lab/runs.py)."""
    return sum(match[1] == "draw" for match in RERUN.finditer(server.log_text()))


def scribble(page, marks: list[list[draw_page.Point]], per_second: float, stroke) -> tuple[list[int], int]:
    """Draw ``marks`` (each a short stroke, or a tap when it is one point) with ``stroke`` at ``per_second``: the
    marks that found no canvas, and how many pauses between marks reached the canvas's rest (a slow browser's)."""
    canvas, origin = page.locator(draw_page.READY_CANVAS_SELECTOR), draw_page.canvas_origin(page)
    missing, started = [], time.perf_counter()
    for index, mark in enumerate(marks):
        delay = started + index / per_second - time.perf_counter()
        if delay > 0:  # the child's pace: an interval between inputs, not a wait for the app
            page.wait_for_timeout(delay * 1000)
        if canvas.count() != 1:
            missing.append(index)
        else:
            stroke(page, mark, origin)
    gaps = draw_page.canvas_locator(page).evaluate("c => c.strokeGaps")
    return missing, sum(gap >= REST_MS for gap in gaps)


def draw_fast_then_once_more(
    page, server, model: BernoulliNB, marks: list[list[draw_page.Point]], per_second: float, stroke=draw_page.stroke
) -> str:
    """Draw ``marks`` at ``per_second`` with ``stroke`` (the mouse's, or a finger's), then the top bar; check the
    canvas stayed, no run came while the pen moved on, one came after it rested, and the 7 is predicted. A summary."""
    page.goto(f"{server.url}/draw", timeout=60_000)
    chromium.wait_for_run(page, timeout=180, settle=0.3)
    origin = draw_page.canvas_origin(page)
    draw_page.canvas_locator(page).evaluate(MARK_JS)
    runs_before = draw_runs(server)
    missing, rested = scribble(page, marks, per_second, stroke)
    assert missing == [], f"the canvas was gone for marks {missing} of {len(marks)}"
    assert draw_page.canvas_locator(page).evaluate(MARKED_JS), "the canvas was replaced: the strokes on it were lost"

    stroke(page, TOP_BAR, origin)  # nothing else: no setting, no reload
    after_bar = time.perf_counter()
    runs_while_drawing = draw_runs(server) - runs_before
    # each run while the pen moved on needs a pause as long as the rest: a browser that lagged behind the pace
    assert runs_while_drawing <= rested, f"{runs_while_drawing} runs while drawing, {rested} pauses reached the rest"
    expected_digit, expected_nats = expected_verdict(model, draw_page.canvas_locator(page).evaluate(PNG_JS))
    assert expected_digit == "7", f"the test's drawing reads as a {expected_digit}, not a 7"
    deadline, shown = after_bar + CATCH_UP_S, None
    while time.perf_counter() < deadline:
        shown = shown_verdict(page)
        if shown is not None and shown[0] == expected_digit and abs(shown[1] - expected_nats) <= 0.006:
            break
        page.wait_for_timeout(100)  # polling for the verdict until the deadline
    else:
        raise AssertionError(
            f"after {CATCH_UP_S} s the page shows {shown}, the drawing on the canvas is {expected_digit} "
            f"with evidence {expected_nats:.2f} nats; page text: {draw_page.draw_signature(page)[:300]}"
        )
    caught_up = time.perf_counter() - after_bar
    assert caught_up >= REST_MS / 1000, f"the verdict came {caught_up:.2f} s after the last stroke, before the rest"
    page.wait_for_timeout(REST_MS)  # no second run for the same drawing
    assert draw_runs(server) - runs_before == runs_while_drawing + 1
    assert draw_page.canvas_locator(page).evaluate(MARKED_JS) and not page_checks.page_problems(page)
    return (
        f"{len(marks) + 1} marks, {runs_while_drawing} runs while drawing ({rested} pauses reached the rest), then "
        f"one run: the 7 predicted {caught_up:.1f} s after its last stroke"
    )


def test_strokes_at_three_a_second_keep_the_canvas_and_cost_one_run_once_the_pen_rests(page, warm_app, textbook_model):
    points = along(*DIAGONAL, STROKES)
    strokes = [[points[i], points[i + 1]] for i in range(STROKES)]  # each about 3 px long
    print(draw_fast_then_once_more(page, warm_app, textbook_model, strokes, STROKES_PER_SECOND))


def test_quick_taps_on_a_phone_keep_the_canvas_and_cost_one_run_once_the_finger_rests(
    browser, warm_app, textbook_model, request
):
    """Taps of a finger eight a second on a 390x844 touch screen, where a child taps."""
    context = browser.new_context(**chromium.SCREENS["phone 390x844 (touch)"])
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        request.node._e2e_page = page  # a failure's screenshot (tests/e2e/conftest.py)
        taps = [[point] for point in along(*DIAGONAL, TAPS - 1)]
        print(draw_fast_then_once_more(page, warm_app, textbook_model, taps, TAPS_PER_SECOND, draw_page.touch_stroke))
    finally:
        context.close()
