// The Draw page's canvas, the component's entry point (a Streamlit components-v2 module: the last of the files
// lab/canvas.py's SCRIPTS joins into one, after the reading and the live panel, lab/digit_live_panel.js):
// white ink on black, drawn with a mouse, pen or finger (pointer events). While the pen moves, the live panel reads
// the drawing and shows what both models make of it. The server gets the drawing once the pen has rested: `data.rest`
// ms after a pointer-up with no new stroke (lab/canvas.py's REST_MS says why that long), the whole canvas as a PNG
// data URL in the "drawing" state; a stroke begun in the pause cancels the send, so a digit of several strokes costs
// one run.
// Clear is the component's own button: it blanks the canvas here, with no run. What the page drew from the last
// sent drawing (the elements with the CSS classes in `data.stale`: the verdict, the explanation, the send form) is
// then out of date, so it is hidden (its room kept, so that nothing moves) until the page reports its reading of
// a drawing sent after the Clear.
//
// The brush width is the component's own slider (`data.brush`): moved, it changes the next strokes at once, with no
// run, and writes its value into the address (the link a reader copies or reloads); the page learns it with the
// next drawing, sent as {png, brush}, and keeps it in its link. The page's width is taken when the canvas is set
// up, when a Reset button was pressed (`resets` changed) and while a teacher's link locks it.
//
// Streamlit calls this function again on every rerun that changes `data`, possibly in the middle of a stroke;
// the stroke in progress and the listeners therefore live on the canvas element (set up once), and a call only
// updates the brush and the sender.
// Its words (the canvas's accessible name, Clear's label, the brush's label and help) come in `data.words` and
// `data.brush` in the reader's language (lab/canvas.py's words()) and its numbers are written for the reader's
// BCP 47 tag (`data.tag`): no sentence is written in this file.

const pads = new WeakMap();  // canvas element -> {context, brush, rest, send, last, live, ...}
const GAPS_KEPT = 1000;  // the latest pauses between strokes (pointer-up to pointer-down, ms), on canvas.strokeGaps
// drawings (lab/canvas.py's drawing_tag) cleared in this tab: the page may still hold one and hand it back as the
// canvas's `restore` when the reader comes back to Draw (it learns of a Clear only with the next drawing)
const cleared = new Set();

// what the page shows of the server's last run: hidden (room kept) while the canvas holds something else, and
// shown again once the page has read a newer drawing or the canvas has left the page (another input, another page).
// While hidden, what the page adds is watched: a run may draw those parts after the canvas hid them (coming back
// to Draw after a Clear, the page draws the cleared drawing's verdict again).
function showStale(pad, shown, canvas) {
  const apply = (visible) => {
    for (const name of pad.stale) {
      for (const element of document.getElementsByClassName(name)) {
        // transparent (a child's own visibility cannot undo it) and inert: out of reach of pointer, keyboard and
        // screen reader alike; its room is kept
        if (element.inert === visible) {
          element.style.opacity = visible ? "" : "0";
          element.inert = !visible;
        }
      }
    }
  };
  apply(shown);
  pad.staleHidden = !shown;
  if (shown && pad.watch) {
    pad.watch.disconnect();
    pad.watch = null;
  } else if (!shown && !pad.watch) {
    pad.watch = new MutationObserver(() => {
      if (canvas.isConnected) apply(false);
      else showStale(pad, true, canvas);
    });
    pad.watch.observe(document.body, { childList: true, subtree: true });
  }
}

