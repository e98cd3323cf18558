"""A file upload into ``st.file_uploader`` as Streamlit's frontend makes it, for a ``StreamlitClient``'s session:
``file_urls_request`` over the websocket (an upload URL for this session), the XSRF cookie that ``/_stcore/health``
sets, the multipart PUT of the file with that cookie and its value in ``X-Xsrftoken``, then a rerun with the file's
``file_uploader_state_value``."""

from __future__ import annotations

import http.cookies
import urllib.error
import urllib.request
import uuid
from typing import TYPE_CHECKING

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs, FileURLsRequest
from streamlit.proto.WidgetStates_pb2 import WidgetState

if TYPE_CHECKING:
    from devtools.protocol_run import RunResult
    from devtools.streamlit_client import StreamlitClient

XSRF_COOKIE = "_streamlit_xsrf"


class UploadError(RuntimeError):
    """The server refused a file upload (``status``: the HTTP status, ``body``: its text)."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"upload refused: HTTP {status}: {body[:300]}")
        self.status, self.body = status, body


def health_xsrf(base_url: str, cookie: str | None, timeout: float) -> str:
    """The XSRF cookie's value that ``base_url``/_stcore/health sets (the frontend polls it first); "" if XSRF is off."""
    headers = {"Cookie": cookie} if cookie else {}
    with urllib.request.urlopen(
        urllib.request.Request(base_url + "/_stcore/health", headers=headers), timeout=timeout
    ) as response:
        jar = http.cookies.SimpleCookie()
        for header in response.headers.get_all("Set-Cookie") or []:
            jar.load(header)
    return jar[XSRF_COOKIE].value if XSRF_COOKIE in jar else ""


def put_form(url: str, name: str, data: bytes, mime: str, headers: dict[str, str], timeout: float) -> None:
    """HTTP PUT of one file to ``url``, multipart like the frontend's FormData, with ``headers`` (cookies, XSRF,
    origin) besides the content type; ``UploadError`` if refused."""
    boundary = uuid.uuid4().hex
    safe_name = name.replace('"', "_").replace("\r", "_").replace("\n", "_")
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{safe_name}"\r\n'
            f"Content-Type: {mime}\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", **headers}
    request = urllib.request.Request(url, data=body, method="PUT", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
    except urllib.error.HTTPError as error:
        raise UploadError(error.code, error.read().decode(errors="replace")) from None


def upload(
    client: StreamlitClient, key: str, name: str, data: bytes, mime: str = "application/octet-stream"
) -> RunResult:
    """Put one file into ``st.file_uploader(key=key)`` as the frontend does, and rerun; ``UploadError`` if refused."""
    widget_id = client.widget_id(key)
    urls = request_upload_urls(client, [name])[0]
    put_file(client, urls.upload_url, name, data, mime)
    state = WidgetState(id=widget_id)
    info = state.file_uploader_state_value.uploaded_file_info.add()
    info.name, info.size, info.file_id = name, len(data), urls.file_id
    info.file_urls.CopyFrom(urls)
    client.widgets[widget_id] = state
    return client.rerun(client.widget_fragments.get(widget_id, ""))


def request_upload_urls(
    client: StreamlitClient, file_names: list[str], session_id: str | None = None
) -> list[FileURLs]:
    """``file_urls_request`` (for the client's session unless ``session_id``): one FileURLs (upload/delete URL) per
    name."""
    request_id = uuid.uuid4().hex
    client.send(
        BackMsg(
            file_urls_request=FileURLsRequest(
                request_id=request_id,
                file_names=file_names,
                session_id=client.session_id if session_id is None else session_id,
            )
        )
    )
    while True:  # messages of runs still being flushed may come first
        message, _ = client.receive()
        if message.WhichOneof("type") == "file_urls_response" and message.file_urls_response.response_id == request_id:
            response = message.file_urls_response
            if response.error_msg:
                raise UploadError(0, response.error_msg)
            return list(response.file_urls)


def put_file(client: StreamlitClient, upload_url: str, name: str, data: bytes, mime: str) -> None:
    """HTTP PUT of one file to ``upload_url`` (as in a FileURLs), multipart like the frontend's FormData."""
    if client.xsrf is None:
        client.xsrf = health_xsrf(client.base_url, client.cookie, client.timeout)
    cookies = "; ".join(part for part in (client.cookie, f"{XSRF_COOKIE}={client.xsrf}" if client.xsrf else "") if part)
    headers = {"Cookie": cookies}
    if client.xsrf:
        headers["X-Xsrftoken"] = client.xsrf
    if client.origin:
        headers["Origin"] = client.origin
    # a path on the app, like the frontend's buildHttpUri: under the app's base URL (its path prefix included)
    url = upload_url if "://" in upload_url else client.base_url + "/" + upload_url.lstrip("/")
    put_form(url, name, data, mime, headers, client.timeout)
