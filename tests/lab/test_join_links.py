"""The join slide's pieces without Streamlit: the address students can reach, and its QR code read back by a
real decoder (zxing-cpp), so a phone's camera gets exactly the link."""

from __future__ import annotations

import io

import numpy as np
import pytest
import zxingcpp
from PIL import Image

from lab.figures.join_code import qr_png
from lab.public_address import is_loopback, student_address

LINK = "http://192.168.1.20:8080/draw?class=XK4P9QRT"


def test_the_qr_code_reads_back_as_the_link():
    picture = Image.open(io.BytesIO(qr_png(LINK))).convert("L")
    [found] = zxingcpp.read_barcodes(np.asarray(picture))
    assert found.text == LINK
    assert picture.getpixel((0, 0)) == 255  # a white quiet zone, dark modules


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.1.2.3", "::1", "LOCALHOST"])
def test_loopback_names(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["192.168.1.20", "lab.school.example", "10.0.0.1", "::ffff:10.0.0.1"])
def test_reachable_names(host):
    assert not is_loopback(host)


def test_the_configured_address_comes_first():
    address = student_address("http://localhost:8501/teach", configured="https://nb.school.example/", lan="10.1.1.1")
    assert address.base == "https://nb.school.example"
    assert address.link("draw", **{"class": "XK4P9QRT"}) == "https://nb.school.example/draw?class=XK4P9QRT"
    assert "NBCORE_PUBLIC_URL" in address.source


def test_a_page_opened_on_the_network_keeps_its_own_address():
    address = student_address("http://192.168.1.20:8080/teach?class=X", configured="", lan="10.1.1.1")
    assert address.base == "http://192.168.1.20:8080" and address.short == "192.168.1.20:8080"
    assert "opened this page with" in address.source


def test_localhost_becomes_the_lan_address_with_the_page_port():
    address = student_address("http://localhost:8501/teach", configured="", lan="10.1.1.7")
    assert address.base == "http://10.1.1.7:8501"
    assert "localhost" in address.source and "same network" in address.source


def test_no_reachable_address_says_what_to_set():
    address = student_address("http://127.0.0.1:8501/teach", configured="not a url", lan="")
    assert address.base is None and address.link("draw") is None
    assert "NBCORE_PUBLIC_URL" in address.source


@pytest.mark.parametrize("hostile", ["javascript:alert(1)", "http://", "ftp://x", "http://[::1", "http://a:99999"])
def test_a_configured_value_that_is_no_http_address_is_ignored(hostile):
    address = student_address("http://192.168.1.20:8080/teach", configured=hostile, lan="10.1.1.1")
    assert address.base == "http://192.168.1.20:8080"
