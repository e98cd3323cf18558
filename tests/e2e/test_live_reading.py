"""The Draw canvas's reading in the page (lab/digit_reading.js) against nbcore, in Chromium.

The JS frames and scores drawings while the pen moves; the server reads the PNG sent at pointer-up with
``nbcore.preprocess.model_input``, ``InputForm`` and the models. Both must agree: the same predicted digit for
>= 99.5 % of drawings and every posterior within 1e-3, for naive Bayes and softmax, Deskew off and on, at three
thresholds (and one unsmoothed model, whose impossible pixels are -inf). Drawings: the recorded browser drawings (devtools/drawings.json), the browser tests' digits
(devtools/harness.py, devtools/async_draw.py) at several brush widths, and MNIST test digits drawn back as strokes
along their skeletons at several sizes, places and brush widths (thin and thick strokes, tiny digits that are
enlarged). Beyond the figures the issue asks for, the framed 28x28 digit itself is compared pixel for pixel.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import nbcore
from devtools import async_draw, harness, live_reading
from lab.live_models import payload
from nbcore.inputs import InputForm
from nbcore.preprocess import ink_from_canvas_png, model_input
from tests.conftest import REPO

THRESHOLDS = (1, 128, 192)  # the course note's, the textbook's, and the sidebar's highest
FORMS = [InputForm(threshold, deskew) for deskew in (False, True) for threshold in THRESHOLDS]
MNIST_DRAWN = 400  # MNIST test digits drawn back (about 20 s in all on a quiet machine)
BRUSHES = (8, 16, 24, 32, 40)  # the Brush width slider's range
PLACES = ((10.0, (0.0, 0.0)), (7.0, (30.0, 50.0)), (4.0, (150.0, 20.0)), (0.6, (120.0, 130.0)))  # scale, offset
AGREEING, POSTERIOR_TOLERANCE = 0.995, 1e-3


def form_name(form: InputForm) -> str:
    return f"T={form.threshold}{' deskewed' if form.deskew else ''}"


# ([drawing, names]) -> what the page reads from one drawing under each named model set: the posteriors, the
# framed digit, and the canvas as the PNG the component would send
READ_JS = """async ([drawing, names]) => {
    let canvas;
    if (drawing.png) {
        const blob = await (await fetch(drawing.png)).blob();
        const bitmap = await createImageBitmap(blob, {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
        canvas = document.createElement('canvas');
        canvas.width = bitmap.width; canvas.height = bitmap.height;
        canvas.getContext('2d').drawImage(bitmap, 0, 0);
    } else {
        canvas = (DRAW)([drawing.strokes, drawing.brush]);
    }
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const reading = window.reading;
    const ink = reading.inkFromPixels(pixels, canvas.width, canvas.height);
    const made = reading.modelInput(ink, canvas.width, canvas.height, window.models[names[0]].constants);
    const out = {png: canvas.toDataURL('image/png'), frame: made && Array.from(made.frame), scores: {}};
    if (made) {
        for (const name of names) {
            const models = window.models[name];
            const seen = reading.asSeen(made.frame, 28, models.form);
            out.scores[name] = {
                bayes: Array.from(reading.scoreBayes(models.bayes, seen.features).posterior),
                softmax: Array.from(reading.scoreSoftmax(models.softmax, seen.image).posterior),
            };
        }
    }
    return out;
}""".replace("(DRAW)", f"({live_reading.DRAW_JS})")


@pytest.fixture(scope="module")
def models(mnist, tmp_path_factory):
    """Naive Bayes (alpha = beta = 1, empirical prior) per form and softmax regression per deskew setting."""
    cache = tmp_path_factory.mktemp("softmax")
    built = {}
    for deskew in (False, True):
        train = InputForm(128, deskew).images(mnist["train_images"])
        softmax, _ = nbcore.load_or_train_softmax(train, mnist["train_labels"], preset="default", cache_dir=cache)
        for form in FORMS:
            if form.deskew == deskew:
                bayes = nbcore.BernoulliNB(alpha=1.0, beta=1.0).fit(
                    nbcore.binarize(train, form.threshold), mnist["train_labels"]
                )
                built[form_name(form)] = (form, bayes, softmax)
                if form == InputForm():  # alpha = beta = 0 (the sidebar's first stop): impossible pixels, -inf
                    built["T=128 unsmoothed"] = (form, bayes.with_params(alpha=0.0, beta=0.0), softmax)
    return built


def drawings(mnist) -> list[tuple[str, dict]]:
    """(name, drawing) pairs: a drawing is {"png": data URL} or {"strokes": polylines, "brush": px}."""
    recorded = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
    found = [(f"recorded {item['digit']}", {"png": json.loads(item["json_value"])["drawing"]}) for item in recorded]
    shapes = {
        **{f"harness {d}": s for d, s in harness.DIGITS.items()},
        **{f"load {d}": s for d, s in async_draw.DIGITS.items()},
    }
    for name, strokes in shapes.items():
        for brush in BRUSHES:
            found.append((f"{name} brush {brush}", {"strokes": strokes, "brush": brush}))
    for index in range(MNIST_DRAWN):
        scale, offset = PLACES[index % len(PLACES)]
        brush = BRUSHES[index % len(BRUSHES)] if scale >= 4 else BRUSHES[0]
        strokes = live_reading.digit_strokes(mnist["test_images"][index], scale, offset)
        found.append((f"MNIST test {index} x{scale} brush {brush}", {"strokes": strokes, "brush": brush}))
    return found


def test_the_page_reads_drawings_as_nbcore_does(browser, mnist, models):
    page = live_reading.open_reader(browser)
    try:
        for name, (form, bayes, softmax) in models.items():
            page.evaluate(
                "([name, sent]) => { window.models[name] = window.reading.decodeModels(sent); }",
                [name, payload(bayes, softmax, form)],
            )
        names = list(models)
        agree = {(name, model): 0 for name in names for model in ("bayes", "softmax")}
        largest = dict.fromkeys(agree, 0.0)
        frames_differing, blank, read, actions = [], 0, 0, set()
        for label, drawing in drawings(mnist):
            seen_in_page = page.evaluate(READ_JS, [drawing, names])
            made = model_input(ink_from_canvas_png(seen_in_page["png"]))
            if made is None:
                assert seen_in_page["frame"] is None, f"{label}: the server finds it blank, the page does not"
                blank += 1
                continue
            assert seen_in_page["frame"] is not None, f"{label}: the page finds it blank, the server does not"
            read += 1
            actions.add(made.stroke_action)
            if not np.array_equal(np.array(seen_in_page["frame"], np.uint8).reshape(28, 28), made.frame):
                frames_differing.append(label)
            for name, (form, bayes, softmax) in models.items():
                prepared = form.prepare(made.frame[None])
                truth = {
                    "bayes": bayes.predict_proba(prepared.features)[0],
                    "softmax": softmax.predict_proba(prepared.images)[0],
                }
                for model, posterior in truth.items():
                    live = np.array(seen_in_page["scores"][name][model])
                    agree[name, model] += int(np.argmax(live) == np.argmax(posterior))
                    largest[name, model] = max(largest[name, model], float(np.abs(live - posterior).max()))
    finally:
        page.close()
    table = "\n".join(
        f"{name:>16} {model:>8}: {agree[name, model]}/{read} digits agree, largest posterior difference "
        f"{largest[name, model]:.1e}"
        for name, model in agree
    )
    print(f"\n{read} drawings read ({blank} blank), framed digits differing: {len(frames_differing)}\n{table}")
    assert read >= MNIST_DRAWN * 0.95
    assert actions == {"kept", "thinned", "thickened"}, f"the drawings only exercised the stroke steps {actions}"
    assert not frames_differing, f"framed differently: {frames_differing[:10]}"
    assert all(count >= AGREEING * read for count in agree.values()), table
    assert all(difference <= POSTERIOR_TOLERANCE for difference in largest.values()), table


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
SEVEN = [(75.0, 55.0), (205.0, 55.0), (125.0, 235.0)]  # harness.DIGITS[7], one stroke


def panel(page) -> dict:
    return harness.canvas_locator(page).evaluate(PANEL_JS)


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
    harness.wait_for_run(page, timeout=120)
    ox, oy = harness.canvas_origin(page)
    before = wait_for_panel(page, "As you draw")
    assert before["shown"] and before["verdict"].startswith("As you draw"), before
    page.mouse.move(ox + SEVEN[0][0], oy + SEVEN[0][1])
    page.mouse.down()
    for x, y in SEVEN[1:]:
        page.mouse.move(ox + x, oy + y, steps=15)
    during = wait_for_panel(page, "Live")
    assert during["verdict"].startswith("Live: naive Bayes 7"), during  # the button is still down: no run yet
    assert harness.read_prediction(page) is None, "the page predicted before the pen lifted"
    page.mouse.up()
    after = wait_for_panel(page, "Server")
    assert after["verdict"].startswith("Server: naive Bayes 7"), after
    assert after["note"] == "", after
    assert harness.wait_for_prediction(page)[0] == "7"
    assert after["updates"] >= 5, f"only {after['updates']} live updates during a stroke of 30 moves"

    # a live reading that disagrees (its naive Bayes prior made to favour 1): the server's 7 shows, and says so
    harness.run_after(page, lambda: page.get_by_role("button", name="Clear").click(), charts=False)
    harness.canvas_origin(page)
    page.evaluate(SKEW_LIVE_PRIOR_JS)
    harness.stroke(page, SEVEN, (ox, oy))
    assert harness.wait_for_prediction(page)[0] == "7"
    disagreeing = wait_for_panel(page, "Server")
    assert disagreeing["verdict"].startswith("Server: naive Bayes 7"), disagreeing
    assert "Showing the server's reading; your browser read naive Bayes 1" in disagreeing["note"], disagreeing
    assert not harness.page_problems(page)


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
    context = browser.new_context(**harness.SCREENS[screen])
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        request.node._e2e_page = page
        page.goto(f"{base_url}/draw", timeout=60_000)
        harness.wait_for_run(page, timeout=120)
        origin = harness.canvas_origin(page)
        points = [point for start, end in zip(SEVEN, SEVEN[1:]) for point in along(start, end, 12)]
        (harness.touch_stroke if device == "touch" else pen_stroke)(page, points, origin)
        after = wait_for_panel(page, "Server")
        assert after["verdict"].startswith("Server: naive Bayes 7") and after["updates"] >= 3, after
        assert harness.wait_for_prediction(page)[0] == "7"
    finally:
        context.close()


def along(start, end, count: int) -> list[tuple[float, float]]:
    return [
        (start[0] + (end[0] - start[0]) * i / count, start[1] + (end[1] - start[1]) * i / count) for i in range(count)
    ]


def test_without_a_working_live_reading_the_pointer_up_path_alone_predicts(browser, base_url, request):
    """A browser where reading the canvas back fails (as an old one lacking what the reading needs): the panel
    stays hidden and the drawing is still predicted by the server at pointer-up."""
    context = browser.new_context(viewport=harness.VIEWPORT)
    context.add_init_script(
        "CanvasRenderingContext2D.prototype.getImageData = function () { throw new Error('no read-back here'); };"
    )
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        request.node._e2e_page = page
        page.goto(f"{base_url}/draw", timeout=60_000)
        harness.wait_for_run(page, timeout=120)
        harness.stroke(page, SEVEN, harness.canvas_origin(page))
        assert harness.wait_for_prediction(page)[0] == "7"
        shown = panel(page)
        assert not shown["shown"] and shown["updates"] == 0, shown
    finally:
        context.close()
