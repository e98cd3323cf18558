"""A page *fully drawn*, timed in the browser: connected, the script run ended, no loading skeleton or spinner,
every Plotly chart's SVG in the page, every image loaded, then nothing in the page changing for ``QUIET_MS``.

``new_context`` installs the probe; ``wait_drawn``, ``open_drawn`` (a link) and ``click_to_drawn`` (a click)
give the times, in milliseconds since navigation start in the probe's record, in seconds from the functions.
"""

from __future__ import annotations

from devtools import chromium, page_checks
from devtools.bench_harness import BenchServer
from devtools.rerun_log import whole_run_seconds

QUIET_MS = 800  # the page counts as drawn once nothing in it has changed for this long

# Installed before any page script. window.__drawn.at: performance.now() (ms since navigation start) when the
# page last became fully drawn, null while it is not; .changed: the last change seen in the page. Over a
# watched action (.watching): per animation frame, the canvas's movement, a progress bar's time, an empty page.
DRAWN_PROBE_JS = """(() => {
    const probe = window.__drawn = {at: null, changed: 0, charts: 0, progressMs: 0, emptyMain: false,
                                    canvasMoved: 0, canvasTop: null, watching: false, canvasReady: null};
    const why = reason => { probe.why = reason; return false; };  // what the page still lacks
    const drawnNow = () => {
        const app = document.querySelector('[data-testid="stApp"]');
        const main = document.querySelector('[data-testid="stMainBlockContainer"]');
        if (!app || !main || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return why('connecting');
        if (app.getAttribute('data-test-script-state') !== 'notRunning') return why('script running');
        if (!main.innerText.trim()) return why('empty page');
        // (a progress bar may be part of a page, as the lesson's; one that waits for work goes when the run ends)
        const busy = document.querySelector('[data-testid="stSkeleton"], [data-testid="stSpinner"]');
        if (busy) return why(busy.getAttribute('data-testid'));
        const status = document.querySelector('[data-testid="stStatusWidget"]');
        if (status && /Running/i.test(status.innerText)) return why('status: running');
        const charts = [...main.querySelectorAll('[data-testid="stPlotlyChart"]')];
        if (charts.some(chart => !chart.querySelector('.main-svg'))) return why('a chart not drawn');
        if ([...main.querySelectorAll('img')].some(img => !img.complete)) return why('an image loading');
        probe.charts = charts.length;
        probe.why = null;
        return true;
    };
    // a loaded image changes nothing in the DOM: the state is checked every animation frame, changes are observed
    // in the app's own tree (what a visitor sees), not in <head> or <body> where a library loading in the
    // background (Plotly's code, preloaded on a page without charts) adds its styles and a hidden probe
    let observed = null;
    const observe = () => {
        const app = document.querySelector('[data-testid="stApp"]');
        if (!app || app === observed) return;
        observed = app;
        probe.changed = performance.now();
        new MutationObserver(() => { probe.changed = performance.now(); }).observe(app,
            {subtree: true, childList: true, characterData: true, attributes: true});
    };
    const find = root => {  // the drawing canvas lives in a component's shadow root
        for (const el of root.querySelectorAll('*')) {
            if (el.matches('canvas.digit-canvas')) return el;
            if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; }
        }
        return null;
    };
    const onDraw = () => /\\/draw\\/?$/.test(location.pathname);  // only Draw has a canvas: no search elsewhere
    let last = null;
    const frame = now => {
        observe();
        if (!drawnNow()) probe.at = null;
        else if (probe.at === null) probe.at = now;
        if (probe.canvasReady === null && onDraw()) {  // when a stroke would first be taken
            const canvas = find(document);
            if (canvas && canvas.getAttribute('data-ready') === 'true') probe.canvasReady = now;
        }
        if (probe.watching) {
            const canvas = onDraw() ? find(document) : null;
            if (canvas) {
                const top = canvas.getBoundingClientRect().top + window.scrollY;
                if (probe.canvasTop === null) probe.canvasTop = top;
                probe.canvasMoved = Math.max(probe.canvasMoved, Math.abs(top - probe.canvasTop));
            }
            if (document.querySelector('[data-testid="stProgress"]') && last !== null) probe.progressMs += now - last;
            const main = document.querySelector('[data-testid="stMainBlockContainer"]');
            if (main && !main.innerText.trim()) probe.emptyMain = true;
        }
        last = now;
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
})()"""

DRAWN_AND_QUIET_JS = f"""() => {{
    const probe = window.__drawn;
    return !!probe && probe.at !== null && performance.now() - Math.max(probe.at, probe.changed) > {QUIET_MS}
        || !!document.querySelector('[data-testid="stException"]');
}}"""


def settled_ms(probe: dict) -> float:
    """When the page reached the look it kept (ms since navigation): drawn, and its last change after that."""
    return max(probe["at"], probe["changed"])


def wait_drawn(page, timeout: float = 180.0) -> dict:
    """Wait until the page is fully drawn and quiet; the probe's record. An error box on the page: RuntimeError."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(DRAWN_AND_QUIET_JS, timeout=timeout * 1000, polling=50)
    except PlaywrightTimeout:
        probe = page.evaluate("() => window.__drawn")
        raise RuntimeError(f"{page.url}: not drawn after {timeout:.0f} s ({probe and probe.get('why')})") from None
    problems = page_checks.page_problems(page)
    if problems:
        raise RuntimeError(f"{page.url}: {problems}")
    return page.evaluate("() => window.__drawn")


def new_context(browser, viewport: dict):
    context = browser.new_context(viewport=viewport)
    context.add_init_script(DRAWN_PROBE_JS)
    return context


def open_drawn(browser, viewport: dict, url: str, context=None) -> tuple[float, int, float | None]:
    """Seconds from navigation start to fully drawn, the number of charts, and seconds to a drawing canvas
    ready for strokes (None without one): in a new browser context, or a new tab of ``context``."""
    own = context is None
    if own:
        context = new_context(browser, viewport)
    page = context.new_page()
    try:
        page.goto(url, timeout=180_000)
        drawn = wait_drawn(page)
        ready = drawn["canvasReady"]
        return settled_ms(drawn) / 1000, drawn["charts"], None if ready is None else ready / 1000
    finally:
        (context if own else page).close()


CLICKED_JS = """() => { Object.assign(window.__drawn, {clicked: null});
    window.addEventListener('click', () => { window.__drawn.clicked = performance.now(); },
                            {capture: true, once: true}); }"""


def click_to_drawn(page, server: BenchServer, click, shown_js: str = "() => false") -> tuple[float, dict, float]:
    """``click()`` (a link or button that starts a run), then wait until the page is fully drawn and quiet again:
    (seconds from the click to fully drawn, the probe's record, the server's whole-run seconds since the click).
    ``shown_js``: a JS predicate for what the click brings (a quick run may never say "running")."""
    runs_before = len(server.runs())
    page.evaluate(CLICKED_JS)
    page.evaluate(chromium.RUN_STARTED_JS)
    click()
    # until then the old page counts as drawn
    page.wait_for_function(chromium.run_begun_js(shown_js), timeout=60_000, polling=20)
    drawn = wait_drawn(page)
    return (settled_ms(drawn) - drawn["clicked"]) / 1000, drawn, whole_run_seconds(server.runs()[runs_before:])
