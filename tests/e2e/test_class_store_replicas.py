"""A class through two replicas behind nginx that share the class store (an SQLite file, or a real redis-server
started here): polls from scripted students, the pace benchmark's students, the teacher's Next reaching students in
Chromium, and a whole period with a teacher and six students in Chromium while one replica is killed.

Missing nginx, Chromium or playwright: fails under CI=true. One server at a time, a restart and hostile scripts:
tests/e2e/test_class_store_e2e.py.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import time

import numpy as np
import pytest
from playwright.sync_api import Error as PlaywrightError

from devtools import app_server, chromium, page_checks, replicas
from devtools.redis_server import RedisServer, redis_binary
from devtools.streamlit_client import StreamlitClient
from lab import lesson_steps
from lab.public_address import SETTING as PUBLIC_SETTING
from nbcore.classroom import open_store
from nbcore.classroom.backends import SETTING
from tests.conftest import require
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_class_store_e2e import TIMEOUT_MS
from tests.e2e.test_replicas import cookies_per_replica


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
    """Two replicas behind nginx sharing the class store (the last test of each store kills one); students'
    links point at nginx, as ``python -m devtools.serve_class --public-url`` makes them."""
    port = app_server.free_port()
    served = replicas.ClassServer(
        2,
        app_data_dir,
        port=port,
        log_dir=tmp_path_factory.mktemp("class-replicas"),
        extra_env={SETTING: replica_store, "NBCORE_LOG_RERUN_MS": "1", PUBLIC_SETTING: f"http://127.0.0.1:{port}"},
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


def test_the_pace_benchmark_follows_two_students_through_two_replicas(class_replicas, replica_store):
    """devtools/pace_bench.py's measuring parts, small: two scripted students follow the teacher's Next as the pace
    listener's script does, and the idle window counts what following costs (the figures: the script's)."""
    from devtools import pace_bench as bench
    from devtools.rerun_log import RerunLog

    served, _ = class_replicas
    made = open_store(replica_store).create_class()
    students = bench.open_students(served.url, 2, f"class={made.info.code}", 500)
    assert all(student.listener is not None for student in students)  # the page holds the listener
    setup = bench.Setup("after", replica_store[:5], 2, 2)
    try:
        following = bench.lead_the_class(
            served.url, made.info.code, made.teacher_key, students, 1, setup, time.perf_counter() + 120
        )
        logs = [RerunLog([server.log_path]) for server in served.servers]
        idle = bench.idle_window(3.0, [s.process.pid for s in served.servers], logs, following.answers)
        following.finish()
    finally:
        for student in students:
            student.client.close()
    assert following.failures == [] and setup.followed == setup.asked == 2, setup
    # well inside the lesson's 30 s look of its own (lab/class_period.FOLLOW_SECONDS): the listener moved them
    assert all(-1 < seconds < 15 for seconds in setup.latencies), setup.latencies
    assert {(0, 2), (1, 2)} <= set(following.seen)
    assert idle.fragment_runs == idle.whole_runs == 0, idle  # following, idle, costs no run
    assert following.answers[0] >= 2  # each listener was answered with the new version
    assert open_store(replica_store).class_info(made.info.code).pace == 2


def open_context(browser, contexts: list, served, route: str, screen: str = "laptop 1366x768"):
    """A browser of its own (its own storage: its own student) routed to one replica by nginx's cookie."""
    context = browser.new_context(accept_downloads=True, **chromium.SCREENS[screen])
    context.add_cookies([{"name": "nb_replica", "value": route, "url": served.url}])
    context.set_default_timeout(TIMEOUT_MS)
    contexts.append(context)
    return context.new_page()


def qr_link(page) -> str:
    """The link a phone's camera reads from the join slide's QR code (decoded by zxing-cpp from a screenshot)."""
    import io

    import zxingcpp
    from PIL import Image

    picture = Image.open(io.BytesIO(page.locator('img[alt^="QR code"]').screenshot())).convert("L")
    [found] = zxingcpp.read_barcodes(np.asarray(picture))
    return found.text


def wait_for_step(page, step: int, timeout_ms: int = TIMEOUT_MS) -> None:
    page.locator("h2").filter(has_text=re.compile(rf"^{step}\. ")).first.wait_for(timeout=timeout_ms)


def answers_downloaded(teacher, tries: int = 3) -> list[str]:
    """The rows of the class page's answers CSV, as the browser downloads it. A download that a rerun of the page
    cancels (the class page's live count reruns every 3 s) is tried again, as a teacher would click again."""
    for attempt in range(tries):
        try:
            with teacher.expect_download() as download:
                teacher.get_by_role("button", name="Answers (.csv)").first.click()
            return download.value.path().read_text().splitlines()
        except PlaywrightError:
            if attempt == tries - 1:
                raise
            chromium.wait_for_run(teacher, timeout=120)
    return []


