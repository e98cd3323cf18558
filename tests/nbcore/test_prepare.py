"""``python -m nbcore prepare``: every slow result made once, kept, checked, and read by a fresh server process.

The run itself happens once per test session (``prepared_root`` in tests/conftest.py) on a scratch copy of
the MNIST files and the SMS collection.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab.lesson_steps import STEPS as LESSON_STEPS
from lab.shell import PAGES
from nbcore.experiments import evaluate
from nbcore.files import read_checked_arrays
from nbcore.prepared import results as prepared_results
from tests.conftest import REPO, run_nbcore

# what prepare makes besides MNIST's decoded arrays: file name prefix -> how many
PREPARED_FILES = {
    "prepared/deskewed-mnist-": 1,
    "prepared/curve-softmax-": 2,  # Deskew off and on
    "prepared/curve-bernoulli-": 4,  # the textbook and course-note presets, Deskew off and on
    "prepared/smoothing-curve-": 4,
    "prepared/gaussian-mnist-": 1,  # its page has no Deskew setting
    "prepared/mixture-curve-": 1,  # the textbook's settings, Deskew off
    "prepared/mixture-unlabeled-": 1,
    "models/softmax-": 2,  # on MNIST and on deskewed MNIST
}
STEPS = 18  # MNIST and the SMS collection, then one step per file above


def result_files(root: Path) -> dict[str, os.stat_result]:
    return {
        str(path.relative_to(root)): path.stat()
        for folder in ("prepared", "models")
        for path in (root / folder).glob("*.npz")
    }


def outcome_lines(stdout: str) -> dict[str, str]:
    """Each result's line of prepare's output: title -> the rest."""
    lines = [line.split(": ", 1) for line in stdout.splitlines() if ": " in line and not line.startswith("Prepared")]
    return {title: rest for title, rest in lines}


@pytest.mark.slow
def test_prepare_makes_every_result_with_progress_and_again_makes_none(prepared_root):
    root, first = prepared_root
    assert first.returncode == 0, first.stderr
    files = result_files(root)
    for prefix, count in PREPARED_FILES.items():
        assert sum(name.startswith(prefix) for name in files) == count, (prefix, sorted(files))
    assert len(files) == STEPS - 2
    lines = outcome_lines(first.stdout)
    assert len(lines) == STEPS, first.stdout
    made = {title for title, rest in lines.items() if rest.startswith("computed and saved")}
    assert made == set(lines) - {"SMS Spam Collection"}, first.stdout  # the SMS file was only checked
    assert f"{STEPS - 1} of {STEPS} made now" in first.stdout
    # progress: a line as each step starts (stderr is not a terminal here)
    assert [line for line in first.stderr.splitlines() if line.startswith("[")] == [
        f"[{number}/{STEPS}] {title}…" for number, title in enumerate(lines, 1)
    ]

    again = run_nbcore(["prepare", "--no-download"], root)
    assert again.returncode == 0, again.stderr
    assert all(rest.startswith("already prepared, loaded") for rest in outcome_lines(again.stdout).values()), (
        again.stdout
    )
    assert f"0 of {STEPS} made now" in again.stdout
    after = result_files(root)
    assert after.keys() == files.keys()
    assert all(
        (after[name].st_ino, after[name].st_mtime_ns) == (files[name].st_ino, files[name].st_mtime_ns) for name in files
    )


@pytest.mark.slow
def test_prepare_without_the_sms_collection_says_what_to_do(prepared_root, tmp_path):
    """A data set that cannot be had is a line saying what to set; the rest is prepared, and prepare succeeds (a
    class can be served without the Spam page's data)."""
    root, first = prepared_root
    assert first.returncode == 0, first.stderr
    for name in [*(path.name for path in root.glob("*-ubyte.gz"))]:
        (tmp_path / name).symlink_to(root / name)
    (tmp_path / "MNIST").symlink_to(root / "MNIST")
    for folder in ("prepared", "models"):
        (tmp_path / folder).mkdir()
        for path in (root / folder).glob("*.npz"):
            (tmp_path / folder / path.name).symlink_to(path)
    completed = run_nbcore(["prepare", "--no-download"], tmp_path)
    assert completed.returncode == 0 and "Traceback" not in completed.stderr
    line = outcome_lines(completed.stdout)["SMS Spam Collection"]
    assert line.startswith("not available: ") and "NBCORE_DATA_DIR" in line, line
    assert "Not available: SMS Spam Collection (see above)." in completed.stdout and "Not kept" not in completed.stdout
    assert all(
        rest.startswith("already prepared")
        for title, rest in outcome_lines(completed.stdout).items()
        if title != "SMS Spam Collection"
    ), completed.stdout


# A fresh Python process draws every page through AppTest (the frame and the page a server runs) with every
# training and deskewing step replaced by one that records the call and fails, and every checked file read recorded.
FRESH_SERVER = r"""
import json, sys
sys.path.insert(0, {repo!r})
from streamlit.testing.v1 import AppTest
import nbcore.deskew, nbcore.files
from nbcore.experiments import evaluate
from nbcore.models.mixture import BernoulliMixtureNB
from nbcore.models.gaussian import GaussianNB
from nbcore.models.softmax import SoftmaxRegression
from lab.shell import PAGES

trained, read = [], []

def refuse(owner, name, what, large=lambda *args, **kwargs: True):
    original = getattr(owner, name)
    def guarded(*args, **kwargs):
        if large(*args, **kwargs):
            trained.append(what)
            raise RuntimeError(what + " in front of the class")
        return original(*args, **kwargs)
    setattr(owner, name, guarded)

MANY = 1000  # the iris page fits GaussianNB on 150 flowers, Draw deskews one drawing: the lesson, not a slow step
refuse(SoftmaxRegression, "fit", "softmax trained", lambda self, X, *a, **k: len(X) > MANY)
refuse(GaussianNB, "fit", "GaussianNB fitted on MNIST", lambda self, X, *a, **k: len(X) > MANY)
refuse(nbcore.deskew, "deskew_all", "MNIST deskewed", lambda images, *a, **k: len(images) > MANY)
refuse(BernoulliMixtureNB, "fit_steps", "mixture fitted on MNIST", lambda self, X, *a, **k: len(X) > MANY)
refuse(evaluate, "learning_curve", "learning curve computed")
refuse(evaluate, "smoothing_curve", "smoothing curve computed")
original_read = nbcore.files.read_checked_arrays
def reading(path, spec):
    read.append(str(path))
    return original_read(path, spec)
nbcore.files.read_checked_arrays = reading

def open_page(page, query=None):
    script = "from lab import shell\nshell.run(default_page=" + repr(page) + ")\n"
    app = AppTest.from_string(script, default_timeout=300)
    for key, value in (query or {{}}).items():
        app.query_params[key] = value
    app.run()
    problems = [item.value for item in app.exception] + [item.value for item in app.error]
    deskew = [radio.value for radio in app.radio if radio.key == "deskew"]
    print(json.dumps({{"page": page, "query": query, "deskew": deskew, "problems": problems}}), flush=True)

from lab import startup
from lab.data import data_dir, gaussian, mnist, models, spam_filter
startup.read_prepared()  # what the start-up hook does on a prepared server: read, count, train nothing
ready = [mnist._deskewed.job(data_dir()).future.done()]
ready += [models._softmax.job("default", deskew).future.done() for deskew in (False, True)]
ready += [len(models.counted_model.results)]
# and what a first visit of Smoothing, Gaussian NB and the spam filter would otherwise compute
ready += [len(shared.results) for shared in (models._smoothing_curve, models._zero_smoothing, gaussian.iris,
                                             gaussian._gaussian_mnist, spam_filter._experiments)]
print(json.dumps({{"ready at start-up": ready}}), flush=True)
for pages in PAGES.values():
    for page, _title, _icon in pages:
        open_page(page)
        open_page(page, {{"deskew": "on"}})
from lab.lesson_steps import STEPS
for step in range(2, len(STEPS) + 1):
    open_page("pages/lesson.py", query={{"lesson": str(step)}})
    open_page("pages/lesson.py", query={{"lesson": str(step), "deskew": "on"}})
for page in ("pages/compare.py", "pages/smoothing.py"):  # the sidebar's other preset, the course note's
    open_page(page, {{"threshold": "1", "prior": "uniform"}})
    open_page(page, {{"threshold": "1", "prior": "uniform", "deskew": "on"}})
print(json.dumps({{"trained": trained, "read": read, "torchvision": "torchvision" in sys.modules}}), flush=True)
"""


@pytest.mark.slow
def test_a_fresh_process_after_prepare_draws_every_page_without_training(prepared_root):
    root, first = prepared_root
    assert first.returncode == 0, first.stderr
    env = {**os.environ, "NBCORE_DATA_DIR": str(root), "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [sys.executable, "-c", FRESH_SERVER.format(repo=str(REPO))],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    reports = [json.loads(line) for line in completed.stdout.splitlines() if line.startswith("{")]
    start_up, *pages, summary = reports
    # naive Bayes counted, Deskew off and on; one result each for Smoothing, Gaussian NB and the spam filter
    assert start_up == {"ready at start-up": [True, True, True, 2, 1, 1, 1, 1, 1]}
    assert len(pages) == 2 * sum(len(group) for group in PAGES.values()) + 2 * (len(LESSON_STEPS) - 1) + 2 * 2
    assert [page for page in pages if page["problems"]] == []
    for page in pages:  # a page without model settings has no Deskew control
        assert page["deskew"] in ([], [bool(page["query"] and page["query"].get("deskew") == "on")]), page
    assert summary["trained"] == []
    assert not summary["torchvision"]  # MNIST came from its decoded arrays
    unread = set(result_files(root)) - {str(Path(path).relative_to(root)) for path in summary["read"]}
    assert unread == set(), f"prepared but never read: {unread}"


def flip_a_data_byte(path: Path) -> None:
    content = bytearray(path.read_bytes())
    content[len(content) // 2] ^= 0x10  # the middle of the file: inside an array's bytes
    path.write_bytes(bytes(content))


CURVE_SPEC = {
    **{name: (np.float64, (len(evaluate.SMOOTHING_CURVE_ALPHAS),)) for name in prepared_results.SMOOTHING_CURVE_NAMES},
    "meta": (np.uint8, (None,)),
}


def _arrays(path: Path) -> dict[str, np.ndarray]:
    return read_checked_arrays(path, CURVE_SPEC)


def smoothing_curve_file(root: Path, threshold: int, deskewed: bool) -> Path:
    """The prepared smoothing curve at this threshold and Deskew setting (found by the key stored in it)."""
    for path in (root / "prepared").glob("smoothing-curve-*.npz"):
        key = json.loads(_arrays(path)["meta"].tobytes())["key"]
        if (key["threshold"], key["deskewed"]) == (threshold, deskewed):
            return path
    raise AssertionError(f"no smoothing curve at threshold {threshold}, deskewed {deskewed}, in {root}")


@pytest.mark.slow
def test_a_damaged_result_is_made_again_with_a_clear_message(prepared_root):
    root, first = prepared_root
    assert first.returncode == 0, first.stderr
    textbook = smoothing_curve_file(root, 128, deskewed=False)
    before = _arrays(textbook)
    flip_a_data_byte(textbook)
    completed = run_nbcore(["prepare", "--no-download"], root)
    assert completed.returncode == 0, completed.stderr
    line = outcome_lines(completed.stdout)["Smoothing curve (textbook)"]
    # (a flipped byte in an uncompressed zip member fails its CRC: "unreadable (BadZipFile)")
    assert line.startswith("was damaged, computed again and saved") and f"({textbook.name}): " in line
    assert "Traceback" not in completed.stderr
    assert all(
        rest.startswith("already prepared")
        for title, rest in outcome_lines(completed.stdout).items()
        if title != "Smoothing curve (textbook)"
    )
    after = _arrays(textbook)
    assert after.keys() == before.keys() and all(np.array_equal(after[name], before[name]) for name in before)

    # a directory where the file belongs: computed, left alone, and said (prepare exits 1: not kept)
    textbook.unlink()
    textbook.mkdir()
    try:
        completed = run_nbcore(["prepare", "--no-download"], root)
        assert completed.returncode == 1
        line = outcome_lines(completed.stdout)["Smoothing curve (textbook)"]
        assert line.startswith("computed, not saved") and "is a directory, not a file" in line
        assert "Not kept: Smoothing curve (textbook)" in completed.stdout and "Traceback" not in completed.stderr
    finally:
        textbook.rmdir()
    assert run_nbcore(["prepare", "--no-download"], root).returncode == 0  # made again, for the other tests


def test_the_md5_of_shared_data_is_computed_once(monkeypatch):
    """Every prepared result's key holds the md5 of its data: for read-only arrays (what a server shares) it is
    computed once per pair of arrays; writable ones may have changed, so theirs is computed every time."""
    from nbcore.models import softmax_cache

    computed = []
    original = softmax_cache._checksum
    monkeypatch.setattr(softmax_cache, "_checksum", lambda *arrays: computed.append(1) or original(*arrays))
    images, labels = np.zeros((50, 28, 28), np.uint8), np.arange(50) % 10
    first = softmax_cache.training_data_checksum(images, labels)
    assert softmax_cache.training_data_checksum(images, labels) == first and len(computed) == 2
    images.setflags(write=False)
    labels.setflags(write=False)
    assert softmax_cache.training_data_checksum(images, labels) == first and len(computed) == 3
    assert softmax_cache.training_data_checksum(images, labels) == first and len(computed) == 3
    assert softmax_cache.training_data_checksum(images.copy(), labels) == first and len(computed) == 4
