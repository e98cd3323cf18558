"""A browser-free Streamlit client: one session over ``/_stcore/stream``, as the web frontend speaks it.

Streamlit 1.67's frontend and server talk over one websocket of binary protobufs: the browser
sends ``BackMsg`` (``streamlit.proto.BackMsg_pb2``), the server answers with ``ForwardMsg``
(``streamlit.proto.ForwardMsg_pb2``). This module sends what the frontend sends, with the
same fields (read from a recording of Chromium on this app, see ``devtools/drawings.json``):

* open: websocket with subprotocol ``streamlit`` (optional tokens after it: XSRF, an existing
  session id to reconnect to), then ``rerun_script`` with the page's URL path as ``page_name``
  and the query string, plus a ``context_info`` like a browser's;
* act: ``rerun_script`` with the ``page_script_hash`` of the page shown (from the last ``navigation``
  message: with ``st.navigation``, ``new_session`` carries the main script's hash), every widget state the client
  holds (the browser resends them all on every run), and the widget's ``fragment_id`` when the
  widget lives in an ``st.fragment`` (a stroke on the Draw canvas reruns only its fragment);
* a button press is ``trigger_value=True`` sent once; a select slider's value is its option
  label(s) in ``string_array_value``; a numeric slider's ``double_array_value``; a
  components-v2 value is ``json_value`` (the component's whole state, e.g. ``{"drawing": ...}``);
* timers: an ``st.fragment(run_every=...)`` makes the server send ``auto_rerun`` (interval, fragment_id);
  the browser then asks for a run of that fragment every interval (``rerun_script`` with the fragment's
  id and ``is_auto_rerun``) until ``stop_auto_rerun`` names it or a whole run starts (its ``new_session``
  without fragment ids clears every timer; the run's ``auto_rerun`` messages set them again). The client
  keeps the same timers (``auto_reruns``, ``devtools/fragment_timers.py``) and runs them in ``run_auto_reruns``,
  between its own actions;
* ``clear_cache`` (the "Clear caches" menu item: ``st.cache_data/resource`` and this session's
  state cleared, no rerun);
* an upload into ``st.file_uploader`` (``devtools/protocol_upload.py``): ``file_urls_request`` -> ``file_urls_response`` (an upload URL
  for this session), an HTTP PUT of the file (multipart, with the XSRF cookie that ``/_stcore/health``
  sets and its value in ``X-Xsrftoken``), then a rerun with the file's ``file_uploader_state_value``.

A run ends with ``script_finished`` (status FINISHED_SUCCESSFULLY, FINISHED_FRAGMENT_RUN_SUCCESSFULLY
or FINISHED_WITH_COMPILE_ERROR; a run cut short by the next one, FINISHED_EARLY_FOR_RERUN, is
followed by that next run). Widget states of widgets that a finished run did not show are dropped,
as the frontend does. By default the client does not advertise cached message hashes, so the server sends
every message in full (no ``ref_hash`` fetches over HTTP). With ``message_cache=True`` it keeps messages as the
browser does (``devtools/message_cache.py``: ForwardMsgs marked ``cacheable``, kept while recently used),
advertises their hashes with every run, and reads a ``ref_hash`` reply from what it keeps.

Usage::

    from devtools.streamlit_client import StreamlitClient

    with StreamlitClient("http://127.0.0.1:8501") as client:
        run = client.connect(page="draw")                 # RunResult of the first full run
        run = client.component("canvas_draw", {"drawing": png_data_url})
        print(run.metric("Naive Bayes prediction"), run.errors, run.seconds)
        client.run_auto_reruns(until=time.perf_counter() + 10)  # 10 s of the page's timed fragments
        run = client.select_slider("alpha", "2")
        run = client.click("draw_test_next")
        run = protocol_upload.upload(client, "draw_upload", "seven.png", png_bytes, "image/png")
        client.clear_cache()

Widgets are named by their user ``key`` (``st.slider(..., key="draw_brush")`` -> "draw_brush") or
by their full element id (``$$ID-...``). ``source_address`` opens the websocket from a loopback address
of its own (``loopback_address(n)``), as each device of a classroom has its own. Blocking I/O on one
socket (``websocket-client``), so it runs unchanged under gevent (Locust) or in plain threads. Dev-only:
nothing in the app imports it.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from typing import Any

import websocket  # websocket-client
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from devtools.fragment_timers import AutoRerun, next_due, set_timer
from devtools.message_cache import MessageCache
from devtools.protocol_run import ProtocolError, RunResult, ShownElement

STREAM_PATH = "/_stcore/stream"
FINISHED = ForwardMsg.ScriptFinishedStatus
ENDING_STATUSES = {
    FINISHED.FINISHED_SUCCESSFULLY: "finished",
    FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "fragment",
    FINISHED.FINISHED_WITH_COMPILE_ERROR: "compile_error",
}
ARRAY_FIELDS = ("string_array_value", "double_array_value", "int_array_value")


def widget_state(widget_id: str, field_name: str, value: Any) -> WidgetState:
    """A ``WidgetState`` with one value field set (arrays from any iterable; json from a str or any JSON-able)."""
    state = WidgetState(id=widget_id)
    if field_name in ARRAY_FIELDS:
        getattr(state, field_name).data.extend(value)
    elif field_name in ("json_value", "json_trigger_value") and not isinstance(value, str):
        setattr(state, field_name, json.dumps(value, separators=(",", ":")))
    else:
        setattr(state, field_name, value)
    return state


def loopback_address(number: int) -> str:
    """A loopback address of its own for client ``number`` (Linux routes all of 127/8 to the loopback)."""
    if not 0 <= number < 250 * 256 * 256:
        raise ValueError(f"client number {number} out of range")
    return f"127.{10 + number // 65536}.{number // 250 % 256}.{1 + number % 250}"


class StreamlitClient:
    """One Streamlit session spoken to over the websocket protocol (see the module docstring).

    ``base_url``: the app's address, e.g. "http://127.0.0.1:8501" (a path prefix is kept).
    ``timeout``: seconds to wait for any one message before ``ProtocolError``.
    ``origin``, ``headers``, ``cookie``: extra handshake headers (a browser sends Origin).
    ``subprotocol_tokens``: what follows "streamlit" in Sec-WebSocket-Protocol: [xsrf_token, session_id].
    ``source_address``: the local address the websocket comes from (e.g. ``loopback_address(7)``; nginx passes it
    on as X-Forwarded-For), instead of the system's choice.
    """

    def __init__(
        self,
        base_url: str,
        timeout: float = 60.0,
        origin: str | None = None,
        headers: Iterable[str] = (),
        cookie: str | None = None,
        subprotocol_tokens: Iterable[str] = (),
        source_address: str | None = None,
        message_cache: bool = False,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        scheme = "wss" if parsed.scheme == "https" else "ws"
        self.base_url = base_url.rstrip("/")
        self.stream_url = f"{scheme}://{parsed.netloc}{parsed.path.rstrip('/')}{STREAM_PATH}"
        self.timeout = timeout
        self.origin = origin
        self.headers = list(headers)
        self.cookie = cookie
        self.subprotocol_tokens = list(subprotocol_tokens)
        self.source_address = source_address
        self.ws: websocket.WebSocket | None = None
        self.session_id = ""
        self.page_script_hash = ""
        self.query_string = ""  # the address bar's, sent with every run as the browser does
        self.pages: dict[str, str] = {}  # url path ("" for the default page) and page name -> page_script_hash
        self.widgets: dict[str, WidgetState] = {}  # widget id -> its current state, resent with every run
        self.widget_ids: dict[str, str] = {}  # user key -> widget id, from the elements shown
        self.widget_fragments: dict[str, str] = {}  # widget id -> the fragment that shows it ("" if none)
        self.auto_reruns: dict[str, AutoRerun] = {}  # fragment id -> its timer, as the browser keeps them
        self.bytes_sent = 0
        self.bytes_received = 0
        self.xsrf: str | None = None  # the XSRF cookie's value once read (devtools/protocol_upload.py)
        self.message_cache = MessageCache() if message_cache else None  # kept as the browser keeps them

    # -- connection ---------------------------------------------------------------------------
    def open(self) -> None:
        """Open the websocket (no run yet; ``connect`` also asks for the first run)."""
        subprotocols = ",".join(["streamlit", *self.subprotocol_tokens])
        sock = None
        if self.source_address is not None:
            parsed = urllib.parse.urlsplit(self.base_url)
            port = parsed.port or (443 if parsed.scheme == "https" else 80)
            sock = socket.create_connection(
                (parsed.hostname, port), timeout=self.timeout, source_address=(self.source_address, 0)
            )
        self.ws = websocket.create_connection(
            self.stream_url,
            timeout=self.timeout,
            origin=self.origin,
            cookie=self.cookie,
            header=[f"Sec-WebSocket-Protocol: {subprotocols}", *self.headers],
            enable_multithread=False,
            socket=sock,
        )

    def connect(self, page: str = "", query_string: str = "") -> RunResult:
        """Open a session on the page at URL path ``page`` ("" home, "draw", ...), as a browser loading that URL."""
        if self.ws is None:
            self.open()
        url = f"{self.base_url}/{page}" + (f"?{query_string}" if query_string else "")
        self.query_string = query_string
        request = ClientState(page_name=page, query_string=query_string)
        context = request.context_info
        context.timezone, context.timezone_offset, context.locale = "UTC", 0, "en-US"
        context.url, context.is_embedded, context.color_scheme = url, False, "light"
        return self._run(BackMsg(rerun_script=request))

    def close(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            finally:
                self.ws = None

    def __enter__(self) -> StreamlitClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- actions ------------------------------------------------------------------------------
    def rerun(self, fragment_id: str = "", extra: Iterable[WidgetState] = ()) -> RunResult:
        """Ask for a run of the current page with the widget states held (plus ``extra``, sent this once), and the
        address's query string as the browser holds it."""
        request = ClientState(
            page_script_hash=self.page_script_hash, fragment_id=fragment_id, query_string=self.query_string
        )
        request.widget_states.widgets.extend([*self.widgets.values(), *extra])
        return self._run(BackMsg(rerun_script=request))

    def run_auto_reruns(self, until: float, each: Callable[[RunResult], bool] | None = None) -> int:
        """Run the page's timed fragments as the browser's timers do, until ``until`` (time.perf_counter()).

        Each timer fires every ``interval`` s from when its ``auto_rerun`` arrived (a run that took longer puts the
        next one off until it is over: one socket). ``each(run)`` sees every run; True from it stops at once.
        Returns the runs made. With no timer, it waits until ``until``.
        """
        runs = 0
        while (fragment_id := next_due(self.auto_reruns, until)) is not None:
            request = ClientState(
                page_script_hash=self.page_script_hash,
                fragment_id=fragment_id,
                query_string=self.query_string,
                is_auto_rerun=True,
            )
            request.widget_states.widgets.extend(self.widgets.values())
            run = self._run(BackMsg(rerun_script=request))
            runs += 1
            if each is not None and each(run):
                return runs
        return runs

    def set_widget(self, key: str, field_name: str, value: Any, run: bool = True) -> RunResult | None:
        """Give widget ``key`` a value (a WidgetState field, e.g. "double_array_value", [20]) and, if ``run``, rerun.

        The rerun is the widget's fragment's when it lives in one, as the frontend does.
        """
        if not run:
            widget_id = self.widget_id(key)
            self.widgets[widget_id] = widget_state(widget_id, field_name, value)
            return None
        return self._set_and_rerun(key, field_name, value)

    def _set_and_rerun(self, key: str, field_name: str, value: Any) -> RunResult:
        """``set_widget`` with its rerun: the widget's fragment's when it lives in one, as the frontend does."""
        widget_id = self.widget_id(key)
        self.widgets[widget_id] = widget_state(widget_id, field_name, value)
        return self.rerun(self.widget_fragments.get(widget_id, ""))

    def click(self, key: str) -> RunResult:
        """Press ``st.button(key=key)``: a trigger sent with one run only."""
        widget_id = self.widget_id(key)
        return self.rerun(
            self.widget_fragments.get(widget_id, ""), extra=[widget_state(widget_id, "trigger_value", True)]
        )

    def select_slider(self, key: str, *options: str) -> RunResult:
        """Move ``st.select_slider`` to the option(s) with these labels (two for a range)."""
        return self._set_and_rerun(key, "string_array_value", [str(option) for option in options])

    def slider(self, key: str, *values: float) -> RunResult:
        """Move a numeric ``st.slider`` (two values for a range)."""
        return self._set_and_rerun(key, "double_array_value", [float(value) for value in values])

    def component(self, key: str, state: Any) -> RunResult:
        """Send a components-v2 widget's state (its JSON, e.g. ``{"drawing": "data:image/png;base64,..."}``)."""
        return self._set_and_rerun(key, "json_value", state)

    def goto(self, page: str) -> RunResult:
        """Switch to another page by URL path or page name (as a click on the navigation would)."""
        if page not in self.pages:
            raise KeyError(f"no page {page!r}; pages: {sorted(self.pages)}")
        request = ClientState(page_script_hash=self.pages[page])
        request.widget_states.widgets.extend(self.widgets.values())
        return self._run(BackMsg(rerun_script=request))

    def clear_cache(self) -> None:
        """The menu's "Clear caches": the server clears st.cache_data/st.cache_resource and this session's state."""
        self.send(BackMsg(clear_cache=True))

    def send_reruns(self, count: int, fragment_id: str = "") -> float:
        """Send ``count`` rerun requests of the current page at once, waiting for no run (a script's flood).

        Each carries the widget states held, as a browser's would. Returns the seconds the sending took.
        """
        request = ClientState(page_script_hash=self.page_script_hash, fragment_id=fragment_id)
        request.widget_states.widgets.extend(self.widgets.values())
        payload = BackMsg(rerun_script=request)
        started = time.perf_counter()
        for _ in range(count):
            self.send(payload)
        return time.perf_counter() - started

    def drain(self, seconds: float) -> list[ForwardMsg]:
        """Every ForwardMsg the server sends within ``seconds`` (after a flood: what came back, read off the socket)."""
        deadline = time.perf_counter() + seconds
        received = []
        while (remaining := deadline - time.perf_counter()) > 0:
            try:
                received.append(self.receive(timeout=remaining)[0])
            except ProtocolError:
                if self.ws is not None and time.perf_counter() >= deadline:
                    break  # nothing more within the time: not an error here
                raise
        return received

    def widget_id(self, key: str) -> str:
        """The element id of the widget with user key ``key`` (or ``key`` itself if it is an id)."""
        if key.startswith("$$ID-"):
            return key
        try:
            return self.widget_ids[key]
        except KeyError:
            raise KeyError(f"no widget with key {key!r} shown yet; keys: {sorted(self.widget_ids)}") from None

    # -- wire ---------------------------------------------------------------------------------
    def send(self, message: BackMsg) -> float:
        """Send one BackMsg; returns time.perf_counter() just before it left."""
        if self.ws is None:
            raise ProtocolError("not connected")
        payload = message.SerializeToString()
        sent_at = time.perf_counter()
        self.ws.send_binary(payload)
        self.bytes_sent += len(payload)
        return sent_at

    def receive(self, timeout: float | None = None) -> tuple[ForwardMsg, float]:
        """The next ForwardMsg and its arrival time (time.perf_counter())."""
        if self.ws is None:
            raise ProtocolError("not connected")
        self.ws.settimeout(self.timeout if timeout is None else timeout)
        try:
            opcode, payload = self.ws.recv_data()
        except websocket.WebSocketTimeoutException:
            raise ProtocolError(f"nothing from the server within {self.ws.gettimeout():.0f} s") from None
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError) as error:
            raise ProtocolError(f"connection lost: {error}") from error
        received_at = time.perf_counter()
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            raise ProtocolError(f"server closed the websocket ({payload[:2].hex() if payload else 'no code'})")
        self.bytes_received += len(payload)
        message = ForwardMsg()
        message.ParseFromString(payload)
        return message, received_at

    def _run(self, message: BackMsg, on_element: Callable[[ShownElement], None] | None = None) -> RunResult:
        fragment_id = message.rerun_script.fragment_id if message.HasField("rerun_script") else ""
        if self.message_cache is not None and message.HasField("rerun_script"):
            message.rerun_script.cached_message_hashes[:] = self.message_cache.hashes()
        result = RunResult(sent_at=self.send(message), fragment_id=fragment_id)
        return self.wait_for_run(result, on_element)

    def wait_for_run(self, result: RunResult, on_element: Callable[[ShownElement], None] | None = None) -> RunResult:
        """Read messages into ``result`` until the run it asked for has finished."""
        shown_ids: set[str] = set()
        while True:
            message, received_at = self.receive()
            result.messages += 1
            if self.message_cache is not None:
                message = self.message_cache.through(message)
            kind = message.WhichOneof("type")
            if kind == "new_session":
                self._on_new_session(message.new_session)
                if not message.metadata.run.fragment_ids:  # a whole run: the browser drops every timer
                    self.auto_reruns.clear()
            elif kind == "auto_rerun":
                set_timer(self.auto_reruns, message.auto_rerun.fragment_id, message.auto_rerun.interval, received_at)
            elif kind == "stop_auto_rerun":
                for stopped in message.stop_auto_rerun.fragment_ids:
                    self.auto_reruns.pop(stopped, None)
            elif kind == "navigation":  # its page_script_hash names the page shown (new_session's may be app.py's)
                if message.navigation.page_script_hash:
                    self.page_script_hash = message.navigation.page_script_hash
                for page in message.navigation.app_pages:
                    self.pages[page.page_name] = page.page_script_hash
                    self.pages[page.url_pathname] = page.page_script_hash
            elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                element = self._on_element(message, received_at, shown_ids)
                result.elements.append(element)
                if on_element is not None:
                    on_element(element)
            elif kind == "page_info_changed":  # the script changed st.query_params: the address bar follows
                self.query_string = message.page_info_changed.query_string
            elif kind == "page_not_found":
                result.page_not_found = message.page_not_found.page_name
            elif kind == "session_event" and message.session_event.WhichOneof("type") == "script_compilation_exception":
                error = message.session_event.script_compilation_exception
                result.session_events.append(f"compile error {error.type}: {error.message}")
            elif kind == "script_finished":
                status = ENDING_STATUSES.get(message.script_finished)
                if status is None:  # FINISHED_EARLY_FOR_RERUN: the next run follows
                    shown_ids.clear()
                    continue
                result.status, result.finished_at = status, received_at
                if self.message_cache is not None:
                    self.message_cache.age()
                self._drop_stale_widgets(shown_ids, result.fragment_id if status == "fragment" else None)
                return result

    def _on_new_session(self, new_session) -> None:
        if new_session.initialize.session_id:
            self.session_id = new_session.initialize.session_id
        if new_session.page_script_hash:
            self.page_script_hash = new_session.page_script_hash

    def _on_element(self, message: ForwardMsg, received_at: float, shown_ids: set[str]) -> ShownElement:
        element: Element = message.delta.new_element
        kind = element.WhichOneof("type") or ""
        proto = getattr(element, kind) if kind else element
        fragment_id = message.delta.fragment_id
        widget_id = getattr(proto, "id", "") if "id" in proto.DESCRIPTOR.fields_by_name else ""
        if widget_id:
            shown_ids.add(widget_id)
            self.widget_fragments[widget_id] = fragment_id
            key = widget_id.split("-", 2)[-1] if widget_id.startswith("$$ID-") else ""
            if key and key != "None":
                self.widget_ids[key] = widget_id
        return ShownElement(tuple(message.metadata.delta_path), kind, proto, received_at, fragment_id)

    def _drop_stale_widgets(self, shown_ids: set[str], fragment_id: str | None) -> None:
        """Forget states of widgets the run did not show (a fragment's run: only among that fragment's widgets)."""
        for widget_id in list(self.widgets):
            in_scope = fragment_id is None or self.widget_fragments.get(widget_id) == fragment_id
            if in_scope and widget_id not in shown_ids:
                del self.widgets[widget_id]
