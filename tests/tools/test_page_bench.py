"""The page bench's own parts (devtools/page_bench.py and the modules of its parts): the pages it opens, its
arguments, its reading of the server log, the data folder reset between servers, its tables. The figures themselves are printed by the script, never asserted."""

from __future__ import annotations

import math

import pytest

from devtools import (
    deskew_switch,
    first_strokes,
    page_bench,
    page_first_visits,
    page_links,
    page_navigation,
    prepared_folder,
    rerun_log,
)


@pytest.fixture(scope="module")
def bench():
    return page_bench


def test_every_page_and_every_lesson_step_is_opened_once():
    from lab.lesson_steps import STEPS
    from lab.shell import PAGES

    links = page_links.page_links()
    paths = [link.path for link in links]
    assert len(paths) == len(set(paths)) and len({link.key for link in links}) == len(links)
    files = [file for pages in PAGES.values() for file, _, _ in pages]
    assert len(links) == len(files) - 1 + len(STEPS)
    assert [link.path for link in links if link.key.startswith("lesson-")] == [
        f"/lesson?lesson={number}" for number in range(1, len(STEPS) + 1)
    ]
    assert "/" in paths and "/gallery" in paths and "/draw" in paths and "/home" not in paths
    assert links[[link.key for link in links].index(f"lesson-{len(STEPS)}")].label.endswith(STEPS[-1].title)


