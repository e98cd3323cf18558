"""The Draw canvas's reading in the page (lab/digit_framing.js, lab/digit_reading.js) against nbcore, in Chromium.

The JS frames and scores drawings while the pen moves; the server reads the PNG sent once the pen rests with
``nbcore.preprocess.model_input``, ``InputForm`` and the models. Both must agree: the same predicted digit for
>= 99.5 % of drawings and every posterior within 1e-3, for naive Bayes and softmax, Deskew off and on, at three
thresholds (and one unsmoothed model, whose impossible pixels are -inf). Drawings: the recorded browser drawings
(devtools/drawings.json), the browser tests' digits (devtools/draw_page.py, devtools/async_draw.py) at several brush
widths, and MNIST test digits drawn back as strokes along their skeletons at several sizes, places and brush widths
(thin and thick strokes, tiny digits that are enlarged). Beyond the figures the issue asks for, the framed 28x28
digit itself is compared pixel for pixel (devtools/live_reading.measure_parity).

Then the canvas on /draw: the verdict while the mouse button is still down, the server's reading in its place
once the pen rests, a disagreement said, pen and touch, and the rested send alone when the read-back fails. And what
the rest costs: a digit of two strokes one run, a stroke in the pause cancels the send, Clear no run (what the page
read from the cleared drawing hidden until a new one is read), the screen reader's announcement once per digit.
"""

from __future__ import annotations

import time

import pytest

from devtools import chromium, draw_page, live_reading, page_checks
from devtools.rerun_log import RERUN
from lab.canvas import REST_MS

AGREEING, POSTERIOR_TOLERANCE = 0.995, 1e-3
MNIST_DRAWN = 400  # MNIST test digits drawn back (the test: 40 s at load average ~10 here, 160 s at ~15)


def test_the_page_reads_drawings_as_nbcore_does(browser, mnist, tmp_path):
    parity = live_reading.measure_parity(browser, mnist, live_reading.parity_models(mnist, tmp_path), MNIST_DRAWN)
    table = parity.table()
    print(f"\n{table}")
    assert parity.read >= MNIST_DRAWN * 0.95
    assert parity.actions == {"kept", "thinned", "thickened"}, f"the drawings only exercised {parity.actions}"
    assert not parity.frames_differing, f"framed differently: {parity.frames_differing[:10]}"
    assert all(count >= AGREEING * parity.read for count in parity.agree.values()), table
    assert all(difference <= POSTERIOR_TOLERANCE for difference in parity.largest.values()), table


# -- the canvas on the Draw page ---------------------------------------------------------------------------------
# the panel under the canvas (lab/canvas.py): whether shown, its verdict line and note, and how many live updates ran
PANEL_JS = """c => {
    const panel = c.getRootNode().querySelector('.live-reading');
    return {shown: !panel.hidden, verdict: panel.querySelector('.live-verdict').textContent,
            note: panel.querySelector('.live-note').textContent, updates: (c.liveTimes || []).length};
}"""
# the models the page holds for the live reading, with naive Bayes' log prior of 1 raised by 10^4 nats
SKEW_LIVE_PRIOR_JS = """() => {
    const models = structuredClone(window.naiveBayesLabModels);
    const prior = new Float64Array(Uint8Array.from(atob(models.bayes.log_prior), (c) => c.charCodeAt(0)).buffer);
    prior[1] += 1e4;
    models.bayes.log_prior = btoa(String.fromCharCode(...new Uint8Array(prior.buffer)));
    window.naiveBayesLabModels = models;
    window.dispatchEvent(new CustomEvent('naive-bayes-lab-models', {detail: models}));
}"""
SEVEN = [(75.0, 55.0), (205.0, 55.0), (125.0, 235.0)]  # draw_page.DIGITS[7], one stroke


def panel(page) -> dict:
    return draw_page.canvas_locator(page).evaluate(PANEL_JS)


def wait_for_panel(page, starts: str, timeout_s: float = 30.0) -> dict:
    """The panel once its verdict line starts with ``starts`` ("Live", "Server")."""
    deadline = time.monotonic() + timeout_s
    while True:
        shown = panel(page)
        if shown["verdict"].startswith(starts) or time.monotonic() > deadline:
            return shown
        page.wait_for_timeout(100)


