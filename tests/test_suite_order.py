"""The suite's order (tests/conftest.py): alone, unit and AppTest tests first and the browser and server tests
last; under xdist the browser and server tests go first, as one group for one worker."""

from __future__ import annotations

import pytest

from tests import conftest
from tests.conftest import REPO

COLLECTED = ["tests/e2e/test_screens.py", "tests/test_bernoulli.py", "tests/e2e/test_abuse_probes.py", "tests/x.py"]


class Item:
    """What the hook reads and writes of a collected test."""

    def __init__(self, path: str) -> None:
        self.path = REPO / path
        self.markers: list[pytest.MarkDecorator] = []

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker)


def ordered(monkeypatch, worker: str | None) -> list[Item]:
    if worker is None:
        monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    else:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    items = [Item(path) for path in COLLECTED]
    conftest.pytest_collection_modifyitems(None, items)
    return items


def paths(items: list[Item]) -> list[str]:
    return [item.path.relative_to(REPO).as_posix() for item in items]


def test_alone_browser_and_server_tests_run_after_the_others_each_group_in_its_order(monkeypatch):
    items = ordered(monkeypatch, None)
    assert paths(items) == ["tests/test_bernoulli.py", "tests/x.py", *COLLECTED[0:3:2]]


def test_under_xdist_browser_and_server_tests_are_one_group_and_go_first(monkeypatch):
    items = ordered(monkeypatch, "gw0")
    assert paths(items) == [*COLLECTED[0:3:2], "tests/test_bernoulli.py", "tests/x.py"]
    groups = {
        path: [m.kwargs.get("name", m.args[0] if m.args else None) for m in item.markers]
        for path, item in zip(paths(items), items)
    }
    assert groups == {
        "tests/e2e/test_screens.py": ["e2e"],
        "tests/e2e/test_abuse_probes.py": ["e2e"],
        "tests/test_bernoulli.py": [],
        "tests/x.py": [],
    }
