"""devtools/pace_bench.py's own parts: its arguments and its per-student figures (its measuring parts run in
tests/e2e/test_class_store_replicas.py with two students; the figures themselves are printed, never asserted)."""

from __future__ import annotations

import pytest

from devtools import pace_bench


@pytest.fixture(scope="module")
def bench():
    return pace_bench


def test_the_defaults_are_sixty_students_one_process_and_two_replicas(bench):
    args = bench.parse([])
    assert args.students == [60] and args.replicas == [1, 2] and args.steps == 3 and args.stores == ["sqlite"]
    assert args.follow == ["after"]


def test_before_and_after_are_chosen_in_one_run(bench):
    args = bench.parse(["--follow", "before", "after", "--students", "30", "60", "120"])
    assert args.follow == ["before", "after"] and args.students == [30, 60, 120]
    assert bench.FOLLOWS == {"before": "poll", "after": "listen"}  # NBCORE_FOLLOW for the replicas


@pytest.mark.parametrize(
    "argv",
    [
        ["--steps", "11"],
        ["--idle", "0.5"],
        ["--replicas", "0"],
        ["--students", "x"],
        ["--stores", "mysql"],
        ["--follow", "later"],
        ["--server-cpus", "1;rm"],
        ["--client-cpus", "a"],
    ],
)
def test_bad_arguments_stop_with_a_sentence(bench, argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        bench.parse(argv)
    assert stopped.value.code == 2 and "error:" in capsys.readouterr().err


def test_per_student_figures_divide_by_students_and_seconds(bench):
    idle = bench.Idle(seconds=30.0, server_cpu=9.0, fragment_runs=900, whole_runs=60, answers=90)
    runs, whole, cpu = bench.per_student(idle, 60)
    assert (runs, whole, cpu) == pytest.approx((0.5, 1 / 30, 0.3))  # 9 CPU s over 30 student-minutes
    assert bench.seconds_p50_p95_max([]) == "– / – / –"
    assert bench.seconds_p50_p95_max([1.0, 2.0, 3.0]) == "2.00 / 2.90 / 3.00"
