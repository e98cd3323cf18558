"""nbcore.datasets.mnist on small synthetic IDX files: layouts, verification, failures, cleanup."""

from __future__ import annotations

import errno
import gzip
import os
import subprocess
import sys
import urllib.error
from pathlib import Path

import numpy as np
import pytest

import nbcore.datasets.mnist as data
import nbcore.files
from nbcore import MnistDataError, default_data_dir, ensure_mnist, load_mnist, load_mnist_splits
from nbcore.datasets.mnist import decoded_cache_path
from tests.conftest import REPO
from tests.idx_fixtures import FILE_NAMES, SyntheticMnist, make_synthetic_mnist, md5_hex, write_gz


@pytest.fixture
def no_network(monkeypatch):
    """torchvision's download_url fails like an offline machine; records the calls."""
    import torchvision.datasets.utils as tv_utils

    calls = []

    def offline(url, root, filename=None, md5=None, **kwargs):
        calls.append(url)
        # a partial file, as an interrupted transfer leaves it
        Path(root, filename).write_bytes(b"\x1f\x8b partial")
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(tv_utils, "download_url", offline)
    return calls


def raw_files(root: Path) -> list[str]:
    folder = root / "MNIST" / "raw"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def assert_loaded(root: Path, fake: SyntheticMnist, download: bool = False) -> None:
    for train, images_expected, labels_expected in (
        (True, fake.train_images, fake.train_labels),
        (False, fake.test_images, fake.test_labels),
    ):
        images, labels = load_mnist(train, root=root, download=download)
        assert images.dtype == np.uint8 and images.shape == (len(images_expected), 28, 28)
        assert labels.dtype == np.uint8 and labels.shape == (len(labels_expected),)
        np.testing.assert_array_equal(images, images_expected)
        np.testing.assert_array_equal(labels, labels_expected)


# -- good files ----------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("layout", ["flat", "raw-gz", "raw-extracted"])
def test_load_good_files_in_each_layout(tmp_path, synthetic, layout):
    synthetic.write(tmp_path, layout)
    assert_loaded(tmp_path, synthetic)
    # everything ends up extracted and verified in torchvision's layout, nothing temporary left
    raw = tmp_path / "MNIST" / "raw"
    for name in FILE_NAMES:
        assert md5_hex((raw / name).read_bytes()) == synthetic.md5[name]
    assert not [name for name in raw_files(tmp_path) if name.endswith(".part")]


def test_load_is_repeatable_and_does_not_reextract(tmp_path, synthetic, monkeypatch):
    synthetic.write(tmp_path, "flat")
    assert_loaded(tmp_path, synthetic)

    def no_extraction(*args, **kwargs):
        raise AssertionError("verified files must not be extracted again")

    monkeypatch.setattr(data, "_extract_verified", no_extraction)
    assert_loaded(tmp_path, synthetic)


@pytest.mark.parametrize("cached", [False, True], ids=["decoded by torchvision", "decoded cache"])
def test_both_splits_at_once_check_each_file_once(tmp_path, synthetic, monkeypatch, cached):
    synthetic.write(tmp_path, "flat")
    if cached:
        load_mnist_splits(root=tmp_path)
    checked = []
    real_ensure_file = data._ensure_file  # extracts and verifies, or verifies the extracted copy
    monkeypatch.setattr(data, "_ensure_file", lambda root, name: checked.append(name) or real_ensure_file(root, name))
    train_images, train_labels, test_images, test_labels = load_mnist_splits(root=tmp_path)
    assert sorted(checked) == sorted(FILE_NAMES)  # each of the four files once, not once per split
    np.testing.assert_array_equal(train_images, synthetic.train_images)
    np.testing.assert_array_equal(train_labels, synthetic.train_labels)
    np.testing.assert_array_equal(test_images, synthetic.test_images)
    np.testing.assert_array_equal(test_labels, synthetic.test_labels)


def test_the_real_checksums_are_the_published_ones():
    assert data.MNIST_MD5 == {
        "train-images-idx3-ubyte": "6bbc9ace898e44ae57da46a324031adb",
        "train-labels-idx1-ubyte": "a25bea736e30d166cdddb491f175f624",
        "t10k-images-idx3-ubyte": "2646ac647ad5339dbf082846283269ea",
        "t10k-labels-idx1-ubyte": "27ae3e4e09519cfbb04c329615203637",
    }


def test_progress_fractions_rise_to_one(tmp_path, synthetic):
    synthetic.write(tmp_path, "flat")
    calls = []
    ensure_mnist(tmp_path, download=False, progress=lambda fraction, message: calls.append((fraction, message)))
    fractions = [fraction for fraction, _ in calls]
    assert len(fractions) >= 2
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert fractions == sorted(fractions)
    assert fractions[-1] == 1.0
    assert all(isinstance(message, str) and message for _, message in calls)


