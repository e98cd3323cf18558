"""The load's tables and verdicts: per N (students), per N and abuser, and whether the targets were met."""

from __future__ import annotations

from devtools.bench_report import markdown_table

TARGETS = {60: 0.300, 120: 1.0}  # students -> p95 of drawing sent -> run finished, seconds
CLASS_P95 = 0.300  # s: "students per process" is the largest N whose p95 stays within this
RSS_TARGET_MB = 2048  # at 240 students


def milliseconds(seconds: float) -> str:
    """Seconds as whole milliseconds; "–" for none (Clear with --send rested makes no run)."""
    return "–" if seconds != seconds else f"{seconds * 1000:.0f}"


def print_table(results: list[dict]) -> None:
    headers = [
        "students",
        "errors",
        "wrong",
        "draws",
        "sent→finished p50 / p95 / p99 (ms)",
        "sent→prediction p50 / p95 / p99 (ms)",
        "runs/s",
        "α p95 / Clear p95 (ms)",
        "server CPU (cores)",
        "server CPU per run (ms)",
        "server RSS idle → peak (MB/student)",
        "load generator CPU",
        "machine busy cores (load avg)",
    ]
    rows = [
        [
            r["students"],
            r["errors"],
            r["wrong"],
            r["draws"],
            " / ".join(milliseconds(r[f"finished_p{q}"]) for q in (50, 95, 99)),
            " / ".join(milliseconds(r[f"prediction_p{q}"]) for q in (50, 95, 99)),
            f"{r['runs_per_s']:.1f}",
            f"{milliseconds(r['alpha_p95'])} / {milliseconds(r['clear_p95'])}",
            f"{r['server_cores']:.2f}",
            f"{r['server_cores'] / r['runs_per_s'] * 1000:.0f}" if r["runs_per_s"] else "–",
            f"{r['idle_rss_mb']:.0f} → {r['peak_rss_mb']:.0f} ({r['rss_per_student_mb']:.2f})",
            f"{r['client_cores']:.2f}",
            f"{r['machine_busy_cores']:.2f} ({r['load_average_1min']:.1f})",
        ]
        for r in results
    ]
    right = [True, True, True, True, False, False, True, False, True, True, False, True, False]
    print("\n" + markdown_table(headers, rows, right=right))
    served = [r["students"] for r in results if r["finished_p95"] <= CLASS_P95]
    print(f"\nlargest N with p95 (sent→finished) ≤ {CLASS_P95 * 1000:.0f} ms: {max(served) if served else 'none'}")
    over = [r["students"] for r in results if r["finished_p95"] > 1.0]
    print(
        f"first N with p95 (sent→finished) > 1 s: {over[0] if over else 'none of ' + str([r['students'] for r in results])}"
    )
    for r in results:
        for text in r["error_examples"]:
            print(f"  N={r['students']} error: {text}")


def print_abuse_table(results: list[dict]) -> None:
    """The students' p95 without and with each abuser (alternating slices of one window), against one run time."""
    headers = [
        "students",
        "abuser",
        "students' errors / wrong (without · with)",
        "draws",
        "sent→finished p50 / p95 without (ms)",
        "with (ms)",
        "Δp95 (ms)",
        "run time (ms)",
        "Δp95 ≤ run time",
        "abuser: requests / runs",
        "server CPU without · with (cores)",
        "load generator CPU",
        "load avg",
    ]
    rows = []
    for r in results:
        off, on = r["off"], r["on"]
        delta = on["finished_p95"] - off["finished_p95"]
        rows.append(
            [
                r["students"],
                r["abuser"],
                f"{off['errors']} / {off['wrong']} · {on['errors']} / {on['wrong']}",
                f"{off['draws']} · {on['draws']}",
                f"{milliseconds(off['finished_p50'])} / {milliseconds(off['finished_p95'])}",
                f"{milliseconds(on['finished_p50'])} / {milliseconds(on['finished_p95'])}",
                milliseconds(delta),
                milliseconds(r["run_time"]),
                "yes" if delta <= r["run_time"] else "**no**",
                f"{r['abuser_requests']} / {r['abuser_runs']}",
                f"{off['server_cores']:.2f} · {on['server_cores']:.2f}",
                f"{max(off['client_cores'], on['client_cores']):.2f}",
                f"{r['load_average_1min']:.1f}",
            ]
        )
    right = [True, False, False, False, False, False, True, True, False, False, False, True, True]
    print("\n" + markdown_table(headers, rows, right=right))
    for r in results:
        for state in ("off", "on"):
            for text in r[state]["error_examples"]:
                print(f"  N={r['students']} {r['abuser']} ({state}): student error: {text}")
        for text in r["abuser_errors"]:
            print(f"  N={r['students']} {r['abuser']}: abuser: {text}")


def abuse_contained(results: list[dict]) -> bool:
    """No student error, and every abuser moved the students' p95 by at most one run time."""
    return all(
        not r["off"]["errors"]
        and not r["on"]["errors"]
        and r["on"]["finished_p95"] - r["off"]["finished_p95"] <= r["run_time"]
        for r in results
    )


def targets_met(results: list[dict]) -> bool:
    ok = True
    for r in results:
        limit = TARGETS.get(r["students"])
        if r["errors"] or (limit is not None and r["finished_p95"] > limit):
            ok = False
        if r["students"] >= 240 and r["peak_rss_mb"] > RSS_TARGET_MB:
            ok = False
    return ok
