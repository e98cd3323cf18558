"""The class rides out a class store outage in Chromium (issue #42): a teacher (class page, gallery) and students
(Draw, the lesson) while the store stops answering and comes back.

* Redis with its append-only file: killed with -9 and restarted, then stopped gracefully (SIGTERM, which Redis
  takes as SHUTDOWN) and restarted; what a page said was sent is all in the store after each restart.
* SQLite: its file and write-ahead log made immutable (``chattr +i``: a read-only mode does not stop root, this
  does; without root, ``chmod``), which refuses every write while reads go on, then made writable again.

Every page, at any time: no exception box and no raw exception text (a script in each page looks every 250 ms).
A send during the outage says it was not sent, and one press sends it once the store is back. Every page, opened
before the outage or during it, is whole again within ``RECOVERY_S`` of the store answering, without a reload.
Missing redis-server, Chromium or playwright: fails under CI=true.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from devtools import app_server, chromium, draw_page
from devtools.redis_server import redis_binary
from lab.store_outage import NOTICE
from nbcore.classroom import open_store
from nbcore.classroom.backends import SETTING
from nbcore.classroom.records import StoreUnavailable
from tests.conftest import require
from tests.e2e.conftest import ARTIFACTS

RECOVERY_S = 10  # the bound: every page whole again this long after the store answers
TIMEOUT_MS = 120_000
NOTICE_TEXT = NOTICE.split(". ")[0]  # "The class store is not answering"
NOT_SENT = "Not sent: the class store is not answering."
RAW_ERRORS = ("StoreUnavailable", "Traceback", "ConnectionError", "OperationalError", "redis.exceptions", "Errno")
WATCH_JS = """
(() => {
  const words = WORDS;
  const seen = new Set();
  window.__outageProblems = [];
  const note = (what) => { if (!seen.has(what)) { seen.add(what); window.__outageProblems.push(what); } };
  setInterval(() => {
    if (!document.body) return;
    for (const box of document.querySelectorAll('[data-testid="stException"]')) {
      note('exception box: ' + box.innerText.slice(0, 300));
    }
    const text = document.body.innerText;
    for (const word of words) {
      const at = text.indexOf(word);
      if (at >= 0) note('raw text: ' + text.slice(Math.max(0, at - 100), at + 200));
    }
  }, 250);
})();
""".replace("WORDS", json.dumps(RAW_ERRORS))


class DurableRedis:
    """``redis-server`` with its append-only file (fsync every second, Debian's default) in ``folder`` on one port:
    stopped and started again on the same port and file, as an operator's restart would."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = app_server.free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        binary = redis_binary()
        assert binary is not None
        command = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--dir", str(self.folder)]
        command += ["--appendonly", "yes", "--appendfsync", "everysec", "--protected-mode", "yes"]
        self.process = app_server.spawn_logged(command, self.folder / "redis.log", cwd=self.folder)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.folder / "redis.log").read_text()[-2000:]
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.5) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):  # answers only once the append-only file is loaded
                    return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer: {(self.folder / 'redis.log').read_text()[-2000:]}")

    def stop(self, how: signal.Signals) -> None:
        """SIGKILL: killed mid-class; SIGTERM: Redis's graceful SHUTDOWN (the append-only file synced)."""
        assert self.process is not None
        os.killpg(self.process.pid, how)
        self.process.wait(timeout=30)
        self.process = None

    def close(self) -> None:
        if self.process is not None:
            self.stop(signal.SIGKILL)


class Unwritable:
    """The SQLite store's file and write-ahead log made unwritable for every process, root's too (``chattr +i``;
    not the shared-memory index, which the server maps: writing to it would then kill the server with SIGBUS)."""

    def __init__(self, database: Path) -> None:
        self.paths = [database, database.with_name(database.name + "-wal")]
        self.root = os.geteuid() == 0
        if self.root:
            require(shutil.which("chattr") is not None, "chattr is missing (apt-get install e2fsprogs)")

    def stop(self) -> None:
        for path in self.paths:
            assert path.exists(), path  # the log stays while a connection holds the file (every store keeps one)
            if self.root:
                subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
            else:
                path.chmod(0o444)

    def restart(self) -> None:
        for path in self.paths:
            if not path.exists():
                continue
            if self.root:
                subprocess.run(["chattr", "-i", str(path)], check=True, capture_output=True)
            else:
                path.chmod(0o644)


# -- the class's pages ---------------------------------------------------------------------------------------
class Pages:
    """The browsers of one test: each context its own browser (its own storage, so its own student)."""

    def __init__(self, browser, url: str, code: str, key: str) -> None:
        self.browser, self.url, self.code, self.key = browser, url, code, key
        self.contexts: list = []
        self.pages: dict[str, object] = {}

    def context(self):
        context = self.browser.new_context(**chromium.SCREENS["laptop 1366x768"])
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(WATCH_JS)
        self.contexts.append(context)
        return context

    def open(self, name: str, context, path: str, wait: bool = True):
        page = context.new_page()
        page.goto(self.url + path, timeout=TIMEOUT_MS)
        if wait:
            chromium.wait_for_run(page, timeout=TIMEOUT_MS / 1000)
        self.pages[name] = page
        return page

    def problems(self) -> list[str]:
        found = []
        for name, page in self.pages.items():
            found += [f"{name}: {problem}" for problem in page.evaluate("window.__outageProblems || []")]
        return found

    def __enter__(self) -> Pages:
        return self

    def __exit__(self, failed, *exc) -> None:
        """Screenshots of every page when the test failed (the server still up), then close the browsers."""
        if failed is not None:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            for name, page in self.pages.items():
                with contextlib.suppress(Exception):
                    page.screenshot(path=str(ARTIFACTS / f"outage-{name}.png"), full_page=True)
        for context in self.contexts:
            context.close()


