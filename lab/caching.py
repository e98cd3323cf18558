"""How ``lab/data/`` shares data and models between sessions: two decorators, one store per function.

``shared`` keeps what a function returns for every session of the server, read-only. ``background``
does the same for slow work (loading, training): the work runs in a daemon thread (``lab/jobs.py``),
and a page that needs it waits behind a progress bar it draws itself, only while it actually waits
and only after ``QUIET_WAIT`` seconds (a result read from disk comes sooner, and flashes no bar).

Neither uses ``st.cache_resource``: any visitor can send Streamlit's ``clear_cache`` message (the
menu item is hidden, the message is not), and Streamlit answers it by emptying every
``st.cache_data`` and ``st.cache_resource`` for all sessions (``AppSession._handle_clear_cache_request``).
Each decorated function keeps its results in its own ``Results`` instead, which no message reaches:
only ``clear()`` (a restart, a test) empties it. Reloading a ``lab/data/`` module after an edit makes new
functions with new, empty stores, as an edited ``st.cache_resource`` function would start a new cache.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import dataclasses
import functools
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import streamlit as st

from lab import i18n, jobs, runs
from lab.i18n import _

# A background result read from disk takes well under a second: a progress bar for that would only flash
# (and move what follows it), so a run waits this long in silence before it draws the bar.
QUIET_WAIT = 1.0

# set while a shared function computes: a function it calls shows no spinner of its own (Streamlit's caches do the same)
_computing: contextvars.ContextVar[bool] = contextvars.ContextVar("computing", default=False)


def read_only(value, _seen: set[int] | None = None):
    """Mark every numpy array reachable from ``value`` read-only and return ``value``.

    Walks dataclass fields, dict values, tuples and lists, and the attributes of nbcore objects
    (fitted models), so that no session can change what all sessions share.
    """
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return value
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            read_only(getattr(value, field.name), seen)
    elif isinstance(value, dict):
        for item in value.values():
            read_only(item, seen)
    elif isinstance(value, (tuple, list)):
        for item in value:
            read_only(item, seen)
    elif type(value).__module__.startswith("nbcore") and hasattr(value, "__dict__"):
        for item in vars(value).values():
            read_only(item, seen)
    return value


class Results:
    """Results by key, at most ``max_entries`` of them (least recently used dropped first).

    Each result is made once: sessions asking for the same key at once wait for the first one's
    ``make``, while other keys are made and read meanwhile. A ``make`` that raises stores nothing.
    """

    def __init__(self, max_entries: int | None = None) -> None:
        self.max_entries = max_entries
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        self._making: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()  # guards both dictionaries, never held while a result is made

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
            making = self._making.setdefault(key, threading.Lock())
        if not making.acquire(blocking=False):
            with runs.waiting():  # another session is making it: this run's turn goes to another meanwhile
                making.acquire()
        try:
            with self._lock:
                if key in self._values:  # made by the session this one waited for
                    return self._values[key]
            try:
                value = make()
            except BaseException:
                with self._lock:
                    self._making.pop(key, None)
                raise
            with self._lock:  # stored and its lock dropped at once: a caller in between would make it again
                self._values[key] = value
                self._making.pop(key, None)
                while self.max_entries is not None and len(self._values) > self.max_entries:
                    self._values.popitem(last=False)
            return value
        finally:
            making.release()

    def forget(self, key: Hashable | None = None) -> None:
        """Drop the result of ``key`` (every result when ``key`` is None)."""
        with self._lock:
            if key is None:
                self._values.clear()
            else:
                self._values.pop(key, None)

    def __len__(self) -> int:
        return len(self._values)

    def peek(self, key: Hashable) -> Any | None:
        """The stored result of ``key``, or None: nothing is made or waited for."""
        with self._lock:
            return self._values.get(key)


def _bound(signature: inspect.Signature, args: tuple, kwargs: dict) -> tuple:
    """The arguments as one positional tuple, defaults filled in, so that ``f(1)``, ``f(1, False)`` and
    ``f(1, deskew=False)`` find one result."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())


class SharedFunction:
    """A function whose results every session shares; see ``shared``."""

    def __init__(
        self,
        function: Callable,
        spinner: str | bool,
        max_entries: int | None,
        key: Callable[..., Hashable] | None,
        writable: bool,
    ) -> None:
        functools.update_wrapper(self, function)  # its name and docstring
        self._function, self._key, self._writable = function, key, writable
        self._spinner: str | None = (
            spinner if isinstance(spinner, str) else f"Running `{function.__qualname__}(…)`." if spinner else None
        ) or None
        self._signature = inspect.signature(function)
        self.results = Results(max_entries)

    def __call__(self, *args, **kwargs):
        arguments = _bound(self._signature, args, kwargs)
        key = arguments if self._key is None else self._key(*arguments)
        return self.results.get(key, lambda: self._make(arguments))

    def _make(self, arguments: tuple):
        waiting = st.spinner(_(self._spinner)) if self._spinner and not _computing.get() else contextlib.nullcontext()
        token = _computing.set(True)
        try:
            with waiting:
                value = self._function(*arguments)
        finally:
            _computing.reset(token)
        return value if self._writable else read_only(value)

    def clear(self) -> None:
        """Drop every result, as a restart would."""
        self.results.forget()


