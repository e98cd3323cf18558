"""The Draw page in Chromium: its canvas (find it, draw strokes with the mouse or a finger, plainly drawn digits,
count its ink) and its answer (read the "Naive Bayes prediction" metric, wait for a new one).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence

from devtools.chromium import wait_for_run

PREDICTION_LABEL = "Naive Bayes prediction"
BLANK_PROMPT = "Draw a digit on the black canvas"  # the st.info starting "✏️ Draw a digit" (emoji may render as an icon)
CANVAS_SIZE = 280

Point = tuple[float, float]


CANVAS_SELECTOR = "canvas.digit-canvas"  # lab/canvas.py; Playwright's CSS pierces the component's shadow root
READY_CANVAS_SELECTOR = CANVAS_SELECTOR + '[data-ready="true"]'  # its script listens (lab/digit_canvas.js)


def canvas_key(widget_keys: Iterable[str]) -> str:
    """The Draw canvas's widget key among a session's ``widget_keys``: canvas_draw (pages/draw.py), or in a
    checkout before issue 40 canvas_<generation>, the highest one (its Clear made a new one)."""
    keys = [key for key in widget_keys if key.startswith("canvas_")]
    if not keys:
        raise KeyError("no Draw canvas shown")
    number = lambda key: int(key[len("canvas_") :]) if key[len("canvas_") :].isdigit() else -1  # noqa: E731
    return max(keys, key=number)


def canvas_locator(page):
    """The Draw page's drawing canvas."""
    return page.locator(CANVAS_SELECTOR).first


def canvas_origin(page, timeout: float = 30.0) -> Point:
    """Top-left corner of the canvas on the page, once there is only one and its script listens.

    Clear swaps in a new canvas (a new key), and the old one stays in the page until the run that
    replaced it ends; a canvas re-created by a rerun takes a moment to get its listeners. A stroke
    on either would be lost.
    """
    from playwright.sync_api import expect

    expect(page.locator(CANVAS_SELECTOR)).to_have_count(1, timeout=timeout * 1000)
    expect(page.locator(READY_CANVAS_SELECTOR)).to_have_count(1, timeout=timeout * 1000)
    canvas = page.locator(READY_CANVAS_SELECTOR)
    canvas.wait_for(state="visible", timeout=timeout * 1000)
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    assert box and round(box["width"]) == CANVAS_SIZE, f"unexpected canvas box {box}"
    return box["x"], box["y"]


def clear_canvas(page, timeout: float = 30.0) -> Point:
    """Click Draw's Clear and wait until one canvas, blank, listens and no run is going; its top-left corner.

    Clear is the canvas's own button (lab/canvas.py: it blanks the canvas in the page, no run); an older checkout's
    Clear was a Streamlit button whose run swapped in a new canvas, and this waits for that too (live_bench's
    ``--before``).
    """
    page.get_by_role("button", name="Clear").click()
    deadline = time.monotonic() + timeout
    while page.locator(CANVAS_SELECTOR).count() != 1 or canvas_ink_pixels(page) != 0:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the canvas was not blank {timeout:.0f} s after Clear")
        page.wait_for_timeout(50)
    wait_for_run(page, settle=0.2, timeout=timeout, charts=False)
    return canvas_origin(page)


def stroke(page, points: Sequence[Point], origin: Point | None = None, step_px: float = 5.0) -> None:
    """One pen stroke: mouse down at points[0], move through the points in small steps, mouse up.

    Points are canvas coordinates (0..280).
    """
    ox, oy = origin or canvas_origin(page)
    x, y = points[0]
    page.mouse.move(ox + x, oy + y)
    page.mouse.down()
    for nx, ny in points[1:]:
        steps = max(1, math.ceil(math.hypot(nx - x, ny - y) / step_px))
        page.mouse.move(ox + nx, oy + ny, steps=steps)
        x, y = nx, ny
    page.mouse.up()


def touch_stroke(page, points: Sequence[Point], origin: Point | None = None, step_px: float = 5.0) -> None:
    """One finger stroke (touch events through the DevTools protocol), as ``stroke`` draws with the mouse."""
    ox, oy = origin or canvas_origin(page)
    session = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        session.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": ox + x, "y": oy + y}]},
        )

    x, y = points[0]
    touch("touchStart", x, y)
    for nx, ny in points[1:]:
        steps = max(1, math.ceil(math.hypot(nx - x, ny - y) / step_px))
        for step in range(1, steps + 1):
            touch("touchMove", x + (nx - x) * step / steps, y + (ny - y) * step / steps)
        x, y = nx, ny
    touch("touchEnd", x, y)
    session.detach()


