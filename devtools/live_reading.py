"""The canvas's reading (lab/canvas.py's READING_SCRIPTS: lab/digit_framing.js, lab/digit_reading.js) in a blank
Chromium page, and drawings to read: the parity test's and benchmark's tools.

``open_reader(browser)`` gives a page where ``window.reading`` is the module (its exports) and ``window.models``
holds decoded models per name. Drawings are made in that page on a 280 x 280 canvas with the canvas component's
brush (white, round caps): ``DRAW_JS`` strokes polylines (canvas coordinates), and ``digit_strokes`` turns an
MNIST digit into such polylines (its Zhang-Suen skeleton, each pixel joined to its 8-neighbours, x10), so that
MNIST's test digits can be drawn back as a student would draw them. ``measure_parity`` reads such drawings in the
page and with nbcore and compares them (tests/e2e/test_live_reading.py asserts on it, devtools/live_bench.py prints
it over more digits).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import nbcore
from devtools import async_draw, draw_page
from devtools.app_server import REPO
from devtools.bench_report import markdown_table
from lab import canvas
from lab.live_models import payload
from nbcore.inputs import InputForm
from nbcore.models.softmax_cache import load_or_train_softmax
from nbcore.preprocess import CANVAS_BITMAP_SIDE, ink_from_canvas_png, model_input
from nbcore.strokes import skeleton

READING_JS = canvas.joined(canvas.READING_SCRIPTS)  # the reading alone: one module, without the canvas
SCALE = CANVAS_BITMAP_SIDE // 28  # canvas px per MNIST pixel

# the module's exports on window.reading; models decoded once per name
_LOADER = """
window.reading = {modelInput, asSeen, scoreBayes, scoreSoftmax, decodeModels, readDrawing, readCanvas, InkRegion};
window.models = {};
window.readingReady = true;
"""

# ([strokes, brush]) -> the canvas (280 x 280) with these polylines drawn as lab/digit_canvas.js paints
DRAW_JS = """([strokes, brush]) => {
    let canvas = document.getElementById('pad');
    if (!canvas) {
        canvas = document.createElement('canvas');
        canvas.id = 'pad'; canvas.width = canvas.height = SIDE;
        document.body.appendChild(canvas);
    }
    const context = canvas.getContext('2d', {willReadFrequently: true});
    context.fillStyle = '#000';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.strokeStyle = context.fillStyle = '#fff';
    context.lineCap = context.lineJoin = 'round';
    context.lineWidth = brush;
    for (const points of strokes) {
        context.beginPath();
        if (points.length === 1) {
            context.arc(points[0][0], points[0][1], brush / 2, 0, 2 * Math.PI);
            context.fill();
        } else {
            context.moveTo(...points[0]);
            points.slice(1).forEach((point) => context.lineTo(...point));
            context.stroke();
        }
    }
    return canvas;
}""".replace("SIDE", str(CANVAS_BITMAP_SIDE))


def open_reader(browser):
    """A blank page in ``browser`` with the reading (``READING_JS``) loaded as ``window.reading``."""
    page = browser.new_page()
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(content=READING_JS + _LOADER, type="module")
    page.wait_for_function("() => window.readingReady === true")
    return page


def digit_strokes(
    image: np.ndarray, scale: float = SCALE, offset: tuple[float, float] = (0.0, 0.0)
) -> list[list[tuple[float, float]]]:
    """uint8 (28, 28) digit -> polylines on the 280 px canvas along its skeleton (pixels >= 128).

    Each skeleton pixel is joined to its right, lower and two lower diagonal neighbours by a segment; a pixel
    without neighbours is a dot. Coordinates are pixel centres x ``scale`` (canvas px per MNIST pixel), + ``offset``
    (x, y) in canvas px.
    """
    bones = skeleton(np.asarray(image) >= 128)

    def centre(row: int, col: int) -> tuple[float, float]:
        return ((col + 0.5) * scale + offset[0], (row + 0.5) * scale + offset[1])

    lines: list[list[tuple[float, float]]] = []
    rows, cols = np.nonzero(bones)
    for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
        joined = False
        for d_row, d_col in ((0, 1), (1, -1), (1, 0), (1, 1)):
            r, c = row + d_row, col + d_col
            if 0 <= r < 28 and 0 <= c < 28 and bones[r, c]:
                lines.append([centre(row, col), centre(r, c)])
                joined = True
        if not joined and not bones[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2].sum() > 1:
            lines.append([centre(row, col)])
    return lines


# -- parity: the page's reading against nbcore's ------------------------------------------------------------------
THRESHOLDS = (1, 128, 192)  # the course note's, the textbook's, and the sidebar's highest
FORMS = [InputForm(threshold, deskew) for deskew in (False, True) for threshold in THRESHOLDS]
BRUSHES = (8, 16, 24, 32, 40)  # the Brush width slider's range
PLACES = ((10.0, (0.0, 0.0)), (7.0, (30.0, 50.0)), (4.0, (150.0, 20.0)), (0.6, (120.0, 130.0)))  # scale, offset


def form_name(form: InputForm) -> str:
    return f"T={form.threshold}{' deskewed' if form.deskew else ''}"


# ([drawing, names]) -> what the page reads from one drawing under each named model set: the posteriors, the
# framed digit, and the canvas as the PNG the component would send; and the framed digit read as the canvas reads
# it while the pen moves, from the part the brush reached only (InkRegion; a picture: the whole canvas)
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
    const context = canvas.getContext('2d');
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const reading = window.reading;
    const made = reading.modelInput(pixels, canvas.width, canvas.height, window.models[names[0]].constants);
    const region = new reading.InkRegion(canvas.width, canvas.height);
    if (drawing.png) region.addAll(); else drawing.strokes.flat().forEach((point) => region.add(point, drawing.brush));
    const live = reading.readCanvas(context, region, window.models[names[0]]);
    const out = {
        png: canvas.toDataURL('image/png'), frame: made && Array.from(made.frame),
        regionFrame: live && Array.from(live.made.frame), scores: {},
    };
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
}""".replace("(DRAW)", f"({DRAW_JS})")


