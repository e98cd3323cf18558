"""lab/startup.py: the server loads MNIST in the background at start-up and hands it to the first script run."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from lab import caching
from lab.data import mnist as shared_mnist
from tests.conftest import REPO

HOME = (
    f"import sys; sys.path.insert(0, {str(REPO)!r})\nfrom lab import shell\nshell.run(default_page='pages/home.py')\n"
)


@pytest.fixture
def fresh_cache(mnist_root, monkeypatch):
    """MNIST from ``mnist_root``, no splits cached in memory and no prefetch pending, before and after."""
    monkeypatch.setenv("NBCORE_DATA_DIR", str(mnist_root))
    caching.forget_shared(shared_mnist._published)
    while shared_mnist.take_prefetched(str(mnist_root)) is not None:
        pass
    yield mnist_root
    caching.forget_shared(shared_mnist._published)


def counting_loader(monkeypatch, replacement=None) -> list[str]:
    """Replace nbcore.load_mnist_splits by a wrapper that records the calling thread's name."""
    calls = []
    inner = replacement or nbcore.load_mnist_splits

    def load(*args, **kwargs):
        calls.append(threading.current_thread().name)
        return inner(*args, **kwargs)

    monkeypatch.setattr(nbcore, "load_mnist_splits", load)
    return calls


def home_metric(app: AppTest) -> str:
    return next(item.value for item in app.metric if item.label == "Test accuracy (10,000 images)")


@pytest.mark.slow
def test_the_first_run_takes_the_prefetched_splits_instead_of_loading_them_again(fresh_cache, monkeypatch):
    calls = counting_loader(monkeypatch)
    shared_mnist.prefetch()
    app = AppTest.from_string(HOME, default_timeout=180)
    app.run()
    assert not app.exception and not app.error
    assert home_metric(app) == "0.8427"
    assert calls == ["nbcore-prefetch"], "MNIST was loaded again by the page instead of taken from the prefetch"
    assert shared_mnist.take_prefetched(str(fresh_cache)) is None  # each prefetch is taken once


@pytest.mark.slow
def test_a_failed_prefetch_shows_its_message_and_the_next_visit_loads_again(fresh_cache, monkeypatch, caplog):
    real_loader = nbcore.load_mnist_splits

    def broken(*args, **kwargs):
        raise nbcore.MnistDataError(f"train-images-idx3-ubyte is missing from {fresh_cache} (test).")

    counting_loader(monkeypatch, broken)
    shared_mnist.prefetch()
    app = AppTest.from_string(HOME, default_timeout=180)
    app.run()
    assert not app.exception
    # the page says what to set, not where the server keeps its files; the server's log names the folder
    assert [item.value for item in app.error] == [
        f"MNIST is not available. train-images-idx3-ubyte is missing from the data folder (test). "
        f"{shared_mnist.WHAT_TO_SET}"
    ]
    assert str(fresh_cache) in caplog.text
    calls = counting_loader(monkeypatch, real_loader)  # the folder is fixed: a new visit loads it
    app.run()
    assert not app.exception and not app.error and home_metric(app) == "0.8427"
    assert calls == ["nbcore-load"]


def test_waiting_for_the_prefetch_passes_its_progress_on(monkeypatch, tmp_path):
    """Each step is passed on once, however many polls find no news: the loader moves on only after 10 such polls."""
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))
    polls: list[float] = []
    polled = {10: threading.Event(), 20: threading.Event()}

    def slow(root, download=True, progress=None):
        progress(0.5, "Checking train-images-idx3-ubyte")
        polled[10].wait(60)
        progress(0.9, "Decoding")
        polled[20].wait(60)
        return ("arrays",)

    monkeypatch.setattr(nbcore, "load_mnist_splits", slow)
    job = shared_mnist.prefetch()
    assert shared_mnist.take_prefetched(str(tmp_path / "elsewhere")) is None  # another folder: not this load
    exception = job.future.exception

    def counted_poll(timeout=None):
        polls.append(timeout)
        if len(polls) in polled:
            polled[len(polls)].set()
        return exception(timeout=timeout)

    monkeypatch.setattr(job.future, "exception", counted_poll)
    seen = []
    job.wait(lambda fraction, message: seen.append((fraction, message)), poll_seconds=0.01)
    assert job.future.result() == ("arrays",) and len(polls) >= 20
    assert seen in (
        [(0.5, "Checking train-images-idx3-ubyte"), (0.9, "Decoding")],
        [(0.0, "starting"), (0.5, "Checking train-images-idx3-ubyte"), (0.9, "Decoding")],
    )


@pytest.mark.slow
def test_once_everything_is_loaded_a_run_sends_no_progress_bar(fresh_cache, monkeypatch):
    """Progress bars exist only while a run waits: bars replayed from the caches flashed on every rerun."""
    from streamlit.delta_generator import DeltaGenerator

    draw = HOME.replace("pages/home.py", "pages/draw.py")  # MNIST and the softmax regression
    app = AppTest.from_string(draw, default_timeout=180)
    app.run()
    assert not app.exception and not app.error
    sent, enqueue = [], DeltaGenerator._enqueue

    def recording(self, delta_type, *args, **kwargs):
        sent.append(delta_type)
        return enqueue(self, delta_type, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "_enqueue", recording)
    app.run()
    assert not app.exception and not app.error
    assert "heading" in sent and "progress" not in sent, sent


WARMED_THEN_EVERY_IMPORT = f"""
import ast, pathlib, sys
sys.path.insert(0, {str(REPO)!r})
from lab import startup
startup.warm_imports()
before = set(sys.modules)
root = pathlib.Path({str(REPO)!r})
for path in sorted([*root.glob("pages/*.py"), *root.glob("lab/**/*.py")]):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            exec(compile(ast.Module([node], []), str(path), "exec"), {{}})
print(sorted(name for name in set(sys.modules) - before if name.startswith(("lab", "nbcore", "plotly", "PIL", "pandas"))))
"""


@pytest.mark.slow
def test_the_start_up_imports_leave_nothing_for_a_page_to_import_first():
    """Every import statement of the pages and lab/, run after warm_imports in a fresh process, loads nothing new."""
    done = subprocess.run([sys.executable, "-c", WARMED_THEN_EVERY_IMPORT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", f"imported only when a page first ran: {done.stdout}"


def test_the_start_up_tunes_the_spam_filter_only_on_messages_already_in_the_data_folder(monkeypatch, tmp_path):
    """A server started without the SMS collection downloads nothing no visitor asked for."""
    from lab.caching import forget_shared
    from lab.data import spam_filter
    from nbcore.datasets import sms

    def no_download(*args, **kwargs):
        raise AssertionError("the start-up tried to download the SMS collection")

    monkeypatch.setattr(sms, "_download_and_extract", no_download)
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))
    forget_shared(spam_filter._experiments)
    spam_filter.tune()
    assert len(spam_filter._experiments.results) == 0
