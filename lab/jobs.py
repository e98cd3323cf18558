"""Slow work in a daemon thread, so that a page can wait for it behind a progress bar it draws itself.

Work that takes seconds (loading MNIST, training softmax) may be waited for by several sessions at
once, and each should see how far it has got. So the shared results in ``lab/data/`` hold a
``BackgroundJob``: the work reports its progress to the job, and every page that needs the result
draws its own bar from it, only while it actually waits (a later run, with the work done, draws
nothing there).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, TimeoutError
from typing import Any

ProgressCallback = Callable[[float, str], None]  # (fraction in [0, 1], message)


class BackgroundJob:
    """``work(progress)`` in a daemon thread: its result or exception in ``future``, its latest step in ``progress``."""

    def __init__(self, work: Callable[[ProgressCallback], Any]) -> None:
        self.work = work
        self.future: Future = Future()
        self.progress: tuple[float, str] = (0.0, "starting")

    def start(self, thread_name: str) -> BackgroundJob:
        threading.Thread(target=self.run, name=thread_name, daemon=True).start()
        return self

    def run(self) -> None:
        """The thread's body: ``work``'s result or exception goes to ``future``."""
        self.future.set_running_or_notify_cancel()
        try:
            result = self.work(self._report)
        except BaseException as error:  # handed to the script run that waits for it, which shows the message
            self.future.set_exception(error)
        else:
            self.future.set_result(result)

    def _report(self, fraction: float, message: str) -> None:
        self.progress = (fraction, message)

    def wait(self, progress: ProgressCallback, poll_seconds: float = 0.1) -> None:
        """Block until the job has ended, either way, passing each new progress step on once."""
        shown = None
        while True:
            try:
                self.future.exception(timeout=poll_seconds)  # returns once the job has ended
                return
            except TimeoutError:
                if self.progress != shown:  # the browser redraws the bar on every update
                    shown = self.progress
                    progress(*shown)
