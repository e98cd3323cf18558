"""The Draw page driven by Playwright's async API: many browser sessions from one event loop.

The async counterparts of ``devtools.draw_page``'s and ``devtools.chromium``'s page helpers, for devtools/load_bench.py (a class of
sessions on one server) and tests/e2e/test_classroom.py (five at once): open /draw, draw a digit and
time the prediction in the page, move the sidebar's alpha slider one stop and time its run, Clear.
"""

from __future__ import annotations

import re

from devtools import draw_page

# Plainly drawn digits, one stroke each (canvas coordinates 0..280): draw_page's, and three more.
DIGITS: dict[int, list[list[draw_page.Point]]] = {
    **{digit: strokes for digit, strokes in draw_page.DIGITS.items() if len(strokes) == 1},
    2: [[(85, 95), (110, 60), (150, 50), (190, 70), (195, 110), (160, 160), (85, 230), (205, 230)]],
    6: [
        [
            (180, 50),
            (130, 80),
            (95, 140),
            (90, 190),
            (115, 230),
            (160, 232),
            (190, 200),
            (180, 160),
            (140, 145),
            (100, 175),
        ]
    ],
    9: [[(190, 100), (160, 60), (110, 60), (90, 100), (110, 135), (160, 130), (190, 100), (180, 170), (165, 240)]],
}
STROKE_STEP_PX = 12.0  # a 60 Hz pointer on a quick stroke (720 px/s)
SIDEBAR_SLIDERS = '[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]'
ALPHA_STOPS = ("0", "0.001", "0.003", "0.01", "0.03", "0.1", "0.3", "0.5", "1", "2", "3", "5", "10", "30", "100")

# Arms a timer in the page: start at the next pointerup (mouse button released) or keydown, done at the first animation frame
# after the condition holds. kind "stroke": the prediction area (draw_page.DRAW_SIGNATURE_JS) differs from
# ``baseline`` and shows a prediction. kind "run": the script is not running and the sidebar's formula
# caption contains ``want``.
PROBE_JS = """([kind, baseline, want]) => {
    window.__lb = {kind, baseline, want, start: null, done: null, pending: false, text: null};
    if (window.__lbInstalled) { window.__lbCheck(); return; }
    window.__lbInstalled = true;
    const arm = () => { const b = window.__lb; if (b && b.start === null) b.start = performance.now(); };
    window.addEventListener('pointerup', arm, true);
    window.addEventListener('keydown', arm, true);
    const signature = (SIGNATURE);
    window.__lbCheck = () => {
        const b = window.__lb;
        if (!b || b.start === null || b.done !== null || b.pending) return;
        let ok = false, text = null;
        if (b.kind === 'stroke') {
            text = signature();
            ok = text !== b.baseline && text.includes('Naive Bayes prediction');
        } else {
            const app = document.querySelector('[data-testid="stApp"]');
            const side = document.querySelector('[data-testid="stSidebar"]');
            text = side ? side.innerText : '';
            ok = !!app && app.getAttribute('data-test-script-state') === 'notRunning'
                && text.replace(/\\s+/g, ' ').includes(b.want);
        }
        if (ok) {
            b.pending = true;
            requestAnimationFrame(() => { b.done = performance.now(); b.text = text; });
        }
    };
    new MutationObserver(() => window.__lbCheck()).observe(document.body,
        {subtree: true, childList: true, characterData: true, attributes: true,
         attributeFilter: ['data-test-script-state', 'inert']});
}""".replace("(SIGNATURE)", f"({draw_page.DRAW_SIGNATURE_JS})")

# no "Naive Bayes prediction" shown: none, or all in what the canvas's Clear made inert (lab/digit_canvas.js)
CLEARED_JS = f"""() => [...document.querySelectorAll('[data-testid="stMetric"]')]
    .filter(m => m.innerText.includes({draw_page.PREDICTION_LABEL!r}))
    .every(m => m.closest('[inert]') !== null)"""

