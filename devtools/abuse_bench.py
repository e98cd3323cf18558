"""What one abusive client costs another session, in time: the figures tests/e2e/test_abuse_probes.py does not assert.

    python -m devtools.abuse_bench [--floods 3] [--draws 5] [--data-dir DIR | --mnist-source DIR] [--log-dir DIR]

One fresh server (``streamlit run app.py``), warmed by one visitor; two protocol clients
(``devtools.streamlit_client``, no browser) on /draw. Printed, each against the same student's usual
draw measured in the same run (a ratio, since the machine may be shared):

* flood: the student's draw right after another session sent 1,000 rerun requests at once, ``--floods`` times;
* run after run: how long the script's runs take once past its burst (``lab/rate_limit.py`` makes each wait
  for its token: about 1 / ``RUNS_PER_SECOND`` s), and the student's draws while the script keeps asking.

The tests check the mechanisms (runs a flood becomes, who is told, what the budget allows); this
measures what they buy. Figures and the machine's load average go in docs/security-probes.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
from pathlib import Path

from devtools import app_server
from devtools.app_server import REPO
from devtools.bench_report import load_averages
from devtools.draw_page import canvas_key
from devtools.protocol_run import RunResult
from devtools.streamlit_client import StreamlitClient
from lab.rate_limit import RUN_BURST, RUNS_PER_SECOND

DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
FLOOD = 1000
RUN_TIMEOUT = 120


def draw(client: StreamlitClient, index: int) -> RunResult:
    """Send recorded drawing ``index`` on the Draw canvas; the run (its prediction checked)."""
    key = canvas_key(client.widget_ids)
    entry = DRAWINGS[index % len(DRAWINGS)]
    run = client.component(key, json.loads(entry["json_value"]))
    if run.errors or run.metric("Naive Bayes prediction") != str(entry["digit"]):
        raise RuntimeError(f"drawing {index}: {run.errors or run.metric('Naive Bayes prediction')}")
    return run


def milliseconds(values) -> str:
    return " / ".join(f"{value * 1000:.0f}" for value in values) + " ms"


def measure(url: str, floods: int, draws: int) -> None:
    with (
        StreamlitClient(url, timeout=RUN_TIMEOUT) as student,
        StreamlitClient(url, timeout=RUN_TIMEOUT) as flooder,
    ):
        student.connect(page="draw")
        flooder.connect(page="draw")
        usual = statistics.median(draw(student, index).seconds for index in range(draws))
        flooded = []
        for trial in range(floods):
            sending = flooder.send_reruns(FLOOD)
            flooded.append(draw(student, trial).seconds)
            flooder.drain(1.0)
            print(f"flood {trial + 1}: {FLOOD} rerun requests sent in {sending:.3f} s", flush=True)
        print(
            f"student's draw: usual {usual * 1000:.0f} ms (median of {draws}); right after a flood "
            f"{milliseconds(flooded)}, median {statistics.median(flooded) / usual:.1f}x the usual",
            flush=True,
        )

    with (
        StreamlitClient(url, timeout=RUN_TIMEOUT) as student,
        StreamlitClient(url, timeout=RUN_TIMEOUT) as script,
    ):
        student.connect(page="draw")
        usual = statistics.median(draw(student, index).seconds for index in range(draws))
        script.connect(page="draw")
        burst = [script.rerun().seconds for _ in range(RUN_BURST + 5)]  # the burst, then runs that wait
        student_done, asked = threading.Event(), []

        def keep_asking() -> None:
            while not student_done.is_set():
                asked.append(script.rerun().seconds)

        asking = threading.Thread(target=keep_asking)
        asking.start()
        during = [draw(student, index).seconds for index in range(draws)]
        student_done.set()
        asking.join()
        print(
            f"run after run: the script's last {len(burst) - RUN_BURST} runs past its burst of {RUN_BURST} took "
            f"{milliseconds(burst[RUN_BURST:])} (each waits for its token, {1 / RUNS_PER_SECOND:.1f} s apart); "
            f"meanwhile it asked {len(asked)} runs and the student drew in {milliseconds(during)}, median "
            f"{statistics.median(during) / usual:.1f}x its usual {usual * 1000:.0f} ms",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.abuse_bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    app_server.add_data_arguments(parser)
    parser.add_argument("--floods", type=int, default=3, help="floods sent, one after the other (default 3)")
    parser.add_argument("--draws", type=int, default=5, help="draws for each usual and 'meanwhile' figure")
    parser.add_argument("--log-dir", type=Path, default=REPO / "test-artifacts" / "abuse-bench")
    args = parser.parse_args()
    if args.floods < 1 or args.draws < 1:
        parser.error("--floods and --draws must be at least 1")
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-abuse-") as (data_dir, _):
        args.log_dir.mkdir(parents=True, exist_ok=True)
        log = args.log_dir / "server.log"
        print(f"load average at the start: {load_averages()}; server log {log}", flush=True)
        with app_server.StreamlitServer(data_dir, log, ready_timeout=120) as server:
            with StreamlitClient(server.url, timeout=RUN_TIMEOUT) as warm:  # MNIST loaded, models trained
                warm.connect(page="draw")
                draw(warm, 0)
            measure(server.url, args.floods, args.draws)
        print(f"load average at the end: {load_averages()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
