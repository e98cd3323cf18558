
// The Draw page's canvas (a Streamlit components-v2 module, after lab/digit_reading.js in the same module):
// white ink on black, drawn with a mouse, pen or finger (pointer events). While the pen moves, the drawing is
// read here (readCanvas: both models, as nbcore would, reading back only the part of the canvas the brush reached)
// once per animation frame that has new ink, and the panel under the canvas shows the verdict, both posteriors and
// the evidence map. The server gets the drawing once the pen has rested: `data.rest` ms after a pointer-up with no
// new stroke (lab/canvas.py's REST_MS says why that long), the whole canvas as a PNG data URL in the "drawing"
// state; a stroke begun in the pause cancels the send, so a digit of several strokes costs one run. The page's
// reading of the sent PNG, reported after its run (window event "naive-bayes-lab-server-reading"), then takes the
// panel's place; the panel says so only when they disagree.
// Clear is the component's own button: it blanks the canvas here, with no run. What the page drew from the last
// sent drawing (the elements with the CSS classes in `data.stale`: the verdict, the explanation, the send form) is
// then out of date, so it is hidden (its room kept, so that nothing moves) until the page reports its reading of
// a drawing sent after the Clear.
// Without what the live reading needs (an old browser) or if it fails, the panel stays hidden and the rested
// send alone works as before.
//
// The brush width is the component's own slider (`data.brush`): moved, it changes the next strokes at once, with no
// run, and writes its value into the address (the link a reader copies or reloads); the page learns it with the
// next drawing, sent as {png, brush}, and keeps it in its link. The page's width is taken when the canvas is set
// up, when a Reset button was pressed (`resets` changed) and while a teacher's link locks it.
//
// Streamlit calls this function again on every rerun that changes `data`, possibly in the middle of a stroke;
// the stroke in progress and the listeners therefore live on the canvas element (set up once), and a call only
// updates the brush and the sender. The models arrive separately (window.naiveBayesLabModels and the event
// "naive-bayes-lab-models", from lab/canvas.py's send_live_models), once per settings change.
// Its words (the canvas's accessible name, the verdict, the note) come in `data.words` in the reader's language
// (lab/canvas.py's words(), placeholders such as {bayes} filled here) and its numbers are written for the reader's
// BCP 47 tag (`data.tag`): no sentence is written in this file.

const pads = new WeakMap();  // canvas element -> {context, brush, rest, send, last, live, ...}
const TIMES_KEPT = 1000;  // the latest live updates' script times, on canvas.liveTimes (devtools/live_bench.py)
const GAPS_KEPT = 1000;  // the latest pauses between strokes (pointer-up to pointer-down, ms), on canvas.strokeGaps
// drawings (lab/canvas.py's drawing_tag) cleared in this tab: the page may still hold one and hand it back as the
// canvas's `restore` when the reader comes back to Draw (it learns of a Clear only with the next drawing)
const cleared = new Set();
const tagOf = (drawing) => `${drawing.length}:${drawing.slice(-32)}`;  // lab/canvas.py's drawing_tag

function liveSupported(canvas, context) {
  if (!(typeof window.requestAnimationFrame === "function" && typeof window.atob === "function"
    && typeof Float64Array === "function" && typeof canvas.getContext === "function"
    && typeof CustomEvent === "function")) return false;
  // reading the canvas back, tried once here: a blank canvas is not read back, so the first real read can come
  // long after the panel appears, and a browser that refuses it should never show the panel
  try {
    context.getImageData(0, 0, 1, 1);
    return true;
  } catch (error) {
    console.warn("Live reading off: the canvas cannot be read back", error);
    return false;
  }
}

// a message from lab/canvas.py's words() with its {placeholders} filled
const fill = (message, values) => message.replace(/\{(\w+)\}/g, (hole, name) => (name in values ? values[name] : hole));
// a probability with 4 decimals as the reader writes it ("0.9876", "0,9876")
function probabilityFormat(tag) {
  try {
    return new Intl.NumberFormat(tag || undefined, { minimumFractionDigits: 4, maximumFractionDigits: 4 });
  } catch (error) {  // a tag this browser does not know
    return new Intl.NumberFormat(undefined, { minimumFractionDigits: 4, maximumFractionDigits: 4 });
  }
}

