"""lab/pace_route.py: ``GET /api/pace`` as a visitor calls it (the ASGI app called directly, on a real SQLite
class store): bad input is a 400 sentence, a code never made answers like any other, a wait ends when the class
moves on or after its time, and an address holds a bounded number of waits."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from starlette.applications import Starlette

from lab import pace_route
from nbcore.classroom import open_store
from nbcore.classroom.backends import SETTING
from nbcore.classroom.records import ClassInfo

APP = Starlette(routes=[pace_route.ROUTE])


@pytest.fixture
def store(tmp_path, monkeypatch):
    setting = f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    monkeypatch.setenv(SETTING, setting)
    return open_store(setting)


def get(query: str, address: str = "203.0.113.7", headers: tuple = ()) -> tuple[int, str, str]:
    """(status, content type, body) of ``GET /api/pace?query`` from ``address``."""
    status, answered, body = answer(query, address, headers)
    return status, answered.get("content-type", ""), body


def answer(query: str, address: str = "203.0.113.7", headers: tuple = ()) -> tuple[int, dict[str, str], str]:
    """(status, headers by lower-case name, body) of ``GET /api/pace?query`` from ``address``."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": pace_route.PATH,
        "raw_path": pace_route.PATH.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"lab.example"), *headers],
        "client": (address, 50000),
        "server": ("lab.example", 80),
    }
    sent: list[dict] = []

    async def receive() -> dict:
        await asyncio.sleep(3600)  # the visitor stays: no disconnect while it waits
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(APP(scope, receive, send))
    start = sent[0]
    answered = {name.decode().lower(): value.decode() for name, value in start["headers"]}
    return start["status"], answered, b"".join(m.get("body", b"") for m in sent[1:]).decode()


@pytest.mark.parametrize(
    "query",
    ["", "class=", "class=AB", "class=ABCDEFGHJKLMN", "class=AB%20CD", "class=%00%ff", "class=" + "A" * 100],
)
def test_a_bad_code_is_a_400_sentence(store, query):
    status, content_type, body = get(query)
    assert status == 400 and content_type.startswith("text/plain")
    assert body.startswith("Give the class code as ?class=CODE") and "Traceback" not in body


@pytest.mark.parametrize("seen", ["", "zz", "0123456789abcdeF", "0123456789abcdef0", "'; drop"])
def test_a_bad_seen_is_a_400_sentence(store, seen):
    status, _, body = get(f"class=ABCD&seen={seen}")
    assert status == 400 and body.startswith("seen, if given, is a version") and "Traceback" not in body


def test_a_code_never_made_answers_like_a_class(store):
    made = store.create_class()
    known = json.loads(get(f"class={made.info.code}")[2])
    unknown = json.loads(get("class=QQQQ2222")[2])
    assert set(known) == set(unknown) == {"version"}
    assert len(known["version"]) == len(unknown["version"]) == pace_route.VERSION_CHARS
    assert json.loads(get(f"class={made.info.code.lower()}")[2]) == known  # the code as typed: spaces, case


def test_the_version_names_the_step_the_period_and_the_end():
    info = ClassInfo("ABCD", created_at=0.0, expires_at=100.0, pace=2)
    same = pace_route.version("ABCD", info, 10.0)
    assert pace_route.version("ABCD", ClassInfo("ABCD", created_at=5.0, expires_at=90.0, pace=2), 10.0) == same
    others = {
        pace_route.version("ABCD", ClassInfo("ABCD", 0.0, 100.0, pace=3), 10.0),
        pace_route.version("ABCD", ClassInfo("ABCD", 0.0, 100.0, pace=2, period=2), 10.0),
        pace_route.version("ABCD", info, 200.0),  # ended on its own
        pace_route.version("ABCD", None, 10.0),
        pace_route.version("ABCE", ClassInfo("ABCE", 0.0, 100.0, pace=2), 10.0),
    }
    assert same not in others and len(others) == 5


