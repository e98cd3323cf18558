// The live reading's first part: nbcore.preprocess.model_input (crop, 20 px box, centre of mass, stroke width)
// in JS, from the canvas's bytes to the framed digit the models read. lab/digit_reading.js follows it in the same
// module (lab/canvas.py's SCRIPTS: one script, its files joined in order) and reads the frame with both models.
// tests/e2e/test_live_reading.py runs the two in Chromium against nbcore.
//
// Every step copies the arithmetic of the Python it mirrors, not only its idea: Pillow's two-pass resampling
// with float32 storage (Resample.c), scipy.ndimage's grey erosion/dilation ('reflect' mode), numpy's
// round-half-to-even. The constants (box, levels, stroke range) come from Python in `constants`
// (lab/live_models.py), never written here.
// Arrays: images are row-major, 0 = background, 255 = ink.

// numpy.round / Python round: halves go to the even neighbour
export function roundHalfEven(x) {
  const floor = Math.floor(x);
  const rest = x - floor;
  if (rest > 0.5) return floor + 1;
  if (rest < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

// -- Pillow's resampling filters (support, kernel) ----------------------------------------------------------
const FILTERS = {
  box: [0.5, (x) => (x > -0.5 && x <= 0.5 ? 1.0 : 0.0)],
  bilinear: [1.0, (x) => { x = Math.abs(x); return x < 1.0 ? 1.0 - x : 0.0; }],
  bicubic: [2.0, (x) => {
    const a = -0.5;
    x = Math.abs(x);
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
  }],
  lanczos: [3.0, (x) => {
    const sinc = (t) => { if (t === 0.0) return 1.0; t *= Math.PI; return Math.sin(t) / t; };
    return -3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0;
  }],
};

// The arrays a live update works in, kept from one animation frame to the next instead of allocated per frame:
// name -> a typed array grown (doubled) when a longer one is asked for. `scratch` hands out a view of exactly
// `length` elements; its contents are whatever the last user left (callers that need zeros fill them).
// What leaves this file (framed digits) is always a fresh array: callers keep those.
const scratchArrays = new Map();
function scratch(name, Type, length) {
  let store = scratchArrays.get(name);
  if (store === undefined || store.length < length) {
    store = new Type(Math.max(length, store === undefined ? 0 : 2 * store.length));
    scratchArrays.set(name, store);
  }
  return store.subarray(0, length);
}

// Resampling coefficients depend only on (filter, input size, output size): computed once per triple. The ink's
// box changes size while the pen moves, so the cache is cleared when it gets large rather than grown forever.
const tapsCache = new Map();
const TAPS_KEPT = 512;
function coefficients(inSize, outSize, filter) {
  const key = `${filter} ${inSize} ${outSize}`;
  let taps = tapsCache.get(key);
  if (taps === undefined) {
    if (tapsCache.size >= TAPS_KEPT) tapsCache.clear();
    taps = computeCoefficients(inSize, outSize, filter);
    tapsCache.set(key, taps);
  }
  return taps;
}

// Pillow's precompute_coeffs: per output pixel, the first input pixel it reads and the normalised weights
function computeCoefficients(inSize, outSize, filter) {
  const [support0, kernel] = FILTERS[filter];
  const scale = inSize / outSize;
  const filterscale = Math.max(scale, 1.0);
  const support = support0 * filterscale;
  const bounds = [];
  for (let xx = 0; xx < outSize; xx++) {
    const centre = (xx + 0.5) * scale;
    const ss = 1.0 / filterscale;
    const xmin = Math.max(0, Math.trunc(centre - support + 0.5));
    const xmax = Math.min(inSize, Math.trunc(centre + support + 0.5)) - xmin;
    const weights = new Float64Array(Math.max(xmax, 0));
    let total = 0.0;
    for (let x = 0; x < xmax; x++) {
      weights[x] = kernel((x + xmin - centre + 0.5) * ss);
      total += weights[x];
    }
    if (total !== 0.0) for (let x = 0; x < xmax; x++) weights[x] /= total;
    bounds.push([xmin, weights]);
  }
  return bounds;
}

// Image.fromarray(float32 (height, width), "F").resize((outWidth, outHeight), filter): horizontal pass, then
// vertical, each result stored as float32. `values`: a Float32Array (used as is) or numbers (stored as float32
// first, as Pillow's mode "F" does). Returns a Float32Array (outHeight * outWidth): a view of the scratch array
// `slot` (valid until the next resize into that slot), or `values` itself when both sizes are kept.
export function resizeFloat(values, width, height, outWidth, outHeight, filter, slot = "resized") {
  let image = values;
  if (!(values instanceof Float32Array)) {
    image = scratch(`${slot} input`, Float32Array, values.length);
    image.set(values);
  }
  let w = width;
  if (outWidth !== width) {
    const taps = coefficients(width, outWidth, filter);
    const next = scratch(`${slot} horizontal`, Float32Array, outWidth * height);
    for (let xx = 0; xx < outWidth; xx++) {
      const [xmin, weights] = taps[xx];
      const count = weights.length;
      for (let y = 0, row = xmin; y < height; y++, row += w) {
        let sum = 0.0;
        for (let x = 0; x < count; x++) sum += image[row + x] * weights[x];
        next[y * outWidth + xx] = sum;
      }
    }
    image = next;
    w = outWidth;
  }
  if (outHeight !== height) {
    const taps = coefficients(height, outHeight, filter);
    const next = scratch(slot, Float32Array, w * outHeight);
    for (let yy = 0; yy < outHeight; yy++) {
      const [ymin, weights] = taps[yy];
      for (let x = 0; x < w; x++) {
        let sum = 0.0;
        for (let y = 0; y < weights.length; y++) sum += image[(y + ymin) * w + x] * weights[y];
        next[yy * w + x] = sum;
      }
    }
    image = next;
  }
  return image;
}

// -- nbcore.preprocess, straight from the canvas's bytes ----------------------------------------------------------
// nbcore turns the whole canvas into a float64 luminance array (ink_from_canvas), then crops it (mnist_frame).
// Here no canvas-sized array is made: one pass over the bytes finds the brightest ink and the ink's bounding box
// (black or transparent pixels, most of the canvas, are ink 0 and skipped unconverted), then the cropped ink is
// read from the bytes inside the box only. Outside the box mnist_frame uses nothing but the brightest value, so
// the framed digit is the same, pixel for pixel; and the bytes need only cover the ink, not the whole canvas.

// ink_from_canvas for one pixel (byte offset k of its red): luminance times opacity, float64
function inkAt(rgba, k) {
  const luminance = rgba[k] * 0.299 + rgba[k + 1] * 0.587 + rgba[k + 2] * 0.114;
  return luminance * (rgba[k + 3] / 255.0);
}

// RGBA bytes (height * width * 4) -> {top: the brightest ink, row0, row1, col0, col1: the box of ink > level}
// (row1 = -1 when no pixel is above the level). Black or transparent pixels are ink 0 exactly: skipped unread.
function inkBox(rgba, width, height, level) {
  let top = 0, row0 = height, row1 = -1, col0 = width, col1 = -1;
  for (let y = 0, k = 0; y < height; y++) {
    for (let x = 0; x < width; x++, k += 4) {
      if (rgba[k + 3] === 0 || (rgba[k] | rgba[k + 1] | rgba[k + 2]) === 0) continue;
      const ink = inkAt(rgba, k);
      if (ink > top) top = ink;
      if (ink > level) {
        if (y < row0) row0 = y;
        row1 = y;
        if (x < col0) col0 = x;
        if (x > col1) col1 = x;
      }
    }
  }
  return { top, row0, row1, col0, col1 };
}

// (row, column, total) of the intensity-weighted centre of a (height, width) image, as nbcore sums it
function centreOfMass(image, width, height) {
  let total = 0.0, rows = 0.0, cols = 0.0;
  const rowSums = scratch("row sums", Float64Array, height).fill(0);
  const colSums = scratch("column sums", Float64Array, width).fill(0);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      rowSums[y] += image[y * width + x];
      colSums[x] += image[y * width + x];
      total += image[y * width + x];
    }
  }
  for (let y = 0; y < height; y++) rows += y * rowSums[y];
  for (let x = 0; x < width; x++) cols += x * colSums[x];
  return [rows / total, cols / total, total];
}

