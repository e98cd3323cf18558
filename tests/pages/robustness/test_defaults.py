"""A classroom on one server, its defaults: .streamlit/config.toml fit for a shared server, no raw HTML anywhere in
the app, no visitor input in a file path. Read from the sources: no app is run.
"""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO


# -- defaults fit for a shared server ------------------------------------------------------
def test_streamlit_config_is_fit_for_a_shared_server():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    server = config.get("server", {})
    assert server.get("maxUploadSize", 200) <= 10, "uploads are single digit pictures: keep maxUploadSize small (MB)"
    assert server.get("enableXsrfProtection") is True
    assert server.get("enableCORS", True) is True, "no cross-origin requests into a shared server"
    assert server.get("runOnSave", False) is False
    assert config.get("browser", {}).get("gatherUsageStats") is False
    assert config.get("runner", {}).get("postScriptGC") is False, (
        "a full gc.collect after every run holds the GIL for 70-90 ms here and stalls every other session"
    )


APP_SOURCES = [REPO / "app.py", *sorted((REPO / "lab").glob("*.py")), *sorted((REPO / "pages").glob("*.py"))]


def test_no_raw_html_anywhere_in_the_app():
    """Nothing is rendered as HTML: no unsafe_allow_html, st.html or components.html (a visitor's text stays text)."""
    raw_html = re.compile(r"unsafe_allow_html\s*=\s*True|\bst\.html\s*\(|components(\.v1)?\.html\s*\(|\.iframe\s*\(")
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in APP_SOURCES
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if raw_html.search(line)
    ]
    assert not found, found


def test_no_visitor_input_reaches_a_file_path():
    """Pages open no files and build no paths except from their own location; an upload is read as bytes only."""
    file_access = re.compile(r"\bopen\s*\(|\bos\.|\bshutil\.|\bPath\s*\(|\.read_(text|bytes)\s*\(|\.write_")
    allowed = re.compile(r"Path\(__file__\)")
    found = []
    for path in sorted((REPO / "pages").glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if file_access.search(allowed.sub("", line)):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, found
    for reader in ("pages/draw.py", "lab/picture_input.py"):  # Draw's uploader and what reads its file
        source = (REPO / reader).read_text()
        assert not re.search(r"upload\.(name|type)\b", source), reader
    assert "upload.getvalue()" in (REPO / "lab" / "picture_input.py").read_text()
