"""How ``lab/state.py`` shares data and models between sessions: two decorators over ``st.cache_resource``.

``shared`` caches what a function returns for every session of the server, read-only. ``background``
does the same for slow work (loading, training): the work runs in a daemon thread (``lab/jobs.py``),
and a page that needs it waits behind a progress bar it draws itself, only while it actually waits.

Both keep their results in ``STORE`` as well as in Streamlit's cache, because any visitor can send
Streamlit's ``clear_cache`` message (the menu item is hidden, the message is not), and it empties
every ``st.cache_resource`` for all sessions (#18). After such a clear, the cache's miss calls the
function again and gets the same object back from ``STORE`` in microseconds: nothing is reloaded
or retrained and no background job is started a second time.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from lab import jobs


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


class ServerStore:
    """What every session shares, kept for the server's lifetime where a client's ``clear_cache`` cannot reach.

    Each function keeps at most ``max_entries`` results (least recently used dropped first), as its
    cache does; both hold the same objects, so this costs no memory beyond what the caches held
    before a clear.
    """

    def __init__(self) -> None:
        self._values: dict[str, OrderedDict] = {}
        self._making: dict[tuple, threading.Lock] = {}  # one lock per (function, key): each result is made once
        self._lock = threading.Lock()

    def get(self, name: str, key: tuple, make: Callable[[], Any], max_entries: int | None):
        with self._lock:
            values = self._values.setdefault(name, OrderedDict())
            making = self._making.setdefault((name, key), threading.Lock())
        with making:
            with self._lock:
                if key in values:
                    values.move_to_end(key)
                    return values[key]
            value = make()
            with self._lock:
                values[key] = value
                while max_entries is not None and len(values) > max_entries:
                    values.popitem(last=False)
                self._making.pop((name, key), None)
            return value

    def forget(self, name: str, key: tuple | None = None) -> None:
        """Drop one result of ``name`` (every result when ``key`` is None)."""
        with self._lock:
            if key is None:
                self._values.pop(name, None)
            else:
                self._values.get(name, OrderedDict()).pop(key, None)


STORE = ServerStore()


def _bound(signature: inspect.Signature, args: tuple, kwargs: dict) -> tuple:
    """The arguments as one positional tuple, defaults filled in: Streamlit keys a cache entry by the arguments
    as passed, and ``f(1)``, ``f(1, False)`` and ``f(1, deskew=False)`` must share one."""
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
        key: Callable[..., tuple] | None,
        writable: bool,
    ) -> None:
        self._signature, self._name = inspect.signature(function), function.__qualname__
        functools.update_wrapper(self, function)  # its name and docstring

        @functools.wraps(function)  # its module, name and source key the cache, as for any st.cache_resource
        def kept(*args):
            def make():
                value = function(*args)
                return value if writable else read_only(value)

            return STORE.get(self._name, args if key is None else key(*args), make, max_entries)

        self._cached = st.cache_resource(show_spinner=spinner, max_entries=max_entries)(kept)

    def __call__(self, *args, **kwargs):
        return self._cached(*_bound(self._signature, args, kwargs))

    def clear(self) -> None:
        """Drop every result, from the cache and from ``STORE``, as a restart would."""
        STORE.forget(self._name)
        self._cached.clear()


def shared(
    spinner: str | bool = False,
    max_entries: int | None = None,
    key: Callable[..., tuple] | None = None,
    writable: bool = False,
):
    """Cache the decorated function for every session (``st.cache_resource``), kept in ``STORE`` too.

    ``spinner``: the text Streamlit shows while the function runs (False: none). ``key(*args)`` names a
    result in ``STORE`` (default: all arguments; leave out those the cache ignores, ``_x``). Arrays in
    the result are made read-only unless ``writable`` (an object that guards its own state).
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
    ) -> None:
        self._work, self._label, self._stop_on = work, label, stop_on
        signature = inspect.signature(work)
        self._parameters = signature.replace(
            parameters=[parameter for name, parameter in signature.parameters.items() if name != "progress"]
        )
        self._name = work.__qualname__
        functools.update_wrapper(self, work)  # its name and docstring

        def start(*args) -> jobs.BackgroundJob:
            return jobs.BackgroundJob(lambda progress: read_only(work(*args, progress=progress))).start(thread_name)

        def job(*args) -> jobs.BackgroundJob:
            return STORE.get(self._name, args, lambda: start(*args), max_entries)

        # named after the work, whose source keys the cache (an edit to it starts a new cache, as st.cache_resource does)
        job.__module__, job.__qualname__, job.__wrapped__ = work.__module__, f"{self._name}.job", work
        # called with ``arguments(...)``, defaults filled in (see ``_bound``)
        self.job = st.cache_resource(show_spinner=False, max_entries=max_entries)(job)

    def arguments(self, *args, **kwargs) -> tuple:
        """The arguments as one tuple, defaults filled in: the key of the job's cache entry."""
        return _bound(self._parameters, args, kwargs)

    def __call__(self, *args, **kwargs):
        """The result; waits behind a progress bar while the work runs.

        The bar is drawn here, outside the cache and only while waiting, so that later runs have
        nothing to replay. Work that failed leaves the caches, so the next run starts it again; its
        error is raised here, or shown and the run stopped when it is the ``stop_on`` kind.
        """
        arguments = self.arguments(*args, **kwargs)
        job = self.job(*arguments)
        slot = st.empty()  # in every run, so that what follows keeps its place (a canvas that moved would be re-made)
        if not job.future.done():
            label = self._label(*arguments) if callable(self._label) else self._label
            slot.progress(0.0, text=f"{label}…")
            job.wait(lambda fraction, message: slot.progress(min(max(fraction, 0.0), 1.0), text=f"{label}: {message}"))
            slot.empty()
        error = job.future.exception()
        if error is not None:
            STORE.forget(self._name, arguments)
            self.job.clear(*arguments)
            if self._stop_on is not None and isinstance(error, self._stop_on[0]):
                st.error(f"{self._stop_on[1]} {error}")
                st.stop()
        return job.future.result()

    def result(self, *args, **kwargs):
        """The result without a progress bar (waits silently), for other cached functions: a page has called first."""
        return self.job(*self.arguments(*args, **kwargs)).future.result()

    def clear(self) -> None:
        """Drop every result, from the cache and from ``STORE``, as a restart would."""
        STORE.forget(self._name)
        self.job.clear()


def background(
    label: str | Callable[..., str],
    thread_name: str,
    max_entries: int | None = None,
    stop_on: tuple[type[Exception], str] | None = None,
):
    """Make ``work(*args, progress)`` a shared result computed once per server (per arguments) in a daemon thread.

    ``label`` heads the progress bar (or ``label(*args)``); ``thread_name`` names the thread;
    ``stop_on = (error type, sentence)``: such an error is shown as "sentence error" and stops the run.
    Calling the resource waits with a progress bar; ``.result(*args)`` waits silently.
    """

    def decorate(work) -> BackgroundResource:
        return BackgroundResource(work, label, thread_name, max_entries, stop_on)

    return decorate


def is_shared(value) -> bool:
    """Whether ``value`` is a shared function or a background resource (what ``lab/state.py`` declares)."""
    return isinstance(value, (SharedFunction, BackgroundResource))


def forget_shared(*cached: SharedFunction | BackgroundResource) -> None:
    """Drop every result of these shared functions or background resources, as a restart would."""
    for function in cached:
        function.clear()
