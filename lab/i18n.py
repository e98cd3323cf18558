"""The lab's languages: gettext catalogues read with Babel, the reader's language for this run, numbers and times.

Every sentence a person reads goes through ``_`` (or ``ngettext`` when it counts something); a text kept in a
module-level table is marked with ``N_`` and translated where it is shown. Placeholders are named and filled
after translation (``_("Class {code}").format(code=code)``), so a translator can move them; a number is
formatted for the reader (``decimal``, ``integer``, ``percent``) before it goes in.

The catalogues are ``lab/locales/<language>/LC_MESSAGES/messages.po`` (English is the source and needs
none). They are compiled in memory the first time a language is used: a new language is one new ``.po`` file,
no code (``docs/translating.md``). Nothing here imports Streamlit: ``activate`` is called at the start of
every run and fragment run (lab/language.py), and code outside a run (the command line, a test) reads English.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import functools
import gettext
import io
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale, dates, numbers
from babel.messages import mofile, pofile

LOCALES = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"
SOURCE_LANGUAGE = "en"
_CODE = re.compile(r"[a-z]{2,3}")  # a folder that is a language: "zh", "es", "fr" (also what a link may ask for)


class Language:
    """One language: its code (``zh``: the folder and ``?lang=zh``), Babel's locale and its compiled catalogue."""

    def __init__(
        self, code: str, locale: Locale, translations: gettext.NullTranslations, team: str | None = None
    ) -> None:
        self.code, self.locale, self.translations = code, locale, translations
        # the catalogue's "Language-Team" when it is a name, not gettext's "es <LL@li.org>" placeholder
        self._own_name = team if team and "@" not in team else None

    @property
    def name(self) -> str:
        """The language's name in itself ("简体中文", "Español"), as a reader looks for it: the catalogue's
        Language-Team, else Babel's name of its locale."""
        name = self._own_name or self.locale.get_display_name(self.locale) or self.code
        return name[:1].upper() + name[1:]

    @property
    def tag(self) -> str:
        """The BCP 47 tag for ``<html lang>`` and ``lang`` attributes: "zh-Hans", "es", "en"."""
        return "-".join(part for part in (self.locale.language, self.locale.script, self.locale.territory) if part)


def catalogue_path(code: str) -> Path:
    """Where the catalogue of language ``code`` lives."""
    return LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def languages() -> dict[str, Language]:
    """Every language the lab speaks, by code: English first, then one per catalogue folder (read once per process).

    A catalogue's fuzzy entries are left out, so that a translation marked for review is never shown."""
    found = {SOURCE_LANGUAGE: Language(SOURCE_LANGUAGE, Locale.parse(SOURCE_LANGUAGE), gettext.NullTranslations())}
    for folder in sorted(LOCALES.iterdir()) if LOCALES.is_dir() else ():
        path = catalogue_path(folder.name)
        if not (_CODE.fullmatch(folder.name) and path.is_file()):
            continue
        with path.open("rb") as file:
            catalogue = pofile.read_po(file, domain=DOMAIN)
        compiled = io.BytesIO()
        mofile.write_mo(compiled, catalogue, use_fuzzy=False)
        compiled.seek(0)
        locale = catalogue.locale or Locale.parse(folder.name)
        found[folder.name] = Language(folder.name, locale, gettext.GNUTranslations(compiled), catalogue.language_team)
    return found


_current: contextvars.ContextVar[Language | None] = contextvars.ContextVar("language", default=None)


# where a thread that was never given a language finds its reader's (a widget's callback, a fragment's run: each
# starts in a thread of its own); lab/language.py sets it to read the session's choice
def _no_reader() -> str | None:
    return None


_reader_language: Callable[[], str | None] = _no_reader


def read_reader_language_with(resolve: Callable[[], str | None]) -> None:
    """``resolve()`` names the reader's language where no run has activated one (None: English)."""
    global _reader_language
    _reader_language = resolve


def activate(code: str) -> Language:
    """Make ``code`` (a key of ``languages()``; anything else means English) the language of this run."""
    language = languages().get(code) or languages()[SOURCE_LANGUAGE]
    _current.set(language)
    return language


