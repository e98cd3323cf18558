"""One student against the class, probed over Streamlit's websocket protocol (no browser).

``devtools.streamlit_client`` speaks the protobufs the web frontend speaks, so these tests send
what a script in the developer tools can send: eight first runs at the same instant, a
``clear_cache`` message, oversized and forged canvas values, a huge Spam message, odd query
strings and hostile HTTP paths. The outcomes are listed in docs/security-probes.md.

``NBCORE_PROBE_SERVERS`` (default 1, to keep CI short) fresh servers are each hit by eight simultaneous
first runs (Home, Draw, Compare, Gaussian NB, Spam, and two more Draw and one more Home);
``NBCORE_PROBE_SERVERS=10 python -m pytest -q tests/e2e/test_protocol_probes.py -k first_runs``
repeats it ten times.
"""

from __future__ import annotations

import base64
import json
import os
import struct
import threading
import tomllib
import urllib.error
import urllib.request
import zlib

import pytest

from devtools import app_server
from devtools.streamlit_client import StreamlitClient
from nbcore.preprocess import MAX_CANVAS_URL_CHARS, PNG_DATA_URL
from tests.conftest import REPO

# Home, Draw, Compare, Gaussian NB, Spam filter, plus the case that once failed: three
# sessions drawing while two open Home (whose table imported pandas for the first time)
FIRST_PAGES = ("", "draw", "compare", "gaussian", "spam", "", "draw", "draw")
SERVERS = int(os.environ.get("NBCORE_PROBE_SERVERS", "1"))
RUN_TIMEOUT = 240  # s: a fresh server's first Compare run waits for the softmax learning curve on a loaded host
DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]


def drawing(index: int = 0) -> dict:
    """A canvas value Chromium sent for a real stroke on /draw (devtools/drawings.json)."""
    return json.loads(DRAWINGS[index]["json_value"])


def start_server(data_dir, folder, name: str) -> app_server.StreamlitServer:
    return app_server.StreamlitServer(data_dir, folder / f"{name}.log", ready_timeout=120).serve()