function liveReader(canvas, panel, context, region) {
  if (!panel || !liveSupported(canvas, context)) return null;
  const verdict = panel.querySelector(".live-verdict");
  const note = panel.querySelector(".live-note");
  const evidenceCanvas = panel.querySelector(".live-evidence");
  const barsCanvas = panel.querySelector(".live-bars");
  const state = {
    payload: null, models: null, look: null, dirty: false, scheduled: false, firstMove: null,
    reading: null, sentTag: null, inkSinceSent: false,
    words: null, tag: null, format: probabilityFormat(undefined),
    // what the panel says, to say again in another language: ["prompt"] or ["show", bayes, softmax, source], and
    // the note's digits (null: no note)
    view: null, noteArgs: null,
  };
  canvas.liveTimes = [];

  let stopsOf = null, stops = null;  // the evidence scale's stops as [t, [r, g, b]], parsed once per look
  const evidenceStops = () => {
    if (stopsOf !== state.look) {
      stopsOf = state.look;
      stops = state.look.evidence.map(([t, colour]) => [t, colour.match(/\d+/g).map(Number)]);
    }
    return stops;
  };
  const colourAt = (t) => {  // t in [0, 1] on the evidence map's colour scale
    const scale = evidenceStops();
    let i = 1;
    while (i < scale.length - 1 && scale[i][0] < t) i++;
    const [t0, a] = scale[i - 1], [t1, b] = scale[i];
    const f = t1 > t0 ? Math.min(Math.max((t - t0) / (t1 - t0), 0), 1) : 0;
    return a.map((v, k) => Math.round(v + (b[k] - v) * f));
  };
  const drawEvidence = (evidence) => {
    const ctx = evidenceCanvas.getContext("2d");
    const image = ctx.createImageData(28, 28);
    let limit = 1e-9;
    for (const e of evidence) if (Number.isFinite(e)) limit = Math.max(limit, Math.abs(e));
    evidence.forEach((e, j) => {
      const clipped = Math.min(Math.max(e, -limit), limit);
      const [r, g, b] = colourAt((clipped + limit) / (2 * limit));
      image.data[4 * j] = r; image.data[4 * j + 1] = g; image.data[4 * j + 2] = b; image.data[4 * j + 3] = 255;
    });
    ctx.putImageData(image, 0, 0);
  };
  const drawBars = (bayes, softmax) => {
    const ctx = barsCanvas.getContext("2d");
    const { width, height } = barsCanvas;
    ctx.clearRect(0, 0, width, height);
    const slot = width / 10, bar = slot * 0.36, chart = height - 14;
    ctx.font = "11px sans-serif";
    ctx.textAlign = "center";
    const textColour = getComputedStyle(panel).color;  // once: each call can make the browser restyle the page
    for (let digit = 0; digit < 10; digit++) {
      const x = digit * slot + slot * 0.12;
      [bayes, softmax].forEach((posterior, m) => {
        const h = Math.max(posterior[digit] * chart, posterior[digit] > 0.005 ? 1 : 0);
        ctx.fillStyle = state.look.models[m];
        ctx.fillRect(x + m * bar, chart - h, bar - 1, h);
      });
      ctx.fillStyle = textColour;
      ctx.fillText(String(digit), digit * slot + slot / 2, height - 2);
    }
  };
  const best = (posterior) => posterior.reduce((top, p, digit) => (p > posterior[top] ? digit : top), 0);
  // source: "live" or "server", the words' key of the verdict's message
  const show = (bayes, softmax, source) => {
    const b = best(bayes), s = best(softmax);
    state.view = ["show", bayes, softmax, source];
    verdict.textContent = fill(state.words[source], {
      bayes: String(b), bayes_p: state.format.format(bayes[b]),
      softmax: String(s), softmax_p: state.format.format(softmax[s]),
    });
    drawBars(bayes, softmax);
  };
  const say = (noteArgs) => {  // the note: [naive Bayes' digit, softmax's] the browser read, or null for none
    state.noteArgs = noteArgs;
    note.textContent = noteArgs
      ? fill(state.words.differs, { bayes: String(noteArgs[0]), softmax: String(noteArgs[1]) })
      : "";
  };
  const prompt = () => {
    state.view = ["prompt"];
    verdict.textContent = state.words.prompt;
    say(null);
    evidenceCanvas.getContext("2d").clearRect(0, 0, 28, 28);
    barsCanvas.getContext("2d").clearRect(0, 0, barsCanvas.width, barsCanvas.height);
  };
  const disable = (error) => {
    console.warn("Live reading off: the page's reading after each stroke stays", error);
    state.models = null;
    panel.hidden = true;
  };

  const read = (now) => {
    state.scheduled = false;
    if (!state.dirty || !state.models) return;
    state.dirty = false;
    const started = performance.now();
    try {
      const reading = readCanvas(context, region, state.models);
      state.reading = reading;
      say(null);
      if (reading === null) {
        prompt();
      } else {
        show(reading.bayes.posterior, reading.softmax.posterior, "live");
        drawEvidence(reading.bayes.evidence);
      }
    } catch (error) {
      disable(error);
      return;
    }
    const done = performance.now();
    canvas.liveTimes.push({ script: done - started, sinceMove: state.firstMove === null ? null : done - state.firstMove });
    if (canvas.liveTimes.length > TIMES_KEPT) canvas.liveTimes.shift();
    state.firstMove = null;
  };
  const schedule = () => {
    if (state.scheduled || !state.models) return;
    state.scheduled = true;
    requestAnimationFrame(read);
  };

  const onServerReading = (event) => {
    if (!canvas.isConnected) {  // Clear swapped in a new canvas
      window.removeEventListener("naive-bayes-lab-server-reading", onServerReading);
      return;
    }
    const report = event.detail;
    // only the drawing last sent, and only while no ink came after it
    if (!state.models || !report || report.tag !== state.sentTag || state.inkSinceSent) return;
    const live = state.reading;
    show(report.bayes, report.softmax, "server");
    const differs = live && (best(live.bayes.posterior) !== best(report.bayes)
      || best(live.softmax.posterior) !== best(report.softmax));
    say(differs ? [best(live.bayes.posterior), best(live.softmax.posterior)] : null);
  };
  window.addEventListener("naive-bayes-lab-server-reading", onServerReading);

  const api = {
    setLook(look) { state.look = look; },
    // the words and number format of the reader's language; what the panel shows is said again in them
    setWords(words, tag) {
      const changed = state.words !== null && (tag !== state.tag
        || Object.keys(words).some((name) => words[name] !== state.words[name]));
      state.words = words;
      if (tag !== state.tag) { state.tag = tag; state.format = probabilityFormat(tag); }
      if (!changed || !state.view || panel.hidden) return;
      if (state.view[0] === "prompt") prompt();
      else { show(...state.view.slice(1)); say(state.noteArgs); }
    },
    setModels(payload) {
      if (payload === state.payload || !state.look || !state.words) return;
      state.payload = payload;
      if (!payload) { state.models = null; panel.hidden = true; return; }
      try {
        state.models = decodeModels(payload);
      } catch (error) {
        disable(error);
        return;
      }
      panel.hidden = false;
      if (state.reading === null) prompt();
      state.dirty = true;  // the drawing under the new settings
      schedule();
    },
    inked(event) {
      if (state.firstMove === null && event) state.firstMove = event.timeStamp;
      state.inkSinceSent = true;
      state.dirty = true;
      schedule();
    },
    sent(drawing) {
      state.sentTag = tagOf(drawing);
      state.inkSinceSent = false;
    },
    // the canvas was blanked (Clear): no reading, the prompt, and no report of an earlier drawing taken
    cleared() {
      state.reading = null;
      state.sentTag = null;
      state.inkSinceSent = false;
      state.dirty = false;
      if (state.models && !panel.hidden) prompt();
    },
  };
  // the models come from lab/canvas.py's companion element, before or after this canvas appears
  const onModels = (event) => {
    if (!canvas.isConnected) { window.removeEventListener("naive-bayes-lab-models", onModels); return; }
    api.setModels(event.detail);
  };
  window.addEventListener("naive-bayes-lab-models", onModels);
  return api;
}

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
