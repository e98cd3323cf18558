"""The suite's order (tests/conftest.py): unit and AppTest tests first, the browser and server tests last."""

from __future__ import annotations

import types

from tests import conftest
from tests.conftest import REPO


def test_browser_and_server_tests_run_after_the_others_each_group_in_its_order():
    collected = [
        "tests/e2e/test_screens.py",
        "tests/lab/test_runs.py",
        "tests/e2e/test_abuse_probes.py",
        "tests/nbcore/test_bernoulli.py",
        "tests/x.py",
    ]
    items = [types.SimpleNamespace(path=REPO / path) for path in collected]
    conftest.pytest_collection_modifyitems(None, items)
    assert [item.path.relative_to(REPO).as_posix() for item in items] == [
        "tests/lab/test_runs.py",
        "tests/nbcore/test_bernoulli.py",
        "tests/x.py",
        "tests/e2e/test_screens.py",
        "tests/e2e/test_abuse_probes.py",
    ]
