"""The benchmarks' shared parts: devtools/bench_report.py (figures, tables) and devtools/rerun_log.py.

The figures themselves are printed by the scripts, never asserted (the machine is shared).
"""

from __future__ import annotations

import pytest

from devtools.bench_report import load_averages, markdown_table, median_p95, ms, percentile, verdict
from devtools.rerun_log import RerunLog


def test_tables_are_markdown_with_numbers_on_the_right():
    table = markdown_table(["store", "p50 / p95 (ms)"], [["sqlite", "1.0 / 2.0"]], right=[False, True])
    assert table.splitlines() == ["| store | p50 / p95 (ms) |", "|---|---:|", "| sqlite | 1.0 / 2.0 |"]
    with pytest.raises(ValueError):
        markdown_table(["a", "b"], [["only one"]])


def test_a_bar_in_a_cell_is_escaped_and_an_empty_cell_stays_one_cell():
    table = markdown_table(["step", "s", ""], [["Step 3: P(x | y)", 1.5, ""]])
    assert table.splitlines()[2] == "| Step 3: P(x \\| y) | 1.5 | |"


def test_percentile_is_numpys_linear_one_and_nan_without_values():
    import numpy as np

    values = [5.0, 1.0, 9.0, 2.0, 7.5]
    for q in (0, 25, 50, 95, 100):
        assert percentile(values, q) == pytest.approx(np.percentile(values, q))
    assert percentile([3.0], 95) == 3.0
    assert np.isnan(percentile([], 50))


def test_a_target_is_met_at_or_under_it():
    assert [verdict(value, 1.0) for value in (0.5, 1.0, 1.01)] == ["✅", "✅", "❌"]


def test_the_load_averages_name_their_windows_and_the_cpus():
    import re

    assert re.fullmatch(r"[0-9.]+ / [0-9.]+ / [0-9.]+ \(1, 5, 15 min; [0-9]+ CPUs\)", load_averages())


def test_medians_and_95th_percentiles_in_milliseconds():
    seconds = [i / 1000 for i in range(1, 101)]  # 1 .. 100 ms
    assert median_p95(seconds) == pytest.approx((0.0505, 0.09505))
    assert ms(seconds) == "50.5 / 95.0"
    assert ms([3.0, 5.0], digits=0, unit=1e-3) == "4 / 5"  # values given in milliseconds
    assert ms([]) == "nan / nan"


def test_the_rerun_log_is_read_line_by_line_across_replicas(tmp_path):
    first, second = tmp_path / "replica-0.log", tmp_path / "replica-1.log"
    first.write_text("Collecting usage statistics\nNBCORE_RERUN page=draw ms=12.5 outcome=ok scope=fragment\n")
    log = RerunLog([first, second])  # the second replica has written nothing yet
    assert log.read() == [("draw", 12.5, "ok", "fragment")]
    assert log.read() == []
    with open(second, "w") as replica:
        replica.write("NBCORE_RERUN page=gallery ms=640.2 outcome=ok scope=app\nNBCORE_RERUN page=dr")
    assert log.read() == [("gallery", 640.2, "ok", "app")]  # a line being written waits for its end
    with open(second, "a") as replica:
        replica.write("aw ms=3.0 outcome=StopException scope=app\n")
    assert log.wait(1) == [("draw", 3.0, "StopException", "app")]


def test_locust_finds_the_students_without_running_the_command_line():
    """Locust imports a locustfile under its file's name: the entry must give the Student users, not parse argv."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "from locust.util.load_locustfile import load_locustfile; "
            "users, _ = load_locustfile('devtools/load_protocol/locustfile.py'); print(sorted(users))",
        ],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip().splitlines()[-1] == "['Student']"


@pytest.mark.slow
def test_the_mixture_benchmark_times_em_against_its_products_alone(small_mnist, capsys):
    """On a slice of MNIST: every K's iteration and floor measured, the ratio theirs, both fits scored."""
    from devtools.benchmarks.mixture import FIT_COMPONENTS, ITERATION_COMPONENTS, run_bench_mixture

    figures = run_bench_mixture(repeats=1, iterations=2, prepare=False)
    for n_components in ITERATION_COMPONENTS:
        em, floor, ratio = figures[f"iteration_k{n_components}"]
        assert em > 0 and floor > 0 and ratio == em / floor
    for n_components in FIT_COMPONENTS:
        seconds, iterations, accuracy = figures[f"fit_k{n_components}"]
        assert iterations >= 1 and 0.5 < accuracy <= 1.0
    printed = capsys.readouterr().out
    assert "its products alone" in printed and "Whole fit" in printed and "prepare adds" not in printed
