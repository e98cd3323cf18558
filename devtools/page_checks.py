"""What a page must never show, read in Chromium: an exception or error box, a layout problem on one of
``chromium.SCREENS`` (sideways scrolling, clipped or overlapping text), text under 4.5:1 contrast, a covered canvas.
"""

from __future__ import annotations

PAGE_PROBLEMS_JS = """() => {
    const out = [];
    for (const el of document.querySelectorAll(
            '[data-testid="stException"], [data-testid="stAlertContentError"], [data-testid="stError"]')) {
        out.push(el.getAttribute('data-testid') + ': ' + el.innerText.trim().slice(0, 2000));
    }
    return out;
}"""


def page_problems(page) -> list[str]:
    """Text of every exception box and error alert on the page."""
    return page.evaluate(PAGE_PROBLEMS_JS)


# What a page must never do on any screen: scroll sideways, clip a title or a label, push a
# chart's text out of its chart, or draw two chart texts over each other.
LAYOUT_PROBLEMS_JS = """() => {
    const problems = [];
    for (const el of [document.documentElement, document.querySelector('[data-testid="stMain"]')]) {
        if (el && el.scrollWidth > el.clientWidth + 1)
            problems.push(`scrolls sideways: ${el.getAttribute('data-testid') || el.tagName} is ${el.scrollWidth} px wide in ${el.clientWidth}`);
    }
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main) return ['no main area'];
    const texts = main.querySelectorAll('h1, h2, h3, [data-testid="stMetricLabel"] *, [data-testid="stMetricValue"] *, '
        + '[data-testid="stWidgetLabel"] p, [data-testid="stCaptionContainer"] p, button p, '
        + '[data-testid="stPageLink"] p');
    for (const el of texts) {
        if (getComputedStyle(el).display === 'inline' || el.clientWidth === 0) continue;
        if (el.scrollWidth > el.clientWidth + 1)
            problems.push(`text clipped: "${el.innerText.trim().slice(0, 60)}" (${el.scrollWidth} px in ${el.clientWidth})`);
    }
    for (const plot of main.querySelectorAll('.js-plotly-plot')) {
        const svg = plot.querySelector('.main-svg');
        if (!svg) continue;
        const chart = svg.getBoundingClientRect();
        const boxes = [...plot.querySelectorAll('.gtitle, .annotation-text, .g-xtitle text, .g-ytitle text, .cbtitle text')]
            .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([text, b]) => text && b.width > 0)
            .concat([...plot.querySelectorAll('.cbfills')].map(bar => ['(a colour bar)', bar.getBoundingClientRect()]));
        for (const [text, b] of boxes) {
            if (b.left < chart.left - 1 || b.right > chart.right + 1 || b.top < chart.top - 1 || b.bottom > chart.bottom + 1)
                problems.push(`chart text outside its chart: "${text.slice(0, 60)}"`);
        }
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [a, p] = boxes[i], [b, q] = boxes[j];
            const dx = Math.min(p.right, q.right) - Math.max(p.left, q.left);
            const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
            if (dx > 2 && dy > 2) problems.push(`chart texts overlap: "${a.slice(0, 40)}" and "${b.slice(0, 40)}"`);
        }
        // panel titles side by side need a gap: touching, two read as one ("What the model seesSeen + filled in")
        const titles = [...plot.querySelectorAll('.annotation-text')]
            .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([text, b]) => text && b.width > 0);
        for (let i = 0; i < titles.length; i++) for (let j = i + 1; j < titles.length; j++) {
            const [a, p] = titles[i], [b, q] = titles[j];
            const gap = Math.max(p.left, q.left) - Math.min(p.right, q.right);
            const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
            if (dy > 2 && gap < 4) problems.push(`panel titles run together: "${a.slice(0, 40)}" and "${b.slice(0, 40)}"`);
        }
    }
    return problems.concat(lowContrast(main), lowContrast(document.querySelector('[data-testid="stSidebar"]')));
}"""