def send_form(page, code: str):
    return page.locator('[data-testid="stForm"]').filter(has_text=f"Send to class {code}")


def press_send(page, code: str, digit: int | None) -> None:
    """Pick ``digit`` (None: keep the one chosen) and press Send to the class."""
    chromium.wait_for_run(page, timeout=60)  # a press while the page is being drawn again may be lost
    form = send_form(page, code)
    if digit is not None:
        form.get_by_role("radio", name=str(digit), exact=True).click()
        form.locator('[role="radio"][aria-checked="true"]').filter(has_text=str(digit)).wait_for(timeout=10_000)
    form.get_by_role("button", name="Send to the class").click()


def chosen_digit(page, code: str) -> str | None:
    checked = send_form(page, code).locator('[role="radio"][aria-checked="true"]')
    return checked.first.inner_text().strip() if checked.count() else None


def main_text(page) -> str:
    return page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]'); return m ? m.innerText : ''; }"
    )


def whole(page, ready: str) -> bool:
    """Whether ``page`` is as it is with the store answering: no notice, nothing marked not live, ``ready`` shown
    (a regular expression)."""
    try:
        text = main_text(page)
    except Exception:  # the page is between two documents
        return False
    return (
        NOTICE_TEXT not in text
        and "Not live" not in text
        and "Not known while" not in text
        and re.search(ready, text) is not None
    )


def wait_until_whole(pages: dict[str, tuple[object, str]], since: float, limit_s: float) -> dict[str, float]:
    """Seconds from ``since`` until each page is whole (see ``whole``); fails naming the pages that are not within
    ``limit_s``."""
    took: dict[str, float] = {}
    while len(took) < len(pages) and time.monotonic() - since < limit_s + 20:  # a little past: to say by how much
        for name, (page, ready) in pages.items():
            if name not in took and whole(page, ready):
                took[name] = time.monotonic() - since
        time.sleep(0.2)
    late = {name: took.get(name) for name in pages if took.get(name, limit_s + 1) > limit_s}
    assert not late, f"not whole within {limit_s} s of the store answering (None: not at all): {late}; {took}"
    return took


def wait_for_text(page, text: str, timeout_s: float = 30) -> None:
    """Until the page's main area holds ``text`` (case counts: the notice's "The class store is not answering" is
    not the refused send's "Not sent: the class store is not answering")."""
    page.wait_for_function(
        "text => (document.querySelector('[data-testid=\"stMain\"]')?.innerText || '').includes(text)",
        arg=text,
        timeout=timeout_s * 1000,
        polling=100,
    )


def start_the_class(pages: Pages) -> tuple:
    """The teacher's class page and gallery, a student on Draw who sends a 1, one on the lesson."""
    code = pages.code
    teacher = pages.context()
    pages.open("class page", teacher, f"/teach?class={code}&key={pages.key}")
    wait_for_text(pages.pages["class page"], "students joined")
    pages.open("gallery", teacher, f"/gallery?class={code}")
    wait_for_text(pages.pages["gallery"], "The class's model", 60)
    drawer = pages.open("draw", pages.context(), f"/draw?class={code}")
    draw_page.draw_digit(drawer, 1)
    draw_page.wait_for_prediction(drawer, timeout=90)
    press_send(drawer, code, 1)
    wait_for_text(drawer, f"Sent: your 1 is in class {code}'s gallery")
    learner = pages.open("lesson", pages.context(), f"/lesson?class={code}")
    wait_for_text(learner, f"Class {code}")
    wait_for_text(pages.pages["class page"], "2 students joined")
    return teacher, drawer


def normal(code: str) -> dict[str, str]:
    """What each page shows when whole (a regular expression over its main area)."""
    return {
        "class page": r"\d+ students? joined",
        "gallery": r"Drawings[\s\S]*The class's model",
        "draw": r"Send to the class",
        "lesson": rf"Class {code}",
    }