def parity_models(
    mnist: dict, cache: Path
) -> dict[str, tuple[InputForm, nbcore.BernoulliNB, nbcore.SoftmaxRegression]]:
    """Name -> (form, naive Bayes, softmax): naive Bayes (alpha = beta = 1, empirical prior) per form, one
    unsmoothed, softmax regression per deskew setting (weights cached in ``cache``). ``mnist``: the four arrays."""
    built = {}
    for deskew in (False, True):
        train = InputForm(128, deskew).images(mnist["train_images"])
        softmax, _ = load_or_train_softmax(train, mnist["train_labels"], preset="default", cache_dir=cache)
        for form in FORMS:
            if form.deskew == deskew:
                bayes = nbcore.BernoulliNB(alpha=1.0, beta=1.0).fit(
                    nbcore.binarize(train, form.threshold), mnist["train_labels"]
                )
                built[form_name(form)] = (form, bayes, softmax)
                if form == InputForm():  # alpha = beta = 0 (the sidebar's first stop): impossible pixels, -inf
                    built["T=128 unsmoothed"] = (form, bayes.with_params(alpha=0.0, beta=0.0), softmax)
    return built


def drawings(mnist: dict, mnist_drawn: int) -> list[tuple[str, dict]]:
    """(name, drawing) pairs: a drawing is {"png": data URL} or {"strokes": polylines, "brush": px}."""
    recorded = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
    found = [(f"recorded {item['digit']}", {"png": json.loads(item["json_value"])["drawing"]}) for item in recorded]
    shapes = {
        **{f"harness {d}": s for d, s in draw_page.DIGITS.items()},
        **{f"load {d}": s for d, s in async_draw.DIGITS.items()},
    }
    for name, strokes in shapes.items():
        for brush in BRUSHES:
            found.append((f"{name} brush {brush}", {"strokes": strokes, "brush": brush}))
    for index in range(mnist_drawn):
        scale, offset = PLACES[index % len(PLACES)]
        brush = BRUSHES[index % len(BRUSHES)] if scale >= 4 else BRUSHES[0]
        strokes = digit_strokes(mnist["test_images"][index], scale, offset)
        found.append((f"MNIST test {index} x{scale} brush {brush}", {"strokes": strokes, "brush": brush}))
    return found


