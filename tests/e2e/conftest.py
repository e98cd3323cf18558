"""End-to-end fixtures: one Streamlit server and one Chromium per session, a fresh browser page per test.

Missing Chromium (/usr/bin/chromium) or the playwright package: the tests fail under
CI=true and are skipped elsewhere (``require`` from tests/conftest.py).

On a failing test, a screenshot of its page and a copy of the server log are saved under
test-artifacts/ (gitignored) and their paths are added to the failure report.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from devtools import app_server, chromium
from tests.conftest import REPO, require

ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="session")
def e2e_tools() -> None:
    require(chromium.playwright_available(), "the playwright package is not installed (pip install playwright)")
    require(
        chromium.chromium_available(),
        f"Chromium is missing at {chromium.CHROMIUM} (apt-get install -y chromium; never `playwright install`)",
    )


@pytest.fixture(scope="session")
def nginx_tools(e2e_tools) -> None:
    """What the tests of replicas behind nginx need: Chromium, playwright and nginx."""
    from devtools import replicas

    require(replicas.nginx_binary() is not None, "nginx is missing (apt-get install -y nginx)")


SHARED_SMS = REPO.parent / "shared" / "sms-spam" / "SMSSpamCollection"


@pytest.fixture(scope="session")
def app_data_dir(mnist_root, prepared_mixtures, tmp_path_factory) -> Path:
    """The server's NBCORE_DATA_DIR: mnist_root (with the Beyond naive page's prepared results), plus the SMS Spam
    Collection for the Spam filter page.

    When mnist_root lacks SMSSpamCollection and ../shared/sms-spam has it, a scratch folder with
    symlinks to mnist_root's entries and a copy of the collection is used instead (nothing is
    written into mnist_root or the shared folder).
    """
    if (mnist_root / "SMSSpamCollection").is_file() or not SHARED_SMS.is_file():
        return mnist_root
    data = tmp_path_factory.mktemp("app-data")
    for entry in mnist_root.iterdir():
        (data / entry.name).symlink_to(entry.resolve(), target_is_directory=entry.is_dir())
    shutil.copy(SHARED_SMS, data / "SMSSpamCollection")
    return data


@pytest.fixture(scope="session")
def streamlit_server(e2e_tools, app_data_dir, tmp_path_factory):
    """``streamlit run app.py`` on a free loopback port, NBCORE_DATA_DIR=app_data_dir; stopped at session end."""
    log_path = tmp_path_factory.mktemp("streamlit") / "streamlit-server.log"
    with app_server.StreamlitServer(
        app_data_dir, log_path, extra_env={"NBCORE_LOG_RERUN_MS": "1"}, ready_timeout=90
    ) as server:
        yield server


@pytest.fixture(scope="session")
def browser(e2e_tools):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = chromium.launch_chromium(playwright)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def warm_app(streamlit_server, browser):
    """Open the app once so that MNIST is loaded and the default model is trained before the first test."""
    context = browser.new_context(viewport=chromium.VIEWPORT)
    try:
        page = context.new_page()
        page.goto(streamlit_server.url + "/", timeout=60_000)
        page.locator('[data-testid="stMetric"]').first.wait_for(timeout=180_000)
        chromium.wait_for_run(page, timeout=120)
    finally:
        context.close()
    return streamlit_server


@pytest.fixture
def page(browser, warm_app, request):
    """A fresh browser context (a new Streamlit session) for each test."""
    context = browser.new_context(viewport=chromium.VIEWPORT)
    context.set_default_timeout(30_000)
    page = context.new_page()
    request.node._e2e_page = page
    yield page
    context.close()


@pytest.fixture
def base_url(warm_app) -> str:
    return warm_app.url


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    page = getattr(item, "_e2e_page", None)
    server = None
    if "streamlit_server" in getattr(item, "funcargs", {}):
        server = item.funcargs["streamlit_server"]
    elif "warm_app" in getattr(item, "funcargs", {}):
        server = item.funcargs["warm_app"]
    lines = []
    ARTIFACTS.mkdir(exist_ok=True)
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', item.name)}"
    if page is not None:
        shot = ARTIFACTS / f"{stem}.png"
        try:
            page.screenshot(path=str(shot), full_page=True)
            lines.append(f"screenshot: {shot}")
        except Exception as error:  # the page may be gone
            lines.append(f"screenshot failed: {error}")
    if server is not None:
        log_copy = ARTIFACTS / f"{stem}-streamlit-server.log"
        try:
            shutil.copy(server.log_path, log_copy)
            lines.append(f"server log: {log_copy}")
        except OSError as error:
            lines.append(f"server log copy failed: {error} (original: {server.log_path})")
    if lines:
        text = "\n".join(lines)
        report.sections.append(("e2e artifacts", text))
        report.longrepr = f"{report.longrepr}\n\nE2E artifacts:\n{text}"
