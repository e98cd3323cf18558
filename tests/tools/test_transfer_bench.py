"""devtools/transfer_bench.py's own parts: its medians, its table and its arguments. The figures themselves are
printed by the script, never asserted."""

from __future__ import annotations

import pytest

from devtools import transfer_bench


@pytest.fixture(scope="module")
def bench():
    return transfer_bench


def test_the_median_visit_takes_each_figure_s_median(bench):
    visits = [bench.Visit(7_400_000, 95, 7.5), bench.Visit(7_000_000, 97, 6.9), bench.Visit(1, 90, 9.0)]
    assert bench.median_visit(visits) == bench.Visit(7_000_000, 95, 7.5)


def test_the_table_puts_a_replica_beside_nginx(bench):
    rows = [("/draw", bench.Visit(7_512_000, 96, 7.04), bench.Visit(2_310_000, 5, 2.46))]
    lines = bench.table(rows, 10)
    assert lines[0].startswith("| page, first visit | bytes: from the replica | through nginx |")
    assert "fully drawn at 10 Mbit/s" in lines[0] and lines[1].startswith("|---|")
    assert lines[2] == "| /draw | 7.51 MB | 2.31 MB | 96 | 5 | 7.0 s | 2.5 s |"


@pytest.mark.parametrize("argv", [["--mbits", "0"], ["--rounds", "0"]])
def test_bad_arguments_get_a_sentence(bench, capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        bench.main(argv)
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "--mbits must be above 0 and --rounds at least 1" in error and "Traceback" not in error
