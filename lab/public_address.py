"""The address students' devices can reach, for the links and the QR code a teacher hands out.

A teacher often browses on the server itself (``localhost``), an address no phone in the room can open. So
a student link is built from, in this order: the server's configured address (``$NBCORE_PUBLIC_URL``,
e.g. ``http://10.0.4.2:8080``; ``python -m devtools.serve_class`` sets it when it serves the room's network), the
address this page was opened with when that is not a loopback name, or this machine's address on the local
network with the page's port. ``Address.source`` says which, for the teacher to read.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from lab.i18n import _

SETTING = "NBCORE_PUBLIC_URL"
LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


@dataclass(frozen=True)
class Address:
    """Where students reach the lab: ``base`` (``http://host:port``, no path) and ``source``, a sentence saying
    which address this is (in the language of the run that asked); ``base`` is None when no address a student
    could open is known."""

    base: str | None
    source: str

    def link(self, page: str, **params: str) -> str | None:
        """The full link to ``page`` ("draw", "" for the start page) with ``params`` in its query."""
        if self.base is None:
            return None
        query = "?" + urlencode(params) if params else ""
        return f"{self.base}/{page}{query}"

    @property
    def short(self) -> str | None:
        """The base without its scheme: what a student types into a phone's address bar."""
        return None if self.base is None else self.base.split("://", 1)[1]


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an http(s) ``url``, or None if it is not one."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port


def _base(scheme: str, host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" + (f":{port}" if port else "")


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ::1)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on its local network, or None. Asks the kernel which address a packet to a
    private network would leave from: a UDP socket's connect sends nothing."""
    for probe in ("10.255.255.255", "192.168.255.255", "172.31.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found = udp.getsockname()[0]
        except OSError:
            continue
        if found and not is_loopback(found) and found != "0.0.0.0":
            return found
    return None


def student_address(page_url: str | None, configured: str | None = None, lan: str | None = None) -> Address:
    """The address for student links, given this page's URL (``st.context.url``), the configured one
    (default ``$NBCORE_PUBLIC_URL``) and this machine's LAN address (default: looked up when needed)."""
    configured = os.environ.get(SETTING, "") if configured is None else configured
    if configured.strip():
        origin = _origin(configured)
        if origin is not None:
            base = _base(*origin)
            return Address(
                base, _("The server's configured address ({setting}): {address}.").format(setting=SETTING, address=base)
            )
    page = _origin(page_url or "")
    if page is not None and not is_loopback(page[1]):
        base = _base(*page)
        return Address(base, _("The address you opened this page with: {address}.").format(address=base))
    scheme, port = (page[0], page[2]) if page is not None else ("http", None)
    found = lan if lan is not None else lan_address()
    if not found:
        return Address(
            None,
            _(
                "You opened this page as localhost, which students' devices cannot open, and this computer has no "
                "address on a local network: set {setting} to the address students use, then start the server again."
            ).format(setting=SETTING),
        )
    base = _base(scheme, found, port)
    return Address(
        base,
        _(
            "This computer's address on the local network ({address}), since you opened this page as localhost: "
            "students' devices must be on the same network (set {setting} to use another address)."
        ).format(address=found, setting=SETTING),
    )
