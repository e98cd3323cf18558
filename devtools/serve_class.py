"""Serve a class: N replicas of the app behind nginx with sticky sessions, on one port.

    python -m devtools.serve_class --replicas 2 [--port 8080] [--host 127.0.0.1] [--data-dir DIR]
                                  [--sockets-per-address 12] [--redis [URL]]

Every replica opens the same class store, so a teacher sees every student's drawing whichever replica
serves them: by default the SQLite file in the data directory (one machine); with --redis, a Redis
server (started here on a free loopback port, or the one at URL), as a school with several machines would.

The replicas, their data ($NBCORE_DATA_DIR, or --data-dir) and nginx are started as
``devtools.replicas.ClassServer`` describes. While serving, every replica's ``/_stcore/health`` is
polled (every 5 s) and a change is printed. Ctrl-C (or SIGTERM) stops nginx and every replica, and
removes the temporary prefix.

nginx lets each client address hold at most --sockets-per-address open websockets (one per browser
tab; default 12): a script opening more gets HTTP 429. It counts by the address a connection comes
from, so a class reaching this server through one NAT address (a school gateway or proxy) shares one
count: serve it with --sockets-per-address 0 (no limit).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from pathlib import Path

from devtools.replicas import SOCKETS_PER_ADDRESS, ClassServer


def socket_count(text: str) -> int:
    """--sockets-per-address: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of websockets") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} websockets per address: give 0 (no limit) or a positive number")
    return value


def students_url(host: str, port: int, public_address) -> str | None:
    """The address students open when nginx listens on ``host``: the LAN address for 0.0.0.0, none for loopback."""
    if host in ("0.0.0.0", "::"):
        found = public_address.lan_address()
        return None if found is None else f"http://{found}:{port}"
    return None if public_address.is_loopback(host) else f"http://{host}:{port}"


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.serve_class", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--port", type=int, default=8080, help="nginx's port (default 8080)")
    parser.add_argument("--host", default="127.0.0.1", help="nginx's address (0.0.0.0 to serve the room's network)")
    parser.add_argument("--data-dir", type=Path, help="the data directory (default $NBCORE_DATA_DIR or nbcore's)")
    parser.add_argument(
        "--sockets-per-address",
        type=socket_count,
        metavar="N",
        default=SOCKETS_PER_ADDRESS,
        help=(
            f"open websockets (browser tabs) nginx allows per client address, more get HTTP 429 "
            f"(default {SOCKETS_PER_ADDRESS}); 0: no limit, for a class behind one NAT address, which shares one count"
        ),
    )
    parser.add_argument(
        "--redis",
        nargs="?",
        const="start",
        metavar="URL",
        help="keep the classes in Redis: at URL (redis://host:port/0), or with no URL in a redis-server started "
        "here (nothing saved to disk); default: the SQLite file in the data directory",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the address students' devices open (http://host:port), for the links and QR code teachers hand out; "
        "default: with --host 0.0.0.0 this machine's address on the local network, else --host",
    )
    args = parser.parse_args()
    from devtools.redis_server import RedisServer
    from lab import public_address
    from nbcore.classroom.backends import SETTING
    from nbcore.datasets import default_data_dir

    data_dir = args.data_dir or default_data_dir()
    stopping = False

    def on_term(*_):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_term)
    with contextlib.ExitStack() as running:
        store_url = args.redis
        if store_url == "start":
            store_url = running.enter_context(RedisServer()).url
            print(f"redis-server started for the class store: {store_url}", flush=True)
        store_env = {SETTING: store_url} if store_url else {}
        public = args.public_url or students_url(args.host, args.port, public_address)
        if public:
            store_env[public_address.SETTING] = public
            print(f"students' links use {public}", flush=True)
        print(f"preparing MNIST in {data_dir}, then {args.replicas} replicas ...", flush=True)
        served = running.enter_context(
            ClassServer(
                args.replicas,
                data_dir,
                port=args.port,
                host=args.host,
                sockets_per_address=args.sockets_per_address,
                extra_env=store_env,
            )
        )
        ports = ", ".join(str(server.port) for server in served.servers)
        limit = f"{args.sockets_per_address} websockets per address" if args.sockets_per_address else "no socket limit"
        print(
            f"serving {served.url} (nginx, sticky, {limit}) -> replicas on 127.0.0.1: {ports}; Ctrl-C stops all",
            flush=True,
        )
        last = served.health()
        try:
            while not stopping:
                time.sleep(5)
                now = served.health()
                for index, (before, after) in enumerate(zip(last, now)):
                    if before != after:
                        print(
                            f"replica {index} (port {served.servers[index].port}) "
                            f"{'healthy again' if after else 'NOT answering /_stcore/health'}",
                            flush=True,
                        )
                last = now
        except KeyboardInterrupt:
            pass
        print("stopping nginx and the replicas ...", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
