"""Write lab/link_names.py's table into the docs that list the names a link carries: ``python -m devtools.link_names``.

docs/classroom.md and docs/accessibility.md each hold the table between two marker lines; ``--check`` exits 1 when
either is out of date (``tests/tools/test_link_docs.py`` runs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lab import link_names

REPO = Path(__file__).resolve().parents[1]
DOCS = (REPO / "docs" / "classroom.md", REPO / "docs" / "accessibility.md")
BEGIN = "<!-- link names: written by python -m devtools.link_names from lab/link_names.py -->"
END = "<!-- end of link names -->"


def _value(value: object) -> str:
    if value is link_names.DATA:
        return "the data's"
    if isinstance(value, float):
        return f"`{value:g}`"  # as a link writes it (lab/settings.py)
    return f"`{str(value).lower() if isinstance(value, bool) else value}`"


def _takes(row: link_names.LinkName) -> str:
    if row.values is not None:
        return ", ".join(_value(value) for value in row.values)
    if row.bounds is not None:
        low, high = row.bounds
        return f"{_value(low)} to {_value(high)}"
    return "the data's" if row.kind is not str else "text"


def table() -> str:
    """The table in Markdown: name, what it holds, default, values, pages, lockable."""
    lines = [
        "| name | what it holds | default | takes | pages | `?lock=` |",
        "|---|---|---|---|---|---|",
    ]
    for row in link_names.TABLE:
        pages = ", ".join(row.pages)
        default = "none" if row.default is None else _value(row.default)
        if row.name == "spam_message":
            default = "an example SMS"
        lines.append(
            f"| `{row.name}` | {row.meaning} | {default} | {_takes(row)} | {pages} | {'yes' if row.lockable else 'no'} |"
        )
    return "\n".join(lines)


def written(text: str) -> str:
    """``text`` with the part between the markers replaced by the table."""
    before, found, rest = text.partition(BEGIN)
    _, ended, after = rest.partition(END)
    if not found or not ended:
        raise ValueError(f"the markers {BEGIN!r} and {END!r} are missing")
    return f"{before}{BEGIN}\n{table()}\n{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a document's table is out of date")
    arguments = parser.parse_args(argv)
    stale = []
    for document in DOCS:
        text = document.read_text(encoding="utf-8")
        if written(text) != text:
            stale.append(document.relative_to(REPO))
            if not arguments.check:
                document.write_text(written(text), encoding="utf-8")
    for document in stale:
        print(("out of date: " if arguments.check else "written: ") + str(document))
    return 1 if arguments.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
