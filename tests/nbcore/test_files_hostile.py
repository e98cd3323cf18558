"""Damaged, odd and unwritable files: identical arrays or a rebuild, and a sentence for the rest.

Bit-flip fuzzing runs in memory on files made by the real writers (``nbcore.datasets.mnist._write_decoded``,
``nbcore.models.softmax_cache.write_weights``): every bit outside the arrays' data (zip and .npy headers,
central directory, digests) and a few thousand bits inside it, on small files; a sample on the
real MNIST test-set cache.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import io
import json
import os
import signal
import struct
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

import nbcore.datasets.mnist as data
import nbcore.files as nbfiles
from nbcore import MnistDataError, SoftmaxRegression, ensure_mnist, load_mnist
from nbcore.datasets.mnist import decoded_cache_path, raw_folder
from nbcore.models import softmax_cache as model_cache
from nbcore.models.softmax_cache import load_or_train_softmax
from nbcore.prepared import disk as prepared_disk
from tests.conftest import REPO
from tests.idx_fixtures import md5_hex

DATA_BITS = 2000  # random flips inside the arrays' bytes, per file


def data_spans(content: bytes) -> list[tuple[int, int]]:
    """(start, end) byte offsets of every array's raw data inside an uncompressed .npz."""
    spans = []
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        for info in archive.infolist():
            name_length, extra_length = struct.unpack("<HH", content[info.header_offset + 26 : info.header_offset + 30])
            member = info.header_offset + 30 + name_length + extra_length
            major = content[member + 6]
            if major == 1:
                header_length = struct.unpack("<H", content[member + 8 : member + 10])[0] + 10
            else:
                header_length = struct.unpack("<I", content[member + 8 : member + 12])[0] + 12
            spans.append((member + header_length, member + info.compress_size))
    return spans


def header_bits(content: bytes) -> np.ndarray:
    """Bit indices of every byte outside the arrays' data."""
    inside = np.zeros(len(content), bool)
    for start, end in data_spans(content):
        inside[start:end] = True
    byte_indices = np.flatnonzero(~inside)
    return (byte_indices[:, None] * 8 + np.arange(8)).ravel()


def data_bits(content: bytes, count: int, rng) -> np.ndarray:
    indices = np.concatenate([np.arange(start * 8, end * 8) for start, end in data_spans(content)])
    return rng.choice(indices, size=min(count, len(indices)), replace=False)


