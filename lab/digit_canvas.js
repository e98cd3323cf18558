// The Draw page's canvas (a Streamlit components-v2 module): white ink on black, drawn with
// a mouse, pen or finger (pointer events). When a stroke ends, the whole canvas goes to the
// server at once as a PNG data URL in the "drawing" state: no debounce, so the prediction
// starts computing on pointer-up.
//
// Streamlit calls this function again on every rerun that changes `data`, possibly in the
// middle of a stroke; the stroke in progress and the listeners therefore live on the canvas
// element (set up once), and a call only updates the brush and the sender.

const pads = new WeakMap();  // canvas element -> {context, brush, send, last}

function setUp(canvas, restore) {
  const pad = { context: canvas.getContext("2d"), brush: 20, send: () => {}, last: null };
  const context = pad.context;
  context.fillStyle = "#000";
  context.fillRect(0, 0, canvas.width, canvas.height);
  if (restore) {  // the drawing this session made before the page was left
    const image = new Image();
    image.onload = () => context.drawImage(image, 0, 0);
    image.src = restore;
  }

  const canvasPoint = (event) => {
    const box = canvas.getBoundingClientRect();
    return [(event.clientX - box.left) * canvas.width / box.width,
            (event.clientY - box.top) * canvas.height / box.height];
  };
  const paint = (points) => {
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

  canvas.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    canvas.setPointerCapture(event.pointerId);
    pad.last = canvasPoint(event);
    paint([pad.last]);
  });
  canvas.addEventListener("pointermove", (event) => {
    if (pad.last === null) return;
    const coalesced = event.getCoalescedEvents ? event.getCoalescedEvents() : [];
    const points = [pad.last, ...(coalesced.length ? coalesced : [event]).map(canvasPoint)];
    paint(points);
    pad.last = points[points.length - 1];
  });
  const endStroke = () => {
    if (pad.last === null) return;
    pad.last = null;
    pad.send("drawing", canvas.toDataURL("image/png"));
  };
  canvas.addEventListener("pointerup", endStroke);
  canvas.addEventListener("pointercancel", endStroke);
  canvas.dataset.ready = "true";  // listening: what tests wait for before they draw
  return pad;
}

export default function ({ parentElement, data, setStateValue }) {
  const canvas = parentElement.querySelector("canvas");
  let pad = pads.get(canvas);
  if (!pad) {
    pad = setUp(canvas, data.restore);
    pads.set(canvas, pad);
  }
  pad.brush = data.brush;
  pad.send = setStateValue;
}