def ride_out(
    pages: Pages, stop, restart, sent: list[int], *, digit: int, reads: bool, during: bool, label: str
) -> dict[str, float]:
    """One outage: ``stop()`` the store (refusing reads too, or writes only), a send refused (digit kept), pages
    opened meanwhile (``during``) with their class, ``restart()``; every page whole within RECOVERY_S, and the
    refused send (the same drawing as ``digit``, not yet in the gallery) goes with one press."""
    code = pages.code
    drawer = pages.pages["draw"]
    joined = re.search(r"\d+ students? joined", main_text(pages.pages["class page"]))
    assert joined is not None and not joined.group().startswith("0 ")
    stop()
    press_send(drawer, code, digit)
    wait_for_text(drawer, NOT_SENT)
    assert chosen_digit(drawer, code) == str(digit)  # kept for the next press
    # said, with what they last knew; the lesson's student learns it from /api/pace, within a second of its wait
    for name in ("class page", "gallery", "draw", "lesson") if reads else ("draw",):
        wait_for_text(pages.pages[name], NOTICE_TEXT, 30)
    class_page_text = main_text(pages.pages["class page"])
    assert joined.group() in class_page_text and "New class" not in class_page_text  # the last count, not 0
    assert ("Not live" in class_page_text) == reads
    ready = normal(code)
    if during:  # reloaded and newly opened while the store refuses: still the class's pages
        teacher = pages.contexts[0]
        reloaded = pages.open(f"class page reloaded {label}", teacher, f"/teach?class={code}")
        ready[f"class page reloaded {label}"] = ready["class page"]
        gallery = pages.open(f"gallery reloaded {label}", teacher, f"/gallery?class={code}")
        ready[f"gallery reloaded {label}"] = ready["gallery"]
        newcomer = pages.open(f"draw opened {label}", pages.context(), f"/draw?class={code}")
        ready[f"draw opened {label}"] = ready["draw"]  # its send form: a stroke alone never brings it
        for page in (reloaded, gallery, newcomer) if reads else (newcomer,):  # joining takes a write
            wait_for_text(page, NOTICE_TEXT, 30)
        assert re.search(rf"^Class {code}$", main_text(reloaded), re.M) and "New class" not in main_text(reloaded)
        assert f"Class {code}" in main_text(gallery) and "A teacher starts a class" not in main_text(gallery)
        assert f"Class {code}" in main_text(newcomer)
        draw_page.draw_digit(newcomer, 4)  # the lab's own pages work meanwhile
        draw_page.wait_for_prediction(newcomer, timeout=60)
    restart()
    answered = time.monotonic()
    took = wait_until_whole({name: (pages.pages[name], ready[name]) for name in ready}, answered, RECOVERY_S)
    assert chosen_digit(drawer, code) == str(digit)
    press_send(drawer, code, None)  # one press
    wait_for_text(drawer, f"Sent: your {digit} is in class {code}'s gallery")
    sent.append(digit)
    assert chosen_digit(drawer, code) is None
    return took


def served(app_data_dir, tmp_path: Path, setting: str):
    return app_server.StreamlitServer(
        app_data_dir, tmp_path / "server.log", extra_env={SETTING: setting}, ready_timeout=120
    )


def test_redis_killed_and_shut_down_mid_class(e2e_tools, browser, app_data_dir, tmp_path):
    require(redis_binary() is not None, "redis-server is missing (apt-get install redis-server)")
    redis = DurableRedis(tmp_path)
    redis.start()
    try:
        made = open_store(redis.url).create_class()
        with (
            served(app_data_dir, tmp_path, redis.url) as server,
            Pages(browser, server.url, made.info.code, made.teacher_key) as pages,
        ):
            start_the_class(pages)
            sent = [1]
            kill, shut_down = (lambda: redis.stop(signal.SIGKILL)), (lambda: redis.stop(signal.SIGTERM))
            killed = ride_out(pages, kill, redis.start, sent, digit=7, reads=True, during=True, label="killed")
            shut = ride_out(pages, shut_down, redis.start, sent, digit=3, reads=True, during=False, label="shut down")
            kept = open_store(redis.url).drawings(made.info.code)
            assert sorted(d.meant for d in kept) == sorted(sent), (kept, sent)  # every acknowledged send
            assert not pages.problems(), pages.problems()
            assert "Traceback" not in server.log_text(), server.log_tail()
            print(f"whole again after kill -9: {killed}; after SHUTDOWN: {shut}")
    finally:
        redis.close()


def test_sqlite_made_unwritable_mid_class(e2e_tools, browser, app_data_dir, tmp_path):
    database = tmp_path / "store" / "classes.sqlite3"
    setting = f"sqlite:///{database}"
    store = open_store(setting)
    made = store.create_class()
    unwritable = Unwritable(database)
    unwritable.stop()  # measured, not assumed: a write from here is refused, a read answers
    try:
        with pytest.raises(StoreUnavailable):
            store.take("outage-test", 10, 60)
        assert store.class_info(made.info.code) is not None
    finally:
        unwritable.restart()
    assert store.take("outage-test", 10, 60)
    try:
        with (
            served(app_data_dir, tmp_path, setting) as server,
            Pages(browser, server.url, made.info.code, made.teacher_key) as pages,
        ):
            start_the_class(pages)
            sent = [1]
            took = ride_out(
                pages, unwritable.stop, unwritable.restart, sent, digit=7, reads=False, during=True, label="sqlite"
            )
            assert sorted(d.meant for d in store.drawings(made.info.code)) == sorted(sent)
            assert not pages.problems(), pages.problems()
            assert "Traceback" not in server.log_text(), server.log_tail()
            print(f"whole again after the file was writable again: {took}")
    finally:
        unwritable.restart()
