// Reading a drawing in the page: nbcore.inputs.InputForm (deskew, threshold) and both models' scores of the digit
// lab/digit_framing.js frames (nbcore.preprocess.model_input), written once in JS so that the Draw canvas can
// predict while the pen moves. This file follows lab/digit_framing.js in one module (lab/canvas.py's SCRIPTS) and
// uses its functions. The server stays the truth: it reads the PNG sent at pointer-up with nbcore.
// tests/e2e/test_live_reading.py runs both files in Chromium against nbcore.
//
// Every step copies the arithmetic of the Python it mirrors, not only its idea: scipy.ndimage's order-1
// affine_transform in 'constant' mode (deskew), numpy's round-half-to-even, softmax's float32 pixels.
// Arrays: images are row-major, 0 = background, 255 = ink.

const fround = Math.fround;

// -- nbcore.deskew and nbcore.inputs.InputForm -----------------------------------------------------------------
// deskew: sheared to zero skew about the centre of mass, which lands at the frame's centre; bilinear
// (scipy.ndimage.affine_transform, order 1, mode 'constant': a point outside [0, side - 1] reads 0)
export function deskew(image, side) {
  let total = 0.0, rowSum = 0.0, colSum = 0.0;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const value = image[y * side + x];
      total += value; rowSum += y * value; colSum += x * value;
    }
  }
  if (total <= 0) return Uint8Array.from(image);
  const rowMean = rowSum / total, colMean = colSum / total;
  let rowVar = 0.0, cov = 0.0;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const value = image[y * side + x];
      rowVar += (y - rowMean) ** 2 * value;
      cov += (y - rowMean) * (x - colMean) * value;
    }
  }
  rowVar /= total;
  const skew = rowVar <= 0 ? 0.0 : cov / total / rowVar;
  const centre = side / 2.0;
  const offsetRow = rowMean - centre;  // shear @ (centre, centre) is (centre, skew * centre + centre)
  const offsetCol = colMean - (skew * centre + centre);
  const out = new Uint8Array(side * side);
  const weights = (coordinate) => {
    const start = Math.floor(coordinate);
    const w0 = 1.0 - (coordinate - start);
    return [start, w0, 1.0 - w0];
  };
  const read = (y, x) => {  // past the last row/column: its mirror, which gets weight 0
    const yy = y >= side ? 2 * side - 2 - y : y, xx = x >= side ? 2 * side - 2 - x : x;
    return image[yy * side + xx];
  };
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const r = y + offsetRow;
      const c = y * skew + x + offsetCol;
      if (r < 0 || r > side - 1 || c < 0 || c > side - 1) continue;
      const [r0, wr0, wr1] = weights(r);
      const [c0, wc0, wc1] = weights(c);
      let t = 0.0;
      t += read(r0, c0) * wr0 * wc0;
      t += read(r0, c0 + 1) * wr0 * wc1;
      t += read(r0 + 1, c0) * wr1 * wc0;
      t += read(r0 + 1, c0 + 1) * wr1 * wc1;
      out[y * side + x] = Math.min(Math.max(roundHalfEven(t), 0), 255);
    }
  }
  return out;
}

// InputForm.prepare for one frame: {image: what softmax reads, features: naive Bayes' 0/1 pixels}
export function asSeen(frame, side, form) {
  const image = form.deskew ? deskew(frame, side) : frame;
  return { image, features: Uint8Array.from(image, (value) => (value >= form.threshold ? 1 : 0)) };
}

// -- the models ----------------------------------------------------------------------------------------------
function logSumExp(scores) {
  let top = -Infinity;
  for (const score of scores) top = Math.max(top, score);
  if (!Number.isFinite(top)) return top;
  let sum = 0.0;
  for (const score of scores) sum += Math.exp(score - top);
  return top + Math.log(sum);
}

function posteriorOf(scores) {
  const norm = logSumExp(scores);
  return Float64Array.from(scores, (score) => Math.exp(score - norm));
}

