"""``python -m devtools.benchmarks languages``: what translation adds to a page's run, and the catalogues' coverage.

For each page, one AppTest session per language (English, then every catalogue's) is opened and warmed, then run
``repeats`` times in turn, in the same process, so that the languages meet the same machine. Two figures per page:
the median run in each language, and the time spent translating in the translated languages' runs (catalogue
look-ups and ``lab.i18n``'s number formatting, measured by timing those calls) as a share of the run: the page time
added by translation. English runs look messages up too (gettext's empty catalogue), so the difference between
the medians is a second, noisier view of the same cost.
"""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from collections.abc import Iterator

from babel.messages import pofile
from streamlit.testing.v1 import AppTest

from devtools.bench_report import markdown_table
from lab import i18n

ROOT = i18n.LOCALES.parents[1]
PAGES = ("pages/home.py", "pages/draw.py", "pages/lesson.py", "pages/mixture.py", "pages/teach.py")


class _Clock:
    """Seconds spent inside the timed calls (the script runs in AppTest's thread: one lock, one total)."""

    def __init__(self) -> None:
        self.seconds, self.calls, self._lock = 0.0, 0, threading.Lock()

    def timed(self, function):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                with self._lock:
                    self.seconds += time.perf_counter() - started
                    self.calls += 1

        return wrapper


@contextlib.contextmanager
def _timing_translation(clock: _Clock) -> Iterator[None]:
    """Time every catalogue look-up and number format of ``lab.i18n`` while the block runs."""
    saved: list[tuple[object, str, object]] = []
    for language in i18n.languages().values():
        for name in ("gettext", "ngettext", "pgettext"):
            saved.append((language.translations, name, getattr(language.translations, name)))
            setattr(language.translations, name, clock.timed(getattr(language.translations, name)))
    for name in ("decimal", "integer", "percent"):  # called as i18n.decimal(…) everywhere
        saved.append((i18n, name, getattr(i18n, name)))
        setattr(i18n, name, clock.timed(getattr(i18n, name)))
    try:
        yield
    finally:
        for owner, name, original in saved:
            if owner is i18n:
                setattr(owner, name, original)
            else:
                delattr(owner, name)  # the instance's wrapper goes; the class's method is back


def _app(page: str, code: str) -> AppTest:
    script = f"import sys; sys.path.insert(0, {str(ROOT)!r})\nfrom lab import shell\nshell.run(default_page={page!r})\n"
    app = AppTest.from_string(script, default_timeout=240)
    app.query_params["lang"] = code
    return app


def coverage() -> list[list[str]]:
    """Per language: messages in its catalogue and the share translated (not empty, not fuzzy)."""
    rows = []
    for code in i18n.languages():
        if code == i18n.SOURCE_LANGUAGE:
            continue
        with i18n.catalogue_path(code).open("rb") as file:
            catalogue = pofile.read_po(file)
        messages = [message for message in catalogue if message.id]
        done = [
            message
            for message in messages
            if not message.fuzzy
            and all(message.string if isinstance(message.string, (tuple, list)) else [message.string])
        ]
        rows.append([i18n.languages()[code].name, str(len(messages)), f"{len(done) / len(messages):.1%}"])
    return rows


def run_bench_languages(repeats: int = 9) -> dict[str, float]:
    """Print the coverage table and the page-time table; return each page's translation share (0..1)."""
    print(markdown_table(["language", "messages", "translated"], coverage()))
    codes = list(i18n.languages())
    rows, shares = [], {}
    for page in PAGES:
        apps = {code: _app(page, code) for code in codes}
        for code, app in apps.items():
            with i18n.speaking(code):  # AppTest writes each choice as shown, in this thread: in the page's language
                app.run()  # warm: MNIST, the models, the figures' caches
                app.run()
        runs: dict[str, list[float]] = {code: [] for code in codes}
        clock = _Clock()
        with _timing_translation(clock):
            for repeat in range(repeats):
                for code in codes[repeat % len(codes) :] + codes[: repeat % len(codes)]:  # each language first in turn
                    before = clock.seconds
                    started = time.perf_counter()
                    with i18n.speaking(code):
                        apps[code].run()
                    elapsed = time.perf_counter() - started
                    runs[code].append(elapsed)
                    if code != i18n.SOURCE_LANGUAGE:
                        runs[f"{code} translating"] = [*runs.get(f"{code} translating", []), clock.seconds - before]
        medians = {code: statistics.median(runs[code]) for code in codes}
        translated = [code for code in codes if code != i18n.SOURCE_LANGUAGE]
        spent = statistics.median(x for code in translated for x in runs[f"{code} translating"])
        run = statistics.median(medians[code] for code in translated)
        shares[page] = spent / run
        rows.append(
            [page]
            + [f"{medians[code] * 1000:.0f} ms" for code in codes]
            + [f"{spent * 1000:.2f} ms", f"{spent / run:.2%}"]
        )
    headers = ["page"] + [f"run, {i18n.languages()[code].name}" for code in codes] + ["translating", "share"]
    print(markdown_table(headers, rows))
    print(
        f"Median of {repeats} runs per page and language (AppTest, one process, after two warm runs); "
        "'translating': catalogue look-ups and number formats in a translated run, median."
    )
    return shares
