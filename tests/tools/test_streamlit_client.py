"""devtools.streamlit_client against a real ``streamlit run`` of a small app (no browser, no MNIST).

The app has what the Draw page uses: a keyed select slider, a button in a fragment, a
components-v2 widget in that fragment, metrics, an st.error and an uncaught exception, two
pages. Each test checks what the client reports against what that app must show.
"""

from __future__ import annotations

import textwrap
import time

import pytest

from devtools import app_server, protocol_upload
from devtools.protocol_upload import UploadError
from devtools.streamlit_client import StreamlitClient, loopback_address

APP = """
import streamlit as st

def main():
    level = st.select_slider("Level", ["a", "b", "c"], value="a", key="level")
    st.metric("Level shown", level)
    st.session_state.setdefault("presses", 0)

    echo = st.components.v2.component("client_test_echo", html="<div></div>", js="export default function() {}")

    @st.fragment
    def part():
        if st.button("Press", key="press"):
            st.session_state.presses += 1
        value = echo(key="echo", default={"text": None}, on_text_change=lambda: None)
        st.metric("Echo", str(value.get("text")))
        st.metric("Presses", str(st.session_state.presses))
        if value.get("text") == "error":
            st.error("asked for an error")
        if value.get("text") == "raise":
            raise ValueError("asked to raise")

    part()

    upload = st.file_uploader("A file", key="file")
    if upload is not None:
        st.metric("Uploaded", f"{upload.name}:{len(upload.getvalue())}")

def other():
    st.markdown("the other page, level " + str(st.session_state.get("level")))

def timed():
    st.session_state.setdefault("ticks", 0)
    st.metric("Whole runs", str(st.session_state.setdefault("whole", 0) + 1))
    st.session_state.whole += 1

    @st.fragment(run_every=0.4)
    def ticking():
        st.session_state.ticks += 1
        st.metric("Ticks", str(st.session_state.ticks))
        if st.session_state.ticks == 4:
            st.rerun(scope="app")

    ticking()

st.navigation([st.Page(main, title="Main", url_path="main", default=True),
               st.Page(other, title="Other", url_path="other"),
               st.Page(timed, title="Timed", url_path="timed")]).run()
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("client-app")
    app = folder / "client_app.py"
    app.write_text(textwrap.dedent(APP))
    # the repository's config shows exception types only (a visitor sees no server detail); this test reads the messages
    with app_server.StreamlitServer(
        folder, folder / "server.log", app=str(app), extra_env={"STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "full"}
    ) as running:
        yield running


@pytest.mark.slow
def test_session_widgets_fragments_and_errors(server):
    with StreamlitClient(server.url, timeout=30) as client:
        first = client.connect()
        assert first.status == "finished" and first.errors == []
        assert first.metric("Level shown") == "a" and first.metric("Echo") == "None"
        assert client.session_id and client.page_script_hash
        assert {"level", "press", "echo"} <= set(client.widget_ids)

        moved = client.select_slider("level", "c")
        assert moved.status == "finished" and moved.metric("Level shown") == "c"

        echoed = client.component("echo", {"text": "hello"})
        assert echoed.status == "fragment"  # the component lives in the fragment: only it reran
        assert echoed.metric("Echo") == "hello" and echoed.metric("Level shown") is None
        assert echoed.seconds > 0

        assert client.click("press").metric("Presses") == "1"
        assert client.rerun().metric("Presses") == "1"  # a trigger is sent once, not kept

        assert client.component("echo", {"text": "error"}).errors == ["st.error: asked for an error"]
        raised = client.component("echo", {"text": "raise"})
        assert raised.exceptions == ["ValueError: asked to raise"]


@pytest.mark.slow
def test_pages_cache_clear_and_second_session(server):
    with StreamlitClient(server.url, timeout=30) as client:
        assert client.connect(page="other").texts() == ["the other page, level None"]
        # a rerun stays on the page shown (the hash of st.navigation's page, not new_session's app script)
        assert client.rerun().texts() == ["the other page, level None"]
        assert client.goto("Main").metric("Level shown") == "a"
        client.select_slider("level", "b")
        client.click("press")
        client.clear_cache()  # clears this session's state too
        assert client.rerun().metric("Presses") == "0"
        with StreamlitClient(server.url, timeout=30) as other:
            assert other.connect(page="main").metric("Level shown") == "a"  # sessions do not share widgets
            assert other.session_id != client.session_id


@pytest.mark.slow
def test_upload_goes_through_put_and_widget_state(server):
    with StreamlitClient(server.url, timeout=30) as client:
        client.connect()
        assert (
            protocol_upload.upload(client, "file", "notes.txt", b"hello", "text/plain").metric("Uploaded")
            == "notes.txt:5"
        )
        # the upload URL belongs to this session: another session id is refused by the server
        with StreamlitClient(server.url, timeout=30) as other:
            other.connect()
            urls = protocol_upload.request_upload_urls(other, ["x.txt"])[0]
            forged = urls.upload_url.replace(other.session_id, "not-a-session")
            with pytest.raises(UploadError) as refused:
                protocol_upload.put_file(other, forged, "x.txt", b"x", "text/plain")
            assert refused.value.status == 400 and "Invalid session_id" in refused.value.body


@pytest.mark.slow
def test_unknown_widget_key_is_named(server):
    with StreamlitClient(server.url, timeout=30) as client:
        client.connect()
        with pytest.raises(KeyError, match="no widget with key 'nope'"):
            client.click("nope")


@pytest.mark.slow
def test_timed_fragments_rerun_as_the_browser_runs_them(server):
    """``st.fragment(run_every=0.4)``: its timer comes with the page, its runs are the fragment's, a whole run
    (the fragment's ``st.rerun(scope="app")`` on its 4th tick) sets the timer again, another page drops it."""
    with StreamlitClient(server.url, timeout=30, source_address=loopback_address(3)) as client:
        first = client.connect(page="timed")
        assert first.metric("Ticks") == "1" and list(client.auto_reruns.values())[0].interval == pytest.approx(0.4)
        runs = []
        started = time.perf_counter()
        made = client.run_auto_reruns(until=started + 30, each=lambda run: runs.append(run) or len(runs) == 4)
        assert made == 4 and [run.status for run in runs] == ["fragment", "fragment", "finished", "fragment"]
        assert [run.metric("Ticks") for run in runs] == ["2", "3", "5", "6"] and runs[0].metric("Whole runs") is None
        assert runs[2].metric("Whole runs") == "2"  # the 4th tick asked for the whole page, which ticked once more
        assert time.perf_counter() - started >= 4 * 0.4 - 0.05  # one run per interval, not as fast as it can
        assert len(client.auto_reruns) == 1
        client.goto("Main")
        assert client.auto_reruns == {}
        assert client.run_auto_reruns(until=time.perf_counter() + 0.5) == 0


def test_loopback_addresses_are_one_per_client():
    addresses = [loopback_address(n) for n in range(0, 70_000, 7)]
    assert len(set(addresses)) == len(addresses)
    assert all(a.startswith("127.") and not a.endswith((".0", ".255")) for a in addresses)
    with pytest.raises(ValueError):
        loopback_address(-1)