// the ink inside its box, as float32 (cropHeight * cropWidth): what mnist_frame hands to Pillow
function croppedInk(rgba, width, found) {
  const cropHeight = found.row1 - found.row0 + 1, cropWidth = found.col1 - found.col0 + 1;
  const cropped = scratch("cropped", Float32Array, cropHeight * cropWidth);
  for (let y = 0; y < cropHeight; y++) {
    const k = 4 * ((y + found.row0) * width + found.col0);
    for (let x = 0; x < cropWidth; x++) cropped[y * cropWidth + x] = inkAt(rgba, k + 4 * x);
  }
  return cropped;
}

// ink_from_canvas then mnist_frame: RGBA bytes (height * width * 4) -> uint8 (frame * frame) framed like MNIST,
// or null if there is no ink. The bytes may be any part of the canvas that holds all its ink (InkRegion).
export function mnistFrame(rgba, width, height, constants) {
  const { frame: side, box: boxSide, inkLevel, minContrast } = constants;
  const found = inkBox(rgba, width, height, inkLevel * 255);
  if (found.top < minContrast) return null;
  const cropHeight = found.row1 - found.row0 + 1, cropWidth = found.col1 - found.col0 + 1;
  const scale = boxSide / Math.max(cropHeight, cropWidth);
  const newWidth = Math.max(1, roundHalfEven(cropWidth * scale));
  const newHeight = Math.max(1, roundHalfEven(cropHeight * scale));
  const resized = resizeFloat(
    croppedInk(rgba, width, found), cropWidth, cropHeight, newWidth, newHeight, scale > 1 ? "lanczos" : "bicubic",
  );
  const box = scratch("box", Float64Array, resized.length);
  let boxSum = 0.0, boxTop = 0;
  for (let i = 0; i < box.length; i++) {
    box[i] = Math.min(Math.max(resized[i], 0), 255);
    boxSum += box[i];
    boxTop = Math.max(boxTop, box[i]);
  }
  if (boxSum <= 0) return null;
  const [rowOfMass, colOfMass] = centreOfMass(box, newWidth, newHeight);
  const centre = side / 2;
  const placeTop = Math.min(Math.max(roundHalfEven(centre - rowOfMass), 0), side - newHeight);
  const placeLeft = Math.min(Math.max(roundHalfEven(centre - colOfMass), 0), side - newWidth);
  const factor = 255.0 / boxTop;
  const framed = new Uint8Array(side * side);
  for (let y = 0; y < newHeight; y++) {
    for (let x = 0; x < newWidth; x++) {
      framed[(y + placeTop) * side + x + placeLeft] = roundHalfEven(box[y * newWidth + x] * factor);
    }
  }
  return framed;
}