def test_load_mnist_passes_progress_through(tmp_path, synthetic):
    synthetic.write(tmp_path, "flat")
    calls = []
    load_mnist(False, root=tmp_path, download=False, progress=lambda f, m: calls.append((f, m)))
    fractions = [fraction for fraction, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and calls[-1][1] == "MNIST ready"


def test_progress_names_the_slow_first_decode_and_only_then(tmp_path, synthetic):
    synthetic.write(tmp_path, "flat")
    first, later = [], []
    load_mnist_splits(root=tmp_path, download=False, progress=lambda f, m: first.append((f, m)))
    load_mnist_splits(root=tmp_path, download=False, progress=lambda f, m: later.append((f, m)))
    decoding = [(fraction, message) for fraction, message in first if "torchvision" in message]
    assert [message.split()[2] for _, message in decoding] == ["training", "test"]
    assert [fraction for fraction, _ in first] == sorted(fraction for fraction, _ in first)
    assert decoding[0][0] < decoding[1][0] < 1.0
    assert not [message for _, message in later if "torchvision" in message]  # decoded arrays cached on disk
    assert later[-1] == (1.0, "MNIST ready")


# -- broken files ----------------------------------------------------------------------------
def test_truncated_gz_names_the_file(tmp_path, synthetic):
    synthetic.write(tmp_path, "flat")
    broken = tmp_path / "t10k-images-idx3-ubyte.gz"
    broken.write_bytes(broken.read_bytes()[: broken.stat().st_size // 2])
    with pytest.raises(MnistDataError, match="t10k-images-idx3-ubyte.gz") as caught:
        load_mnist(False, root=tmp_path, download=False)
    assert "truncated or corrupted" in str(caught.value)
    assert "t10k-images-idx3-ubyte" not in raw_files(tmp_path)
    assert not [name for name in raw_files(tmp_path) if name.endswith(".part")]


def test_not_a_gzip_file_names_the_file(tmp_path, synthetic):
    synthetic.write(tmp_path, "flat")
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(b"<html>captive portal</html>")
    with pytest.raises(MnistDataError, match="train-labels-idx1-ubyte.gz"):
        ensure_mnist(tmp_path, download=False)
    assert raw_files(tmp_path) == ["train-images-idx3-ubyte"]  # the good one before it


@pytest.mark.parametrize(
    "name, magic",
    [
        ("t10k-images-idx3-ubyte", 0x00000801),  # the labels' magic on an image file
        ("t10k-images-idx3-ubyte", 0x12345678),  # garbage
        ("t10k-labels-idx1-ubyte", 0x00000D01),  # float32 labels
    ],
)
def test_wrong_magic_number(tmp_path, monkeypatch, name, magic):
    fake = make_synthetic_mnist(magic_override={name: magic})
    monkeypatch.setattr(data, "MNIST_MD5", fake.md5)  # md5 matches: the header reaches torchvision
    fake.write(tmp_path, "flat")
    with pytest.raises(
        MnistDataError, match="torchvision could not read .*t10k-images-idx3-ubyte.*not valid MNIST IDX files"
    ):
        load_mnist(False, root=tmp_path, download=False)


@pytest.mark.parametrize("layout", ["flat", "raw-gz"])
def test_wrong_md5_names_the_file_and_leaves_nothing_behind(tmp_path, synthetic, monkeypatch, layout):
    synthetic.write(tmp_path, layout)
    monkeypatch.setitem(data.MNIST_MD5, "train-labels-idx1-ubyte", "0" * 32)
    with pytest.raises(MnistDataError) as caught:
        load_mnist(True, root=tmp_path, download=False)
    message = str(caught.value)
    assert "train-labels-idx1-ubyte.gz" in message
    assert "md5" in message and "0" * 32 in message and synthetic.md5["train-labels-idx1-ubyte"] in message
    left = raw_files(tmp_path)
    assert "train-labels-idx1-ubyte" not in left  # no cached bad file
    assert not [name for name in left if name.endswith(".part") or name.startswith(".")]
    # and it stays an error: the bad content never counts as valid later
    with pytest.raises(MnistDataError):
        ensure_mnist(tmp_path, download=False)


def test_corrupted_extracted_file_is_replaced_from_the_gz(tmp_path, synthetic):
    synthetic.write(tmp_path, "flat")
    ensure_mnist(tmp_path, download=False)
    extracted = tmp_path / "MNIST" / "raw" / "t10k-images-idx3-ubyte"
    corrupted = bytearray(extracted.read_bytes())
    corrupted[100] ^= 0xFF
    extracted.write_bytes(bytes(corrupted))
    assert_loaded(tmp_path, synthetic)
    assert md5_hex(extracted.read_bytes()) == synthetic.md5["t10k-images-idx3-ubyte"]


def test_corrupted_extracted_file_without_gz_is_kept_and_reported(tmp_path, synthetic):
    # nbcore never deletes a source file it did not make: it may be the user's only copy (this one came without a .gz)
    synthetic.write(tmp_path, "raw-extracted")
    extracted = tmp_path / "MNIST" / "raw" / "train-labels-idx1-ubyte"
    extracted.write_bytes(extracted.read_bytes()[:-1])
    with pytest.raises(MnistDataError, match="train-labels-idx1-ubyte is not the official MNIST file"):
        ensure_mnist(tmp_path, download=False)
    assert extracted.exists()


def test_interrupted_extraction_leaves_no_valid_looking_file(tmp_path, synthetic, monkeypatch):
    synthetic.write(tmp_path, "flat")
    real_open = gzip.open

    class FailsMidway:
        """A gzip reader that delivers part of the content, then fails."""

        def __init__(self, *args, **kwargs):
            self._inner = real_open(*args, **kwargs)
            self._reads = 0

        def read(self, size=-1):
            self._reads += 1
            if self._reads == 1:
                return self._inner.read(64)
            raise OSError(errno.EIO, "Input/output error (simulated)")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._inner.close()

    monkeypatch.setattr(gzip, "open", FailsMidway)
    with pytest.raises(MnistDataError, match="train-images-idx3-ubyte.gz"):
        ensure_mnist(tmp_path, download=False)
    assert raw_files(tmp_path) == []  # neither the partial target nor a .part file

    # a hard interruption (Ctrl+C) is not swallowed, and leaves nothing behind either
    def interrupted(self, size=-1):
        self._reads += 1
        if self._reads == 1:
            return self._inner.read(64)
        raise KeyboardInterrupt

    monkeypatch.setattr(FailsMidway, "read", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ensure_mnist(tmp_path, download=False)
    assert raw_files(tmp_path) == []

    monkeypatch.setattr(gzip, "open", real_open)
    assert_loaded(tmp_path, synthetic)


# -- missing data, no network, no write access -------------------------------------------------
def test_missing_directory_without_download(tmp_path, synthetic):
    missing = tmp_path / "does-not-exist"
    with pytest.raises(MnistDataError) as caught:
        load_mnist(True, root=missing, download=False)
    message = str(caught.value)
    assert "missing" in message and str(missing) in message
    assert "NBCORE_DATA_DIR" in message and "*-ubyte.gz" in message  # says how to fix it


def test_missing_files_download_offline(tmp_path, synthetic, no_network):
    with pytest.raises(MnistDataError) as caught:
        load_mnist(True, root=tmp_path, download=True)
    message = str(caught.value)
    assert "could not be downloaded" in message
    assert "train-images-idx3-ubyte" in message and str(tmp_path) in message
    assert "NBCORE_DATA_DIR" in message and "network" in message
    assert "Traceback" not in message
    assert no_network  # every mirror was tried ...
    assert len(no_network) == len(__import__("torchvision").datasets.MNIST.mirrors)
    assert raw_files(tmp_path) == []  # ... and no partial download was kept


def test_download_only_what_is_missing(tmp_path, synthetic, monkeypatch):
    import torchvision.datasets.utils as tv_utils

    synthetic.write(tmp_path, "flat", names=FILE_NAMES[:3])
    fetched = []

    def mirror(url, root, filename=None, md5=None, **kwargs):
        fetched.append(filename)
        write_gz(Path(root, filename), synthetic.contents[filename[: -len(".gz")]])

    monkeypatch.setattr(tv_utils, "download_url", mirror)
    assert_loaded(tmp_path, synthetic, download=True)
    assert fetched == ["t10k-labels-idx1-ubyte.gz"]


def test_bad_download_is_not_kept(tmp_path, synthetic, monkeypatch):
    import torchvision.datasets.utils as tv_utils

    synthetic.write(tmp_path, "flat", names=FILE_NAMES[:3])
    served = {"content": b"<html>not MNIST</html>"}

    def mirror(url, root, filename=None, md5=None, **kwargs):
        write_gz(Path(root, filename), served["content"])

    monkeypatch.setattr(tv_utils, "download_url", mirror)
    with pytest.raises(MnistDataError, match="t10k-labels-idx1-ubyte"):
        ensure_mnist(tmp_path, download=True)
    assert not [name for name in raw_files(tmp_path) if name.startswith("t10k-labels")]
    served["content"] = synthetic.contents["t10k-labels-idx1-ubyte"]  # the mirror recovers
    assert_loaded(tmp_path, synthetic, download=True)


def test_unwritable_directory_simulated(tmp_path, synthetic, monkeypatch):
    """Runs as root too: mkstemp fails the way it does in a read-only folder."""
    synthetic.write(tmp_path, "flat")

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", kwargs.get("dir"))

    monkeypatch.setattr(nbcore.files.tempfile, "mkstemp", denied)  # every file nbcore writes goes through it
    with pytest.raises(MnistDataError) as caught:
        load_mnist(True, root=tmp_path, download=False)
    message = str(caught.value)
    assert "Cannot write to" in message and "writable" in message and "NBCORE_DATA_DIR" in message
    assert str(tmp_path / "MNIST" / "raw") in message


# -- where the data lives ----------------------------------------------------------------------
def test_default_data_dir_honours_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path / "mine"))
    assert default_data_dir() == tmp_path / "mine"
    monkeypatch.setenv("NBCORE_DATA_DIR", "~/mnist-here")
    assert default_data_dir() == Path.home() / "mnist-here"
    monkeypatch.delenv("NBCORE_DATA_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_data_dir() == tmp_path / "cache" / "nbcore"


def test_load_uses_default_data_dir(monkeypatch, tmp_path, synthetic):
    synthetic.write(tmp_path, "flat")
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))
    images, labels = load_mnist(False, download=False)
    np.testing.assert_array_equal(images, synthetic.test_images)
    np.testing.assert_array_equal(labels, synthetic.test_labels)


# -- the decoded-array cache (a restart skips importing torchvision) ----------------------------
def test_second_load_reads_the_decoded_cache_without_torchvision(tmp_path, synthetic, monkeypatch):
    synthetic.write(tmp_path, "flat")
    first = load_mnist(False, root=tmp_path, download=False)
    assert data.decoded_cache_path(tmp_path, False).is_file()
    import torchvision.datasets

    def no_torchvision(*args, **kwargs):
        raise AssertionError("torchvision must not be used when the decoded cache is valid")

    monkeypatch.setattr(torchvision.datasets, "MNIST", no_torchvision)
    second = load_mnist(False, root=tmp_path, download=False)
    for before, after in zip(first, second):
        np.testing.assert_array_equal(before, after)
        assert after.dtype == np.uint8


@pytest.mark.parametrize("damage", ["truncate", "garbage", "wrong source"])
def test_a_damaged_or_stale_decoded_cache_is_rebuilt(tmp_path, synthetic, monkeypatch, damage):
    synthetic.write(tmp_path, "flat")
    load_mnist(True, root=tmp_path, download=False)
    cache = data.decoded_cache_path(tmp_path, True)
    if damage == "truncate":
        cache.write_bytes(cache.read_bytes()[: cache.stat().st_size // 2])
    elif damage == "garbage":
        cache.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    else:
        np.savez(
            cache,
            images=np.zeros((2, 28, 28), np.uint8),
            labels=np.zeros(2, np.uint8),
            source_md5=np.array(["0" * 32, "1" * 32]),
        )
    images, labels = load_mnist(True, root=tmp_path, download=False)
    np.testing.assert_array_equal(images, synthetic.train_images)
    np.testing.assert_array_equal(labels, synthetic.train_labels)
    with np.load(cache) as rebuilt:
        np.testing.assert_array_equal(rebuilt["images"], synthetic.train_images)


def _python(args: list[str], data_dir: Path) -> subprocess.CompletedProcess:
    """``python args`` in a fresh process with NBCORE_DATA_DIR=data_dir."""
    env = {**os.environ, "NBCORE_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def _run_prepare(data_dir: Path) -> subprocess.CompletedProcess:
    return _python(["-m", "nbcore", "prepare"], data_dir)


@pytest.mark.slow
def test_cli_prepare_leaves_a_folder_that_loads_without_torchvision(prepared_root):
    tmp_path, completed = prepared_root
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[0].startswith("MNIST: computed and saved")
    assert all(decoded_cache_path(tmp_path, train).is_file() for train in (True, False))
    probe = (
        "import sys, nbcore; images = nbcore.load_mnist_splits(download=False)[0]; "
        "print(images.shape, 'torchvision' in sys.modules)"
    )
    loaded = _python(["-c", probe], tmp_path)
    assert loaded.stdout.strip() == "(60000, 28, 28) False", loaded.stderr


@pytest.mark.slow
def test_cli_prepare_names_a_corrupted_file_and_exits_2(tmp_path):
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    completed = _run_prepare(tmp_path)
    assert completed.returncode == 2
    assert "train-images-idx3-ubyte.gz is truncated or corrupted" in completed.stderr