// BernoulliNB.predict_proba and evidence for one 0/1 image: logOn, logOff (classes * pixels), logPrior (classes).
// A class with impossible pixels (log p = -inf, no smoothing) is out; if every class is, those with the
// fewest impossible pixels stay, ranked by the rest (nbcore.models.bernoulli).
export function scoreBayes(model, features) {
  const { logOn, logOff, logPrior, classes } = model;
  const pixels = features.length;
  const finite = new Float64Array(classes), impossible = new Float64Array(classes);
  for (let c = 0; c < classes; c++) {
    let sum = 0.0, count = 0;
    for (let j = 0; j < pixels; j++) {
      const term = features[j] ? logOn[c * pixels + j] : logOff[c * pixels + j];
      if (term === -Infinity) count += 1; else sum += term;
    }
    finite[c] = sum + logPrior[c];
    impossible[c] = logPrior[c] === -Infinity ? Infinity : count;
  }
  const fewest = Math.min(...impossible);
  const scores = Float64Array.from(finite, (score, c) => (impossible[c] > fewest ? -Infinity : score));
  const posterior = posteriorOf(scores);
  const ranking = Array.from(posterior.keys()).sort((a, b) => posterior[b] - posterior[a] || a - b);
  const [predicted, runnerUp] = ranking;
  const evidence = new Float64Array(pixels);
  for (let j = 0; j < pixels; j++) {
    const table = features[j] ? logOn : logOff;
    const difference = table[predicted * pixels + j] - table[runnerUp * pixels + j];
    evidence[j] = Number.isNaN(difference) ? 0.0 : difference;
  }
  return { posterior, predicted, runnerUp, evidence };
}

// SoftmaxRegression.predict_proba for one uint8 image: coef (classes * pixels), intercept (classes)
export function scoreSoftmax(model, image) {
  const { coef, intercept, classes } = model;
  const pixels = image.length;
  const scores = new Float64Array(classes);
  for (let c = 0; c < classes; c++) {
    let sum = 0.0;
    for (let j = 0; j < pixels; j++) if (image[j]) sum += fround(image[j] / 255) * coef[c * pixels + j];
    scores[c] = sum + intercept[c];
  }
  const posterior = posteriorOf(scores);
  let predicted = 0;
  for (let c = 1; c < classes; c++) if (posterior[c] > posterior[predicted]) predicted = c;
  return { posterior, predicted };
}

function bytesOf(base64) {
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)).buffer;
}
const float32s = (base64) => new Float32Array(bytesOf(base64));

// the models as lab/live_models.py sends them: little-endian arrays in base64 (priors float64, the rest float32)
export function decodeModels(payload) {
  const classes = payload.classes;
  return {
    bayes: {
      classes, logOn: float32s(payload.bayes.log_on), logOff: float32s(payload.bayes.log_off),
      logPrior: new Float64Array(bytesOf(payload.bayes.log_prior)),
    },
    softmax: { classes, coef: float32s(payload.softmax.coef), intercept: float32s(payload.softmax.intercept) },
    form: payload.form,
    constants: payload.constants,
  };
}

// everything the page shows for one canvas: null while it is blank
export function readDrawing(rgba, width, height, models) {
  const made = modelInput(rgba, width, height, models.constants);
  if (made === null) return null;
  const seen = asSeen(made.frame, models.constants.frame, models.form);
  return { made, seen, bayes: scoreBayes(models.bayes, seen.features), softmax: scoreSoftmax(models.softmax, seen.image) };
}

// -- the part of the canvas that can hold ink ------------------------------------------------------------------
// The canvas starts black and only the brush paints on it, so all ink lies within the brush's reach of the points
// it painted at: the live reading reads back that rectangle only (mnistFrame gives the same digit for any part of
// the canvas holding all its ink). Antialiasing tints pixels just past the shape's edge: over 216 drawings, a margin
// of 1 px beyond the brush's radius framed every one as the whole canvas does and 0 px did not; 3 px leaves room.
// tests/e2e/test_live_reading.py checks it on every drawing it reads.
const ANTIALIAS_MARGIN = 3;  // px beyond the brush's radius

// a rectangle [left, right) x [top, bottom) of a width x height canvas, empty until something is painted
export class InkRegion {
  constructor(width, height) {
    this.width = width; this.height = height;
    this.clear();
  }

  // no ink anywhere (a blank canvas)
  clear() {
    this.left = this.width; this.top = this.height; this.right = 0; this.bottom = 0;
  }

  // a point (canvas px) the brush painted at, `brush` px wide: a dot, or a joint of round-capped segments
  add([x, y], brush) {
    const reach = brush / 2 + ANTIALIAS_MARGIN;
    this.left = Math.max(0, Math.min(this.left, Math.floor(x - reach)));
    this.top = Math.max(0, Math.min(this.top, Math.floor(y - reach)));
    this.right = Math.min(this.width, Math.max(this.right, Math.ceil(x + reach) + 1));
    this.bottom = Math.min(this.height, Math.max(this.bottom, Math.ceil(y + reach) + 1));
  }

  // anything may be anywhere (a picture drawn onto the canvas)
  addAll() {
    this.left = 0; this.top = 0; this.right = this.width; this.bottom = this.height;
  }
}

// readDrawing of a canvas's 2D context, reading back only `region` (an InkRegion): null while it is blank
export function readCanvas(context, region, models) {
  const width = region.right - region.left, height = region.bottom - region.top;
  if (width <= 0 || height <= 0) return null;
  return readDrawing(context.getImageData(region.left, region.top, width, height).data, width, height, models);
}