def ellipse(cx: float, cy: float, rx: float, ry: float, n: int = 40, start: float = -math.pi / 2) -> list[Point]:
    return [
        (cx + rx * math.cos(start + 2 * math.pi * i / n), cy + ry * math.sin(start + 2 * math.pi * i / n))
        for i in range(n + 1)
    ]


# Plainly drawn digits, each a list of strokes in canvas coordinates.
DIGITS: dict[int, list[list[Point]]] = {
    1: [[(140, 45), (140, 235)]],
    0: [ellipse(140, 140, 62, 95)],
    7: [[(75, 55), (205, 55), (125, 235)]],
    4: [[(170, 45), (85, 165), (205, 165)], [(170, 95), (170, 240)]],
    3: [[(85, 60), (190, 60), (130, 130), (190, 170), (175, 225), (85, 230)]],
}


def draw_digit(page, digit: int, origin: Point | None = None, touch: bool = False) -> None:
    origin = origin or canvas_origin(page)
    for points in DIGITS[digit]:
        (touch_stroke if touch else stroke)(page, points, origin)


def prediction_locator(page):
    return page.locator('[data-testid="stMetric"]').filter(has_text=PREDICTION_LABEL)


# hidden by the canvas's Clear (lab/digit_canvas.js: an inert, transparent container) until a new drawing is read
STALE_JS = "element => element.closest('[inert]') !== null"


def read_prediction(page) -> tuple[str, str] | None:
    """(value, delta text) of the "Naive Bayes prediction" metric, or None when it is not shown (or hidden)."""
    metric = prediction_locator(page)
    if metric.count() == 0 or metric.first.evaluate(STALE_JS):
        return None
    value = metric.first.locator('[data-testid="stMetricValue"]').inner_text().strip()
    delta = metric.first.locator('[data-testid="stMetricDelta"]')
    return value, (delta.inner_text().strip() if delta.count() else "")


# Everything the Draw page prints about the current input: the metric (digit and "p = …"),
# the "what the model sees" title, and the evidence caption ("… they sum to X nats …"); not what the canvas's Clear
# hid (inert: the cleared drawing's), so that drawing the same digit again after a Clear changes it.
DRAW_SIGNATURE_JS = """() => {
    const main = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (!main) return '';
    const parts = [];
    const shown = (selector) => [...main.querySelectorAll(selector)].filter((e) => !e.closest('[inert]'));
    for (const m of shown('[data-testid="stMetric"]')) parts.push(m.innerText);
    for (const c of shown('[data-testid="stCaptionContainer"]')) parts.push(c.innerText);
    for (const a of shown('[data-testid="stAlert"]')) parts.push(a.innerText);
    return parts.join(' | ').replace(/\\s+/g, ' ').trim();
}"""


def draw_signature(page) -> str:
    return page.evaluate(DRAW_SIGNATURE_JS)


def wait_for_prediction(
    page, expect_change_from: tuple[str, str] | None | str = "any", timeout: float = 30.0
) -> tuple[str, str]:
    """Wait for the prediction metric (different from ``expect_change_from`` unless "any") and a finished run."""
    deadline = time.monotonic() + timeout
    while True:
        current = read_prediction(page)
        if current is not None and (expect_change_from == "any" or current != expect_change_from):
            wait_for_run(page, timeout=max(1.0, deadline - time.monotonic()), charts=False)
            current = read_prediction(page)
            if current is not None:
                return current
        if time.monotonic() > deadline:
            raise TimeoutError(f"no new prediction within {timeout:.0f} s (last seen: {current!r})")
        page.wait_for_timeout(50)


def canvas_ink_pixels(page) -> int:
    """How many pixels of the drawing canvas are bright (the user's white ink)."""
    return canvas_locator(page).evaluate(
        """c => {
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] > 128 && d[i + 3] > 128) n++;
            return n;
        }"""
    )


def iter_points(strokes: Iterable[Sequence[Point]]) -> Iterable[Point]:
    for points in strokes:
        yield from points
