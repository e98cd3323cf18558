"""The SMS Spam Collection: find, verify, download and read it; and turn messages into count matrices.

Data: the SMS Spam Collection v.1 (UCI ML repository, dataset 228), one message per
line as ``label<TAB>text`` with label ``ham`` or ``spam``; 5,574 messages, 747 spam.
It is looked for as ``SMSSpamCollection`` in the data directory
(``nbcore.datasets.default_data_dir()``, i.e. ``$NBCORE_DATA_DIR`` when set) and downloaded
there only when missing. Labels are 0 = ham, 1 = spam.

Text -> matrix: ``tokenize`` splits a message into lowercase words; a ``Vocabulary`` built
from the training messages maps them to columns, and ``Vocabulary.transform`` gives the
(n_messages, n_words) matrix of word counts (or of presence, ``binary=True``) that
``MultinomialNB`` (or ``BernoulliNB``) reads. Words outside the vocabulary are dropped.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse

from .. import files as nbfiles
from ..progress import ProgressCallback
from . import default_data_dir, how_to_fix

SMS_FILE = "SMSSpamCollection"
SMS_MD5 = "1949b64a224790d01335c2bf8a0e48b2"
SMS_URL = "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip"
SMS_LABEL_COUNTS = {"ham": 4827, "spam": 747}
LABEL_NAMES = ("ham", "spam")

# Words: runs of letters/digits, with inner apostrophes kept ("don't"); emoji and punctuation are separators.
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


class SpamDataError(RuntimeError):
    """The SMS Spam Collection could not be found, verified or read; the message says how to fix it."""


# -- data on disk ---------------------------------------------------------------------------------
def _fix_hint(root: Path) -> str:
    return how_to_fix(f"the original {SMS_FILE} (md5 {SMS_MD5})", root, plural=False)


def _parse_sms(content: bytes, path: Path) -> tuple[list[str], np.ndarray]:
    """Parse ``label<TAB>text`` lines of ``path``'s bytes: (texts, int64 labels (n,), 0 = ham, 1 = spam)."""
    try:
        text_content = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SpamDataError(f"{path} is not UTF-8 text ({error}). {_fix_hint(Path(path).parent)}") from error
    texts, labels = [], []
    for number, line in enumerate(text_content.splitlines(), start=1):
        label, tab, text = line.partition("\t")
        if not tab or label not in LABEL_NAMES:
            raise SpamDataError(
                f"{path}, line {number}, is not 'ham<TAB>text' or 'spam<TAB>text': "
                f"{line[:60]!r}. {_fix_hint(Path(path).parent)}"
            )
        texts.append(text)
        labels.append(LABEL_NAMES.index(label))
    return texts, np.array(labels, dtype=np.int64)


def _read_bytes(path: Path) -> bytes:
    """The bytes of a regular file (a directory, FIFO or device is refused unopened); SpamDataError if unreadable."""
    try:
        with nbfiles.open_regular(path) as handle:
            return handle.read()
    except FileNotFoundError as error:
        raise SpamDataError(f"{path} is missing. {_fix_hint(Path(path).parent)}") from error
    except OSError as error:
        raise SpamDataError(f"{error} {_fix_hint(Path(path).parent)}") from error


def read_sms(path: Path) -> tuple[list[str], np.ndarray]:
    """Parse ``label<TAB>text`` lines: (texts, int64 labels (n,) with 0 = ham, 1 = spam).

    Raises SpamDataError naming the first bad line (no tab, unknown label, not UTF-8), or why
    the file cannot be read.
    """
    return _parse_sms(_read_bytes(Path(path)), Path(path))


def _verify_content(content: bytes, path: Path) -> None:
    """Check md5, then that the lines parse and the label counts are 4,827 ham / 747 spam; SpamDataError if not."""
    actual = hashlib.md5(content).hexdigest()
    if actual != SMS_MD5:
        raise SpamDataError(
            f"{path} is not the original SMS Spam Collection: its md5 is {actual}, "
            f"expected {SMS_MD5}. Delete it. {_fix_hint(path.parent)}"
        )
    _, labels = _parse_sms(content, path)
    counts = {name: int(np.sum(labels == index)) for index, name in enumerate(LABEL_NAMES)}
    if counts != SMS_LABEL_COUNTS:
        raise SpamDataError(f"{path} has {counts}, expected {SMS_LABEL_COUNTS}. {_fix_hint(path.parent)}")


