"""The suite's order and markers (tests/conftest.py): unit and AppTest tests first, the browser and server tests
last, and those marked ``browser`` and ``slow``."""

from __future__ import annotations

from pathlib import Path

from tests import conftest
from tests.conftest import REPO


class Item:
    """What the hook reads and writes of a collected test: its path and its markers' names."""

    def __init__(self, path: Path) -> None:
        self.path, self.markers = path, []

    def add_marker(self, marker) -> None:
        self.markers.append(marker.name)


def test_browser_and_server_tests_run_after_the_others_each_group_in_its_order_and_are_marked():
    collected = [
        "tests/e2e/test_screens.py",
        "tests/lab/test_runs.py",
        "tests/e2e/test_abuse_probes.py",
        "tests/nbcore/test_bernoulli.py",
        "tests/x.py",
    ]
    items = [Item(REPO / path) for path in collected]
    conftest.pytest_collection_modifyitems(None, items)
    assert [(item.path.relative_to(REPO).as_posix(), item.markers) for item in items] == [
        ("tests/lab/test_runs.py", []),
        ("tests/nbcore/test_bernoulli.py", []),
        ("tests/x.py", []),
        ("tests/e2e/test_screens.py", ["browser", "slow"]),
        ("tests/e2e/test_abuse_probes.py", ["browser", "slow"]),
    ]


def test_the_markers_are_registered(pytestconfig):
    """--strict-markers (pyproject.toml) turns an unregistered marker into an error; these two are registered."""
    registered = {line.split(":")[0] for line in pytestconfig.getini("markers")}
    assert {"slow", "browser"} <= registered
    assert "--strict-markers" in pytestconfig.getini("addopts")
