"""Where one Draw step's server CPU goes: Streamlit's own work or the app's, to know which to make faster.

    python -m devtools.profile_stroke [--step stroke|alpha] [--strokes 300] [--rate 200] [--top 12] [--data-dir DIR]

Starts ``streamlit run app.py``, warms it with one visit, then one protocol-level session
(devtools.streamlit_client) takes ``--strokes`` steps one after the other: ``stroke`` sends recorded drawings (each
a fragment run of the Draw page, as a rested drawing is), ``alpha`` moves the sidebar's alpha between its first two
stops with a drawing on the canvas (each a whole run of the page, as devtools.load_protocol's students do), while ``py-spy record --format raw`` samples
the server at ``--rate`` Hz, keeping only samples of the thread that holds the GIL (``--gil``): the
Python work that one server process can do at a time, whichever thread does it.

Every sample is charged to the innermost frame that is either the app's (a file under this
repository: pages/, lab/, nbcore/) or Streamlit's (site-packages/streamlit): numpy, PIL or plotly
work is charged to whoever called it, so plotly's figure building inside ``lab/figures/`` is the
app's, and plotly's JSON export inside ``st.plotly_chart`` is Streamlit's. Samples with neither
(the event loop's own asyncio/uvicorn frames, protobuf) are "server plumbing".

Prints CPU per stroke (utime+stime of the server process over the strokes / strokes, and the
server's wall time per run), the share of each owner, and the top functions of each.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from devtools import app_server
from devtools.app_server import REPO
from devtools.bench_report import markdown_table
from devtools.draw_page import canvas_key
from devtools.load_protocol.students import ALPHA_KEY, ALPHA_STOPS
from devtools.streamlit_client import StreamlitClient

DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
FRAME = re.compile(r"^(?P<function>.*) \((?P<file>.*?)(?::(?P<line>\d+))?\)$")
# py-spy prints files relative to their sys.path entry: "streamlit/...", "lab/figures/digits.py", and a page
# script (run from pages/, which Streamlit puts on sys.path) as "draw.py"
APP_PACKAGES = ("lab/", "nbcore/", "pages/")
APP_SCRIPTS = {path.name for path in (REPO / "pages").glob("*.py")} | {"app.py"}


def owner(file: str) -> str | None:
    if file.startswith(str(REPO)) and "/site-packages/" not in file:
        return "app"
    file = file.split("/site-packages/", 1)[-1]
    if file.startswith(APP_PACKAGES) or file in APP_SCRIPTS:
        return "app"
    if file.startswith("streamlit/"):
        return "streamlit"
    return None


def short(function: str, file: str) -> str:
    if file.startswith(str(REPO)):
        file = file[len(str(REPO)) + 1 :]
    file = file.split("/site-packages/", 1)[-1]
    return f"{file}:{function}"


def attribute(raw_lines: list[str]) -> tuple[collections.Counter, collections.Counter, int]:
    """(samples per owner, samples per (owner, innermost owned function), total samples) from py-spy's raw output."""
    owners: collections.Counter = collections.Counter()
    functions: collections.Counter = collections.Counter()
    total = 0
    for line in raw_lines:
        stack, _, count_text = line.rstrip("\n").rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        charged, where = "server plumbing", None
        for frame in reversed(stack.split(";")):  # innermost first
            match = FRAME.match(frame)
            if not match:
                continue
            found = owner(match["file"])
            if found:
                charged, where = found, short(match["function"], match["file"])
                break
        owners[charged] += count
        if where:
            functions[(charged, where)] += count
    return owners, functions, total


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.profile_stroke",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--step", choices=("stroke", "alpha"), default="stroke")
    parser.add_argument("--strokes", type=int, default=300, help="steps taken")
    parser.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=12)
    app_server.add_data_arguments(parser, mnist_source=False)
    args = parser.parse_args()
    py_spy = shutil.which("py-spy")
    if py_spy is None:
        print("py-spy is not installed (pip install -r requirements-dev.txt)", file=sys.stderr)
        return 2
    with app_server.script_data_dir(args.data_dir, None, "profile-stroke-") as (data_dir, _):
        work = Path(tempfile.mkdtemp(prefix="profile-stroke-"))
        try:
            with app_server.StreamlitServer(data_dir, work / "server.log") as server:
                with StreamlitClient(server.url, timeout=240) as client:
                    client.connect(page="draw")
                    for drawing in DRAWINGS:  # warm: every drawing once
                        key = canvas_key(client.widget_ids)
                        client.component(key, json.loads(drawing["json_value"]))
                    process = psutil.Process(server.pid)
                    raw = work / "stacks.txt"
                    spy = subprocess.Popen(
                        [
                            py_spy,
                            "record",
                            "--pid",
                            str(server.pid),
                            "--rate",
                            str(args.rate),
                            "--format",
                            "raw",
                            "--output",
                            str(raw),
                            "--gil",
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                    time.sleep(1.0)  # py-spy attaches
                    cpu_before = sum(process.cpu_times()[:2])
                    wall = []
                    for index in range(args.strokes):
                        drawing = DRAWINGS[index % len(DRAWINGS)]
                        if args.step == "alpha":
                            drawing = DRAWINGS[-1]  # the canvas holds it: every run reads it again
                            run = client.select_slider(ALPHA_KEY, ALPHA_STOPS[(index + 1) % 2])
                        else:
                            run = client.component(key, json.loads(drawing["json_value"]))
                        if run.errors or run.metric("Naive Bayes prediction") != str(drawing["digit"]):
                            raise RuntimeError(f"step {index}: {run.errors or run.metric('Naive Bayes prediction')}")
                        wall.append(run.seconds)
                    cpu = sum(process.cpu_times()[:2]) - cpu_before
                    spy.send_signal(2)  # SIGINT: py-spy writes its file and exits
                    _, spy_errors = spy.communicate(timeout=30)
            if not raw.is_file():
                print(f"py-spy wrote nothing: {spy_errors}", file=sys.stderr)
                return 1
            owners, functions, total = attribute(raw.read_text().splitlines())
            wall.sort()
            what = "recorded drawings in turn" if args.step == "stroke" else "alpha 1 and 2 in turn, a drawing shown"
            print(f"{args.strokes} {args.step} steps ({what}, one session, one after the other)")
            print(
                f"server CPU per step: {cpu / args.strokes * 1000:.1f} ms (utime+stime of the server process); "
                f"request -> script_finished median {wall[len(wall) // 2] * 1000:.1f} ms"
            )
            print(
                f"py-spy: {total} samples at {args.rate} Hz ({total / args.rate / args.strokes * 1000:.1f} ms "
                f"holding the GIL per step)\n"
            )
            shares = [
                [name, f"{count / total:.0%}", f"{count / args.rate / args.strokes * 1000:.1f}"]
                for name, count in owners.most_common()
            ]
            print(markdown_table(["owner", "share of samples", "ms per step"], shares, right=[False, True, True]))
            for name in ("app", "streamlit"):
                print(f"\ntop {name} functions (innermost {name} frame of each sample):")
                ranked = [(where, count) for (who, where), count in functions.most_common() if who == name]
                for where, count in ranked[: args.top]:
                    print(f"  {count / total:6.1%}  {count / args.rate / args.strokes * 1000:6.2f} ms  {where}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