def test_the_verdict_follows_the_pen_and_the_server_reading_replaces_it(page, base_url):
    """Mouse: the panel reads the drawing while the button is still down; after pointer-up the server's reading
    of the same drawing takes its place, the page shows the same digit, and no disagreement is announced."""
    page.goto(f"{base_url}/draw", timeout=60_000)
    chromium.wait_for_run(page, timeout=120)
    ox, oy = draw_page.canvas_origin(page)
    before = wait_for_panel(page, "As you draw")
    assert before["shown"] and before["verdict"].startswith("As you draw"), before
    page.mouse.move(ox + SEVEN[0][0], oy + SEVEN[0][1])
    page.mouse.down()
    for x, y in SEVEN[1:]:
        page.mouse.move(ox + x, oy + y, steps=15)
    during = wait_for_panel(page, "Live")
    assert during["verdict"].startswith("Live: naive Bayes 7"), during  # the button is still down: no run yet
    assert draw_page.read_prediction(page) is None, "the page predicted before the pen lifted"
    page.mouse.up()
    after = wait_for_panel(page, "Server")
    assert after["verdict"].startswith("Server: naive Bayes 7"), after
    assert after["note"] == "", after
    assert draw_page.wait_for_prediction(page)[0] == "7"
    assert after["updates"] >= 5, f"only {after['updates']} live updates during a stroke of 30 moves"

    # a live reading that disagrees (its naive Bayes prior made to favour 1): the server's 7 shows, and says so
    draw_page.clear_canvas(page)
    page.evaluate(SKEW_LIVE_PRIOR_JS)
    draw_page.stroke(page, SEVEN, (ox, oy))
    assert draw_page.wait_for_prediction(page)[0] == "7"
    disagreeing = wait_for_panel(page, "Server")
    assert disagreeing["verdict"].startswith("Server: naive Bayes 7"), disagreeing
    assert "Showing the server's reading; your browser read naive Bayes 1" in disagreeing["note"], disagreeing
    assert not page_checks.page_problems(page)


def pen_stroke(page, points, origin) -> None:
    """One stroke of a pen (pointerType "pen", through the DevTools protocol)."""
    session = page.context.new_cdp_session(page)
    ox, oy = origin
    events = [
        ("mousePressed", points[0]),
        *(("mouseMoved", point) for point in points[1:]),
        ("mouseReleased", points[-1]),
    ]
    for kind, (x, y) in events:
        session.send(
            "Input.dispatchMouseEvent",
            {
                "type": kind,
                "x": ox + x,
                "y": oy + y,
                "button": "left",
                "buttons": 0 if kind == "mouseReleased" else 1,
                "clickCount": 1,
                "pointerType": "pen",
            },
        )
    session.detach()


@pytest.mark.parametrize("device", ["pen", "touch"])
def test_pen_and_touch_are_read_live_too(browser, base_url, request, device):
    """A pen on a laptop, a finger on a 390x844 phone: live updates while drawing, then the server's 7."""
    screen = "phone 390x844 (touch)" if device == "touch" else "laptop 1366x768"
    context = browser.new_context(**chromium.SCREENS[screen])
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        request.node._e2e_page = page
        page.goto(f"{base_url}/draw", timeout=60_000)
        chromium.wait_for_run(page, timeout=120)
        origin = draw_page.canvas_origin(page)
        points = [point for start, end in zip(SEVEN, SEVEN[1:]) for point in along(start, end, 12)]
        (draw_page.touch_stroke if device == "touch" else pen_stroke)(page, points, origin)
        after = wait_for_panel(page, "Server")
        assert after["verdict"].startswith("Server: naive Bayes 7") and after["updates"] >= 3, after
        assert draw_page.wait_for_prediction(page)[0] == "7"
    finally:
        context.close()


def along(start, end, count: int) -> list[tuple[float, float]]:
    return [
        (start[0] + (end[0] - start[0]) * i / count, start[1] + (end[1] - start[1]) * i / count) for i in range(count)
    ]


