"""nginx in front of two replicas (deploy/nginx.conf through ``devtools.replicas.ClassServer``) under faults.

* ``/_stcore/metrics`` answers a client on 127.0.0.1 and refuses one connecting from 127.0.0.2 (another
  loopback address, bound as the source of the connection: to nginx it is another machine) with 403,
  also when that client claims 127.0.0.1 in X-Forwarded-For, X-Real-IP or Forwarded; a page still loads
  from 127.0.0.2, so the refusal is the metrics rule's;
* eight 6 MB upload PUTs at once (made-up session, the XSRF cookie from /_stcore/health:
  devtools/upload_flood.py) leave another client's page loads, probed during the flood and for 12 s
  after it, at 0 errors; each PUT reached one replica at most (nginx's error log names no upload path
  against two replicas); both replicas still answer;
* the same with 6 MB bodies sent to PUT / and POST /_stcore/health, where no body is expected;
* uploads still reach their session's replica (six sessions, each routed by its own nb_replica cookie,
  upload a picture and get 204), also after ``kill -9`` of one replica, for a session whose cookie hashes
  to the dead one (this test kills a replica, so it runs last).

Missing nginx: fails under CI=true (``.ci/run`` installs it with apt), skipped elsewhere.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import urllib.request
from collections import defaultdict

import pytest

from devtools import protocol_upload, replicas
from devtools.upload_flood import FloodReport, flood_and_probe
from tests.conftest import REPO, require
from tests.e2e.test_replicas import cookies_per_replica

OTHER_ADDRESS = "127.0.0.2"  # a loopback address that is not 127.0.0.1: "another machine" to nginx
UPSTREAM_LOG = re.compile(r'request: "\w+ (?P<path>\S+) HTTP/[\d.]+", upstream: "http://(?P<upstream>[^/"]+)')
PUTS, PUT_BYTES, PROBE_AFTER = 8, 6_000_000, 12.0  # over maxUploadSize (5 MB), under nginx's 6m: replicas refuse them


@pytest.fixture(scope="module")
def served(app_data_dir, tmp_path_factory):
    require(replicas.nginx_binary() is not None, "nginx is missing (apt-get install -y nginx)")
    class_server = replicas.ClassServer(
        2,
        app_data_dir,
        log_dir=tmp_path_factory.mktemp("faults-replicas"),
        extra_env={"NBCORE_LOG_RERUN_MS": "1"},  # cookies_per_replica reads the runs from the replicas' logs
    )
    with class_server:
        yield class_server


def get(url: str, path: str, source: str | None = None, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """GET ``path`` from ``url``'s host and port, from the local address ``source`` if given: (status, body)."""
    parts = urllib.request.urlparse(url)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=30, source_address=(source, 0) if source else None
    )
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


def test_the_upload_upstream_lists_the_same_replicas_in_the_same_order():
    text = replicas.render_nginx_conf(REPO / "no-such-prefix", "127.0.0.1:8080", [8603, 8601, 8602])
    blocks = dict(re.findall(r"upstream (\w+) \{([^}]*)\}", text))
    assert set(blocks) == {"lab_replicas", "lab_uploads"}
    addresses = {name: re.findall(r"server (\S+) ", body) for name, body in blocks.items()}
    assert (
        addresses["lab_replicas"] == addresses["lab_uploads"] == ["127.0.0.1:8603", "127.0.0.1:8601", "127.0.0.1:8602"]
    )
    assert all("hash $replica_key consistent;" in body for body in blocks.values())
    assert re.findall(r"max_fails=(\d+)", blocks["lab_uploads"]) == ["0", "0", "0"]


