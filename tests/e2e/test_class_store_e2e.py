"""A class kept whole, on real servers: two replicas behind nginx with a teacher and six students in Chromium
and one replica killed; a restarted server; and hostile scripts speaking the websocket protocol.

The replicas share the class store named by NBCORE_CLASS_STORE (an SQLite file here, as
scripts/serve_class.py gives them by default). Missing nginx, Chromium or playwright: fails under CI=true.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from devtools import harness, replicas
from devtools.redis_server import RedisServer, redis_binary
from devtools.streamlit_client import StreamlitClient
from lab import classroom
from nbcore.classroom import open_store, student_id
from nbcore.classroom.store import NOT_OPEN, SETTING
from tests.conftest import REPO, require
from tests.e2e.test_replicas import cookies_per_replica

DRAWINGS = json.loads((REPO / "devtools" / "drawings.json").read_text())["drawings"]
STUDENT_DIGITS = (1, 0, 7, 3, 4, 1)  # what students 0..5 draw (harness.DIGITS); 0-2 on replica 0, 3-5 on replica 1
TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def store_setting(tmp_path_factory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('class-store') / 'classes.sqlite3'}"


def metric_value(page, label: str) -> str | None:
    """The value of the ``st.metric`` labelled ``label`` on the page, or None."""
    return page.evaluate(
        """(label) => {
            for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
                const l = m.querySelector('[data-testid="stMetricLabel"]');
                if (l && l.innerText.trim() === label) return m.querySelector('[data-testid="stMetricValue"]').innerText.trim();
            }
            return null;
        }""",
        label,
    )


def wait_for_metric(page, label: str, value: str, timeout_ms: int = TIMEOUT_MS) -> None:
    page.wait_for_function(
        """([label, value]) => [...document.querySelectorAll('[data-testid="stMetric"]')].some(m => {
            const l = m.querySelector('[data-testid="stMetricLabel"]');
            const v = m.querySelector('[data-testid="stMetricValue"]');
            return l && v && l.innerText.trim() === label && v.innerText.trim() === value;
        })""",
        arg=[label, value],
        timeout=timeout_ms,
    )


def send_in_browser(page, code: str, digit: int) -> None:
    """On Draw through the class link: draw ``digit``, pick it as meant, send, and see it confirmed."""
    harness.draw_digit(page, digit)
    harness.wait_for_prediction(page)
    form = page.locator('[data-testid="stForm"]').filter(has_text=f"Send to class {code}")
    form.get_by_role("radio", name=str(digit), exact=True).click()
    form.get_by_role("button", name="Send to the class").click()
    page.get_by_text(f"Sent: your {digit} is in class {code}'s gallery").wait_for(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def replica_store(request, tmp_path_factory):
    """The setting of the store the replicas share: an SQLite file, or a real redis-server started here."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('replica-store') / 'classes.sqlite3'}"
        return
    require(redis_binary() is not None, "redis-server is missing (apt-get install redis-server)")
    with RedisServer() as server:
        yield server.url


@pytest.fixture(scope="module")
def class_replicas(nginx_tools, app_data_dir, tmp_path_factory, replica_store):
    """Two replicas behind nginx sharing the class store (the last test of each store kills one)."""
    served = replicas.ClassServer(
        2,
        app_data_dir,
        log_dir=tmp_path_factory.mktemp("class-replicas"),
        extra_env={SETTING: replica_store, "NBCORE_LOG_RERUN_MS": "1"},
    )
    with served:
        yield served, cookies_per_replica(served, per_replica=4)


def lesson_visit(client: StreamlitClient, query: str, secret: str | None = None):
    shown = client.connect(page="lesson", query_string=query)
    if secret is not None:  # what the browser's answer gives: a full run with the student's secret
        shown = client.set_widget("browser_memory_student", "json_value", {"value": secret})
    return shown


def test_polls_through_two_replicas(class_replicas, replica_store):
    store_setting = replica_store
    served, cookies = class_replicas
    made = open_store(store_setting).create_class()
    code, key = made.info.code, made.teacher_key
    routes = [cookies[0][0], cookies[1][0], cookies[1][1]]  # one student on replica 0, two on replica 1
    students = [StreamlitClient(served.url, timeout=120, cookie=f"nb_replica={route}") for route in routes]
    teacher = StreamlitClient(served.url, timeout=120, cookie=f"nb_replica={cookies[0][1]}")
    try:
        for client, answer in zip(students, (3, 3, 5)):
            client.open()
            lesson_visit(client, f"class={code}&lesson=2", secrets.token_hex(16))
            client.set_widget("lesson_answer_prior", "int_value", answer, run=False)
            said = client.click("lesson_reveal_prior").texts()
            assert any("Your teacher reveals" in text for text in said), said
        students[0].click("lesson_again_prior")  # answers again: replaced, counted once
        students[0].set_widget("lesson_answer_prior", "int_value", 1, run=False)
        students[0].click("lesson_reveal_prior")
        assert open_store(store_setting).tally(code, "prior").counted == {"1": 1, "3": 1, "5": 1}
        teacher.open()
        shown = lesson_visit(teacher, f"class={code}&key={key}&lesson=2")
        bars = [e for e in shown.of_kind("plotly_chart") if '"orientation":"h"' in e.proto.spec]
        assert json.loads(bars[0].proto.spec)["data"][0]["x"] == [0, 1, 0, 1, 0, 1, 0, 0, 0, 0]
        revealed = teacher.click("lesson_reveal_class_prior").texts()
        assert any("most common answer" in text for text in revealed), revealed
        for client in students:  # the reveal reaches every student, whichever replica serves them
            assert any("off most" in text for text in client.rerun().texts())
    finally:
        for client in (*students, teacher):
            client.close()