def verify_sms(path: Path) -> None:
    """Check md5, then that the lines parse and the label counts are 4,827 ham / 747 spam; SpamDataError if not."""
    _verify_content(_read_bytes(Path(path)), Path(path))


def ensure_sms(root: str | Path | None = None, download: bool = True, progress: ProgressCallback | None = None) -> Path:
    """The path of a verified ``SMSSpamCollection`` in ``root`` (default: the data directory).

    A file already there is verified, never replaced. When missing and ``download`` is
    true, the public zip is fetched, the file extracted through a temporary name,
    verified and renamed into place. Raises SpamDataError with a fix-it message.
    """
    root = Path(root) if root is not None else default_data_dir()
    target = root / SMS_FILE
    nbfiles.remove_stale_temporaries(root, (SMS_FILE,))
    if os.path.lexists(target):
        if progress:
            progress(0.0, f"Checking {target}")
        verify_sms(target)
    elif not download:
        raise SpamDataError(f"{SMS_FILE} is missing from {root}. {_fix_hint(root)}")
    else:
        _download_and_extract(root, target, progress)
    if progress:
        progress(1.0, "SMS Spam Collection ready")
    return target


def _download_and_extract(root: Path, target: Path, progress: ProgressCallback | None) -> None:
    """Fetch the zip into memory (about 200 kB), verify the member, write it through ``nbcore.files``."""
    archive = io.BytesIO()
    _download(SMS_URL, archive, root, progress)
    if progress:
        progress(0.95, f"Extracting {SMS_FILE}")
    try:
        with zipfile.ZipFile(archive) as bundle:
            content = bundle.read(SMS_FILE)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, zlib.error) as error:
        raise SpamDataError(
            f"The download from {SMS_URL} is not a zip holding {SMS_FILE} ({error}). {_fix_hint(root)}"
        ) from error
    _verify_content(content, target)
    try:
        nbfiles.write_atomically(target, lambda out: out.writelines([content]))
    except OSError as error:
        raise SpamDataError(f"Could not save {SMS_FILE}: {error}") from error


def _download(url: str, out, root: Path, progress: ProgressCallback | None) -> None:
    """Stream ``url`` into the open binary file ``out``, reporting progress in [0, 0.9]."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            total = int(response.headers.get("Content-Length") or 0)
            received = 0
            for block in iter(lambda: response.read(1 << 16), b""):
                out.write(block)
                received += len(block)
                if progress:
                    fraction = 0.9 * min(received / total, 1.0) if total else 0.0
                    progress(fraction, f"Downloading the SMS Spam Collection: {received / 1e6:.2f} MB")
    except (urllib.error.URLError, OSError, ValueError) as error:  # URLError covers HTTP errors
        raise SpamDataError(
            f"{SMS_FILE} is not in {root} and could not be downloaded from {url} ({error}). "
            f"Without a network connection, copy {SMS_FILE} into {root} or set NBCORE_DATA_DIR "
            "to a folder that has it."
        ) from error


def load_sms(
    root: str | Path | None = None, download: bool = True, progress: ProgressCallback | None = None
) -> tuple[list[str], np.ndarray]:
    """All 5,574 messages: (texts, int64 labels (5574,), 0 = ham, 1 = spam), verified first."""
    return read_sms(ensure_sms(root, download=download, progress=progress))


# -- words ----------------------------------------------------------------------------------------
def tokenize(text: str) -> list[str]:
    """Lowercase word tokens of ``text``; punctuation, emoji and spaces separate words, never raise."""
    return _WORD.findall(str(text).lower())


class Vocabulary:
    """The words of the training messages, each a column 0..n_words-1 (sorted alphabetically)."""

    def __init__(self, texts: Iterable[str]):
        self.words = sorted({word for text in texts for word in tokenize(text)})
        self.index = {word: position for position, word in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def transform(self, texts: Sequence[str], binary: bool = False) -> scipy.sparse.csr_array:
        """Messages -> int64 CSR (n_messages, n_words): how often each known word occurs (1/0 if ``binary``)."""
        if isinstance(texts, str):
            raise TypeError("pass a list of messages, e.g. [text]")
        rows, columns = [], []
        for row, text in enumerate(texts):
            known = [self.index[word] for word in tokenize(text) if word in self.index]
            columns.extend(known)
            rows.extend([row] * len(known))
        counts = scipy.sparse.csr_array(
            (np.ones(len(rows), dtype=np.int64), (rows, columns)), shape=(len(texts), len(self.words))
        )
        counts.sum_duplicates()
        if binary:
            counts.data[:] = 1
        return counts