def test_metrics_answer_only_to_this_machine(served):
    status, body = get(served.url, "/_stcore/metrics")
    assert status == 200 and "# TYPE" in body, (status, body[:300])

    assert get(served.url, "/", source=OTHER_ADDRESS)[0] == 200, "a page from 127.0.0.2"
    assert get(served.url, "/_stcore/metrics", source=OTHER_ADDRESS)[0] == 403
    spoofed = {"X-Forwarded-For": "127.0.0.1", "X-Real-IP": "127.0.0.1", "Forwarded": "for=127.0.0.1"}
    status, body = get(served.url, "/_stcore/metrics", source=OTHER_ADDRESS, headers=spoofed)
    assert status == 403, f"claiming 127.0.0.1 in headers from {OTHER_ADDRESS}: {status} {body[:200]}"


def upstreams_per_path(served: replicas.ClassServer) -> dict[str, set[str]]:
    """For each request path in nginx's error log, the replicas (host:port) it was logged against."""
    found: dict[str, set[str]] = defaultdict(set)
    for match in UPSTREAM_LOG.finditer((served.prefix / "error.log").read_text(errors="replace")):
        found[match["path"]].add(match["upstream"])
    return found


def assert_no_page_errors(report: FloodReport, served: replicas.ClassServer) -> None:
    # the probe ran through the flood and for PROBE_AFTER seconds after it
    times = [at for at, _ in report.page_loads]
    assert times and times[0] <= report.flood_seconds, report.summary()
    assert times[-1] >= report.flood_seconds + PROBE_AFTER - 1, report.summary()
    assert not report.page_errors(), f"{report.summary()}\nnginx: {served.nginx_log()[-1500:]}"
    assert served.health() == [True, True]


def test_oversized_upload_puts_leave_page_loads_at_zero_errors(served):
    report = flood_and_probe(served.url, puts=PUTS, size=PUT_BYTES, after=PROBE_AFTER)
    # refused by a replica ("Invalid session_id": 400), or cut off by it mid-body (nginx: 502, or the
    # connection closed while the client still sends); none stored
    assert not {"200", "204"} & set(report.put_outcomes), report.summary()
    assert_no_page_errors(report, served)
    uploads = {
        path: ups for path, ups in upstreams_per_path(served).items() if path.startswith("/_stcore/upload_file/")
    }
    assert all(len(ups) == 1 for ups in uploads.values()), f"uploads passed to a second replica: {uploads}"
    # every PUT cut off is in the log, against the one replica that cut it off
    assert len(uploads) >= report.put_outcomes.count("502"), (report.summary(), uploads)


@pytest.mark.parametrize("target", ["PUT /", "POST /_stcore/health"])
def test_bodies_where_none_is_expected_leave_page_loads_at_zero_errors(served, target):
    report = flood_and_probe(served.url, puts=PUTS, size=PUT_BYTES, after=PROBE_AFTER, target=target)
    assert set(report.put_outcomes) == {"405"}, report.summary()  # passed on without the body: Streamlit says 405
    assert_no_page_errors(report, served)


def test_uploads_reach_their_session_also_after_a_replica_dies(served):
    """Six sessions upload through nginx; then replica 1 is killed and a session routed to it uploads."""
    from devtools.streamlit_client import StreamlitClient
    from tests.e2e.test_e2e import drawn_seven_png

    picture = drawn_seven_png()
    cookies = cookies_per_replica(served, per_replica=3)

    def session_uploads(cookie_value: str) -> None:
        with StreamlitClient(served.url, timeout=60, cookie=f"nb_replica={cookie_value}") as client:
            run = client.connect(page="draw")
            assert run.errors == [], run.errors
            urls = protocol_upload.request_upload_urls(client, ["seven.png"])[0]
            protocol_upload.put_file(
                client, urls.upload_url, "seven.png", picture, "image/png"
            )  # UploadError unless 204

    for values in cookies:
        for value in values:
            session_uploads(value)

    dead = served.servers[1]
    assert dead.process is not None
    os.killpg(dead.process.pid, signal.SIGKILL)
    dead.process.wait(10)
    session_uploads(cookies[1][0])  # hashed to the dead replica: its session and its upload go to replica 0
    assert served.health() == [True, False]