def test_without_a_working_live_reading_the_rested_send_alone_predicts(browser, base_url, request):
    """A browser where reading the canvas back fails (as an old one lacking what the reading needs): the panel
    stays hidden and the drawing is still predicted by the server once the pen rests."""
    context = browser.new_context(viewport=chromium.VIEWPORT)
    context.add_init_script(
        "CanvasRenderingContext2D.prototype.getImageData = function () { throw new Error('no read-back here'); };"
    )
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        request.node._e2e_page = page
        page.goto(f"{base_url}/draw", timeout=60_000)
        chromium.wait_for_run(page, timeout=120)
        draw_page.stroke(page, SEVEN, draw_page.canvas_origin(page))
        assert draw_page.wait_for_prediction(page)[0] == "7"
        shown = panel(page)
        assert not shown["shown"] and shown["updates"] == 0, shown
    finally:
        context.close()


# -- what the rest costs ------------------------------------------------------------------------------------------
FOUR = draw_page.DIGITS[4]  # two strokes
# counts the changes of the page's live region (lab/live_region.py), what a screen reader announces
COUNT_ANNOUNCEMENTS_JS = """region => {
    region.dataset.changes = '0';
    new MutationObserver(() => { region.dataset.changes = String(Number(region.dataset.changes) + 1); })
        .observe(region, {childList: true, characterData: true, subtree: true});
}"""
# what the canvas's Clear hid: the page's parts read from the last drawing (lab/digit_canvas.js, pages/draw.py)
HIDDEN_JS = """() => ['draw_metrics', 'draw_explanation', 'draw_read'].map(
    (key) => [...document.getElementsByClassName('st-key-' + key)].every((e) => e.inert && e.style.opacity === '0'))"""


def draw_runs(server) -> int:
    """The Draw page's runs the server has logged so far (NBCORE_LOG_RERUN_MS=1, lab/runs.py)."""
    return sum(match[1] == "draw" for match in RERUN.finditer(server.log_text()))


def test_a_digit_costs_one_run_once_the_pen_rests_and_clear_costs_none(page, warm_app):
    """A 4 in two strokes: no run until the pen rests, then one, announced once; a stroke in the pause cancels
    the send; Clear blanks the canvas with no run and hides the cleared drawing's verdict until a new one is read."""
    page.goto(f"{warm_app.url}/draw", timeout=60_000)
    chromium.wait_for_run(page, timeout=120)
    origin = draw_page.canvas_origin(page)
    region = page.locator(".nb-live-region")
    region.evaluate(COUNT_ANNOUNCEMENTS_JS)
    runs = draw_runs(warm_app)
    draw_page.stroke(page, FOUR[0], origin)
    page.wait_for_timeout(REST_MS / 2)  # a pause shorter than the rest, then the second stroke
    draw_page.stroke(page, FOUR[1], origin)
    page.wait_for_timeout(REST_MS / 2)  # the first stroke's rest has run out: its send was cancelled
    assert draw_runs(warm_app) == runs, "a run before the pen rested"
    assert draw_page.wait_for_prediction(page)[0] == "4"
    page.wait_for_timeout(REST_MS)
    assert draw_runs(warm_app) == runs + 1, f"{draw_runs(warm_app) - runs} runs for one digit"
    assert wait_for_panel(page, "Server")["verdict"].startswith("Server: naive Bayes 4")
    assert region.evaluate("r => r.dataset.changes") == "1", "the verdict was announced more than once"
    assert region.text_content().startswith("Naive Bayes reads 4")

    origin = draw_page.clear_canvas(page)
    page.wait_for_timeout(REST_MS)
    assert draw_runs(warm_app) == runs + 1, "Clear cost a run"
    assert page.evaluate(HIDDEN_JS) == [True, True, True]
    assert draw_page.read_prediction(page) is None and panel(page)["verdict"].startswith("As you draw")
    assert draw_page.canvas_ink_pixels(page) == 0

    # another page and back: the page still holds the cleared 4 and hands it back; the canvas stays blank, hides
    # what the page read from it and tells the page (one run), which forgets it
    for name in ("Heatmaps", "Draw"):
        chromium.run_after(page, page.locator('[data-testid="stSidebar"] a').filter(has_text=name).first.click)
    page.locator('[data-testid="stAlert"]', has_text=draw_page.BLANK_PROMPT).wait_for(timeout=30_000)
    chromium.wait_for_run(page, settle=0.3, charts=False)
    origin = draw_page.canvas_origin(page)
    assert draw_page.canvas_ink_pixels(page) == 0, "the cleared drawing came back"
    assert draw_page.read_prediction(page) is None and page.locator(".nb-live-region").text_content() == ""
    region = page.locator(".nb-live-region")
    region.evaluate(COUNT_ANNOUNCEMENTS_JS)

    runs = draw_runs(warm_app)
    draw_page.stroke(page, SEVEN, origin)
    assert draw_page.wait_for_prediction(page)[0] == "7"
    page.wait_for_timeout(REST_MS)
    assert draw_runs(warm_app) == runs + 1
    assert page.evaluate(HIDDEN_JS) == [False, False, False]
    assert region.evaluate("r => r.dataset.changes") == "1" and region.text_content().startswith("Naive Bayes reads 7")
    assert not page_checks.page_problems(page)


