"""Streamlit's front end served by nginx from the prefix, compressed ahead (deploy/nginx.conf's ``/static/``).

Streamlit sends its JavaScript uncompressed, so behind nginx a class's first visits would move 7-8 MB per
student. ``write_nginx_prefix`` puts Streamlit's ``static/static`` folder in the prefix with a ``.gz`` beside each
text file; nginx answers ``/static/`` from there, without a replica. These tests run the real nginx on such a
prefix with no replica behind it: what it serves under ``/static/`` cannot have come from Streamlit.

Missing nginx: fails under CI=true (``.ci/run`` installs it with apt), skipped elsewhere.
"""

from __future__ import annotations

import gzip
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from devtools import replicas
from devtools.app_server import free_port
from tests.conftest import require


@pytest.fixture(scope="module")
def static_nginx(tmp_path_factory):
    """nginx on a filled prefix in front of a replica port where nothing listens; its URL and prefix."""
    nginx = replicas.nginx_binary()
    require(nginx is not None, "nginx is missing (apt-get install -y nginx)")
    prefix = tmp_path_factory.mktemp("static-nginx")
    port = free_port()
    conf = replicas.write_nginx_prefix(prefix, f"127.0.0.1:{port}", [free_port()])
    process = subprocess.Popen(replicas.nginx_command(nginx, prefix, conf, "-g", "daemon off;"))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(url + "/static/", timeout=2)
            except urllib.error.HTTPError:
                break  # nginx answers (a folder has no index: 403 or 404)
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.1)
        yield url, prefix
    finally:
        process.terminate()
        process.wait(10)


def get(url: str, gzip_ok: bool) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzip_ok else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), b""


def plotly_chunk() -> str:
    (found,) = replicas.STREAMLIT_STATIC.glob("js/PlotlyChart.*.js")
    return f"js/{found.name}"


def test_every_text_file_of_the_front_end_has_its_gz_and_nothing_else_does(static_nginx):
    _url, prefix = static_nginx
    served = prefix / "static"
    originals = [path for path in replicas.STREAMLIT_STATIC.rglob("*") if path.is_file()]
    for path in originals:
        copy = served / path.relative_to(replicas.STREAMLIT_STATIC)
        assert copy.read_bytes() == path.read_bytes()
        packed = copy.with_name(copy.name + ".gz")
        assert packed.is_file() == (path.suffix in replicas.COMPRESSED), path
        if packed.is_file():
            assert gzip.decompress(packed.read_bytes()) == path.read_bytes(), path
    assert any(path.suffix == ".woff2" for path in originals)  # fonts come compressed: sent as they are


def test_the_front_end_comes_compressed_from_nginx_with_no_replica(static_nginx):
    url, _prefix = static_nginx
    original = (replicas.STREAMLIT_STATIC / plotly_chunk()).read_bytes()
    status, headers, body = get(f"{url}/static/{plotly_chunk()}", gzip_ok=True)
    assert status == 200 and headers.get("Content-Encoding") == "gzip"
    assert gzip.decompress(body) == original
    assert len(body) < len(original) / 3  # Plotly's 4.7 MB: about 1.4 MB on the wire
    assert "Accept-Encoding" in headers.get("Vary", "")
    assert int(headers["Cache-Control"].removeprefix("max-age=")) >= 365 * 24 * 3600
    # a client that does not take gzip gets the file itself
    status, headers, body = get(f"{url}/static/{plotly_chunk()}", gzip_ok=False)
    assert status == 200 and "Content-Encoding" not in headers and body == original


def test_each_kind_of_file_has_the_type_a_browser_needs(static_nginx):
    url, _prefix = static_nginx
    expected = {".js": "text/javascript", ".css": "text/css", ".woff2": "font/woff2", ".svg": "image/svg+xml"}
    expected |= {".png": "image/png", ".gif": "image/gif"}
    kinds = {path.suffix: path for path in sorted(replicas.STREAMLIT_STATIC.rglob("*")) if path.is_file()}
    assert set(kinds) <= set(expected), (
        f"a kind of file without its type in deploy/nginx.conf: {set(kinds) - set(expected)}"
    )
    for suffix, path in kinds.items():
        status, headers, _body = get(f"{url}/static/{path.relative_to(replicas.STREAMLIT_STATIC).as_posix()}", True)
        assert status == 200 and headers["Content-Type"].split(";")[0] == expected[suffix], (path, headers)


def test_only_the_front_end_is_served_from_the_prefix(static_nginx):
    url, _prefix = static_nginx
    assert get(f"{url}/static/js/no-such-chunk.js", gzip_ok=True)[0] == 404
    for escape in ("../nginx.conf", "%2e%2e/nginx.conf", "..%2fnginx.conf"):  # never a file outside static/
        status, _headers, body = get(f"{url}/static/{escape}", gzip_ok=True)
        assert status != 200 and b"upstream" not in body, escape  # ../ leaves /static/: to the replicas
    # pages and Streamlit's own routes still go to the replicas (none here: a gateway error)
    assert get(f"{url}/", gzip_ok=True)[0] == 502
    assert get(f"{url}/_stcore/health", gzip_ok=True)[0] == 502