// -- nbcore.strokes ------------------------------------------------------------------------------------------
// Zhang-Suen thinning of a 0/1 image (side * side), both sub-passes applied to the whole image at once: the number
// of skeleton pixels. It works on a copy with a border of zeros (past the edge is background), so that the eight
// neighbours are read without bounds checks.
export function skeletonLength(ink, side) {
  const w = side + 2;
  const current = scratch("skeleton", Uint8Array, w * w).fill(0);
  const remove = scratch("skeleton removals", Uint8Array, w * w);
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) current[(y + 1) * w + x + 1] = ink[y * side + x];
  let changed = true;
  while (changed) {
    changed = false;
    for (let pass = 0; pass < 2; pass++) {
      const firstPass = pass === 0;
      remove.fill(0);
      let any = false;
      for (let y = 1; y <= side; y++) {
        for (let x = 1, i = y * w + 1; x <= side; x++, i++) {
          if (!current[i]) continue;
          const p2 = current[i - w], p3 = current[i - w + 1], p4 = current[i + 1], p5 = current[i + w + 1];
          const p6 = current[i + w], p7 = current[i + w - 1], p8 = current[i - 1], p9 = current[i - w - 1];
          const count = p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9;
          const transitions = (!p2 && p3) + (!p3 && p4) + (!p4 && p5) + (!p5 && p6) + (!p6 && p7) + (!p7 && p8)
            + (!p8 && p9) + (!p9 && p2);
          const keepShape = firstPass
            ? !(p2 && p4 && p6) && !(p4 && p6 && p8)
            : !(p2 && p4 && p8) && !(p2 && p6 && p8);
          if (count >= 2 && count <= 6 && transitions === 1 && keepShape) {
            remove[i] = 1;
            any = true;
          }
        }
      }
      if (any) {
        for (let i = 0; i < remove.length; i++) if (remove[i]) current[i] = 0;
        changed = true;
      }
    }
  }
  let length = 0;
  for (const value of current) length += value;
  return length;
}