def click_and_wait(page, button: str) -> None:
    page.get_by_role("button", name=button, exact=True).first.click()
    chromium.wait_for_run(page, timeout=120, settle=0.3)


@pytest.mark.parametrize("replica_store", ["redis"], indirect=True)
def test_the_teachers_next_reaches_students_on_two_replicas_and_one_back_online(class_replicas, browser, replica_store):
    """Two students in Chromium, one on each replica, follow the teacher (a scripted session) within seconds, far
    inside the lesson's own 30 s look: the listener heard it through /api/pace; one student's browser goes offline
    for a Next and catches up when it is back online; one who paused live updates moves only on Refresh now."""
    served, cookies = class_replicas
    made = open_store(replica_store).create_class()
    code = made.info.code
    contexts: list = []
    teacher = StreamlitClient(served.url, timeout=120)
    try:
        teacher.connect(page="lesson", query_string=f"class={code}&key={made.teacher_key}")
        teacher.click("lesson_pace_lead")
        students = [open_context(browser, contexts, served, cookies[index][0]) for index in (0, 1)]
        for page in students:
            page.goto(f"{served.url}/lesson?class={code}", timeout=120_000)
            wait_for_step(page, 1)
            page.locator("[data-seen]").first.wait_for(state="attached")  # the listener is in the page
        teacher.click("lesson_next_top")
        for page in students:
            wait_for_step(page, 2, timeout_ms=15_000)
        students[1].context.set_offline(True)
        teacher.click("lesson_next_top")
        wait_for_step(students[0], 3, timeout_ms=15_000)
        assert students[1].locator("h2").filter(has_text=re.compile(r"^3\. ")).count() == 0  # offline: still on 2
        students[1].context.set_offline(False)
        wait_for_step(students[1], 3, timeout_ms=20_000)
        # paused live updates (WCAG 2.2.2): the page stays where its reader is until Refresh now
        students[0].get_by_text("Pause live updates", exact=True).click()
        chromium.wait_for_run(students[0], timeout=120, settle=0.3)
        teacher.click("lesson_next_top")
        wait_for_step(students[1], 4, timeout_ms=15_000)
        students[0].wait_for_timeout(1500)  # the listener answered the other student by now, and this one asks not
        assert students[0].locator("h2").filter(has_text=re.compile(r"^4\. ")).count() == 0
        students[0].get_by_role("button", name="Refresh now").click()
        wait_for_step(students[0], 4, timeout_ms=15_000)
        for index, page in enumerate(students):
            assert not page_checks.page_problems(page), (index, page_checks.page_problems(page))
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for number, context in enumerate(contexts):
            for page in context.pages:
                page.screenshot(path=str(ARTIFACTS / f"pace-student-{number}.png"), full_page=True)
        raise
    finally:
        teacher.close()
        for context in contexts:
            context.close()