function setUp(canvas, restore, panel, stale) {
  // read back on every animation frame with ink: kept in memory, not on the GPU
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const pad = {
    context, brush: null, resets: null, rest: 0, send: () => {}, last: null, live: null,
    timer: null, strokeEnded: null, stale, staleHidden: false, watch: null, sentTag: null, lastReport: null,
  };
  const region = new InkRegion(canvas.width, canvas.height);  // where the ink can be: what the live reading reads
  context.fillStyle = "#000";
  context.fillRect(0, 0, canvas.width, canvas.height);
  pad.live = liveReader(canvas, panel, context, region);
  canvas.strokeGaps = [];
  const onServerReading = (event) => {  // the page read the drawing sent last: its parts are up to date again
    if (!canvas.isConnected) { window.removeEventListener("naive-bayes-lab-server-reading", onServerReading); return; }
    if (!event.detail) return;
    pad.lastReport = event.detail;  // what the page holds and shows (hidden or not)
    if (pad.staleHidden && event.detail.tag === pad.sentTag) showStale(pad, true, canvas);
  };
  window.addEventListener("naive-bayes-lab-server-reading", onServerReading);
  if (restore && cleared.has(tagOf(restore))) {
    // cleared in this tab since: the page learns it now (one run, "" for a blank canvas) and meanwhile what it
    // shows of that drawing is hidden
    pad.tellCleared = true;
    showStale(pad, false, canvas);
  } else if (restore) {  // the drawing this session made before the page was left
    const image = new Image();
    image.onload = () => {
      context.drawImage(image, 0, 0);
      region.addAll();
      if (pad.live) {
        pad.live.inked(null);
        pad.live.sent(restore);  // what the page reads and reports
      }
    };
    image.src = restore;
    pad.sentTag = tagOf(restore);
  }

  const canvasPoint = (event) => {
    const box = canvas.getBoundingClientRect();
    return [(event.clientX - box.left) * canvas.width / box.width,
            (event.clientY - box.top) * canvas.height / box.height];
  };
  const paint = (points) => {
    points.forEach((point) => region.add(point, pad.brush));
    context.strokeStyle = context.fillStyle = "#fff";
    context.lineCap = context.lineJoin = "round";
    context.lineWidth = pad.brush;
    context.beginPath();
    if (points.length === 1) {
      context.arc(...points[0], pad.brush / 2, 0, 2 * Math.PI);
      context.fill();
    } else {
      context.moveTo(...points[0]);
      points.slice(1).forEach((point) => context.lineTo(...point));
      context.stroke();
    }
  };

  // the pen has rested: the drawing to the page (one run), and what the page reads of it is the panel's
  const sendRested = () => {
    pad.timer = null;
    const drawing = canvas.toDataURL("image/png");
    if (pad.live) pad.live.sent(drawing);
    pad.sentTag = tagOf(drawing);
    if (pad.lastReport && pad.lastReport.tag === pad.sentTag) {
      // the very drawing the page holds, drawn again after a Clear: what it shows is this drawing's again, no run
      cleared.delete(pad.sentTag);
      window.dispatchEvent(new CustomEvent("naive-bayes-lab-server-reading", { detail: pad.lastReport }));
      return;
    }
    pad.send("drawing", { png: drawing, brush: pad.brush });
  };
  canvas.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    if (pad.timer !== null) {  // a new stroke in the pause: the digit is not done, no run yet
      clearTimeout(pad.timer);
      pad.timer = null;
    }
    if (pad.strokeEnded !== null) {
      canvas.strokeGaps.push(event.timeStamp - pad.strokeEnded);
      if (canvas.strokeGaps.length > GAPS_KEPT) canvas.strokeGaps.shift();
    }
    canvas.setPointerCapture(event.pointerId);
    pad.last = canvasPoint(event);
    paint([pad.last]);
    if (pad.live) pad.live.inked(event);
  });
  canvas.addEventListener("pointermove", (event) => {
    if (pad.last === null) return;
    const coalesced = event.getCoalescedEvents ? event.getCoalescedEvents() : [];
    const points = [pad.last, ...(coalesced.length ? coalesced : [event]).map(canvasPoint)];
    paint(points);
    pad.last = points[points.length - 1];
    if (pad.live) pad.live.inked(event);
  });
  const endStroke = (event) => {
    if (pad.last === null) return;
    pad.last = null;
    pad.strokeEnded = event.timeStamp;
    pad.timer = setTimeout(sendRested, pad.rest);
  };
  canvas.addEventListener("pointerup", endStroke);
  canvas.addEventListener("pointercancel", endStroke);
  pad.clear = () => {  // Clear: a blank canvas here, no run; the page's parts stay hidden until a new reading
    if (pad.timer !== null) clearTimeout(pad.timer);
    pad.timer = null;
    pad.last = null;
    pad.strokeEnded = null;
    context.fillStyle = "#000";
    context.fillRect(0, 0, canvas.width, canvas.height);
    region.clear();
    if (pad.sentTag !== null) {
      cleared.add(pad.sentTag);
      pad.sentTag = null;
    }
    if (pad.live) pad.live.cleared();
    showStale(pad, false, canvas);
  };
  canvas.dataset.ready = "true";  // listening: what tests wait for before they draw
  return pad;
}

