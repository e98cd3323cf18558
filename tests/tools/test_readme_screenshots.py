"""The README's pictures of the lab: every page of the navigation is shown in its table of pages, and every picture
it names is in docs/ (made by ``python -m devtools.screenshots``, with a projector's and a phone's beside it)."""

from __future__ import annotations

import re
from pathlib import Path

from lab.shell import PAGES
from tests.conftest import REPO

README = (REPO / "README.md").read_text()
PICTURES = re.findall(r"!\[([^\]]*)\]\(([^)\s]+)\)", README)  # (alternative text, path)
PAGE_STEMS = [Path(path).stem for pages in PAGES.values() for path, _, _ in pages]


def test_every_picture_the_readme_names_is_there_and_has_words():
    assert PICTURES, "the README shows no picture"
    for words, path in PICTURES:
        assert (REPO / path).is_file(), f"README shows {path}, which is not in the repository"
        assert words.strip(), f"{path} has no alternative text"


def test_every_page_of_the_navigation_has_its_pictures_in_the_readme_and_docs():
    shown = {path for _, path in PICTURES}
    for stem in PAGE_STEMS:
        assert f"docs/{stem}.png" in shown, f"the README's pages show no docs/{stem}.png"
        for screen in ("projector", "phone"):
            picture = REPO / "docs" / "screens" / f"{stem}-{screen}.png"
            assert picture.is_file(), f"no {picture.relative_to(REPO)} (python -m devtools.screenshots)"
