"""A file upload over HTTP as Streamlit's frontend makes it: the XSRF cookie that ``/_stcore/health`` sets, and the
multipart PUT of one file with that cookie and its value in ``X-Xsrftoken``. Used by devtools/streamlit_client.py."""

from __future__ import annotations

import http.cookies
import urllib.error
import urllib.request
import uuid

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