@dataclass
class Parity:
    """What the page read against what nbcore read, over the drawings: per (model set, "bayes"/"softmax")."""

    agree: dict[tuple[str, str], int]  # drawings whose predicted digit is the same
    largest: dict[tuple[str, str], float]  # largest |posterior difference| over all drawings and digits
    read: int = 0  # drawings with ink
    blank: int = 0
    frames_differing: list[str] = field(default_factory=list)  # framed 28x28 digits not identical (to nbcore's,
    # or the brush's region's to the whole canvas's)
    actions: set[str] = field(default_factory=set)  # the stroke steps the drawings went through

    def table(self) -> str:
        rows = [
            [
                name,
                "naive Bayes" if model == "bayes" else "softmax",
                f"{self.agree[name, model]}/{self.read}",
                f"{self.largest[name, model]:.1e}",
            ]
            for name, model in self.agree
        ]
        headers = ["model set", "model", "digits agreeing", "largest posterior difference"]
        return (
            f"{self.read} drawings read ({self.blank} blank), framed digits differing: {len(self.frames_differing)}\n"
            + markdown_table(headers, rows, right=[False, False, True, True])
        )


def measure_parity(browser, mnist: dict, models: dict, mnist_drawn: int) -> Parity:
    """Read every drawing of ``drawings`` in a page (``READING_JS``) and with nbcore; compare."""
    page = open_reader(browser)
    names = list(models)
    parity = Parity({(name, model): 0 for name in names for model in ("bayes", "softmax")}, {})
    parity.largest = dict.fromkeys(parity.agree, 0.0)
    try:
        for name, (form, bayes, softmax) in models.items():
            page.evaluate(
                "([name, sent]) => { window.models[name] = window.reading.decodeModels(sent); }",
                [name, payload(bayes, softmax, form)],
            )
        for label, drawing in drawings(mnist, mnist_drawn):
            seen_in_page = page.evaluate(READ_JS, [drawing, names])
            made = model_input(ink_from_canvas_png(seen_in_page["png"]))
            if made is None or seen_in_page["frame"] is None:
                if (made is None) != (seen_in_page["frame"] is None):
                    parity.frames_differing.append(f"{label} (blank to one of them only)")
                parity.blank += 1
                continue
            if seen_in_page["regionFrame"] != seen_in_page["frame"]:
                parity.frames_differing.append(f"{label} (read in the brush's region)")
            parity.read += 1
            parity.actions.add(made.stroke_action)
            if not np.array_equal(np.array(seen_in_page["frame"], np.uint8).reshape(28, 28), made.frame):
                parity.frames_differing.append(label)
            for name, (form, bayes, softmax) in models.items():
                prepared = form.prepare(made.frame[None])
                truth = {
                    "bayes": bayes.predict_proba(prepared.features)[0],
                    "softmax": softmax.predict_proba(prepared.images)[0],
                }
                for model, posterior in truth.items():
                    live = np.array(seen_in_page["scores"][name][model])
                    parity.agree[name, model] += int(np.argmax(live) == np.argmax(posterior))
                    parity.largest[name, model] = max(
                        parity.largest[name, model], float(np.abs(live - posterior).max())
                    )
    finally:
        page.close()
    return parity
