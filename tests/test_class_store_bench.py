"""scripts/class_store_bench.py's own parts: its arguments, its tables, its reading of the servers' logs.

The figures themselves are printed by the script, never asserted (the machine is shared).
"""

from __future__ import annotations

import ipaddress

import pytest

from tests.conftest import script_module


@pytest.fixture(scope="module")
def bench():
    with script_module("class_store_bench") as module:
        yield module


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


def test_tables_are_markdown_with_numbers_on_the_right(bench):
    table = bench.markdown_table(["store", "p50 / p95 (ms)"], [["sqlite", "1.0 / 2.0"]], right=[False, True])
    assert table.splitlines() == ["| store | p50 / p95 (ms) |", "|---|---:|", "| sqlite | 1.0 / 2.0 |"]
    with pytest.raises(ValueError):
        bench.markdown_table(["a", "b"], [["only one"]])


def test_medians_and_95th_percentiles_in_milliseconds(bench):
    seconds = [i / 1000 for i in range(1, 101)]  # 1 .. 100 ms
    assert bench.median_p95(seconds) == pytest.approx((0.0505, 0.09505))
    assert bench.ms(seconds) == "50.5 / 95.0"
    assert bench.ms([3.0, 5.0], digits=0, unit=1e-3) == "4 / 5"  # values given in milliseconds
    assert bench.ms([]) == "nan / nan"


def test_every_client_gets_a_loopback_address_of_its_own(bench):
    addresses = [bench.source_address(n) for n in range(0, 70_000, 7)]
    assert len(set(addresses)) == len(addresses)
    assert all(ipaddress.ip_address(a).is_loopback and not a.endswith((".0", ".255")) for a in addresses)
    with pytest.raises(ValueError):
        bench.source_address(-1)


def test_the_rerun_log_is_read_line_by_line_across_replicas(bench, tmp_path):
    first, second = tmp_path / "replica-0.log", tmp_path / "replica-1.log"
    first.write_text("Collecting usage statistics\nNBCORE_RERUN page=draw ms=12.5 outcome=ok scope=fragment\n")
    log = bench.RerunLog([first, second])  # the second replica has written nothing yet
    assert log.read() == [("draw", 12.5, "ok", "fragment")]
    assert log.read() == []
    with open(second, "w") as replica:
        replica.write("NBCORE_RERUN page=gallery ms=640.2 outcome=ok scope=app\nNBCORE_RERUN page=dr")
    assert log.read() == [("gallery", 640.2, "ok", "app")]  # a line being written waits for its end
    with open(second, "a") as replica:
        replica.write("aw ms=3.0 outcome=StopException scope=app\n")
    assert log.wait(1) == [("draw", 3.0, "StopException", "app")]


def test_pacing_polls_every_student_and_leads_them_round_by_round(bench, tmp_path):
    from nbcore.classroom import open_store

    store = open_store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")
    code = store.create_class().info.code
    times = bench.pacing_pieces(store, code, rounds=2)
    assert len(times.polls) == 2 * bench.PACED_STUDENTS and len(times.nexts) == len(times.looks) == 2
    assert store.class_info(code).pace == 2
    where = store.presence(code)
    assert len(where) == bench.PACED_STUDENTS and {seen.step for seen in where.values()} == {1}  # polled before Next
