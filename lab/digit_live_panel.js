// The Draw canvas's live panel, under the canvas: while the pen moves, the drawing is read here (readCanvas of
// lab/digit_reading.js: both models, as nbcore would, reading back only the part of the canvas the brush reached)
// once per animation frame that has new ink, and the panel shows the verdict, both posteriors and the evidence map.
// The page's reading of the PNG the canvas sent, reported after its run (window event
// "naive-bayes-lab-server-reading"), then takes the panel's place; the panel says so only when they disagree.
// Without what the live reading needs (an old browser) or if it fails, the panel stays hidden and the rested
// send alone works as before.
// One module with the reading before it and lab/digit_canvas.js after it (lab/canvas.py's SCRIPTS), which sets
// the panel up with liveReader and tells it of each stroke, send and Clear.
//
// The models arrive separately (window.naiveBayesLabModels and the event "naive-bayes-lab-models", from
// lab/canvas.py's send_live_models), once per settings change.
// Its words (the verdict, the note) come in `data.words` in the reader's language (lab/canvas.py's words(),
// placeholders such as {bayes} filled here) and its numbers are written for the reader's BCP 47 tag (`data.tag`):
// no sentence is written in this file.

const TIMES_KEPT = 1000;  // the latest live updates' script times, on canvas.liveTimes (devtools/live_bench.py)
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
