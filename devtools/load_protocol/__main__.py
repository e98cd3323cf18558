"""A lecture hall at once: N simulated students on the Draw page, speaking Streamlit's protocol.

    python -m devtools.load_protocol [--students 30 60 120 240] [--duration 60] [--think 2 5] [--send rested]
                                    [--replicas 0] [--server-cpus 1 --client-cpus 0] [--nice -10]
                                    [--message-cache] [--app OTHER_CHECKOUT/app.py]
    python -m devtools.load_protocol --churn 500          # sessions opened and closed, memory after
    python -m devtools.load_protocol --students 60 --abuser flood paced clear-cache --server-cpus 1 --client-cpus 0
    PYTHONPATH=. locust -f devtools/load_protocol/locustfile.py --host http://HOST:PORT   # Locust's own UI/CLI, several machines

No browser: each student is a Locust user (gevent) holding one ``devtools.streamlit_client``
session. It opens /draw, then repeats, thinking ``--think`` seconds (uniform) after each step:

  draw a digit: send a drawing (a canvas state recorded from Chromium, devtools/drawings.json, digits in turn)
      -> wait for the run to finish, check the "Naive Bayes prediction" it got back;
  move the sidebar's alpha one stop (1 -> 2, next time back) -> wait for the run;
  press Clear.

``--send`` says how the page sends, to measure the page before issue 40 and after it with the same students:
``rested`` (the page since issue 40, lab/canvas.py): the drawing goes to the server once the pen has rested,
``REST_MS`` after the digit's last stroke (the student waits that long, then sends: one run per digit), and Clear
is the canvas's own, no run, so the student only thinks; ``stroke`` (before it, with ``--app`` of such a
checkout): a run at every pointer-up (the recorded drawings are one stroke each, so one run per digit too) and
Clear a Streamlit button, a run (waited for, and checked to leave no prediction).

For each N: a fresh server (or ``--replicas k``: k replicas behind nginx, devtools/replicas.py),
warmed by one visitor (MNIST loaded, models trained, both alphas), then N students spawned over
``--spawn-seconds``; measured over ``--duration`` seconds once every student has its page:

* errors: an exception, st.error, a lost connection or a run not finished within ``--timeout``;
  wrong: predictions differing from the digit drawn (each recorded drawing was predicted right
  in Chromium at the default settings);
* drawing sent -> run finished, and drawing sent -> "Naive Bayes prediction" received: p50/p95/p99;
* runs/s served (all three kinds of step), and the p95 of the alpha and Clear runs; students per process:
  the largest N whose draw p95 (sent -> finished) stays within 300 ms;
* server CPU (cores, utime+stime of its process groups / wall; per run: those CPU seconds / runs, the
  number that sets how many students a process serves) and RSS (sum of VmRSS) idle -> peak,
  per student; this process's own CPU (the load generator must not be the bottleneck); the
  machine's busy cores and load average (other work shares the machine).

``--abuser KIND ...``: for each N and KIND, a fresh server and the students, with one more
client abusing the server in turns of ``--abuse-slice`` seconds (off, on, off, ...; ``--duration``
seconds of each in all, so a slow change in the machine's other load falls on both):
``flood`` sends 1,000 rerun requests at once every second (and reads what comes back), ``paced``
asks for run after run, each as soon as the last finished, ``clear-cache`` sends ``clear_cache``
and a rerun, again and again. Printed per KIND: the students' p95 without and with the abuser and
the change, against one run time (p50 of 20 draws of one client on the idle server), what the
abuser sent and got (rerun requests; runs ended, ``script_finished`` messages: past its budget
lab/rate_limit.py holds each run until its token is due), server and load generator CPU, load average.

``--churn K``: one fresh server; K sessions each open /draw, draw once, close (``--churn-parallel``
at a time); RSS before, after, and after Streamlit's disconnected-session TTL
(server.disconnectedSessionTTL, 120 s by default: closed sessions are kept for reconnects in a
TTL cache of at most 128, runtime/memory_session_storage.py, reaped only on a later write) plus
one more session closed, which makes the cache reap.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from devtools import app_server
from devtools.bench_harness import add_cpu_arguments, pin_clients, taskset_prefix
from devtools.load_protocol.abuser import ABUSERS
from devtools.load_protocol.churn import churn
from devtools.load_protocol.phases import Served, run_phase
from devtools.load_protocol.students import SENDS, SETTINGS
from devtools.load_protocol.tables import abuse_contained, print_abuse_table, print_table, targets_met


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.load_protocol",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--students", type=int, nargs="+", default=[30, 60, 120, 240])
    parser.add_argument("--duration", type=float, default=60.0, help="steady window per N, seconds")
    parser.add_argument("--spawn-seconds", type=float, default=10.0, help="students join over this many seconds")
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 5.0))
    parser.add_argument(
        "--send",
        choices=SENDS,
        default=SENDS[0],
        help="rested: the page since issue 40 (one run per rested pen, Clear in the page); stroke: before it "
        "(a run per pointer-up, Clear a run; with --app of such a checkout)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a run may take before it is an error")
    parser.add_argument("--replicas", type=int, default=0, help="0: one plain server; k: k replicas behind nginx")
    add_cpu_arguments(parser, "taskset CPU list for the server(s), e.g. 1", "CPU list for this load generator, e.g. 0")
    parser.add_argument(
        "--nice",
        type=int,
        help="niceness for the server(s) and this process (e.g. -10 as root: "
        "other work on a shared machine then waits for the class)",
    )
    parser.add_argument(
        "--abuser",
        nargs="+",
        choices=ABUSERS,
        help="per N and abuser: a fresh server, students, and the abuser on and off in turns",
    )
    parser.add_argument("--abuse-slice", type=float, default=10.0, help="seconds of each turn with/without the abuser")
    parser.add_argument("--churn", type=int, default=0, help="open and close this many sessions instead")
    parser.add_argument("--churn-parallel", type=int, default=4)
    parser.add_argument("--ttl-wait", type=float, default=125.0, help="seconds to wait after the churn")
    app_server.add_data_arguments(parser, mnist_source=False)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--message-cache",
        action="store_true",
        help="students keep messages and advertise their hashes as a browser does (large unchanged elements come "
        "as references)",
    )
    parser.add_argument(
        "--app", default="app.py", help="the app to serve (one plain server), e.g. another checkout's app.py"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks: stop the servers
    SETTINGS.think, SETTINGS.timeout, SETTINGS.message_cache = tuple(args.think), args.timeout, args.message_cache
    SETTINGS.send = args.send
    if args.app != "app.py" and args.replicas:
        parser.error("--app serves one plain server: leave out --replicas")
    pin_clients(args.client_cpus)
    server_prefix = taskset_prefix(args.server_cpus)
    if args.nice is not None:  # the servers started below inherit it
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)
    with app_server.script_data_dir(args.data_dir, None, "load-protocol-") as (data_dir, _):
        log_dir = Path(subprocess.check_output(["mktemp", "-d", "/tmp/load-protocol-logs-XXXX"], text=True).strip())
        results: list[dict] = []
        try:
            if args.churn:
                with Served(args.replicas, data_dir, log_dir, server_prefix) as served:
                    result = churn(served, args.churn, args.churn_parallel, args.ttl_wait)
                print(json.dumps(result, indent=1))
                results.append(result)
                return 0 if not result["failures"] and result["after_ttl_mb"] - result["before_mb"] <= 50 else 1
            if args.abuser:
                for students in args.students:
                    for abuser in args.abuser:
                        print(
                            f"--- {students} students, abuser: {abuser} in turns of {args.abuse_slice:.0f} s, "
                            f"{2 * args.duration:.0f} s ...",
                            flush=True,
                        )
                        with Served(args.replicas, data_dir, log_dir, server_prefix) as served:
                            results.append(run_phase(students, served, args, abuser))
                        print_abuse_table(results)
                return 0 if abuse_contained(results) else 1
            for students in args.students:
                print(
                    f"--- {students} students ({args.replicas or 'one plain'} "
                    f"{'replicas behind nginx' if args.replicas else 'server'}) ...",
                    flush=True,
                )
                with Served(args.replicas, data_dir, log_dir, server_prefix, args.app) as served:
                    results.append(run_phase(students, served, args))
                print_table(results)
            return 0 if targets_met(results) else 1
        finally:
            if args.json:
                args.json.write_text(
                    json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "results": results}, indent=1)
                )
            print(f"server logs: {log_dir}")


if __name__ == "__main__":
    sys.exit(main())