# On the SQLite file only: the killed replica shares that file with the survivor, whereas a Redis store lives
# apart from both replicas (the polls test runs through it, and tests/test_class_store.py stops its server).
@pytest.mark.parametrize("replica_store", ["sqlite"], indirect=True)
def test_six_students_through_two_replicas_and_one_killed(class_replicas, browser, replica_store):
    store_setting = replica_store
    served, cookies = class_replicas
    contexts = []
    try:

        def open_context(route: str, screen: str = "projector 1024x768"):
            context = browser.new_context(**harness.SCREENS[screen])
            context.add_cookies([{"name": "nb_replica", "value": route, "url": served.url}])
            context.set_default_timeout(TIMEOUT_MS)
            contexts.append(context)
            return context.new_page()

        teacher = open_context(cookies[0][0])  # on replica 0, which will be killed
        teacher.goto(served.url + "/gallery", timeout=120_000)
        harness.wait_for_run(teacher, timeout=120)
        teacher.get_by_role("button", name="New class").click()
        teacher.get_by_text("Nothing sent to class").wait_for()
        student_link = teacher.locator('[data-testid="stCode"]').first.inner_text().strip()
        code = re.search(r"/draw\?class=([A-Z0-9]+)$", student_link).group(1)
        assert "key=" not in teacher.url

        students = []
        for index, digit in enumerate(STUDENT_DIGITS):
            route = cookies[0][1 + index] if index < 3 else cookies[1][index - 3]
            page = open_context(route, "phone 390x844 (touch)" if index == 5 else "laptop 1366x768")
            page.goto(f"{served.url}/draw?class={code}", timeout=120_000)
            harness.wait_for_run(page, timeout=120)
            if index == 5:
                harness.draw_digit(page, digit, touch=True)
                harness.wait_for_prediction(page)
                form = page.locator('[data-testid="stForm"]').filter(has_text=f"Send to class {code}")
                form.get_by_role("radio", name=str(digit), exact=True).tap()
                form.get_by_role("button", name="Send to the class").tap()
                page.get_by_text(f"Sent: your {digit} is in class {code}'s gallery").wait_for()
            else:
                send_in_browser(page, code, digit)
            students.append(page)
        wait_for_metric(teacher, "Drawings", "6")  # every replica's students, on one page
        wait_for_metric(teacher, "Students", "6")

        os.killpg(served.servers[0].process.pid, signal.SIGKILL)  # the teacher's replica and three students'
        served.servers[0].process.wait()
        teacher.wait_for_timeout(3000)
        wait_for_metric(teacher, "Drawings", "6", timeout_ms=120_000)  # reconnected: still the teacher, still 6

        again = students[0]  # was on the killed replica
        again.reload(timeout=120_000)
        harness.wait_for_run(again, timeout=120)
        send_in_browser(again, code, 7)
        again.get_by_text("You have sent 2 drawings").wait_for()  # the same student, after a reload
        wait_for_metric(teacher, "Drawings", "7")
        wait_for_metric(teacher, "Students", "6")
        kept = open_store(store_setting).drawings(code)
        assert len(kept) == 7 and len({d.student for d in kept}) == 6
        problems = [f"teacher: {text}" for text in harness.page_problems(teacher)]
        problems += [f"student {i}: {t}" for i, page in enumerate(students) for t in harness.page_problems(page)]
        assert "Traceback" not in served.servers[1].log_text(), served.servers[1].log_tail()
        assert not problems, problems
    finally:
        for context in contexts:
            context.close()


def run_draw_send(url: str, code: str, secret: str, meant: int, drawing: int = 0) -> list[str]:
    """A scripted student: a fresh session on /draw?class=code that sends one drawing; what the page said."""
    with StreamlitClient(url, timeout=120) as client:
        client.connect(page="draw", query_string=f"class={code}")
        client.set_widget(
            "browser_memory_student", "json_value", {"value": secret}
        )  # a full run, as the browser's answer gives
        client.component("canvas_0", json.loads(DRAWINGS[drawing]["json_value"]))
        client.set_widget("class_meant", "string_array_value", [str(meant)], run=False)
        return client.click("class_send_button").texts()