# Text whose contrast with what is behind it is under 4.5:1 (WCAG AA), one line per colour pair.
LOW_CONTRAST_JS = """function lowContrast(root) {
    if (!root) return [];
    const parse = (c) => { const m = c.match(/[\\d.]+/g) || []; return m.length >= 3 ? [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1] : null; };
    const over = (top, bottom) => top.slice(0, 3).map((v, i) => v * top[3] + bottom[i] * (1 - top[3])).concat([1]);
    const background = (el) => {
        const layers = [];
        for (let e = el; e && e.nodeType === 1; e = e.parentElement || (e.getRootNode && e.getRootNode().host)) {
            const c = parse(getComputedStyle(e).backgroundColor);
            if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
        }
        return layers.reverse().reduce((bottom, top) => over(top, bottom), [255, 255, 255, 1]);
    };
    const luminance = (c) => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const found = new Map();
    const texts = root.querySelectorAll('p, li, label, h1, h2, h3, [data-testid="stMetricValue"] div, '
        + '[data-testid="stPageLink"] span, .xtick text, .ytick text, .gtitle, .annotation-text, .legendtext, .g-xtitle text, .g-ytitle text');
    for (const el of texts) {
        if (!el.textContent.trim() || el.getBoundingClientRect().width === 0) continue;
        // icons are pictures (3:1 suffices), a slider's value floats above its thumb, not on it
        if (el.closest('[data-testid="stIconMaterial"], [data-testid="stSliderThumbValue"], [data-testid="stSliderTickBarMin"], [data-testid="stSliderTickBarMax"]')) continue;
        // a control that cannot be used (WCAG 1.4.3 leaves inactive components out)
        if (el.closest('button:disabled, [aria-disabled="true"]')) continue;
        const style = getComputedStyle(el);
        const bg = background(el);
        const fg = over(parse(el instanceof SVGElement ? style.fill : style.color) || [0, 0, 0, 1], bg);
        const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
        const ratio = (hi + 0.05) / (lo + 0.05);
        const pair = `rgb(${fg.slice(0, 3).map(Math.round)}) on rgb(${bg.slice(0, 3).map(Math.round)})`;
        if (ratio < 4.5 && !found.has(pair)) found.set(pair, `low contrast ${ratio.toFixed(2)}:1, ${pair}: "${el.textContent.trim().slice(0, 40)}"`);
    }
    return [...found.values()];
}"""
LAYOUT_PROBLEMS_JS = LAYOUT_PROBLEMS_JS.replace("() => {", "() => {\n" + LOW_CONTRAST_JS, 1)


def layout_problems(page) -> list[str]:
    return page.evaluate(LAYOUT_PROBLEMS_JS)


# Points of a grid over the canvas (inside the viewport) where something else is on top of it.
CANVAS_COVERED_JS = """(grid) => {
    const find = (root) => {
        for (const el of root.querySelectorAll('*')) {
            if (el.matches('canvas.digit-canvas')) return el;
            if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; }
        }
        return null;
    };
    const canvas = find(document);
    if (!canvas) return ['no canvas'];
    const box = canvas.getBoundingClientRect();
    const covered = [];
    for (let i = 0; i < grid; i++) for (let j = 0; j < grid; j++) {
        const x = box.left + 4 + (box.width - 8) * i / (grid - 1), y = box.top + 4 + (box.height - 8) * j / (grid - 1);
        if (y < 0 || y >= window.innerHeight || x < 0 || x >= window.innerWidth) continue;
        let el = document.elementFromPoint(x, y);
        while (el && el.shadowRoot) {
            const inner = el.shadowRoot.elementFromPoint(x, y);
            if (!inner || inner === el) break;
            el = inner;
        }
        if (el !== canvas) covered.push(`(${Math.round(x - box.left)}, ${Math.round(y - box.top)}) under `
            + (el ? (el.getAttribute('data-testid') || el.tagName) + ' ' + (el.innerText || '').trim().slice(0, 40) : 'nothing'));
    }
    return covered;
}"""


def canvas_covered_points(page, grid: int = 8) -> list[str]:
    """Where a grid of points over the canvas hits another element (an empty list: the whole canvas draws)."""
    return page.evaluate(CANVAS_COVERED_JS, grid)


def in_viewport(page, locator) -> bool:
    """Whether the element is wholly inside the viewport and its centre is not under another element."""
    return locator.evaluate("""el => {
        const b = el.getBoundingClientRect();
        if (b.top < 0 || b.left < 0 || b.bottom > window.innerHeight || b.right > window.innerWidth) return false;
        const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
        return !!hit && (el === hit || el.contains(hit));
    }""")
