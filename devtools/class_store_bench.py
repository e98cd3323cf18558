"""The class store's figures: what it adds to a student's send and to the teacher's refresh, SQLite and Redis.

    python -m devtools.class_store_bench [--part store server] [--stores sqlite sqlite-held redis]
        [--replicas 1 2] [--sends 300] [--processes 1 2 4] [--reads 30] [--server-sends 30] [--clients 6]
        [--duration 20] [--refreshes 15] [--data-dir DIR | --mnist-source DIR] [--log-dir DIR]

Targets (the class store's issue): the store adds at most 5 ms to a send; a teacher's refresh of 300
drawings takes at most 200 ms server-side. Every figure is set against a peer measured in the same run,
since the machine may be shared; each table gives the load average. Everything runs on loopback and is
stopped at the end; the defaults take 8-11 minutes on a loaded 2-core machine. Tables are printed in
Markdown (docs/benchmarks-class-store.md holds them, with the method).

Stores: ``sqlite`` (a fresh file, as NBCORE_CLASS_STORE=sqlite:///path gives it), ``sqlite-held`` (the same
with this process holding one more connection to the file all along: no connection the store closes is
then the file's last, whose close checkpoints the write-ahead log and syncs it), ``redis`` (a
``redis-server`` started on a free loopback port, devtools/redis_server.py).

``store`` (in this process, no Streamlit):

* a send's store work as ``lab/classroom.send_drawing`` does it: two budget ``take`` calls (the student's
  and the address's), then ``add_drawing``; --sends of them back to back (students of 10 sends each);
* the same from each of --processes processes at once into one class: SQLite serializes writers on
  its file's lock, Redis in its single thread;
* a teacher's refresh of the 300 drawings without Streamlit's runtime: ``drawings(code)`` (the store),
  the arrays and confusion matrices, the 60 newest tiles encoded as ``st.image`` encodes an RGB array
  (JPEG, quality 100), the two confusion figures serialized as ``st.plotly_chart`` does
  (``plotly.io.to_json``); --reads times;
* pacing's store work: 60 students each polling in turn, a poll being ``class_info`` (the step the teacher
  leads to) then ``check_in`` (the student's step), and after each round the teacher's Next (``set_pace``)
  and look at where students are (``presence``); 10 rounds.

``server`` (for each store and each --replicas count: that many ``streamlit run app.py`` behind nginx,
``devtools/replicas.py``, sharing one SQLite file or one redis-server; NBCORE_LOG_RERUN_MS=1): protocol
clients (``devtools/streamlit_client.py``), each student a session of its own on /draw?class=CODE from a
loopback address of its own (127.10.x.y: each device of a classroom has its own, so the per-address
budget is not what is measured), sending recorded drawings (devtools/drawings.json):

* a send's run against the same run without the store's work: the send button pressed again on the
  same drawing, which the page answers "already in the gallery" without ``take`` or ``add_drawing``;
  --server-sends pairs from one client at a time, server-side times from the replicas' log lines;
* sends/s: --clients students at once for --duration s, no pause; each session opens Draw, sends 10
  drawings (a student's budget for a minute; a stroke's run then a send's run each), and the next
  student takes its place. Server and load generator CPU say which of them was the limit;
* the teacher's /gallery?class=CODE with 300 drawings against a class with none, alternated
  --refreshes times: the page's whole run (server-side, from the log) and the live fragment's refresh
  that the browser asks for every 3 s (client-side: request to ``script_finished``, protocol included;
  the fragment writes no log line).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from devtools import app_server
from devtools.bench_harness import add_log_dir, bench_span, require_programs
from devtools.bench_report import positive_int, positive_seconds, say
from devtools.class_store_calls import GALLERY_DRAWINGS, store_part
from devtools.class_store_server import server_part
from devtools.class_stores import STORES

PARTS = ("store", "server")


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="python -m devtools.class_store_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    made.add_argument("--part", nargs="+", choices=PARTS, default=list(PARTS), help="what to measure (default both)")
    made.add_argument("--stores", nargs="+", choices=STORES, default=list(STORES), help="back ends (default all three)")
    made.add_argument("--replicas", nargs="+", type=positive_int, default=[1, 2], help="replica counts (default 1 2)")
    made.add_argument("--sends", type=positive_int, default=GALLERY_DRAWINGS, help="store-level sends (default 300)")
    made.add_argument(
        "--processes", nargs="+", type=positive_int, default=[1, 2, 4], help="processes sending at once (default 1 2 4)"
    )
    made.add_argument("--reads", type=positive_int, default=30, help="store-level refreshes timed (default 30)")
    made.add_argument("--server-sends", type=positive_int, default=30, help="send pairs per server (default 30)")
    made.add_argument("--clients", type=positive_int, default=6, help="students sending at once (default 6)")
    made.add_argument("--duration", type=positive_seconds, default=20.0, help="seconds of sending at once (default 20)")
    made.add_argument("--refreshes", type=positive_int, default=15, help="gallery runs of each kind (default 15)")
    add_log_dir(made, "class-store-bench", help="the servers' logs")
    app_server.add_data_arguments(made)
    return made


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The checked arguments (``SystemExit`` with a sentence for bad ones)."""
    made = parser()
    args = made.parse_args(argv)
    if args.refreshes > 35:  # one teacher session's runs stay within lab/rate_limit.py's burst
        made.error(f"--refreshes {args.refreshes}: at most 35 (one session's whole runs stay within its run budget)")
    if args.sends < max(args.processes):
        made.error(f"--sends {args.sends} is fewer than --processes {max(args.processes)}: each needs one")
    if args.sends < GALLERY_DRAWINGS and "store" in args.part:
        say(f"note: --sends {args.sends}: drawings() then reads {args.sends} drawings, not {GALLERY_DRAWINGS}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    require_programs(nginx="server" in args.part, redis="redis" in args.stores)
    with bench_span(), tempfile.TemporaryDirectory(prefix="nb-store-bench-") as scratch:
        folder = Path(scratch)
        if "store" in args.part:
            store_part(args, folder)
        if "server" in args.part:
            args.log_dir.mkdir(parents=True, exist_ok=True)
            with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-store-bench-data-") as (data_dir, _):
                server_part(args, folder, data_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