def test_a_restarted_server_keeps_its_classes(e2e_tools, app_data_dir, tmp_path, store_setting):
    made = open_store(store_setting).create_class()
    code = made.info.code
    env = {SETTING: store_setting}
    with harness.StreamlitServer(app_data_dir, tmp_path / "first.log", extra_env=env, ready_timeout=120) as server:
        said = run_draw_send(server.url, code, secrets.token_hex(16), 3)
        assert f"Sent: your 3 is in class {code}'s gallery." in said, said
    with harness.StreamlitServer(app_data_dir, tmp_path / "second.log", extra_env=env, ready_timeout=120) as server:
        with StreamlitClient(server.url, timeout=120) as teacher:
            shown = teacher.connect(page="gallery", query_string=f"class={code}&key={made.teacher_key}")
            assert shown.metric("Drawings") == "1", shown.texts()


@pytest.fixture(scope="module")
def one_server(e2e_tools, app_data_dir, tmp_path_factory, store_setting):
    log = tmp_path_factory.mktemp("hostile") / "server.log"
    with harness.StreamlitServer(app_data_dir, log, extra_env={SETTING: store_setting}, ready_timeout=120) as server:
        yield server


def test_a_flood_of_fresh_sessions_leaves_every_other_students_drawings(one_server, store_setting):
    store = open_store(store_setting)
    code = store.create_class().info.code
    honest = [secrets.token_hex(16) for _ in range(5)]
    for index, secret in enumerate(honest):
        assert any("Sent:" in text for text in run_draw_send(one_server.url, code, secret, index))

    def flood(n: int) -> bool:
        said = run_draw_send(one_server.url, code, secrets.token_hex(16), n % 10, drawing=n % len(DRAWINGS))
        return any("Sent:" in text for text in said)

    with ThreadPoolExecutor(6) as pool:
        accepted = sum(pool.map(flood, range(300)))
    kept = store.drawings(code)
    for secret in honest:
        assert len([d for d in kept if d.student == student_id(secret)]) == 1
    # one address: at most the per-address budget of each minute window the flood touched
    assert accepted <= 3 * classroom.SENDS_PER_ADDRESS and len(kept) == 5 + accepted


def test_made_up_codes_evict_nothing_and_strangers_cannot_empty(one_server, store_setting):
    store = open_store(store_setting)
    made = store.create_class()
    code = made.info.code
    # straight into the store: the flood before this test may have spent this address's sends for the minute
    posterior = np.full(10, 0.1)
    store.add_drawing(code, student_id(secrets.token_hex(16)), np.zeros((28, 28), np.uint8), 4, posterior, posterior)
    told = []
    lock = threading.Lock()

    def guess(_: int) -> None:
        with StreamlitClient(one_server.url, timeout=120) as client:
            said = client.connect(page="draw", query_string=f"class={secrets.token_hex(4).upper()}").texts()
        with lock:
            told.extend(said)

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(guess, range(250)))
    assert any(NOT_OPEN in text for text in told) and any(classroom.TOO_FAST in text for text in told)
    assert len(store.drawings(code)) == 1 and store.class_info(code) is not None

    with StreamlitClient(one_server.url, timeout=120) as stranger:  # the code, not the key
        page = stranger.connect(page="gallery", query_string=f"class={code}")
        assert page.metric("Drawings") is None
        with pytest.raises(KeyError):
            stranger.click("gallery_clear")
        forged = stranger.connect(page="gallery", query_string=f"class={code}&key={secrets.token_urlsafe(24)}")
        assert any("does not open a class" in text for text in forged.texts())
    assert len(store.drawings(code)) == 1


@pytest.fixture(scope="module")
def nginx_tools(e2e_tools) -> None:
    require(replicas.nginx_binary() is not None, "nginx is missing (apt-get install -y nginx)")


def test_on_a_phone_the_send_form_is_within_a_screen_of_the_verdict(browser, base_url, app_data_dir):
    """A student on a 390x844 phone draws, then sends without scrolling more than one screen from the verdict."""
    code = open_store("", data_dir=app_data_dir).create_class().info.code  # the shared server's default store
    screen = harness.SCREENS["phone 390x844 (touch)"]
    context = browser.new_context(**screen)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(f"{base_url}/draw?class={code}", timeout=120_000)
        harness.wait_for_run(page, timeout=120)
        harness.draw_digit(page, 7, touch=True)
        harness.wait_for_prediction(page)
        verdict = harness.prediction_locator(page).first.bounding_box()
        form = page.locator('[data-testid="stForm"]').filter(has_text=f"Send to class {code}")
        button = form.get_by_role("button", name="Send to the class").bounding_box()
        # both boxes are in the page's coordinates at the same scroll: the distance a student scrolls
        assert button["y"] + button["height"] - verdict["y"] <= screen["viewport"]["height"], (verdict, button)
        form.get_by_role("radio", name="7", exact=True).tap()
        form.get_by_role("button", name="Send to the class").tap()
        page.get_by_text(f"Sent: your 7 is in class {code}'s gallery").wait_for()
    finally:
        context.close()
