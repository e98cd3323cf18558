"""Two replicas behind nginx (devtools/replicas.py, deploy/nginx.conf), four Chromium sessions through it.

* the replicas are started by ``devtools.replicas.ClassServer``, as devtools/serve_class.py starts them
  (``python -m nbcore prepare`` once, the first replica warmed, nginx in front on one port);
* routing cookies are chosen so that two sessions live on each replica: for a candidate
  ``nb_replica`` value, a protocol-level visit (devtools.streamlit_client) through nginx shows which
  replica's log gains the visit's run;
* each of the four sessions draws its own digit and reads it back, then one uploads two pictures
  and gets their predictions (an upload is an HTTP PUT to the session's replica: without sticky
  routing it fails with "Invalid session_id"), and one reloads and keeps its page (/draw), after
  which every session still shows its own digit;
* no exception box or error alert, no traceback in a replica's log.

Missing nginx, Chromium or playwright: fails under CI=true (``.ci/run`` installs nginx and Chromium
with apt), skipped elsewhere.
"""

from __future__ import annotations

import time
import uuid

import pytest

from devtools import app_server, chromium, draw_page, page_checks, replicas, rerun_log
from tests.e2e.test_e2e import choose_input, drawn_seven_png, png_bytes, upload

DIGITS = (1, 0, 7, 3)  # what sessions 0..3 draw; sessions 0, 1 on one replica, 2, 3 on the other


@pytest.fixture(scope="module")
def class_server(nginx_tools, app_data_dir, tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("replicas")
    served = replicas.ClassServer(2, app_data_dir, log_dir=log_dir, extra_env={"NBCORE_LOG_RERUN_MS": "1"})
    with served:
        yield served


def runs_logged(server: app_server.StreamlitServer) -> int:
    return len(rerun_log.parse_runs(server.log_text()))


def cookies_per_replica(served: replicas.ClassServer, per_replica: int, tries: int = 40) -> list[list[str]]:
    """``per_replica`` routing cookie values for each replica, found by visiting through nginx."""
    from devtools.streamlit_client import StreamlitClient

    found: list[list[str]] = [[] for _ in served.servers]
    for _ in range(tries):
        if all(len(values) >= per_replica for values in found):
            return found
        value = uuid.uuid4().hex
        before = [runs_logged(server) for server in served.servers]
        with StreamlitClient(served.url, timeout=60, cookie=f"nb_replica={value}") as client:
            assert client.connect(page="draw").errors == []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            grown = [index for index, server in enumerate(served.servers) if runs_logged(server) > before[index]]
            if grown:
                break
            time.sleep(0.05)
        assert len(grown) == 1, f"one visit ran on replicas {grown} (logged runs before: {before})"
        found[grown[0]].append(value)
    raise AssertionError(f"after {tries} cookies, sessions per replica: {[len(v) for v in found]} (routing not spread)")


def test_four_sessions_through_nginx_on_two_replicas(class_server, browser):
    served = class_server
    cookies = cookies_per_replica(served, per_replica=2)
    routes = [cookies[0][0], cookies[0][1], cookies[1][0], cookies[1][1]]
    contexts, pages = [], []
    problems: list[str] = []
    try:
        for index, value in enumerate(routes):
            context = browser.new_context(viewport=chromium.VIEWPORT)
            context.add_cookies([{"name": "nb_replica", "value": value, "url": served.url}])
            context.set_default_timeout(60_000)
            page = context.new_page()
            page.on("pageerror", lambda error, index=index: problems.append(f"session {index}: page error {error}"))
            contexts.append(context)
            pages.append(page)
        for page in pages:  # four sessions open at once
            page.goto(served.url + "/draw", timeout=120_000)
        for page in pages:
            chromium.wait_for_run(page, timeout=120)

        shown = []
        for index, (page, digit) in enumerate(zip(pages, DIGITS)):
            draw_page.draw_digit(page, digit)
            shown.append(draw_page.wait_for_prediction(page, expect_change_from=None))
            assert shown[-1][0] == str(digit), f"session {index} drew a {digit}, its page says {shown[-1]}"

        uploader = pages[1]  # on replica 0
        choose_input(uploader, "Upload a picture")
        upload(uploader, "seven.png", drawn_seven_png(), "image/png")
        value, delta = draw_page.wait_for_prediction(uploader, expect_change_from=shown[1])
        assert value == "7", f"uploaded a drawn 7 through nginx, naive Bayes says {value}"
        from PIL import Image, ImageDraw

        one = Image.new("L", (300, 300), 255)
        ImageDraw.Draw(one).line([(150, 50), (150, 250)], fill=0, width=24)
        upload(uploader, "one.png", png_bytes(one), "image/png")
        value, _ = draw_page.wait_for_prediction(uploader, expect_change_from=(value, delta))
        assert value == "1", f"uploaded a drawn 1 through nginx, naive Bayes says {value}"

        reloader = pages[2]  # on replica 1
        reloader.reload(timeout=120_000)
        chromium.wait_for_run(reloader, timeout=120)
        assert reloader.url.rstrip("/").endswith("/draw"), f"after a reload the page is {reloader.url}"
        assert reloader.locator("h1").first.inner_text().startswith("Draw a digit")
        draw_page.draw_digit(reloader, DIGITS[2])
        assert draw_page.wait_for_prediction(reloader, expect_change_from=None)[0] == str(DIGITS[2])

        for index in (0, 3):  # the sessions nobody touched still show their own digit
            assert draw_page.read_prediction(pages[index]) == shown[index], f"session {index} changed"
        for index, page in enumerate(pages):
            problems += [f"session {index}: {text}" for text in page_checks.page_problems(page)]
        for index, server in enumerate(served.servers):
            if "Traceback" in server.log_text():
                problems.append(f"replica {index} log has a traceback:\n{server.log_tail()}")
        assert not problems, "\n".join(problems)
        assert all(runs_logged(server) > 0 for server in served.servers)
    finally:
        for context in contexts:
            context.close()