PAGE_STATE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return {connection: app ? app.getAttribute('data-test-connection-state') : null,
            script: app ? app.getAttribute('data-test-script-state') : null};
}"""


async def stroke(page, points, origin, step_px: float = STROKE_STEP_PX) -> None:
    ox, oy = origin
    x, y = points[0]
    await page.mouse.move(ox + x, oy + y)
    await page.mouse.down()
    for nx, ny in points[1:]:
        steps = max(1, int(((nx - x) ** 2 + (ny - y) ** 2) ** 0.5 / step_px + 0.999))
        await page.mouse.move(ox + nx, oy + ny, steps=steps)
        x, y = nx, ny
    await page.mouse.up()


async def canvas_origin(page, timeout_ms: float):
    """As draw_page.canvas_origin: one canvas on the page, and its script listens."""
    from playwright.async_api import expect

    await expect(page.locator(draw_page.CANVAS_SELECTOR)).to_have_count(1, timeout=timeout_ms)
    await expect(page.locator(draw_page.READY_CANVAS_SELECTOR)).to_have_count(1, timeout=timeout_ms)
    canvas = page.locator(draw_page.READY_CANVAS_SELECTOR)
    await canvas.wait_for(state="visible", timeout=timeout_ms)
    box = await canvas.bounding_box(timeout=timeout_ms)
    return box["x"], box["y"]


async def wait_for_run(page, timeout_ms: float) -> None:
    await page.wait_for_function(
        """() => { const app = document.querySelector('[data-testid="stApp"]');
                   return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
                       && app.getAttribute('data-test-script-state') === 'notRunning'; }""",
        timeout=timeout_ms,
        polling=100,
    )


async def open_draw_page(page, url: str, timeout_ms: float):
    """Go to /draw and wait for the blank canvas; the canvas's top-left corner on the page."""
    await page.goto(url + "/draw", timeout=timeout_ms)
    origin = await canvas_origin(page, timeout_ms)
    await page.locator('[data-testid="stAlert"]', has_text=draw_page.BLANK_PROMPT).wait_for(timeout=timeout_ms)
    await wait_for_run(page, timeout_ms)
    return origin


async def draw_and_time(
    page, digit: int, origin, timeout_ms: float, step_px: float = STROKE_STEP_PX
) -> tuple[float, str | None]:
    """Draw ``digit`` (one stroke); (seconds from mouseup to the updated prediction, the digit shown)."""
    baseline = await page.evaluate(draw_page.DRAW_SIGNATURE_JS)
    await page.evaluate(PROBE_JS, ["stroke", baseline, None])
    [points] = DIGITS[digit]
    await stroke(page, points, origin, step_px)
    return await prediction_after_stroke(page, timeout_ms)


async def prediction_after_stroke(page, timeout_ms: float) -> tuple[float, str | None]:
    """Wait for the prediction that the stroke drawn by draw_and_time brings; (seconds, the digit shown)."""
    await page.wait_for_function("() => window.__lb.done !== null", timeout=timeout_ms, polling=100)
    result = await page.evaluate("() => window.__lb")
    shown = re.search(r"Naive Bayes prediction (\d)", result["text"] or "")
    return (result["done"] - result["start"]) / 1000, shown.group(1) if shown else None


async def move_alpha_and_time(page, right: bool, timeout_ms: float) -> float:
    """One stop of the alpha slider by keyboard; seconds from keydown to the end of the run it caused."""
    slider = page.locator(SIDEBAR_SLIDERS).nth(1)
    current = await slider.get_attribute("aria-valuetext", timeout=timeout_ms)
    position = ALPHA_STOPS.index(current)
    target = ALPHA_STOPS[min(position + 1, len(ALPHA_STOPS) - 1) if right else max(position - 1, 0)]
    await page.evaluate(PROBE_JS, ["run", None, f"(nᵢᵧ + {target})"])
    await slider.focus(timeout=timeout_ms)
    await page.keyboard.press("ArrowRight" if right else "ArrowLeft")
    await page.wait_for_function("() => window.__lb.done !== null", timeout=timeout_ms, polling=100)
    result = await page.evaluate("() => window.__lb")
    return (result["done"] - result["start"]) / 1000


async def clear(page, timeout_ms: float) -> None:
    """Clear, the canvas's own button (no run): wait until the cleared drawing's prediction is hidden."""
    await page.get_by_role("button", name="Clear").click(timeout=timeout_ms)
    await page.wait_for_function(CLEARED_JS, timeout=timeout_ms, polling=100)
    await wait_for_run(page, timeout_ms)