// The address with `name=value`, or without `name` when value is its default (as Streamlit writes a bound widget's),
// every other parameter kept as written; the history entry replaced, not added.
function writeLink(name, value, fallback) {
  const kept = window.location.search.replace(/^\?/, "").split("&")
    .filter((part) => part && decodeURIComponent(part.split("=")[0]) !== name);
  if (value !== fallback) kept.push(`${encodeURIComponent(name)}=${value}`);
  const search = kept.length ? `?${kept.join("&")}` : "";
  if (search !== window.location.search) {
    window.history.replaceState(window.history.state, "", window.location.pathname + search + window.location.hash);
  }
}

function showBrush(parentElement, pad, control, tag) {
  const slider = parentElement.querySelector("input.brush-width");
  const label = parentElement.querySelector(".brush-label");
  const help = parentElement.querySelector("#brush-help");
  if (pad.resets !== control.resets || control.locked) {
    pad.resets = control.resets;
    pad.brush = control.width;
  }
  slider.min = String(control.lowest);
  slider.max = String(control.highest);
  slider.value = String(pad.brush);
  slider.disabled = control.locked;
  if (label.textContent !== control.label) label.textContent = control.label;
  if (help.textContent !== control.help) help.textContent = control.help;
  parentElement.querySelector(".brush-value").textContent = new Intl.NumberFormat(tag).format(pad.brush);
}

export default function ({ parentElement, data, setStateValue }) {
  const canvas = parentElement.querySelector("canvas.digit-canvas");
  const clear = parentElement.querySelector("button.canvas-clear");
  const slider = parentElement.querySelector("input.brush-width");
  let pad = pads.get(canvas);
  if (!pad) {
    pad = setUp(canvas, data.restore, parentElement.querySelector(".live-reading"), data.stale);
    pads.set(canvas, pad);
    clear.addEventListener("click", () => pad.clear());
    slider.addEventListener("input", () => {  // the next stroke is this wide: no run
      pad.brush = Number(slider.value);
      showBrush(parentElement, pad, pad.brushControl, pad.tag);
    });
    slider.addEventListener("change", () => writeLink(pad.brushControl.name, pad.brush, pad.brushControl.default));
  }
  pad.brushControl = data.brush;
  pad.tag = data.tag;
  showBrush(parentElement, pad, data.brush, data.tag);
  pad.rest = data.rest;
  pad.send = setStateValue;
  if (pad.tellCleared) {
    pad.tellCleared = false;
    pad.send("drawing", "");
  }
  if (canvas.getAttribute("aria-label") !== data.words.canvas) canvas.setAttribute("aria-label", data.words.canvas);
  if (clear.textContent !== data.words.clear) clear.textContent = data.words.clear;
  if (pad.live) {
    pad.live.setLook(data.look);
    pad.live.setWords(data.words, data.tag);
    pad.live.setModels(window.naiveBayesLabModels || null);
  }
}
