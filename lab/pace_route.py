"""``GET /api/pace``: how a student's lesson learns, without a script run, that its class has moved on.

The page of a student following the teacher (``lab/pace_listener.py``) asks ``/api/pace?class=CODE&seen=V``,
``V`` being the version of the class it shows. The answer is the class's version now, at once when it differs
from ``V``, else as soon as it changes or after ``WAIT_SECONDS`` (a long wait: a waiting student costs the
server one asleep request, not a run every 2 s). A version names what moves a student's page: the step the
teacher leads to, the period, whether the class is open (``version``); it is a digest, so the answer tells no
more than "the same" or "not the same", and a code never made answers like any other (no way to find codes).

Each process reads a watched class from the store at most every ``POLL_SECONDS``, whatever the number of its
students waiting (one watcher per class, ``_Watch``); the store is the one every replica shares, so any replica
answers for a Next pressed on another. Limits: ``WAITS_PER_ADDRESS`` open waits per client address (429 beyond;
a browser holds one per open lesson tab) and ``WATCHED_CLASSES`` classes per process (503 beyond); bad input
is a 400 with a sentence, never a traceback. While the store refuses to read a class, its waits end at once with a
503 marked ``STORE_HEADER`` (the listener then draws the page again, which says the store is not answering), and new
asks get the same until a read succeeds.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from lab.data import class_store
from nbcore.classroom import CODE_RULE, ClassInfo, Refused, class_code

PATH = "/api/pace"
STORE_HEADER = "X-Class-Store"  # on a 503 when the store refuses: the listener's cue to draw the page again
WAIT_SECONDS = 20.0  # the longest an answer waits for a change (a proxy's idle timeout is usually 60 s or more)
POLL_SECONDS = 0.2  # how often a process reads a class its students wait on: 0.1 s on average after a Next
CHECK_SECONDS = 1.0  # how often a waiting request looks whether its visitor has gone (a closed tab, a new run)
# A whole class may reach the server through one school NAT address (lab/classroom.py sizes its per-address
# budgets the same way): sixty students with two lesson tabs each. A wait costs a sleeping request, not a run.
WAITS_PER_ADDRESS = 120
WATCHED_CLASSES = 500  # classes one process watches at once; a real server holds far fewer
VERSION_CHARS = 16
NO_STORE = {"Cache-Control": "no-store"}


def version(code: str, info: ClassInfo | None, now: float) -> str:
    """The version of class ``code`` as a student's page follows it (``info``: the store's, None if none): a hex
    digest of the led step while open, the period and whether it is open; ``lab/class_period.changed``'s terms."""
    if info is None:
        state = "none"
    else:
        live = info.ended(now) is None
        state = f"{info.pace if live else None}|{info.period}|{live}"
    return hashlib.blake2b(f"{code}|{state}".encode(), digest_size=VERSION_CHARS // 2).hexdigest()


def _read(code: str) -> str:
    """The class's version from the store (``StoreUnavailable``/``Refused`` when it cannot be read)."""
    return version(code, class_store.class_store().class_info(code), time.time())


@dataclass
class _Watch:
    """One class watched by this process while students wait on it: its last version read, an event set (and
    replaced) when it changes, and how many requests wait."""

    token: str
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    waiting: int = 0
    refused: bool = False  # the store refused the last read

    def wake(self) -> None:
        """Answer every request waiting on this class now."""
        woken, self.changed = self.changed, asyncio.Event()
        woken.set()


_watches: dict[str, _Watch] = {}
_waits_by_address: dict[str, int] = {}


async def _watch(code: str, watch: _Watch) -> None:
    """Read the class every ``POLL_SECONDS`` while anyone waits on it; wake the waiters when its version changes,
    and when the store begins refusing (they answer that the store is not answering; the last version is kept)."""
    try:
        while watch.waiting > 0:
            await asyncio.sleep(POLL_SECONDS)
            try:
                token = await asyncio.to_thread(_read, code)
            except Refused:
                if not watch.refused:
                    watch.refused = True
                    watch.wake()
                continue
            watch.refused = False
            if token != watch.token:
                watch.token = token
                watch.wake()
    finally:
        if _watches.get(code) is watch:
            del _watches[code]


def client_address(request: Request) -> str:
    """The visitor's address: the connection's, or behind our nginx (a loopback peer) the X-Forwarded-For it sets
    (lab/classroom.client_address reads the same from a script run)."""
    direct = request.client.host if request.client else ""
    if direct in ("127.0.0.1", "::1", ""):
        forwarded = request.headers.get("x-forwarded-for", "")
        return forwarded.split(",")[-1].strip() or direct
    return direct


def _refuse(status: int, sentence: str) -> Response:
    return PlainTextResponse(sentence, status_code=status, headers=NO_STORE)


def _store_refuses() -> Response:
    """A 503 that says the class store itself does not answer (not this server's limits: ``STORE_HEADER``)."""
    return PlainTextResponse(
        "The class store cannot be reached just now: try again in a few seconds.",
        status_code=503,
        headers={**NO_STORE, STORE_HEADER: "not answering"},
    )


async def pace(request: Request) -> Response:
    """``GET /api/pace?class=CODE[&seen=VERSION]``: ``{"version": ...}`` (see the module's docstring)."""
    code = class_code(request.query_params.get("class"))
    if code is None:
        return _refuse(400, f"Give the class code as ?class=CODE: {CODE_RULE}.")
    seen = request.query_params.get("seen")
    if seen is not None and not (len(seen) == VERSION_CHARS and all(c in "0123456789abcdef" for c in seen)):
        return _refuse(400, f"seen, if given, is a version this address answered: {VERSION_CHARS} hex digits.")
    watch = _watches.get(code)
    if watch is None:
        try:
            token = await asyncio.to_thread(_read, code)
        except Refused:
            return _store_refuses()
    elif watch.refused:
        return _store_refuses()
    else:
        token = watch.token
    if seen != token:
        return JSONResponse({"version": token}, headers=NO_STORE)
    return await _wait(request, code, token)


async def _wait(request: Request, code: str, token: str) -> Response:
    """Answer when class ``code`` leaves version ``token``, or with it after ``WAIT_SECONDS``."""
    address = client_address(request)
    if _waits_by_address.get(address, 0) >= WAITS_PER_ADDRESS:
        return _refuse(429, f"At most {WAITS_PER_ADDRESS} waits at once from one address.")
    watch = _watches.get(code)
    if watch is None:
        if len(_watches) >= WATCHED_CLASSES:
            return _refuse(503, "This server is watching as many classes as it can: try again in a few seconds.")
        watch = _watches[code] = _Watch(token)
        asyncio.get_running_loop().create_task(_watch(code, watch))
    watch.waiting += 1
    _waits_by_address[address] = _waits_by_address.get(address, 0) + 1
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while watch.token == token and not watch.refused and time.monotonic() < deadline:
            try:
                await asyncio.wait_for(watch.changed.wait(), min(CHECK_SECONDS, deadline - time.monotonic()))
            except TimeoutError:
                if await request.is_disconnected():
                    break
        return _store_refuses() if watch.refused else JSONResponse({"version": watch.token}, headers=NO_STORE)
    finally:
        watch.waiting -= 1
        left = _waits_by_address.pop(address, 1) - 1
        if left:
            _waits_by_address[address] = left


ROUTE = Route(PATH, pace, methods=["GET"])
