"""Record what Chromium sends when a student draws on the Draw page, for the protocol load generator.

    python -m devtools.record_drawings [--out devtools/drawings.json] [--digits 0 1 2 3 4 6 7 9]

Starts ``streamlit run app.py`` on a scratch copy of MNIST, opens /draw in the Debian Chromium
(Playwright), draws each digit with mouse strokes (the shapes of devtools/async_draw.py, moves every
12 px as a 60 Hz pointer would report a quick stroke), and keeps, from the websocket frames the
page sent (``page.on("websocket")`` / ``framesent``), the ``BackMsg`` carrying the canvas's
widget state: its ``json_value`` (the component's state, ``{"drawing": "data:image/png;base64,..."}``)
is what ``devtools/load_protocol`` replays. Each drawing also records the digit the app
predicted for it in the browser (the "Naive Bayes prediction" metric) and the widget states
the browser sent alongside (ids and value kinds, to document the message).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg

from devtools import app_server, async_draw, bench_harness, chromium, draw_page
from devtools.app_server import REPO

DEFAULT_OUT = REPO / "devtools" / "drawings.json"


def canvas_message(frames: list[bytes]) -> BackMsg | None:
    """The last rerun request among ``frames`` that carries a canvas drawing."""
    found = None
    for payload in frames:
        if not isinstance(payload, bytes):
            continue
        message = BackMsg()
        message.ParseFromString(payload)
        if message.WhichOneof("type") != "rerun_script":
            continue
        for widget in message.rerun_script.widget_states.widgets:
            if "-canvas_" in widget.id and widget.WhichOneof("value") == "json_value":
                found = message
    return found


def record(url: str, digits: list[int]) -> list[dict]:
    recorded = []
    with bench_harness.launched_chromium() as browser:
        try:
            page = browser.new_page(viewport=chromium.VIEWPORT)
            frames: list[bytes] = []
            page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(payload)))
            page.goto(url + "/draw", timeout=180_000)
            chromium.wait_for_run(page, timeout=180)
            for digit in digits:
                origin = draw_page.canvas_origin(page)
                before = len(frames)
                for points in async_draw.DIGITS[digit]:
                    draw_page.stroke(page, points, origin, step_px=async_draw.STROKE_STEP_PX)
                predicted, _ = draw_page.wait_for_prediction(page, expect_change_from=None)
                message = canvas_message(frames[before:])
                if message is None:
                    raise RuntimeError(f"no canvas state among the frames sent after drawing {digit}")
                request = message.rerun_script
                canvas = next(w for w in request.widget_states.widgets if "-canvas_" in w.id)
                recorded.append(
                    {
                        "digit": digit,
                        "predicted_in_browser": int(predicted),
                        "json_value": canvas.json_value,
                        "sent_with": {
                            "fragment_id_set": bool(request.fragment_id),
                            "page_script_hash_set": bool(request.page_script_hash),
                            "widgets": [
                                [w.id.split("-", 2)[-1], w.WhichOneof("value")] for w in request.widget_states.widgets
                            ],
                        },
                        "bytes": len(message.SerializeToString()),
                    }
                )
                print(f"digit {digit}: predicted {predicted}, BackMsg {recorded[-1]['bytes']} bytes", flush=True)
                draw_page.clear_canvas(page)  # the canvas's own Clear (no run since issue 40)
        finally:
            browser.close()
    return recorded


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.record_drawings",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--digits", type=int, nargs="+", default=sorted(async_draw.DIGITS))
    app_server.add_data_arguments(parser, mnist_source=False)
    args = parser.parse_args()
    with app_server.script_data_dir(args.data_dir, None, "record-drawings-") as (data_dir, scratch):
        log = (scratch or Path("/tmp")) / "record-drawings-server.log"
        with app_server.StreamlitServer(data_dir, log) as server:
            drawings = record(server.url, args.digits)
    args.out.write_text(
        json.dumps(
            {
                "recorded": time.strftime("%Y-%m-%d"),
                "how": "devtools/record_drawings.py: Chromium strokes on /draw, the canvas widget's json_value as sent",
                "drawings": drawings,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"{len(drawings)} drawings -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
