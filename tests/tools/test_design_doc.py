"""docs/design.md describes the code as it is: every file it names exists, and it names every package."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import REPO

DESIGN = REPO / "docs" / "design.md"
# a file the text names: "nbcore/models/base.py", "mnist.py", "lab/digit_reading.js" (no globs such as pages/*.py)
NAMED_FILE = re.compile(r"(?<![\w*/.-])((?:[A-Za-z_][\w-]*/)*[A-Za-z_]\w*\.(?:py|js))\b")


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return listed.split()


def test_every_file_the_design_names_exists():
    files = tracked_files()
    named = set(NAMED_FILE.findall(DESIGN.read_text()))
    assert named, "docs/design.md names no file: the pattern no longer matches its text"
    missing = sorted(name for name in named if not any(path == name or path.endswith("/" + name) for path in files))
    assert not missing, f"docs/design.md names files that do not exist: {missing}"


def test_the_design_names_every_package():
    text = DESIGN.read_text()
    packages = sorted(
        path.removesuffix("/__init__.py")
        for path in tracked_files()
        if path.endswith("__init__.py") and not path.startswith("tests/")
    )
    assert packages
    unnamed = [package for package in packages if f"{package.rsplit('/', 1)[-1]}/" not in text]
    assert not unnamed, f"docs/design.md does not name these packages: {unnamed}"
