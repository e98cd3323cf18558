"""nginx's cap on open websockets per client address (deploy/nginx.conf, ``sockets_per_address``).

* ``render_nginx_conf`` fills the cap (12) into the stream location only, and with 0 leaves no
  ``limit_conn`` directive (nginx refuses a limit of 0) and no unfilled ``@FIELD@``; the real nginx
  (``nginx -t``) accepts both; a negative cap is refused by the renderer and by serve_class.py;
* through nginx in front of one replica (``ClassServer``, ``sockets_per_address=3``), three
  protocol-level sessions (devtools.streamlit_client) open and run /draw, a fourth websocket
  handshake from the same address gets HTTP 429 while the three still run the page and the page
  HTML and health still answer; after one session closes, a new one connects and runs, and the
  next is refused again; the refusals are not in nginx's error log (logged below its level).

Missing nginx: fails under CI=true (``.ci/run`` installs it with apt), skipped elsewhere.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.request

import pytest

from devtools import replicas
from devtools.app_server import free_port
from tests.conftest import REPO, require

SOCKETS = 3
STREAM_LOCATION = re.compile(r"location = /_stcore/stream \{(?P<body>[^}]*)\}")
LIMIT_DIRECTIVE = re.compile(r"^[ \t]*limit_conn[ \t].*$", re.MULTILINE)  # not limit_conn_zone / _status / _log_level
UNFILLED_FIELD = re.compile(r"@[A-Z_]+@")


@pytest.fixture(scope="module")
def nginx() -> str:
    found = replicas.nginx_binary()
    require(found is not None, "nginx is missing (apt-get install -y nginx)")
    return found


@pytest.fixture(scope="module")
def limited_server(nginx, app_data_dir, tmp_path_factory):
    """One replica behind nginx allowing ``SOCKETS`` websockets per address; stopped after the module."""
    served = replicas.ClassServer(
        1, app_data_dir, log_dir=tmp_path_factory.mktemp("limited-replica"), sockets_per_address=SOCKETS
    )
    with served:
        yield served


def render(sockets_per_address: int, prefix=REPO / "no-such-prefix") -> str:
    return replicas.render_nginx_conf(prefix, "127.0.0.1:8080", [8601, 8602], sockets_per_address)


def test_render_fills_the_cap_in_the_stream_location_only():
    text = render(12)
    assert not UNFILLED_FIELD.search(text), UNFILLED_FIELD.findall(text)
    stream = STREAM_LOCATION.search(text)
    assert stream is not None, "no location = /_stcore/stream block"
    assert LIMIT_DIRECTIVE.findall(text) == LIMIT_DIRECTIVE.findall(stream["body"]) != []
    assert "limit_conn stream_sockets 12;" in stream["body"]
    assert "limit_conn_status 429;" in stream["body"]
    assert "proxy_pass http://lab_replicas;" in stream["body"]


def test_render_with_no_limit_leaves_no_limit_conn():
    text = render(0)
    assert not UNFILLED_FIELD.search(text), UNFILLED_FIELD.findall(text)
    assert not LIMIT_DIRECTIVE.search(text), LIMIT_DIRECTIVE.findall(text)
    stream = STREAM_LOCATION.search(text)
    assert stream is not None and "proxy_pass http://lab_replicas;" in stream["body"]
    # only the limit line goes: the rest is the same configuration
    unlimited = [line for line in render(12).splitlines() if "limit_conn stream_sockets 12;" not in line]
    assert unlimited == text.splitlines()


def test_negative_cap_is_refused():
    with pytest.raises(ValueError, match="0 \\(no limit\\) or more"):
        render(-1)
    done = subprocess.run(
        [sys.executable, "-m", "devtools.serve_class", "--sockets-per-address", "-1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "-1 websockets per address: give 0 (no limit) or a positive number" in done.stderr


@pytest.mark.parametrize("sockets_per_address", [12, 0])
def test_nginx_accepts_the_rendered_conf(nginx, tmp_path, sockets_per_address):
    conf = replicas.write_nginx_prefix(tmp_path, f"127.0.0.1:{free_port()}", [free_port()], sockets_per_address)
    done = subprocess.run(
        replicas.nginx_command(nginx, tmp_path, conf, "-t"), capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


def handshake_status(url: str) -> int:
    """HTTP status of a websocket handshake on /_stcore/stream that nginx refuses (101 if it is accepted)."""
    import websocket

    from devtools.streamlit_client import StreamlitClient

    client = StreamlitClient(url, timeout=30)
    try:
        client.open()
    except websocket.WebSocketBadStatusException as refused:
        return refused.status_code
    client.close()
    return 101


def open_when_freed(url: str, seconds: float):
    """A StreamlitClient with its websocket open, retrying while nginx answers 429 (at most ``seconds``)."""
    import websocket

    from devtools.streamlit_client import StreamlitClient

    deadline = time.monotonic() + seconds  # nginx frees a slot once the proxied websocket has closed on both sides
    client = StreamlitClient(url, timeout=60)
    while True:
        try:
            client.open()
            return client
        except websocket.WebSocketBadStatusException as refused:
            if refused.status_code != 429 or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def http_status(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as response:
        response.read()
        return response.status


def test_websockets_beyond_the_cap_are_refused_with_429(limited_server):
    from devtools.streamlit_client import StreamlitClient

    served = limited_server
    clients = [StreamlitClient(served.url, timeout=60) for _ in range(SOCKETS)]
    try:
        for index, client in enumerate(clients):
            run = client.connect(page="draw")
            assert run.status == "finished" and run.errors == [], f"session {index}: {run.status} {run.errors}"

        assert handshake_status(served.url) == 429, f"socket {SOCKETS + 1} from one address"
        assert http_status(served.url + "/draw") == 200  # the page HTML is not counted
        assert http_status(served.url + "/_stcore/health") == 200
        for index, client in enumerate(clients):  # the open sessions keep working
            run = client.rerun()
            assert run.status == "finished" and run.errors == [], f"session {index} after a refusal: {run.errors}"

        clients.pop(0).close()
        replacement = open_when_freed(served.url, seconds=10)
        clients.append(replacement)
        run = replacement.connect(page="draw")
        assert run.status == "finished" and run.errors == [], run.errors
        assert handshake_status(served.url) == 429, "a slot freed and taken again"
    finally:
        for client in clients:
            client.close()
    error_log = (served.prefix / "error.log").read_text(errors="replace")
    assert "limiting connections" not in error_log, "refusals are logged at a level the error log keeps"
    assert "Traceback" not in served.servers[0].log_text(), served.servers[0].log_tail()
