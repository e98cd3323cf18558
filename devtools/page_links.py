"""The lab's pages as links to open: every page of ``lab/shell.py``'s ``PAGES``, the guided lesson one link per
step, and the ones a command line names (``--pages draw,compare lesson-3``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PageLink:
    """A page to open: ``key`` names it on the command line (``draw``, ``lesson-3``), ``path`` is its link."""

    key: str
    label: str
    path: str


def page_links() -> list[PageLink]:
    """Every page of ``lab/shell.py``'s ``PAGES`` in its order, the guided lesson as one link per step."""
    from lab.lesson_steps import STEPS
    from lab.shell import PAGES

    links = []
    for pages in PAGES.values():
        for file, title, _icon in pages:
            stem = Path(file).stem
            if stem == "lesson":
                links += [
                    PageLink(f"lesson-{number}", f"{title}, step {number}: {step.title}", f"/lesson?lesson={number}")
                    for number, step in enumerate(STEPS, 1)
                ]
            else:
                links.append(PageLink(stem, title, "/" if stem == "home" else f"/{stem}"))
    return links


def split_names(values: list[str] | None) -> list[str]:
    """``["draw,compare", "xor"]`` -> ``["draw", "compare", "xor"]`` (lower case, blanks dropped)."""
    return [name.strip().lower() for value in values or [] for name in value.split(",") if name.strip()]


def select_pages(links: list[PageLink], names: list[str]) -> list[PageLink]:
    """The links ``names`` ask for, in page order: a page's key (``lesson`` takes every step, ``lesson-3``
    one), or the start of its title (``gaussian``). No names: all. A name matching nothing: ValueError."""
    if not names:
        return list(links)

    def matches(link: PageLink, name: str) -> bool:
        return link.key == name or link.key.startswith(name + "-") or link.label.lower().startswith(name)

    unknown = [name for name in names if not any(matches(link, name) for link in links)]
    if unknown:
        keys = ", ".join(dict.fromkeys(link.key.split("-")[0] for link in links))
        steps = sum(link.key.startswith("lesson-") for link in links)
        raise ValueError(f"no page called {', '.join(unknown)}; pages: {keys} (lesson-1 to lesson-{steps}: one step)")
    return [link for link in links if any(matches(link, name) for name in names)]