def test_a_wait_ends_when_the_teacher_moves_or_after_its_time(store, monkeypatch):
    monkeypatch.setattr(pace_route, "WAIT_SECONDS", 0.6)
    made = store.create_class()
    code = made.info.code
    first = json.loads(get(f"class={code}")[2])["version"]
    started = time.monotonic()
    assert json.loads(get(f"class={code}&seen={first}")[2])["version"] == first  # nothing moved: after its time
    assert time.monotonic() - started >= 0.6
    monkeypatch.setattr(pace_route, "WAIT_SECONDS", 30.0)
    mover = threading.Timer(0.3, lambda: store.set_pace(code, made.teacher_key, step=4))
    mover.start()
    started = time.monotonic()
    moved = json.loads(get(f"class={code}&seen={first}")[2])["version"]
    assert moved != first and time.monotonic() - started < 10  # answered by the change, not the 30 s
    assert moved == json.loads(get(f"class={code}")[2])["version"]
    assert get(f"class={code}&seen={first}")[0] == 200  # an older version than the class's: at once
    assert pace_route._watches == {} and pace_route._waits_by_address == {}


def test_an_address_holds_a_bounded_number_of_waits(store, monkeypatch):
    made = store.create_class()
    version = json.loads(get(f"class={made.info.code}")[2])["version"]
    monkeypatch.setitem(pace_route._waits_by_address, "198.51.100.9", pace_route.WAITS_PER_ADDRESS)
    status, _, body = get(f"class={made.info.code}&seen={version}", address="198.51.100.9")
    assert status == 429 and body.startswith("At most") and "Traceback" not in body
    # behind our nginx (a loopback peer) the address is the one nginx wrote, not the connection's
    forwarded = ((b"x-forwarded-for", b"198.51.100.9"),)
    assert get(f"class={made.info.code}&seen={version}", address="127.0.0.1", headers=forwarded)[0] == 429


def test_a_store_that_refuses_is_a_503_sentence(store, monkeypatch):
    from lab.data import class_store
    from nbcore.classroom.records import UNAVAILABLE, StoreUnavailable

    def refused():
        raise StoreUnavailable(UNAVAILABLE)

    monkeypatch.setattr(class_store, "class_store", refused)
    status, content_type, body = get("class=ABCD")
    assert status == 503 and content_type.startswith("text/plain") and body.startswith("The class store cannot")


def test_a_wait_ends_with_the_store_s_503_when_it_stops_answering_and_a_version_once_it_answers(store, monkeypatch):
    """A student waiting when the store stops answering hears so at once (their page then says it); so does every
    ask meanwhile; once a read succeeds the version comes back."""
    from nbcore.classroom.records import UNAVAILABLE, StoreUnavailable

    monkeypatch.setattr(pace_route, "WAIT_SECONDS", 30.0)
    made = store.create_class()
    code = made.info.code
    first = json.loads(get(f"class={code}")[2])["version"]
    read = pace_route._read
    refusing = threading.Event()

    def reading(asked: str) -> str:
        if refusing.is_set():
            raise StoreUnavailable(UNAVAILABLE)
        return read(asked)

    monkeypatch.setattr(pace_route, "_read", reading)
    threading.Timer(0.3, refusing.set).start()
    started = time.monotonic()
    status, headers, body = answer(f"class={code}&seen={first}")
    assert status == 503 and time.monotonic() - started < 10  # the wait ended on the refusal, not after 30 s
    assert headers[pace_route.STORE_HEADER.lower()] and body.startswith("The class store cannot")
    status, headers, _ = answer(f"class={code}&seen={first}")
    assert status == 503 and pace_route.STORE_HEADER.lower() in headers
    refusing.clear()
    assert json.loads(get(f"class={code}")[2])["version"] == first
    # another 503 (this server's own limit) is not the store's: the listener does not take it for an outage
    monkeypatch.setattr(pace_route, "WATCHED_CLASSES", 0)
    status, headers, _ = answer(f"class={code}&seen={first}")
    assert status == 503 and pace_route.STORE_HEADER.lower() not in headers
