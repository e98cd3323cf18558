"""``python -m nbcore prepare --check``: every prepared result read and checked, nothing computed, downloaded or
written, without torch (what the serving image runs before it starts: lab.serve); and MNIST's loader in a
process without torchvision, which says what to do instead of failing on the import.

Each test works on its own copy of ``prepared_root`` made of hard links (a damage replaces a file, never writes
into one, so the shared folder is untouched).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nbcore.datasets.mnist import decoded_cache_path, raw_folder
from tests.conftest import REPO
from tests.nbcore.test_prepare import STEPS, outcome_lines

pytestmark = pytest.mark.slow

# a process in which `import torch` and `import torchvision` fail, as in the serving image
WITHOUT_TORCH = "import sys; sys.modules.update(torch=None, torchvision=None); "


def without_torch(code: str, data_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NBCORE_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_TORCH + code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )


def check(data_dir: Path) -> subprocess.CompletedProcess:
    return without_torch("from nbcore.__main__ import main; sys.exit(main(['prepare', '--check']))", data_dir)


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under ``root``: (inode, size, mtime in ns), so that a rewrite, even atomic, shows."""
    return {
        str(path.relative_to(root)): (path.lstat().st_ino, path.lstat().st_size, path.lstat().st_mtime_ns)
        for path in root.rglob("*")
    }


@pytest.fixture
def copy(prepared_root, tmp_path) -> Path:
    root, first = prepared_root
    assert first.returncode == 0, first.stderr
    target = tmp_path / "data"
    shutil.copytree(root, target, copy_function=os.link)
    return target


def replace(path: Path, content: bytes) -> None:
    """``path`` now holds ``content``: a new file (the hard-linked original keeps its bytes)."""
    path.unlink()
    path.write_bytes(content)


def truncate(path: Path) -> None:
    replace(path, path.read_bytes()[: path.stat().st_size // 2])


def flip_a_byte(path: Path) -> None:
    content = bytearray(path.read_bytes())
    content[len(content) // 2] ^= 0x10
    replace(path, bytes(content))


def test_a_prepared_folder_passes_without_torch_and_nothing_changes(copy):
    before = snapshot(copy)
    checked = check(copy)
    assert checked.returncode == 0, checked.stderr
    *results, last = checked.stdout.splitlines()
    lines = outcome_lines("\n".join(results))
    assert len(lines) == STEPS and all(rest.startswith("already prepared, loaded") for rest in lines.values()), lines
    assert last == f"Checked in {copy}: all {STEPS} prepared, nothing computed."
    assert snapshot(copy) == before


def first_smoothing_curve(root: Path) -> Path:
    return sorted((root / "prepared").glob("smoothing-curve-*.npz"))[0]


def first_softmax_weights(root: Path) -> Path:
    return sorted((root / "models").glob("softmax-*.npz"))[0]


DAMAGE = {
    "decoded MNIST truncated": (lambda root: decoded_cache_path(root, False), truncate, "MNIST", "is damaged"),
    "an extracted MNIST file deleted": (
        lambda root: raw_folder(root) / "train-labels-idx1-ubyte",
        Path.unlink,
        "MNIST",
        "is missing",
    ),
    "an extracted MNIST file changed": (
        lambda root: raw_folder(root) / "t10k-images-idx3-ubyte",
        flip_a_byte,
        "MNIST",
        "not the official MNIST file",
    ),
    "the SMS collection changed": (
        lambda root: root / "SMSSpamCollection",
        lambda path: replace(path, path.read_bytes() + b"ham\tone more\n"),
        "SMS Spam Collection",
        "is not the original SMS Spam Collection",
    ),
    "softmax weights deleted": (first_softmax_weights, Path.unlink, "Softmax regression", "is missing"),
    "a smoothing curve's byte flipped": (first_smoothing_curve, flip_a_byte, "Smoothing curve", "is damaged"),
    "a smoothing curve truncated": (first_smoothing_curve, truncate, "Smoothing curve", "is damaged"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_a_missing_or_damaged_file_fails_the_check_by_name_and_is_left_alone(copy, case):
    where, damage, title, said = DAMAGE[case]
    path = where(copy)
    damage(path)
    before = snapshot(copy)
    checked = check(copy)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    last = checked.stderr.strip().splitlines()[-1]
    assert last.startswith(f"Not prepared in {copy}: {title}") and str(path) in last and said in last, last
    assert last.endswith("python -m nbcore prepare makes it again.")
    assert "Traceback" not in checked.stderr
    assert snapshot(copy) == before  # nothing made again, removed or rewritten


def test_without_the_sms_collection_the_check_passes_and_says_so(copy):
    (copy / "SMSSpamCollection").unlink()
    checked = check(copy)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines()[-1].endswith("Not available: SMS Spam Collection (see above).")


def test_without_torchvision_a_damaged_decoded_mnist_says_what_to_run(copy):
    truncate(decoded_cache_path(copy, True))
    probe = (
        "import nbcore\n"
        "from nbcore.datasets.mnist import MnistDataError\n"
        "try:\n    nbcore.load_mnist_splits(download=False)\n"
        "except MnistDataError as error:\n    print(error)\n"
    )
    loaded = without_torch(probe, copy)
    assert "Traceback" not in loaded.stderr, loaded.stderr
    said = loaded.stdout.strip()
    assert str(decoded_cache_path(copy, True)) in said and "needs torchvision, which is not installed here" in said
    assert "`python -m nbcore prepare`" in said and "prepare target" in said