@contextlib.contextmanager
def speaking(code: str) -> Iterator[Language]:
    """``code`` as the language inside the block (a test, a figure built for another reader)."""
    token = _current.set(languages().get(code) or languages()[SOURCE_LANGUAGE])
    try:
        yield current()
    finally:
        _current.reset(token)


def current() -> Language:
    """The language of this run (English outside one)."""
    language = _current.get()
    if language is None:
        language = activate(_reader_language() or SOURCE_LANGUAGE)
    return language


def best_match(requested: str | None) -> str | None:
    """The lab's language for a browser's or link's ``requested`` one ("zh-CN", "es-419", "es"), or None."""
    if not requested:
        return None
    code = str(requested).strip().replace("_", "-").split("-")[0].lower()
    return code if code in languages() else None


def _(message: str) -> str:
    """``message`` in the reader's language."""
    return current().translations.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a counted message for ``count`` in the reader's language (its own plural rules)."""
    return current().translations.ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in the reader's language, where the same English word means two things (``context`` tells)."""
    return current().translations.pgettext(context, message)


def sentences(*parts: str) -> str:
    """Translated sentences one after another: a space after one that ends with a Latin mark, none after a
    full-width one ("。", as Chinese writes); empty parts left out."""
    joined = ""
    for part in parts:
        if joined and part and not joined.endswith(("。", "！", "？", "：", "；")):
            joined += " "
        joined += part
    return joined


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it: a table's text, translated where it is shown."""
    return message


def decimal(value: float, places: int) -> str:
    """``value`` with ``places`` decimals in the reader's form: 0.8427, 0,8427; −192.16 with a true minus sign
    where the locale uses one."""
    pattern = _pattern("#,##0" + ("." + "0" * places if places > 0 else ""))
    return pattern.apply(_rounded(value, places), current().locale)


def _rounded(value: float, places: int) -> Decimal:
    """``value`` rounded as Python's own formatting rounds it (the float's exact value, half to even), so that every
    language shows the digits English shows: Babel would round the float's shortest repr, 1.85 to 1.8 not 1.9."""
    return Decimal(f"{value:.{max(places, 0)}f}")


def integer(value: int) -> str:
    """A count in the reader's form: 5,923 in English, 5.923 in Spanish."""
    return _pattern("#,##0").apply(int(value), current().locale)


def percent(fraction: float, places: int = 0) -> str:
    """``fraction`` (0.843) as a percentage in the reader's form, its sign where the locale puts it: 84.3%, 84,3 %."""
    locale = current().locale
    pattern = locale.percent_formats[None].pattern.replace("#,##0", "#,##0" + ("." + "0" * places if places else ""), 1)
    return _pattern(pattern).apply(_rounded(fraction * 100, places) / 100, locale)


@functools.lru_cache(maxsize=64)
def _pattern(text: str) -> numbers.NumberPattern:
    """A number pattern parsed once (Babel parses the text on every call, half of a number's time)."""
    return numbers.parse_pattern(text)


def plotly_separators() -> str:
    """Plotly's ``layout.separators`` for the reader: its decimal sign then its thousands sign (".," in English)."""
    locale = current().locale
    return numbers.get_decimal_symbol(locale) + numbers.get_group_symbol(locale)


def zone(name: str | None) -> dt.tzinfo:
    """The time zone a browser names (``st.context.timezone``), or the server's when it names none we know."""
    try:
        return ZoneInfo(name) if name else _server_zone()
    except (ZoneInfoNotFoundError, ValueError):
        return _server_zone()


def _server_zone() -> dt.tzinfo:
    return dt.datetime.now().astimezone().tzinfo or dt.UTC


def clock(moment: float, reader_zone: dt.tzinfo, now: float | None = None) -> str:
    """A moment (Unix seconds) as the reader says it in their zone: "04:44", or with the day when it is not
    today ("Nov 29, 04:44", "29 nov, 4:44")."""
    when = dt.datetime.fromtimestamp(moment, reader_zone)
    today = dt.datetime.fromtimestamp(dt.datetime.now().timestamp() if now is None else now, reader_zone).date()
    locale = current().locale
    time = dates.format_time(when, format="short", locale=locale)
    if when.date() == today:
        return time
    day = dates.format_skeleton("MMMd", when, locale=locale)
    return _("{day}, {time}").format(day=day, time=time)