def flip(content: bytes, bit: int) -> bytes:
    damaged = bytearray(content)
    damaged[bit // 8] ^= 1 << (bit % 8)
    return bytes(damaged)


def assert_identical_or_damaged(content: bytes, bits, spec, expected: dict[str, np.ndarray]) -> tuple[int, int]:
    """Read every one-bit variant: the expected arrays exactly, or DamagedFileError; (identical, damaged) counts."""
    identical = damaged = 0
    for bit in bits:
        try:
            arrays = nbfiles.read_checked_arrays_from(io.BytesIO(flip(content, int(bit))), spec)
        except nbfiles.DamagedFileError:
            damaged += 1
            continue
        for name, array in expected.items():
            assert arrays[name].dtype == array.dtype and np.array_equal(arrays[name], array), f"bit {bit}: {name}"
        identical += 1
    return identical, damaged


# -- fuzzing -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_fuzz_decoded_mnist_cache(tmp_path, synthetic):
    path = tmp_path / "t10k.npz"
    assert data._write_decoded(path, False, synthetic.test_images, synthetic.test_labels) is None
    content = path.read_bytes()
    expected = {"images": synthetic.test_images, "labels": synthetic.test_labels}
    rng = np.random.default_rng(0)
    spec = data._decoded_spec(False)
    assert_identical_or_damaged(content, header_bits(content), spec, expected)  # some touch nothing read (zip dates)
    assert assert_identical_or_damaged(content, data_bits(content, DATA_BITS, rng), spec, expected) == (0, DATA_BITS)
    # and the loader itself: a damaged cache is removed and None is returned (so the split is decoded again)
    for bit in rng.choice(header_bits(content), size=50, replace=False):
        path.write_bytes(flip(content, int(bit)))
        cached = data._read_decoded(path, False)
        if cached is None:
            assert not path.exists()
        else:
            assert np.array_equal(cached[0], synthetic.test_images) and np.array_equal(cached[1], synthetic.test_labels)


@pytest.mark.slow
def test_fuzz_softmax_weights(tmp_path):
    rng = np.random.default_rng(1)
    model = SoftmaxRegression()
    model.coef_ = rng.normal(size=(10, 784)).astype(np.float32)
    model.intercept_ = rng.normal(size=10).astype(np.float32)
    key = {"format": model_cache.CACHE_FORMAT, "seed": 0}
    path = tmp_path / "softmax.npz"
    model_cache.write_weights(path, key, model, 1.5)
    content = path.read_bytes()
    expected = {"coef": model.coef_, "intercept": model.intercept_}
    spec = model_cache._weights_spec(10, 784)
    assert_identical_or_damaged(content, header_bits(content), spec, expected)
    assert assert_identical_or_damaged(content, data_bits(content, DATA_BITS, rng), spec, expected) == (0, DATA_BITS)
    for bit in rng.choice(
        header_bits(content), size=50, replace=False
    ):  # through read_weights: hit with the same weights, or corrupt
        path.write_bytes(flip(content, int(bit)))
        try:
            coef, intercept, seconds = model_cache.read_weights(path, key, 10, 784)
        except model_cache.CacheFileError:
            continue
        assert np.array_equal(coef, model.coef_) and np.array_equal(intercept, model.intercept_) and seconds == 1.5


def small_result(tmp_path):
    """A prepared result (``nbcore.prepared_disk.load_or_build``) of two small arrays: (path, key, spec, arrays)."""
    rng = np.random.default_rng(5)
    arrays = {"images": rng.integers(0, 256, (20, 28, 28), dtype=np.uint8), "curve": rng.normal(size=(8, 3))}
    arrays["curve"][0, 0] = -np.inf  # a log-likelihood may be -inf
    key = {"format": prepared_disk.FORMAT, "result": "test", "size": 20}
    spec = {"images": (np.uint8, (None, 28, 28)), "curve": (np.float64, (8, None))}
    stored = prepared_disk.load_or_build("A test result", "test", key, spec, lambda: arrays, tmp_path)
    assert stored.outcome.status == "built"
    return stored.outcome.path, key, spec, arrays


@pytest.mark.slow
def test_fuzz_prepared_results(tmp_path):
    path, key, spec, arrays = small_result(tmp_path)
    content = path.read_bytes()
    rng = np.random.default_rng(6)
    full_spec = {**spec, "meta": (np.uint8, (None,))}
    assert_identical_or_damaged(content, header_bits(content), full_spec, arrays)
    assert assert_identical_or_damaged(content, data_bits(content, DATA_BITS, rng), full_spec, arrays) == (0, DATA_BITS)
    # through load_or_build: the same arrays from the file, or "rebuilt" (computed again) with the reason
    for bit in rng.choice(header_bits(content), size=50, replace=False):
        path.write_bytes(flip(content, int(bit)))
        stored = prepared_disk.load_or_build("A test result", "test", key, spec, lambda: arrays, tmp_path)
        assert stored.outcome.status in ("loaded", "rebuilt"), stored.outcome
        assert all(np.array_equal(stored.value[name], arrays[name]) for name in arrays)
        if stored.outcome.status == "rebuilt":
            assert stored.outcome.problem and "was damaged, computed again and saved" in stored.outcome.message()
            assert path.name in stored.outcome.message()


@pytest.mark.parametrize("damage", ["other key", "NaN", "truncated", "not a zip"])
def test_a_damaged_prepared_result_is_computed_again_and_rewritten(tmp_path, damage):
    path, key, spec, arrays = small_result(tmp_path)
    if damage == "other key":
        prepared_disk.load_or_build("A test result", "test", {**key, "size": 21}, spec, lambda: arrays, tmp_path)
        other = prepared_disk.result_path(tmp_path, "test", {**key, "size": 21})
        os.replace(other, path)  # a file written for other settings, under this key's name
    elif damage == "NaN":
        nbfiles.write_checked_arrays(
            path,
            {
                **arrays,
                "curve": np.full((8, 3), np.nan),
                "meta": np.frombuffer(json.dumps({"key": key}).encode(), np.uint8),
            },
        )
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        path.write_bytes(b"not a zip at all")
    calls = []
    stored = prepared_disk.load_or_build(
        "A test result", "test", key, spec, lambda: calls.append(1) or arrays, tmp_path
    )
    assert calls == [1] and stored.outcome.status == "rebuilt"
    assert stored.outcome.message().startswith("A test result: was damaged, computed again and saved")
    again = prepared_disk.load_or_build("A test result", "test", key, spec, lambda: calls.append(2) or arrays, tmp_path)
    assert calls == [1] and again.outcome.status == "loaded"
    assert all(np.array_equal(again.value[name], arrays[name]) for name in arrays)


def test_a_prepared_result_behind_an_odd_entry_or_on_a_full_disk_is_computed_and_says_why(tmp_path, monkeypatch):
    path, key, spec, arrays = small_result(tmp_path)
    path.unlink()
    os.mkfifo(path)
    stored = prepared_disk.load_or_build("A test result", "test", key, spec, lambda: arrays, tmp_path)  # never blocks
    assert stored.outcome.status == "computed" and "FIFO" in stored.outcome.problem and path.is_fifo()
    path.unlink()
    monkeypatch.setattr(nbfiles.os, "fsync", no_space)
    stored = prepared_disk.load_or_build("A test result", "test", key, spec, lambda: arrays, tmp_path)
    assert stored.outcome.status == "computed" and "full" in stored.outcome.problem and not path.exists()
    assert all(np.array_equal(stored.value[name], arrays[name]) for name in arrays)


@pytest.mark.slow
def test_fuzz_sample_of_the_real_mnist_cache(mnist, mnist_root):
    content = decoded_cache_path(mnist_root, False).read_bytes()
    rng = np.random.default_rng(2)
    expected = {"images": mnist["test_images"], "labels": mnist["test_labels"]}
    spec = data._decoded_spec(False)
    assert_identical_or_damaged(content, rng.choice(header_bits(content), size=60, replace=False), spec, expected)
    assert assert_identical_or_damaged(content, data_bits(content, 40, rng), spec, expected) == (0, 40)


def test_damaged_cache_is_rebuilt_with_the_same_numbers(tmp_path, synthetic):
    synthetic.write(tmp_path)
    load_mnist(False, root=tmp_path, download=False)
    cache = decoded_cache_path(tmp_path, False)
    content = cache.read_bytes()
    start, _ = data_spans(content)[0]
    cache.write_bytes(flip(content, (start - 20) * 8 + 1))  # inside the first array's .npy header
    images, labels = load_mnist(False, root=tmp_path, download=False)
    assert np.array_equal(images, synthetic.test_images) and np.array_equal(labels, synthetic.test_labels)
    assert cache.read_bytes() == content  # rewritten, identical


# -- full disk, permissions, read-only folders -----------------------------------------------------
def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_disk_full_during_extraction_says_disk_full_and_keeps_the_gz(tmp_path, synthetic, monkeypatch):
    synthetic.write(tmp_path)
    monkeypatch.setattr(nbfiles.os, "fsync", no_space)
    with pytest.raises(MnistDataError) as caught:
        ensure_mnist(tmp_path, download=False)
    message = str(caught.value)
    assert "full" in message and "corrupt" not in message and "Delete" not in message
    assert all((tmp_path / f"{name}.gz").exists() for name in data.MNIST_MD5)
    assert not list(raw_folder(tmp_path).glob(".*"))  # no temporary left


def test_disk_full_while_caching_weights_trains_and_says_so(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    images, labels = rng.integers(0, 256, (60, 28, 28), dtype=np.uint8), np.arange(60) % 10
    monkeypatch.setattr(nbfiles.os, "fsync", no_space)
    _, info = load_or_train_softmax(images, labels, cache_dir=tmp_path, epochs=1)
    assert not info["saved"] and "full" in info["error"] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_files_get_the_mode_the_umask_allows(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        nbfiles.write_checked_arrays(tmp_path / "a.npz", {"x": np.arange(3)})
    finally:
        os.umask(previous)
    assert (tmp_path / "a.npz").stat().st_mode & 0o777 == mode


def test_read_only_folder_with_damaged_cache_gives_arrays_or_a_sentence(tmp_path, synthetic, monkeypatch):
    synthetic.write(tmp_path)
    load_mnist(False, root=tmp_path, download=False)
    cache = decoded_cache_path(tmp_path, False)
    cache.write_bytes(b"damaged")

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    for name in ("unlink", "replace"):
        monkeypatch.setattr(nbfiles.os, name, read_only)
    monkeypatch.setattr(nbfiles.tempfile, "mkstemp", read_only)
    images, labels = load_mnist(False, root=tmp_path, download=False)  # decoded again; nothing could be written
    assert np.array_equal(images, synthetic.test_images)
    # an extracted file that needs replacing, in a read-only folder: a sentence, not Errno 30
    extracted = raw_folder(tmp_path) / "t10k-labels-idx1-ubyte"
    monkeypatch.undo()
    monkeypatch.setattr(data, "MNIST_MD5", synthetic.md5)
    extracted.write_bytes(b"damaged")
    monkeypatch.setattr(nbfiles.tempfile, "mkstemp", read_only)
    with pytest.raises(MnistDataError, match="Cannot write to .*Read-only file system.*NBCORE_DATA_DIR"):
        ensure_mnist(tmp_path, download=False)


# -- odd entries -----------------------------------------------------------------------------------
def make_odd(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["directory", "fifo", "device link"])
@pytest.mark.parametrize("where", ["extracted", "gz", "cache"])
def test_odd_entries_are_refused_with_a_sentence(tmp_path, synthetic, kind, where):
    synthetic.write(tmp_path)
    if where == "extracted":
        odd = raw_folder(tmp_path) / "train-images-idx3-ubyte"
    elif where == "gz":
        odd = tmp_path / "train-images-idx3-ubyte.gz"
        odd.unlink()
    else:
        odd = decoded_cache_path(tmp_path, True)
    make_odd(odd, kind)
    started = time.perf_counter()
    with pytest.raises(MnistDataError, match="not a file; nbcore will not open it"):
        load_mnist(True, root=tmp_path, download=False)
    assert time.perf_counter() - started < 30  # returned: nothing blocked on the FIFO or read /dev/zero
    assert os.path.lexists(odd)  # refused, not removed


def test_odd_entry_in_place_of_weights_trains_and_says_why(tmp_path):
    rng = np.random.default_rng(4)
    images, labels = rng.integers(0, 256, (60, 28, 28), dtype=np.uint8), np.arange(60) % 10
    _, info = load_or_train_softmax(images, labels, cache_dir=tmp_path, epochs=1)
    path = Path(info["path"])
    path.unlink()
    os.mkfifo(path)
    _, info = load_or_train_softmax(images, labels, cache_dir=tmp_path, epochs=1)
    assert info["cache"] == "corrupt" and "FIFO" in info["error"] and not info["saved"]
    assert path.is_fifo()  # not replaced: nbcore did not make it


# -- temporaries of killed runs ---------------------------------------------------------------------
WRITER = """
import sys, time
from pathlib import Path
import nbcore.files as nbfiles
def slow(out):
    out.write(b"x" * 1000); out.flush(); print("writing", flush=True); time.sleep(60)
nbfiles.write_atomically(Path(sys.argv[1]), slow)
"""


@pytest.mark.slow
def test_killed_writer_leaves_a_temporary_that_the_next_start_removes(tmp_path, synthetic):
    synthetic.write(tmp_path)
    folder = raw_folder(tmp_path)
    folder.mkdir(parents=True)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(folder / "train-images-idx3-ubyte")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "writing"
        live = list(folder.glob(".*.part"))
        assert len(live) == 1
        assert nbfiles.remove_stale_temporaries(folder, ["train-*"]) == 0 and live[0].exists()  # writer alive
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait()
    assert live[0].exists()  # what kill -9 leaves behind
    ensure_mnist(tmp_path, download=False)
    assert not live[0].exists() and not list(folder.glob(".*"))
    assert md5_hex((folder / "train-images-idx3-ubyte").read_bytes()) == synthetic.md5["train-images-idx3-ubyte"]


def test_a_locked_temporary_is_kept_and_other_files_are_never_candidates(tmp_path):
    temporary = tmp_path / ".train.npz.abc.part"
    others = [tmp_path / name for name in (".download.part", ".t10k.npz.part", "train.npz.abc.part")]
    for other in others:
        other.write_bytes(b"someone else's")
    with open(temporary, "wb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        assert nbfiles.remove_stale_temporaries(tmp_path, ["train.npz", "t10k.npz"]) == 0 and temporary.exists()
    assert nbfiles.remove_stale_temporaries(tmp_path, ["train.npz", "t10k.npz"]) == 1 and not temporary.exists()
    assert all(other.exists() for other in others)


def test_concurrent_prepares_agree_and_leave_no_temporaries(tmp_path, synthetic):
    """Four loads of one fresh folder at once (the first sessions of a class on a fresh server): each extracts, cleans and writes; all agree."""
    synthetic.write(tmp_path)
    results, failures = [], []

    def load() -> None:
        try:
            results.append(load_mnist(False, root=tmp_path, download=False))
        except Exception as error:  # any failure is the finding
            failures.append(repr(error))

    threads = [threading.Thread(target=load) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == [] and len(results) == 4
    for images, labels in results:
        assert np.array_equal(images, synthetic.test_images) and np.array_equal(labels, synthetic.test_labels)
    leftovers = [
        path
        for folder in (raw_folder(tmp_path), decoded_cache_path(tmp_path, False).parent)
        for path in folder.glob(".*")
    ]
    assert leftovers == []
    assert data._read_decoded(decoded_cache_path(tmp_path, False), False) is not None  # the cache is whole


@pytest.mark.parametrize("kind", ["directory", "fifo", "device link"])
def test_odd_sms_collection_is_refused_with_a_sentence(tmp_path, kind):
    from nbcore.datasets import sms

    make_odd(tmp_path / sms.SMS_FILE, kind)
    with pytest.raises(sms.SpamDataError, match="not a file; nbcore will not open it"):
        sms.load_sms(tmp_path, download=False)
    assert os.path.lexists(tmp_path / sms.SMS_FILE)


@pytest.mark.parametrize(
    "array",
    [np.zeros((0, 28, 28), np.uint8), np.array("a digest"), np.array(["ab", "cd"]), np.arange(6).reshape(2, 3).T],
    ids=["empty", "0-d string", "strings", "transposed"],
)
def test_every_array_a_cache_can_hold_has_a_digest_of_its_bytes(array):
    """A damaged cache may hold an empty or 0-d array: its digest is computed like any other, never an exception."""
    contiguous = np.ascontiguousarray(array)
    expected = hashlib.sha256(f"{contiguous.dtype.str}{contiguous.shape}".encode() + contiguous.tobytes()).hexdigest()
    assert nbfiles.array_digest(array) == expected
