"""The join slide's QR code: a link in, a PNG out (segno, a pure-Python QR encoder; nothing leaves the server)."""

from __future__ import annotations

import io

import segno

QR_SCALE = 12  # px per module: a version-3 code (29 modules) with its border is 396 px, read from a back row
QR_BORDER = 2  # modules of quiet zone (phones read 2 as well as the standard's 4 on a white page)


def qr_png(link: str, scale: int = QR_SCALE) -> bytes:
    """A black-on-white PNG of ``link`` as a QR code, error correction level M (a smudged projector still reads)."""
    code = segno.make(link, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="png", scale=scale, border=QR_BORDER, dark="#000000", light="#ffffff")
    return out.getvalue()
