"""docs/classroom.md and docs/accessibility.md list lab/link_names.py's table as python -m devtools.link_names writes it."""

from __future__ import annotations

import pytest

from devtools import link_names


def test_the_docs_list_the_table_as_it_is():
    assert link_names.main(["--check"]) == 0, "run python -m devtools.link_names"


def test_every_row_is_listed_and_a_stale_list_is_found():
    written = link_names.written(f"before\n{link_names.BEGIN}\nstale rows\n{link_names.END}\nafter")
    assert written.startswith("before\n") and written.endswith("\nafter") and "stale rows" not in written
    from lab.link_names import TABLE

    assert all(f"| `{row.name}` |" in written for row in TABLE)
    with pytest.raises(ValueError):
        link_names.written("no markers")
