"""Server start-up: load MNIST in the background while Streamlit boots and the first browser loads the page.

``app.py`` hands ``lifespan`` to ``st.App``, so ``streamlit run app.py`` calls it once per server
process, before anyone connects. It starts one thread that loads both MNIST splits (on a first
start that means extracting the *.gz files and importing torchvision: seconds), then imports what
the first page needs (the dashboard's modules, plotly). The first script run takes the loaded
splits with ``take_prefetched`` instead of loading them again, showing the loader's progress while
it waits. Under AppTest, or when no server started this, nothing is prefetched and the app loads
MNIST itself, as before.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from concurrent.futures import Future, TimeoutError
from typing import Callable

# what the first page run imports, warmed in the background after the data
WARM_IMPORTS = ("lab.shell", "lab.figures")


class Prefetch:
    """One background load of both MNIST splits; ``data_dir`` is known once the thread has started."""

    def __init__(self) -> None:
        self.future: Future = Future()  # -> (train_images, train_labels, test_images, test_labels)
        self.data_dir: str | None = None
        self.data_dir_known = threading.Event()
        self.progress: tuple[float, str] = (0.0, "starting")  # latest (fraction in [0, 1], message)

    def run(self) -> None:
        """The thread's body: load the splits into ``future``, then warm the first run's imports."""
        self.future.set_running_or_notify_cancel()
        try:
            import nbcore

            self.data_dir = str(nbcore.default_data_dir())
            self.data_dir_known.set()
            splits = nbcore.load_mnist_splits(root=self.data_dir, progress=self._report)
        except BaseException as error:  # handed to the script run that takes it, which shows the message
            self.future.set_exception(error)
        else:
            self.future.set_result(splits)
        finally:
            self.data_dir_known.set()
        for module in WARM_IMPORTS:
            importlib.import_module(module)

    def _report(self, fraction: float, message: str) -> None:
        self.progress = (fraction, message)

    def result(self, progress: Callable[[float, str], None], poll_seconds: float = 0.1):
        """Wait for the splits, passing each new step of the loader's progress on; re-raises what the load raised."""
        shown = None
        while True:
            try:
                return self.future.result(timeout=poll_seconds)
            except TimeoutError:
                if self.progress != shown:  # the browser redraws the bar on every update
                    shown = self.progress
                    progress(*shown)


_pending: list[Prefetch] = []
_pending_lock = threading.Lock()


def prefetch_mnist() -> Prefetch:
    """Start loading MNIST (from ``$NBCORE_DATA_DIR`` or the default folder) in a daemon thread."""
    job = Prefetch()
    with _pending_lock:
        _pending.append(job)
    threading.Thread(target=job.run, name="nbcore-prefetch", daemon=True).start()
    return job


def take_prefetched(data_dir: str) -> Prefetch | None:
    """The background load for ``data_dir`` if one was started and not taken yet (each is taken once)."""
    with _pending_lock:
        job = _pending.pop() if _pending else None
    if job is None:
        return None
    job.data_dir_known.wait()  # set within a fraction of a second of the thread's start
    return job if job.data_dir == data_dir else None


@contextlib.asynccontextmanager
async def lifespan(_app):
    """``st.App`` start-up hook: begin loading MNIST before the first visitor arrives."""
    print("Naive Bayes Lab: loading MNIST in the background while the server starts", file=sys.stderr, flush=True)
    prefetch_mnist()
    yield