# With Redis only: the period's browsers are what costs (about four minutes); SQLite's replicas share the same
# pages and are held to the same store contract by tests/nbcore/test_class_store_*.py and the polls test above.
@pytest.mark.parametrize("replica_store", ["redis"], indirect=True)
def test_a_period_through_two_replicas(class_replicas, browser, replica_store, tmp_path):
    """A teacher and six students (two on phones) run a period through nginx and two replicas: join by QR code and
    by typed code, stay in the class across a page change and a reload, follow the teacher to step 4 (a late student
    too), answers lock at the reveal, a replica dies with nothing lost, a new period, the end, the export."""
    served, cookies = class_replicas
    contexts: list = []
    store = open_store(replica_store)
    try:
        teacher = open_context(
            browser, contexts, served, cookies[0][0], "projector 1024x768"
        )  # replica 0: killed later
        teacher.goto(served.url + "/teach", timeout=120_000)
        chromium.wait_for_run(teacher, timeout=120)
        click_and_wait(teacher, "New class")
        code = teacher.locator("h1").filter(has_text=re.compile(r"^Class [A-Z0-9]+$")).inner_text().split()[1]
        link = qr_link(teacher)
        assert link == f"{served.url}/draw?class={code}" and "key=" not in teacher.url

        students = []
        for index in range(6):
            route = cookies[0][1 + index // 2] if index % 2 == 0 else cookies[1][index // 2]
            page = open_context(
                browser, contexts, served, route, "phone 390x844 (touch)" if index in (1, 4) else "laptop 1366x768"
            )
            if index < 3:  # the QR code's link
                page.goto(link, timeout=120_000)
                chromium.wait_for_run(page, timeout=120)
            else:  # the start page, then the code typed in
                page.goto(served.url + "/", timeout=120_000)
                chromium.wait_for_run(page, timeout=120)
                page.get_by_label("In a class? Type its code").fill(code.lower())
                click_and_wait(page, "Join")
            page.get_by_text(f"Class {code}", exact=True).wait_for()
            students.append(page)
        teacher.get_by_text("6 students joined").wait_for()

        # a page change through the app's own link (no class in it), then a reload: still in the class
        students[0].get_by_role("link", name="Guided lesson").first.click()
        chromium.wait_for_run(students[0], timeout=120, settle=0.3)
        students[0].reload()
        chromium.wait_for_run(students[0], timeout=120)
        students[0].get_by_text(f"Class {code}", exact=True).wait_for()
        assert f"class={code}" in students[0].url
        for page in students[1:]:
            page.goto(f"{served.url}/lesson?class={code}", timeout=120_000)
            chromium.wait_for_run(page, timeout=120)

        teacher.get_by_role("link", name="Open the lesson").click()
        chromium.wait_for_run(teacher, timeout=120, settle=0.3)
        click_and_wait(teacher, "Lead: students follow my step")
        for _ in range(3):
            click_and_wait(teacher, "Next")
        wait_for_step(teacher, 4)
        for page in students:
            wait_for_step(page, 4)
        late = open_context(browser, contexts, served, cookies[1][3])
        late.goto(f"{served.url}/lesson?class={code}&lesson=1", timeout=120_000)
        wait_for_step(late, 4)

        shown = lesson_steps.STEPS[3].question("float32").show  # step 4's question, as its options read
        for page, choice in ((students[0], "zero"), (students[2], "zero"), (students[3], "tiny")):
            page.get_by_text(shown(choice), exact=True).click()
            click_and_wait(page, f"Send my answer to class {code}")
            page.get_by_text(f"Sent to class {code}.", exact=False).wait_for()
        assert store.tally(code, "float32").counted == {"zero": 2, "tiny": 1}

        # The page reconnects to the other replica: a new session, which has drawn no button yet. A press on the
        # old page's Reveal before the new session's first run is done is lost (Streamlit calls a callback only
        # for a widget its session has drawn), so wait for the new connection and its run, then press once.
        with teacher.expect_websocket(timeout=120_000):
            os.killpg(served.servers[0].process.pid, signal.SIGKILL)  # the teacher's replica, mid-period
            served.servers[0].process.wait()
        chromium.wait_for_run(teacher, timeout=120, settle=1.0)
        wait_for_step(teacher, 4, timeout_ms=120_000)
        click_and_wait(teacher, "Reveal to the class")
        teacher.get_by_text("3 students answered before the reveal", exact=False).first.wait_for()
        students[4].get_by_text(shown("tiny"), exact=True).click()
        click_and_wait(students[4], f"Send my answer to class {code}")
        students[4].get_by_text("sent after the reveal", exact=False).wait_for()
        tally = store.tally(code, "float32")
        assert tally.counted == {"zero": 2, "tiny": 1} and tally.after_reveal == {"tiny": 1}
        assert len(store.presence(code)) == 7 and store.class_info(code).pace == 4

        teacher.goto(f"{served.url}/teach?class={code}")
        chromium.wait_for_run(teacher, timeout=120)
        rows = answers_downloaded(teacher)
        assert rows[0].startswith("student,question,answer") and len(rows) == 1 + 4
        teacher.get_by_text("Yes, start a new period", exact=True).click()
        click_and_wait(teacher, "New period")
        assert store.class_info(code).period == 2 and store.revealed(code) == frozenset()
        teacher.get_by_text("Yes, end the class now", exact=True).click()
        click_and_wait(teacher, "End class")
        teacher.get_by_text(f"Class {code} ended at", exact=False).first.wait_for()
        students[2].get_by_text(f"Class {code} ended at", exact=False).first.wait_for(timeout=60_000)
        assert store.class_info(code) is not None  # ended, nothing deleted

        problems = [f"teacher: {text}" for text in page_checks.page_problems(teacher)]
        problems += [f"student {i}: {t}" for i, page in enumerate(students) for t in page_checks.page_problems(page)]
        assert "Traceback" not in served.servers[1].log_text(), served.servers[1].log_tail()
        assert not problems, problems
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for number, context in enumerate(contexts):  # 0 the teacher, then the students in order
            for page in context.pages:
                page.screenshot(path=str(ARTIFACTS / f"period-{replica_store[:5]}-{number}.png"), full_page=True)
        raise
    finally:
        for context in contexts:
            context.close()