def shared(
    spinner: str | bool = False,
    max_entries: int | None = None,
    key: Callable[..., Hashable] | None = None,
    writable: bool = False,
):
    """Keep the decorated function's results for every session of the server, out of a client's reach.

    ``spinner``: the text shown while the function runs (True: its name; False: none). ``key(*args)``
    names a result (default: all arguments; give it when an argument is not hashable, ``_splits``).
    Arrays in the result are made read-only unless ``writable`` (an object that guards its own state).
    """

    def decorate(function) -> SharedFunction:
        return SharedFunction(function, spinner, max_entries, key, writable)

    return decorate


class BackgroundResource:
    """A shared result made by slow work in a daemon thread; see ``background``."""

    def __init__(
        self,
        work: Callable,
        label: str | Callable[..., str],
        thread_name: str,
        max_entries: int | None,
        stop_on: tuple[type[Exception], str] | None,
        in_sidebar: bool,
    ) -> None:
        functools.update_wrapper(self, work)  # its name and docstring
        self._work, self._label, self._thread_name, self._stop_on = work, label, thread_name, stop_on
        self._in_sidebar = in_sidebar
        signature = inspect.signature(work)
        self._parameters = signature.replace(
            parameters=[parameter for name, parameter in signature.parameters.items() if name != "progress"]
        )
        self.jobs = Results(max_entries)

    def arguments(self, *args, **kwargs) -> tuple:
        """The arguments as one tuple, defaults filled in: the key of the job."""
        return _bound(self._parameters, args, kwargs)

    def job(self, *arguments) -> jobs.BackgroundJob:
        """The job for these ``arguments(...)``, started on the first call."""

        def work(progress: jobs.ProgressCallback):
            return read_only(self._work(*arguments, progress=progress))

        return self.jobs.get(arguments, lambda: jobs.BackgroundJob(work).start(self._thread_name))

    def __call__(self, *args, **kwargs):
        """The result; waits behind a progress bar while the work runs.

        The bar is drawn only after ``QUIET_WAIT`` seconds of waiting and only while waiting, so that later
        runs draw nothing there. Work that failed is forgotten, so the next run starts it again; its error
        is raised here, or shown and the run stopped when it is the ``stop_on`` kind.
        """
        arguments = self.arguments(*args, **kwargs)
        job = self.job(*arguments)
        # in every run, so that what follows keeps its place (a canvas that moved would be re-made)
        slot = st.sidebar.empty() if self._in_sidebar else st.empty()
        with runs.waiting():  # another session's run may draw meanwhile
            concurrent.futures.wait([job.future], timeout=QUIET_WAIT)
        if not job.future.done():
            label = self._label(*arguments) if callable(self._label) else _(self._label)
            slot.progress(0.0, text=f"{label}…")

            # the label and how much is done, in the reader's language: nbcore's step messages are the command line's
            def show(fraction: float, _message: str) -> None:
                done = min(max(fraction, 0.0), 1.0)
                slot.progress(done, text=_("{task}: {percent} done").format(task=label, percent=i18n.percent(done)))

            with runs.waiting():
                job.wait(show)
            slot.empty()
        error = job.future.exception()
        if error is not None:
            self.jobs.forget(arguments)
            if self._stop_on is not None and isinstance(error, self._stop_on[0]):
                # the reason in the reader's language; the error's own words (what to run) are the command line's
                st.error(_("{sentence} {reason}").format(sentence=_(self._stop_on[1]), reason=error))
                st.stop()
        return job.future.result()

    def done(self, *args, **kwargs) -> bool:
        """Whether the work for these arguments has finished without an error (nothing is started)."""
        job = self.jobs.peek(self.arguments(*args, **kwargs))
        return job is not None and job.future.done() and job.future.exception() is None

    def result(self, *args, **kwargs):
        """The result without a progress bar (waits silently), for other shared functions: a page has called first."""
        return self.job(*self.arguments(*args, **kwargs)).future.result()

    def clear(self) -> None:
        """Drop every result, as a restart would (a job still running finishes unseen)."""
        self.jobs.forget()


def background(
    label: str | Callable[..., str],
    thread_name: str,
    max_entries: int | None = None,
    stop_on: tuple[type[Exception], str] | None = None,
    in_sidebar: bool = False,
):
    """Make ``work(*args, progress)`` a shared result computed once per server (per arguments) in a daemon thread.

    ``label`` heads the progress bar (or ``label(*args)``); ``thread_name`` names the thread;
    ``stop_on = (error type, sentence)``: such an error is shown as "sentence error" and stops the run;
    ``in_sidebar``: the bar goes in the sidebar, under the settings, so that the page (a canvas) never moves.
    Calling the resource waits with a progress bar; ``.result(*args)`` waits silently.
    """

    def decorate(work) -> BackgroundResource:
        return BackgroundResource(work, label, thread_name, max_entries, stop_on, in_sidebar)

    return decorate


def is_shared(value) -> bool:
    """Whether ``value`` is a shared function or a background resource (what ``lab/data/`` declares)."""
    return isinstance(value, (SharedFunction, BackgroundResource))


def forget_shared(*cached: SharedFunction | BackgroundResource) -> None:
    """Drop every result of these shared functions or background resources, as a restart would."""
    for function in cached:
        function.clear()