def first_runs_at_once(url: str) -> dict[str, list[str]]:
    """``FIRST_PAGES``' sessions open their pages at the same instant; those on Draw then draw.

    Returns each session's errors (exceptions, st.error boxes, protocol failures), by "index:page".
    """
    barrier = threading.Barrier(len(FIRST_PAGES))
    problems: dict[str, list[str]] = {}

    def visit(index: int, page: str) -> None:
        try:
            with StreamlitClient(url, timeout=RUN_TIMEOUT) as client:
                client.open()
                barrier.wait(timeout=60)
                run = client.connect(page=page)
                found = list(run.errors)
                if page == "draw" and not found:
                    found += client.component(draw_canvas_key(client), drawing()).errors
                problems[f"{index}:{page or 'home'}"] = found
        except Exception as error:  # a protocol failure is a finding too
            problems[f"{index}:{page or 'home'}"] = [f"{type(error).__name__}: {error}"]

    threads = [threading.Thread(target=visit, args=item) for item in enumerate(FIRST_PAGES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(RUN_TIMEOUT + 60)
    return problems


def draw_canvas_key(client: StreamlitClient) -> str:
    """The Draw page's canvas widget key (``canvas_draw``: one canvas, which its own Clear keeps)."""
    keys = [key for key in client.widget_ids if key.startswith("canvas_")]
    assert len(keys) == 1, f"expected one canvas, found {keys}"
    return keys[0]


@pytest.fixture(scope="module")
def served(app_data_dir, tmp_path_factory):
    """One fresh server, first hit by the simultaneous first runs (test order), then probed."""
    folder = tmp_path_factory.mktemp("probes")
    server = start_server(app_data_dir, folder, "probed")
    try:
        yield server
    finally:
        server.stop()


# -- part 2: first imports -----------------------------------------------------------------------
def test_first_runs_at_once_on_fresh_servers(served, app_data_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fresh")
    outcomes = {"probed": first_runs_at_once(served.url)}
    for number in range(SERVERS - 1):
        server = start_server(app_data_dir, folder, f"fresh-{number}")
        try:
            outcomes[f"fresh-{number}"] = first_runs_at_once(server.url)
        finally:
            server.stop()
    failures = {name: {page: found for page, found in pages.items() if found} for name, pages in outcomes.items()}
    assert all(len(pages) == len(FIRST_PAGES) for pages in outcomes.values()), outcomes
    assert not any(failures.values()), failures


# -- part 3: clear_cache -------------------------------------------------------------------------
def test_a_visitors_clear_cache_drops_nothing_shared(served):
    with (
        StreamlitClient(served.url, timeout=RUN_TIMEOUT) as student,
        StreamlitClient(served.url, timeout=RUN_TIMEOUT) as visitor,
    ):
        compare = student.connect(page="compare")
        assert compare.errors == []
        before = student.rerun()
        assert before.of_kind("progress") == []  # everything loaded: a rerun waits for nothing
        visitor.connect()
        for _ in range(3):
            visitor.clear_cache()
        visitor.rerun()  # messages on one socket are handled in order: the clears are done
        after = student.rerun()
        assert after.errors == [] and after.of_kind("progress") == [], (
            "a background job (MNIST, softmax, learning curve) started again after clear_cache"
        )
        assert after.of_kind("spinner") == []  # nothing recomputed long enough to show a cache spinner
        drawn = student.goto("draw")
        predicted = student.component(draw_canvas_key(student), drawing())
        visitor.clear_cache()
        visitor.rerun()
        again = student.component(draw_canvas_key(student), drawing(1))
        assert drawn.errors == predicted.errors == again.errors == []
        assert again.of_kind("progress") == [] and again.of_kind("spinner") == []
        print(
            f"prediction after a stroke: {predicted.seconds * 1000:.0f} ms; "
            f"after a visitor's clear_cache: {again.seconds * 1000:.0f} ms"
        )


# -- part 4: bounded input -------------------------------------------------------------------------
def forged_png(width: int, height: int) -> str:
    """A tiny PNG whose header declares width x height pixels (a decompression bomb's header), as a data URL."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    content = (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )
    return PNG_DATA_URL + base64.b64encode(content).decode()


@pytest.mark.parametrize(
    "value, sentence",
    [
        (PNG_DATA_URL + "A" * MAX_CANVAS_URL_CHARS, "too large to process"),
        (forged_png(20000, 20000), "too large to process"),
        (forged_png(300, 300), "damaged drawing"),
        ("javascript:alert(1)", "not a PNG drawing"),
        (12345, "not a PNG drawing"),
        ({"png": 12345, "brush": 20}, "not a PNG drawing"),
        ({"png": "javascript:alert(1)", "brush": "../etc/passwd"}, "not a PNG drawing"),
    ],
)
def test_hostile_canvas_values_end_in_a_sentence(served, value, sentence):
    with StreamlitClient(served.url, timeout=RUN_TIMEOUT) as client:
        assert client.connect(page="draw").errors == []
        run = client.component(draw_canvas_key(client), {"drawing": value})
        assert run.exceptions == []
        assert any(sentence in error for error in run.errors), run.errors
        assert client.component(draw_canvas_key(client), drawing()).errors == []  # the session keeps working


@pytest.mark.parametrize(
    "brush, kept",
    [(30, "draw_brush=30"), (8, "draw_brush=8"), (24, None), (10**12, None), (-1, None), (41, None), (True, None)]
    + [("30", "draw_brush=30")]  # the link's own spelling of it
    + [(value, None) for value in ("../x", "3e1", None, [30], {"width": 30}, 30.5)],
)
def test_the_brush_width_a_drawing_brings_reaches_the_link_only_when_usable(served, brush, kept):
    """The width a drawing says it was made with goes into the link only as a whole number within the brush's
    bounds (not the default, which the link leaves out); anything else is ignored, and the drawing is read all the
    same."""
    with StreamlitClient(served.url, timeout=RUN_TIMEOUT) as client:
        assert client.connect(page="draw").errors == []
        run = client.component(draw_canvas_key(client), {"drawing": {"png": drawing()["drawing"], "brush": brush}})
        assert run.exceptions == [] and run.errors == []
        assert run.metric("Naive Bayes prediction")
        found = [part for part in client.query_string.split("&") if part.startswith("draw_brush=")]
        assert found == ([kept] if kept else []), client.query_string


def test_a_message_above_the_widget_state_limit_is_refused(served):
    """2 MB in one websocket message (server.maxWidgetStateSize = 1): refused; other sessions carry on."""
    with StreamlitClient(served.url, timeout=30) as attacker, StreamlitClient(served.url, timeout=RUN_TIMEOUT) as other:
        attacker.connect(page="draw")
        assert other.connect(page="draw").errors == []
        try:
            run = attacker.component(draw_canvas_key(attacker), {"drawing": PNG_DATA_URL + "A" * 2_000_000})
        except Exception as error:  # the server closed the socket: refused
            outcome = f"{type(error).__name__}: {error}"
        else:
            outcome = f"ran: {run.errors}"
            assert run.exceptions == [] and not run.metric("Naive Bayes prediction"), outcome
        print("2 MB canvas message:", outcome)
        assert other.component(draw_canvas_key(other), drawing()).errors == []


def test_a_huge_spam_message_is_cut_to_max_chars(served):
    with StreamlitClient(served.url, timeout=RUN_TIMEOUT) as client:
        assert client.connect(page="spam").errors == []
        run = client.set_widget("spam_message", "string_value", "win cash now " * 70_000)  # 910 kB
        assert run.errors == []
        print(f"910 kB Spam message: {run.seconds * 1000:.0f} ms")


# -- probes that held --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "query",
    ["page=../../etc/passwd", "x=%00%ff&y=<script>alert(1)</script>", "embed=true&embed_options=" + "a" * 5000, "%%%"],
)
def test_odd_query_strings_run_cleanly(served, query):
    with StreamlitClient(served.url, timeout=RUN_TIMEOUT) as client:
        assert client.connect(query_string=query).errors == []


@pytest.mark.parametrize(
    "path",
    [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/app/static/../../app.py",
        "/_stcore/../.streamlit/config.toml",
        "/component/../../etc/passwd",
        "/media/../../etc/passwd",
    ],
)
def test_hostile_http_paths_serve_no_file(served, path):
    try:
        with urllib.request.urlopen(served.url + path, timeout=10) as response:
            body = response.read()
    except urllib.error.HTTPError as error:
        assert error.code in (400, 403, 404), error.code
        return
    assert b"root:" not in body and b"[server]" not in body and b"shell.run" not in body


def test_upload_without_xsrf_token_is_refused(served):
    request = urllib.request.Request(
        served.url + "/_stcore/upload_file/session/file",
        method="PUT",
        data=b"--x--\r\n",
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code in (400, 403)


def test_every_page_fits_well_under_the_message_limit(served):
    """server.maxMessageSize (MB, .streamlit/config.toml) leaves room: every page's largest message is under a quarter."""
    limit = int(tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["server"]["maxMessageSize"]) << 20
    largest: dict[str, int] = {}

    class Measuring(StreamlitClient):
        def receive(self, timeout=None):
            message, received_at = super().receive(timeout)
            largest[self.page] = max(largest.get(self.page, 0), message.ByteSize())
            return message, received_at

    with Measuring(served.url, timeout=RUN_TIMEOUT) as client:
        client.page = "home"
        assert client.connect().errors == []
        url_paths = {page_hash: path for path, page_hash in client.pages.items() if path == path.lower()}
        for page in sorted(path for path in url_paths.values() if path):  # one name per page: its url path
            client.page = page
            assert client.goto(page).errors == [], page
    print("largest message per page (bytes):", largest)
    assert len(largest) >= 10 and max(largest.values()) < limit / 4, largest
