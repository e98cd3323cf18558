"""devtools/class_store_bench.py's own parts: its arguments, and class_store_calls.py's pacing (its tables and log
reading: tests/tools/test_bench_tools.py).

The figures themselves are printed by the script, never asserted (the machine is shared).
"""

from __future__ import annotations

import pytest

from devtools import class_store_bench, class_store_calls


@pytest.fixture(scope="module")
def bench():
    return class_store_bench


def test_the_defaults_measure_both_parts_all_stores_one_and_two_replicas(bench):
    args = bench.parse([])
    assert args.part == ["store", "server"]
    assert args.stores == ["sqlite", "sqlite-held", "redis"]
    assert args.replicas == [1, 2] and args.processes == [1, 2, 4] and args.sends == 300


@pytest.mark.parametrize(
    "argv",
    [
        ["--stores", "mysql"],
        ["--replicas", "0"],
        ["--duration", "0"],
        ["--duration", "601"],
        ["--clients", "two"],
        ["--refreshes", "36"],  # beyond one teacher session's run budget
        ["--sends", "3", "--processes", "4"],
    ],
)
def test_bad_arguments_stop_with_a_sentence(bench, argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        bench.parse(argv)
    assert stopped.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_pacing_polls_every_student_and_leads_them_round_by_round(tmp_path):
    from nbcore.classroom import open_store

    store = open_store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")
    code = store.create_class().info.code
    times = class_store_calls.pacing_pieces(store, code, rounds=2)
    assert len(times.polls) == 2 * class_store_calls.PACED_STUDENTS and len(times.nexts) == len(times.looks) == 2
    assert store.class_info(code).pace == 2
    where = store.presence(code)
    assert len(where) == class_store_calls.PACED_STUDENTS and {seen.step for seen in where.values()} == {
        1
    }  # polled before Next
