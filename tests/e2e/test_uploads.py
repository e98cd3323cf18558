"""Uploads on the Draw page as a student meets them on a phone: a photo too large, then one that fits.

The uploader refuses a file over ``server.maxUploadSize`` in the browser, before the server sees it,
so what the student reads about it is Streamlit's own list of files, styled by lab/presentation.py.
"""

from __future__ import annotations

import io
import os

from PIL import Image, ImageDraw

from devtools import chromium, draw_page, page_checks

TOO_LARGE_BYTES = int(9.7 * 1024 * 1024)  # a phone photo, about twice the 5 MB limit

# What of the uploader a student can read: each text with whether it is on screen (not clipped to a
# 1-px box for screen readers, not hidden, inside the viewport's width).
SHOWN_TEXTS_JS = """() => {
    const uploader = document.querySelector('[data-testid="stFileUploader"]');
    if (!uploader) return [];
    const walker = document.createTreeWalker(uploader, NodeFilter.SHOW_TEXT);
    const texts = [];
    while (walker.nextNode()) {
        const text = walker.currentNode.textContent.trim();
        if (!text) continue;
        const el = walker.currentNode.parentElement, box = el.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(walker.currentNode);
        const glyphs = range.getBoundingClientRect();
        const shown = el.checkVisibility({opacityProperty: true, visibilityProperty: true})
            && box.width > 2 && box.height > 2 && glyphs.right <= window.innerWidth + 1
            && glyphs.width <= box.width + 1;
        texts.push({text, shown});
    }
    return texts;
}"""


def shown_texts(page) -> list[str]:
    return [item["text"] for item in page.evaluate(SHOWN_TEXTS_JS) if item["shown"]]


def seven_png() -> bytes:
    """A 7 in dark ink on white paper (the app inverts it)."""
    image = Image.new("L", (300, 300), 255)
    ImageDraw.Draw(image).line([(70, 60), (230, 60), (130, 250)], fill=0, width=22, joint="curve")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_photo_too_large_says_so_in_view_and_leaves_the_list_for_the_next(browser, warm_app):
    context = browser.new_context(**chromium.SCREENS["phone 390x844 (touch)"])
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        page.goto(f"{warm_app.url}/draw?draw_mode=Upload+a+picture", timeout=60_000)
        chromium.wait_for_run(page, timeout=180, settle=0.3)
        chooser = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
        chooser.set_input_files(
            files=[{"name": "photo.jpg", "mimeType": "image/jpeg", "buffer": os.urandom(TOO_LARGE_BYTES)}]
        )
        page.get_by_text("photo.jpg").wait_for()
        page.wait_for_function(  # the size limit's message, once it is laid out and readable
            f"() => ({SHOWN_TEXTS_JS})().some(item => item.shown && item.text.includes('MB or smaller'))"
        )
        texts = shown_texts(page)
        assert any("MB or smaller" in text for text in texts), f"the size limit is not readable on screen: {texts}"

        chooser.set_input_files(files=[{"name": "seven.png", "mimeType": "image/png", "buffer": seven_png()}])
        value, _ = draw_page.wait_for_prediction(page)
        assert value == "7"
        texts = shown_texts(page)
        assert "seven.png" in texts, texts
        assert not any("photo.jpg" in text or "MB or smaller" in text for text in texts), (
            f"the refused photo is still listed beside the new upload: {texts}"
        )
        assert not page_checks.page_problems(page)
    finally:
        context.close()
