"""Debian's Chromium driven by Playwright (never ``playwright install``), and waiting in it for Streamlit's runs.

* ``launch_chromium``, ``SCREENS`` (the screens the lab is used on), ``exit_unless_browser`` for the tools;
* ``run_after`` / ``wait_for_run``: an action's script run, begun and ended; ``sidebar_page_paths``: the app's pages.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 900}


# The screens the lab is used on: Playwright context options for each (a 150 % zoom of 1280x800 is
# what the page sees as 853x533 CSS pixels at a device scale of 1.5).
SCREENS: dict[str, dict[str, Any]] = {
    "projector 1024x768": dict(viewport={"width": 1024, "height": 768}),
    "laptop 1366x768": dict(viewport={"width": 1366, "height": 768}),
    "laptop 1366x768, dark": dict(viewport={"width": 1366, "height": 768}, color_scheme="dark"),
    "phone 390x844 (touch)": dict(
        viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True
    ),
}


def playwright_available() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


def chromium_available() -> bool:
    return CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)


def exit_unless_browser() -> None:
    """A script's first check: exit code 2 with the reason on stderr when this machine cannot drive Chromium."""
    if not (playwright_available() and chromium_available()):
        print(f"needs the playwright package and Chromium at {CHROMIUM}", file=sys.stderr)
        raise SystemExit(2)


def launch_chromium(playwright, **kwargs):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, **kwargs)


# the app's page links in the sidebar (lab/shell.py's navigation, in the container keyed presentation.NAVIGATION_KEY)
NAVIGATION_LINKS = ".st-key-lab_navigation a"


def sidebar_page_paths(page, base_url: str) -> list[str]:
    """URL paths ('' for home) of the page links in the sidebar navigation, in order."""
    page.locator(NAVIGATION_LINKS).first.wait_for(timeout=30_000)
    hrefs = page.locator(NAVIGATION_LINKS).evaluate_all("els => els.map(e => e.href)")
    paths = []
    for href in hrefs:
        path = href.removeprefix(base_url).split("?")[0].split("#")[0].strip("/")
        if path not in paths:
            paths.append(path)
    return paths


# Arms a flag for the next script run: set once the page's script state has been "running".
RUN_STARTED_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    window.__runStarted = false;
    new MutationObserver((records, observer) => {
        // a quick run can go running -> notRunning before this callback: the records keep the old value
        if (app.getAttribute('data-test-script-state') === 'running'
                || records.some(record => record.oldValue === 'running')) {
            window.__runStarted = true;
            observer.disconnect();
        }
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
}"""


def run_after(
    page, action: Callable[[], object], shown_js: str | None = None, timeout: float = 60.0, charts: bool = True
) -> None:
    """Do ``action()`` (a click, a key) and wait until the script run it causes has ended.

    The run has ended once the page has received its ``script_finished`` message (the page's websocket
    frames, read through the DevTools protocol), or has begun once the page has said "running" or
    ``shown_js`` (a JS predicate for what the run puts on the page) holds; then wait until the page is
    idle. The message is needed because for 100-200 ms after the action the page still says
    "notRunning" (the server has not started the run), and a run of a few ms (a fragment's) can start
    and end within one render, so that the page never says "running" at all (11 of 40 input switches on
    Draw; a lesson's Reveal once in a fresh-clone CI run).
    """
    finished: list[bool] = []

    def on_frame(event: dict) -> None:
        frame = event["response"]
        message = ForwardMsg.FromString(base64.b64decode(frame["payloadData"])) if frame["opcode"] == 2 else None
        if (
            message is not None
            and message.WhichOneof("type") == "script_finished"
            and message.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN  # another run follows at once
        ):
            finished.append(True)

    devtools = page.context.new_cdp_session(page)
    try:
        devtools.on("Network.webSocketFrameReceived", on_frame)
        devtools.send("Network.enable")
        page.evaluate(RUN_STARTED_JS)
        finished.clear()
        action()
        begun, deadline = run_begun_js(shown_js), time.monotonic() + timeout
        while not finished and not page.evaluate(begun):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no script run began within {timeout:.0f} s of the action")
            page.wait_for_timeout(50)  # Playwright delivers the frames' events while it waits
    finally:
        devtools.detach()
    wait_for_run(page, timeout=timeout, charts=charts)


def run_begun_js(shown_js: str | None = None) -> str:
    """After ``RUN_STARTED_JS`` and an action, a JS predicate: the page has said "running", or ``shown_js`` holds."""
    return f"() => window.__runStarted || ({shown_js or '() => false'})()"


def title_shown_js(text: str) -> str:
    """A JS predicate for ``run_after``: the page's title (its h1) contains ``text``."""
    return f"() => [...document.querySelectorAll('h1')].some(h => h.innerText.includes({text!r}))"


def wait_for_run(page, timeout: float = 60.0, settle: float = 0.0, charts: bool = True) -> None:
    """Wait until the app is connected, its script is not running, and the main area has content.

    ``settle``: first give a just-triggered rerun this many seconds to start. ``charts``: also wait
    until no element shows a loading skeleton (Plotly's code loads lazily, ~2 s the first time).
    """
    if settle:
        page.wait_for_timeout(settle * 1000)
    page.wait_for_function(
        """charts => {
            const app = document.querySelector('[data-testid="stApp"]');
            if (!app || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
            if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
            const status = document.querySelector('[data-testid="stStatusWidget"]');
            if (status && /Running/i.test(status.innerText)) return false;
            const main = document.querySelector('[data-testid="stMainBlockContainer"]');
            return !!main && main.innerText.trim().length > 0
                && !(charts && main.querySelector('[data-testid="stSkeleton"]'));
        }""",
        arg=charts,
        timeout=timeout * 1000,
        polling=50,
    )