# the canvas's brush control (in the component's shadow root) and how wide the ink is down column 140 of the canvas
BRUSH_JS = """c => {
    const slider = c.getRootNode().querySelector('input.brush-width');
    return {value: Number(slider.value), disabled: slider.disabled, label: slider.labels[0].querySelector('.brush-label').textContent,
            described: c.getRootNode().getElementById(slider.getAttribute('aria-describedby')).textContent};
}"""
INK_DOWN_THE_MIDDLE_JS = """c => {
    const d = c.getContext('2d').getImageData(140, 0, 1, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 128) n++;
    return n;
}"""
ACROSS = [(40.0, 140.0), (240.0, 140.0)]  # one horizontal stroke through the canvas's middle


def test_the_brush_width_costs_no_run_stays_in_the_link_and_a_teacher_can_lock_it(browser, warm_app):
    """The brush is the canvas's own slider: moved by the keyboard it writes the address and costs no run; the next
    stroke is that wide and its drawing takes the width to the page (one run), which keeps it in its link; a reload
    keeps it; ``?lock=draw_brush`` shows it locked and unmovable."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    try:
        page.goto(f"{warm_app.url}/draw?draw_brush=12", timeout=60_000)
        chromium.wait_for_run(page, timeout=120)
        origin = draw_page.canvas_origin(page)
        canvas = draw_page.canvas_locator(page)
        shown = canvas.evaluate(BRUSH_JS)
        assert (shown["value"], shown["disabled"], shown["label"]) == (12, False, "Brush width"), shown
        assert "as wide as MNIST's" in shown["described"]
        runs = draw_runs(warm_app)
        slider = page.locator("input.brush-width")
        slider.focus()
        for _ in range(8):
            page.keyboard.press("ArrowRight")
        page.wait_for_timeout(REST_MS)
        assert canvas.evaluate(BRUSH_JS)["value"] == 20
        assert "draw_brush=20" in page.url
        assert draw_runs(warm_app) == runs, "moving the brush cost a run"

        draw_page.stroke(page, ACROSS, origin)
        assert abs(canvas.evaluate(INK_DOWN_THE_MIDDLE_JS) - 20) <= 2, "the stroke is not as wide as the brush"
        draw_page.wait_for_prediction(page)
        page.wait_for_timeout(REST_MS)
        assert draw_runs(warm_app) == runs + 1
        chromium.wait_for_run(page)
        assert "draw_brush=20" in page.url  # the page's own link now says it too

        page.reload()
        chromium.wait_for_run(page, timeout=120)
        draw_page.canvas_origin(page)
        assert canvas.evaluate(BRUSH_JS)["value"] == 20, "a reload lost the brush width"

        page.goto(f"{warm_app.url}/draw?draw_brush=30&lock=draw_brush", timeout=60_000)
        chromium.wait_for_run(page, timeout=120)
        draw_page.canvas_origin(page)
        locked = canvas.evaluate(BRUSH_JS)
        assert (locked["value"], locked["disabled"], locked["label"]) == (30, True, "Brush width (locked)"), locked
        assert not page_checks.page_problems(page)
    finally:
        context.close()