// stroke_width: grey mass / skeleton length in px, NaN without pixels >= the skeleton level
export function strokeWidth(frame, side, constants) {
  let area = 0;
  const ink = scratch("skeleton input", Uint8Array, side * side);
  for (let i = 0; i < frame.length; i++) {
    area += frame[i];
    ink[i] = frame[i] >= constants.skeletonLevel ? 1 : 0;
  }
  const length = skeletonLength(ink, side);
  return length > 0 ? area / 255.0 / Math.max(length, 1) : NaN;
}

// reshape_stroke: strokes about `change` px wider (grey dilation) or thinner (erosion) on a finer grid
export function reshapeStroke(frame, side, change, constants) {
  if (change === 0) return Uint8Array.from(frame);
  const fineSide = side * constants.upsample;
  let fine = scratch("reshaped a", Float64Array, fineSide * fineSide);
  fine.set(resizeFloat(frame, side, side, fineSide, fineSide, "bilinear", "fine grid"));
  let next = scratch("reshaped b", Float64Array, fine.length);
  const pick = change > 0 ? Math.max : Math.min;
  for (let step = 0; step < Math.abs(change); step++) {
    for (let y = 0; y < fineSide; y++) {
      for (let x = 0; x < fineSide; x++) {  // a cross; 'reflect' mode: past the edge is the edge pixel itself
        const here = fine[y * fineSide + x];
        next[y * fineSide + x] = pick(
          here,
          y > 0 ? fine[(y - 1) * fineSide + x] : here,
          y < fineSide - 1 ? fine[(y + 1) * fineSide + x] : here,
          x > 0 ? fine[y * fineSide + x - 1] : here,
          x < fineSide - 1 ? fine[y * fineSide + x + 1] : here,
        );
      }
    }
    [fine, next] = [next, fine];  // the two scratch grids take turns
  }
  const coarse = resizeFloat(fine, fineSide, fineSide, side, side, "box", "coarse grid");
  let top = 0;
  for (const value of coarse) top = Math.max(top, value);
  const out = new Uint8Array(side * side);
  if (top <= 0) return out;
  const factor = 255.0 / top;
  for (let i = 0; i < out.length; i++) out[i] = Math.min(Math.max(roundHalfEven(coarse[i] * factor), 0), 255);
  return out;
}

// normalise_stroke: thin, keep or thicken (by 1 or 2 px), whichever lands nearest MNIST's widths
export function normaliseStroke(frame, side, constants) {
  const before = strokeWidth(frame, side, constants);
  const [low, high] = constants.strokeRange;
  if (!Number.isFinite(before) || (low <= before && before <= high)) {
    return { frame, widthBefore: before, widthAfter: before, action: "kept" };
  }
  const thinning = before > high;
  const changes = thinning ? [-1, -2] : [1, 2];
  const candidates = [frame, ...changes.map((change) => reshapeStroke(frame, side, change, constants))];
  let best = 0, bestDistance = Infinity, bestWidth = before;
  candidates.forEach((candidate, index) => {
    const width = index === 0 ? before : strokeWidth(candidate, side, constants);  // the frame's is known
    const distance = Number.isFinite(width) ? Math.max(low - width, width - high, 0) : Infinity;
    if (distance < bestDistance) { best = index; bestDistance = distance; bestWidth = width; }
  });
  return {
    frame: candidates[best], widthBefore: before, widthAfter: bestWidth,
    action: best ? (thinning ? "thinned" : "thickened") : "kept",
  };
}

// model_input: RGBA bytes (height * width * 4, all the canvas's ink) -> {frame, widthBefore, widthAfter, action},
// or null when blank
export function modelInput(rgba, width, height, constants) {
  const framed = mnistFrame(rgba, width, height, constants);
  return framed === null ? null : normaliseStroke(framed, constants.frame, constants);
}