def test_pages_are_chosen_by_name_in_page_order():
    links = page_links.page_links()
    chosen = page_links.select_pages(links, page_links.split_names(["compare,draw", "lesson-3"]))
    assert [link.key for link in chosen] == ["lesson-3", "draw", "compare"]
    steps = page_links.select_pages(links, ["lesson"])
    assert steps and all(link.key.startswith("lesson-") for link in steps)
    assert [link.key for link in page_links.select_pages(links, ["gaussian"])] == ["gaussian"]
    assert page_links.select_pages(links, []) == links
    with pytest.raises(ValueError, match="no page called drow"):
        page_links.select_pages(links, ["draw", "drow"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--skip", "pages,colours"], "--skip takes"),
        (["--pages", "draw,nowhere"], "no page called nowhere"),
        (["--viewport", "wide"], "WIDTHxHEIGHT"),
        (["--strokes", "0"], "at least 1"),
    ],
)
def test_bad_arguments_get_a_sentence(bench, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        bench.parse(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_arguments(bench):
    args = bench.parse(["--pages", "draw", "--skip", "deskew,strokes", "--no-prepare", "--viewport", "1366x768"])
    assert [link.key for link in args.pages] == ["draw"]
    assert args.skip == ["deskew", "strokes"] and args.no_prepare
    assert bench.parse(["--pages", "draw", "--skip", "pages"]).pages[0].key == "draw"  # still chosen for navigation
    assert args.viewport == {"width": 1366, "height": 768}
    defaults = bench.parse([])
    assert defaults.skip == [] and not defaults.no_prepare and defaults.viewport == {"width": 1024, "height": 768}
    assert defaults.pages == page_links.page_links()


def test_the_server_log_gives_each_run_and_the_whole_runs_time():
    log = "\n".join(
        [
            "Naive Bayes Lab: loading MNIST in the background while the server starts",
            "NBCORE_RERUN page=draw ms=312.5 outcome=ok scope=app",
            "NBCORE_RUN_WAIT session=… ms=3",
            "  You can now view your Streamlit app in your browser.",
            "NBCORE_RERUN page=draw ms=20.0 outcome=ok scope=fragment",
            "NBCORE_RERUN page=lesson ms=87.5 outcome=RerunException scope=app",
            "NBCORE_RERUN page=home ms=10.0 outcome=ok",  # a line without scope is a whole run
            "xNBCORE_RERUN page=home ms=999 outcome=ok scope=app",  # not at the start of a line
        ]
    )
    runs = rerun_log.parse_runs(log)
    assert [(run.page, run.ms, run.outcome, run.scope) for run in runs] == [
        ("draw", 312.5, "ok", "app"),
        ("draw", 20.0, "ok", "fragment"),
        ("lesson", 87.5, "RerunException", "app"),
        ("home", 10.0, "ok", "app"),
    ]
    assert rerun_log.whole_run_seconds(runs) == pytest.approx(0.41)
    assert rerun_log.whole_run_seconds([]) == 0


def test_each_server_starts_from_what_prepare_left(tmp_path):
    root = tmp_path / "data"
    (root / "MNIST" / "raw").mkdir(parents=True)
    (root / "MNIST" / "raw" / "train.gz").write_bytes(b"gz")
    (root / "models").mkdir()
    (root / "models" / "kept.npz").write_bytes(b"prepared")
    (root / "empty").mkdir()
    prepared = prepared_folder.PreparedFolder(root)

    (root / "models" / "softmax.npz").write_bytes(b"trained on a visit")
    (root / "prepared" / "deep").mkdir(parents=True)
    (root / "prepared" / "deep" / "curves.npz").write_bytes(b"x")
    (root / "classes.sqlite").write_bytes(b"store")
    (root / "models" / "kept.npz").write_bytes(b"rewritten by a server")
    removed, changed = prepared.restore()

    assert removed == ["classes.sqlite", "models/softmax.npz", "prepared/deep/curves.npz"]
    assert changed == ["models/kept.npz"]
    left = sorted(path.relative_to(root).as_posix() for path in root.rglob("*"))
    assert left == ["MNIST", "MNIST/raw", "MNIST/raw/train.gz", "empty", "models", "models/kept.npz"]
    assert prepared.restore() == ([], [])


def _page(label, first, canvas=None, charts=2, peer="plotly"):
    return page_first_visits.PageResult(label, charts, first, server=0.25, returning=1.0, canvas=canvas, peer=peer)


def test_the_page_table_gives_each_page_over_its_peer():
    peers = {
        "bare": _page("peer: bare", 0.9, charts=0, peer=None),
        "plotly": _page("peer: Plotly", 1.8, charts=1, peer=None),
    }
    pages = [_page("Home", 1.2, charts=0, peer="bare"), _page("Draw", 4.731, canvas=4.7)]
    lines = page_first_visits.page_table(pages, peers)
    assert lines[0].startswith("| page (opened by its link) | charts |") and lines[1].startswith("|---|")
    assert lines[2] == "| peer: bare | 0 | 0.90 s | | | 1.00 s | |"
    assert lines[4] == "| Home | 0 | 1.20 s | +0.30 s | 0.25 s | 1.00 s | +0.00 s |"
    assert lines[5] == "| Draw (canvas ready 4.70 s) | 2 | 4.73 s | +2.93 s | 0.25 s | 1.00 s | +0.00 s |"
    assert [page_first_visits.peer_of(charts) for charts in (0, 1, 7)] == ["bare", "plotly", "plotly"]


def test_the_navigation_table_checks_each_click_against_the_page_target():
    lines = page_navigation.navigation_table(
        [
            page_navigation.NavigationResult("Heatmaps", 2, 0.47, 0.07),
            page_navigation.NavigationResult("Step 3: P(x | y)", 5, 1.62, 0.17),
        ]
    )
    assert lines[2] == "| Heatmaps | 2 | 0.47 s | 0.07 s | ≤ 1.5 s | ✅ |"
    assert lines[3] == "| Step 3: P(x \\| y) | 5 | 1.62 s | 0.17 s | ≤ 1.5 s | ❌ |"  # a "|" kept in its cell


def test_the_peers_are_streamlit_scripts_without_the_lab():
    import ast

    for _label, source in page_first_visits.PEERS.values():
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
        }
        assert imported <= {"streamlit", "plotly"}, imported


def test_the_deskew_table():
    slow = deskew_switch.DeskewResult(
        open=4.4, switch=27.18, server=26.99, progress=26.28, canvas_moved=83.1, empty_main=True
    )
    lines = deskew_switch.deskew_table(slow)
    assert "| 27.18 s (26.99 s) | ≤ 1.0 s | ❌ |" in lines[2]
    assert "yes, 26.28 s" in lines[3] and "| 83 px | 0 px | ❌ |" in lines[4] and lines[5].endswith("| yes | no | ❌ |")
    quick = deskew_switch.DeskewResult(
        open=1.0, switch=0.1, server=0.05, progress=0.0, canvas_moved=0.0, empty_main=False
    )
    lines = deskew_switch.deskew_table(quick)
    assert (
        lines[2].endswith("✅ |") and "| no |" in lines[3] and lines[4].endswith("✅ |") and lines[5].endswith("✅ |")
    )


def test_the_stroke_table_puts_first_strokes_against_later_ones():
    nan = math.nan
    visits = [
        ("link", [(540.0, 180.0), (160.0, 120.0), (320.0, 130.0)]),
        ("from Heatmaps", [(250.0, 40.0), (100.0, nan), (nan, nan)]),  # a stroke without a run, one lost
        ("link", [(200.0, 20.0), (120.0, 110.0), (140.0, 100.0)]),
        ("from Heatmaps", [(nan, nan), (110.0, 90.0)]),  # its first stroke lost
    ]
    lines = first_strokes.stroke_table(visits)
    assert len(lines) == 4
    # first strokes 540 and 200; later 160, 320, 120, 140 (server 120, 130, 110, 100)
    assert lines[2] == "| 2 × link | 6 | 370 ms, 540 ms (100 ms) | 150 ms, 320 ms (115 ms) | 0 | ≤ 300 ms | ❌ |"
    assert lines[3] == "| 2 × from Heatmaps | 5 | 250 ms, 250 ms (40 ms) | 105 ms, 110 ms (90 ms) | 2 | ≤ 300 ms | ✅ |"
