"""Oversized upload PUTs at a served class while another client loads pages: ``flood_and_probe``.

What a hostile student can do with no session at all: ``GET /_stcore/health`` hands out Streamlit's XSRF
cookie, and a PUT to ``/_stcore/upload_file/<any>/<any>`` carrying it (cookie and ``X-Xsrftoken`` header) is
accepted by nginx and passed on to a replica, which refuses it (unknown session, or a body over
``server.maxUploadSize``) before reading the body and closes the connection under nginx's feet. This module
sends ``puts`` such PUTs at once and, from another client, loads a page every ``interval`` seconds during
the flood and for ``after`` seconds after it, as a student's browser would (no cookies: each load is routed
afresh). Behind a proxy that counts those resets as replica failures, the page loads get 502.

    python -m devtools.upload_flood http://127.0.0.1:8080 [--puts 8] [--megabytes 6] [--after 12]

prints the PUTs' outcomes and the page loads by status. Used by tests/e2e/test_nginx_faults.py.
"""

from __future__ import annotations

import argparse
import http.client
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from devtools.protocol_upload import XSRF_COOKIE

UPLOAD_PATH = "/_stcore/upload_file"


@dataclass
class FloodReport:
    """What the flood's PUTs got and what the page loads beside it got."""

    put_outcomes: list[str]  # an HTTP status ("413") or the exception's class name ("ConnectionResetError")
    page_loads: list[tuple[float, str]] = field(default_factory=list)  # (seconds since the flood began, outcome)
    flood_seconds: float = 0.0  # when the last PUT had its outcome, seconds since the flood began

    def page_errors(self) -> list[tuple[float, str]]:
        return [(at, outcome) for at, outcome in self.page_loads if outcome != "200"]

    def summary(self) -> str:
        errors = self.page_errors()
        span = f", the first at {errors[0][0]:.1f} s and the last at {errors[-1][0]:.1f} s" if errors else ""
        return (
            f"{len(self.put_outcomes)} PUTs in {self.flood_seconds:.2f} s: {dict(Counter(self.put_outcomes))}; "
            f"{len(self.page_loads)} page loads: {dict(Counter(o for _, o in self.page_loads))}; "
            f"{len(errors)} not 200{span}"
        )


def xsrf_cookie(url: str, timeout: float = 10.0) -> str:
    """The XSRF cookie's value that ``GET /_stcore/health`` sets (no session needed)."""
    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as response:
        response.read()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            if name.strip() == XSRF_COOKIE:
                return rest.split(";", 1)[0]
    raise RuntimeError(f"{url}/_stcore/health set no {XSRF_COOKIE} cookie (is XSRF protection off?)")


def oversized_put(url: str, token: str, size: int, target: str | None = None, timeout: float = 30.0) -> str:
    """One PUT of ``size`` bytes with the XSRF cookie and header; its outcome.

    ``target``: "METHOD /path" to send instead (e.g. "GET /" with a body); default a PUT to a made-up upload path.
    """
    method, path = (target or f"PUT {UPLOAD_PATH}/{uuid.uuid4().hex}/{uuid.uuid4().hex}").split(" ", 1)
    parts = urllib.parse.urlsplit(url)
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\n'
        "Content-Type: image/png\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    body = head + b"\0" * max(0, size - len(head) - len(tail)) + tail
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host")
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request(
            method,
            path,
            body=body,
            headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "Cookie": f"{XSRF_COOKIE}={token}",
                "X-Xsrftoken": token,
            },
        )
        response = connection.getresponse()
        response.read()
        return str(response.status)
    except (OSError, http.client.HTTPException) as error:  # closed mid-body, or mid-answer (IncompleteRead)
        return type(error).__name__
    finally:
        connection.close()


def page_load(url: str, timeout: float = 10.0) -> str:
    """``GET url`` as a new visitor (no cookies): the status, or the exception's class name."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return str(response.status)
    except urllib.error.HTTPError as error:
        return str(error.code)
    except (OSError, http.client.HTTPException) as error:
        return type(error).__name__


def flood_and_probe(
    url: str,
    puts: int = 8,
    size: int = 6_000_000,
    after: float = 12.0,
    interval: float = 0.15,
    page: str = "/",
    target: str | None = None,
) -> FloodReport:
    """``puts`` oversized PUTs at once; a page load every ``interval`` s from the start until ``after`` s past them.

    ``target``: what to send instead of upload PUTs, as in ``oversized_put``.
    """
    token = xsrf_cookie(url)
    loads: list[tuple[float, str]] = []
    flood_over = threading.Event()
    start = time.monotonic()

    def probe() -> None:
        deadline: float | None = None
        while deadline is None or time.monotonic() < deadline:
            if deadline is None and flood_over.is_set():
                deadline = time.monotonic() + after
            loads.append((time.monotonic() - start, page_load(url + page)))
            time.sleep(interval)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    try:
        with ThreadPoolExecutor(puts) as pool:
            outcomes = list(pool.map(lambda _: oversized_put(url, token, size, target), range(puts)))
    finally:
        flood_seconds = time.monotonic() - start
        flood_over.set()
    prober.join(after + 60)
    return FloodReport(outcomes, loads, flood_seconds)


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.upload_flood",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("url", help="the served class, e.g. http://127.0.0.1:8080")
    parser.add_argument("--puts", type=int, default=8, help="PUTs sent at once (default 8)")
    parser.add_argument("--megabytes", type=float, default=6.0, help="size of each PUT, 10^6 bytes (default 6)")
    parser.add_argument("--after", type=float, default=12.0, help="seconds of page loads after the flood (default 12)")
    parser.add_argument(
        "--target", help='"METHOD /path" to send the bodies to instead (e.g. "GET /"); default: made-up upload paths'
    )
    args = parser.parse_args()
    report = flood_and_probe(
        args.url.rstrip("/"), args.puts, int(args.megabytes * 1_000_000), args.after, target=args.target
    )
    print(report.summary())
    return 1 if report.page_errors() else 0


if __name__ == "__main__":
    raise SystemExit(main())
