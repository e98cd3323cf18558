"""SMS spam filtering with naive Bayes over words: data, tokenizer, both event models, tuning on held-out data.

Data: the SMS Spam Collection v.1 (UCI ML repository, dataset 228), one message per
line as ``label<TAB>text`` with label ``ham`` or ``spam``; 5,574 messages, 747 spam.
It is looked for as ``SMSSpamCollection`` in the data directory
(``nbcore.default_data_dir()``, i.e. ``$NBCORE_DATA_DIR`` when set) and downloaded
there only when missing. Labels are 0 = ham, 1 = spam.

Event models (bag of words over the training vocabulary; unknown words are ignored):

* ``multinomial``: a message is a sequence of word draws, p(w | y) = (n(w, y) + k) / (N(y) + k |V|)
  with n(w, y) the count of word w in class-y messages and N(y) all words in them;
* ``bernoulli``: a message is the set of words present, p(w present | y) = (d(w, y) + k) / (d(y) + 2k)
  with d(w, y) the number of class-y messages containing w and d(y) the class size;
  absent words count too.

k > 0 is Laplace's smoothing strength ("pretend every outcome was seen k more times").
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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import files as nbfiles
from .data import ProgressCallback, default_data_dir
from .naive_bayes import PRIORS, BaseNaiveBayes, check_labels, check_number

SMS_FILE = "SMSSpamCollection"
SMS_MD5 = "1949b64a224790d01335c2bf8a0e48b2"
SMS_URL = "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip"
SMS_LABEL_COUNTS = {"ham": 4827, "spam": 747}
LABEL_NAMES = ("ham", "spam")
EVENT_MODELS = ("multinomial", "bernoulli")
K_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
SPLIT_FRACTIONS = (0.6, 0.2, 0.2)
SPLIT_SEED = 0

# Words: runs of letters/digits, with inner apostrophes kept ("don't"); emoji and punctuation are separators.
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


class SpamDataError(RuntimeError):
    """The SMS Spam Collection could not be found, verified or read; the message says how to fix it."""


# -- data on disk ---------------------------------------------------------------------------------
def _fix_hint(root: Path) -> str:
    return (f"Put the original {SMS_FILE} (md5 {SMS_MD5}) in {root}, let the app download it, "
            f"or point NBCORE_DATA_DIR at a folder that has it.")


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
            raise SpamDataError(f"{path}, line {number}, is not 'ham<TAB>text' or 'spam<TAB>text': "
                                f"{line[:60]!r}. {_fix_hint(Path(path).parent)}")
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
        raise SpamDataError(f"{path} is not the original SMS Spam Collection: its md5 is {actual}, "
                            f"expected {SMS_MD5}. Delete it. {_fix_hint(path.parent)}")
    _, labels = _parse_sms(content, path)
    counts = {name: int(np.sum(labels == index)) for index, name in enumerate(LABEL_NAMES)}
    if counts != SMS_LABEL_COUNTS:
        raise SpamDataError(f"{path} has {counts}, expected {SMS_LABEL_COUNTS}. {_fix_hint(path.parent)}")


def verify_sms(path: Path) -> None:
    """Check md5, then that the lines parse and the label counts are 4,827 ham / 747 spam; SpamDataError if not."""
    _verify_content(_read_bytes(Path(path)), Path(path))


def ensure_sms(root: Path | None = None, download: bool = True,
               progress: ProgressCallback | None = None) -> Path:
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
        raise SpamDataError(f"The download from {SMS_URL} is not a zip holding {SMS_FILE} ({error}). "
                            f"{_fix_hint(root)}") from error
    _verify_content(content, target)
    try:
        nbfiles.write_atomically(target, lambda out: out.write(content))
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


def load_sms(root: Path | None = None, download: bool = True,
             progress: ProgressCallback | None = None) -> tuple[list[str], np.ndarray]:
    """All 5,574 messages: (texts, int64 labels (5574,), 0 = ham, 1 = spam), verified first."""
    return read_sms(ensure_sms(root, download=download, progress=progress))


# -- words ----------------------------------------------------------------------------------------
def tokenize(text: str) -> list[str]:
    """Lowercase word tokens of ``text``; punctuation, emoji and spaces separate words, never raise."""
    return _WORD.findall(str(text).lower())


@dataclass(frozen=True)
class Bags:
    """Messages as bags of known words: occurrence ``(doc, word)`` index pairs, int64 (n_occurrences,) each."""

    doc_ids: np.ndarray
    word_ids: np.ndarray
    n_docs: int

    def present(self) -> "Bags":
        """The same messages with each word kept once (presence instead of counts)."""
        pairs = np.unique(np.stack([self.doc_ids, self.word_ids], axis=1), axis=0) if len(self.doc_ids) \
            else np.zeros((0, 2), dtype=np.int64)
        return Bags(pairs[:, 0], pairs[:, 1], self.n_docs)


class Vocabulary:
    """The words seen in training, each with an index 0..n_words-1 (sorted alphabetically)."""

    def __init__(self, token_lists: Sequence[Sequence[str]]):
        self.words = sorted({word for tokens in token_lists for word in tokens})
        self.index = {word: position for position, word in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def bags(self, token_lists: Sequence[Sequence[str]]) -> Bags:
        """Index the known words of every message; unknown words are dropped."""
        doc_ids, word_ids = [], []
        for doc, tokens in enumerate(token_lists):
            known = [self.index[word] for word in tokens if word in self.index]
            word_ids.extend(known)
            doc_ids.extend([doc] * len(known))
        return Bags(np.array(doc_ids, dtype=np.int64), np.array(word_ids, dtype=np.int64), len(token_lists))


# -- the model ------------------------------------------------------------------------------------
class SpamNB(BaseNaiveBayes):
    """Naive Bayes over the words of a message, ``event_model`` "multinomial" or "bernoulli".

    ``fit(texts, y)`` tokenizes, builds the vocabulary and counts; the fitted state is
    ``class_count_`` (2,) and ``word_count_`` (2, n_words) (occurrences for multinomial,
    messages containing the word for bernoulli). ``set_params(k=...)`` re-derives the
    probabilities from the counts without the data. Prediction takes a list of texts.
    """

    n_classes = 2

    def __init__(self, k: float = 1.0, event_model: str = "multinomial", prior: str = "empirical"):
        self.k = k
        self.event_model = event_model
        self.prior = prior
        self._check_params()

    def get_params(self) -> dict:
        return {"k": self.k, "event_model": self.event_model, "prior": self.prior}

    def set_params(self, **params) -> "SpamNB":
        """Change k or prior (re-derived from the counts); event_model is fixed once fitted."""
        if "event_model" in params and params["event_model"] != self.event_model and hasattr(self, "class_count_"):
            raise ValueError("event_model cannot change after fit: the counts differ; fit a new model")
        return super().set_params(**params)

    def _check_params(self) -> None:
        check_number("k", self.k, allow_minimum=False)
        if self.event_model not in EVENT_MODELS:
            raise ValueError(f"event_model must be one of {EVENT_MODELS}, got {self.event_model!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")

    def fit(self, texts: Sequence[str], y) -> "SpamNB":
        """Tokenize, build the vocabulary from these texts, count words per class."""
        tokens = [tokenize(text) for text in texts]
        y = check_labels(y, len(tokens), self.n_classes)
        if not tokens:
            raise ValueError("cannot fit on zero messages")
        self.vocabulary_ = Vocabulary(tokens)
        bags = self._bags(tokens)
        self.class_count_ = np.bincount(y, minlength=2).astype(np.int64)
        self.word_count_ = np.zeros((2, len(self.vocabulary_)), dtype=np.int64)
        np.add.at(self.word_count_, (y[bags.doc_ids], bags.word_ids), 1)
        self._derive_from_counts()
        return self

    def _bags(self, token_lists: Sequence[Sequence[str]]) -> Bags:
        bags = self.vocabulary_.bags(token_lists)
        return bags.present() if self.event_model == "bernoulli" else bags

    def _derive_from_counts(self) -> None:
        """Counts + (k, prior) -> log p(word | y) and the per-word scores."""
        k = float(self.k)
        if self.event_model == "multinomial":
            totals = self.word_count_.sum(axis=1, keepdims=True) + k * self.word_count_.shape[1]
        else:
            totals = self.class_count_[:, None] + 2 * k
        self.feature_log_prob_ = np.log(self.word_count_ + k) - np.log(totals)  # (2, n_words)
        if self.prior == "uniform":
            self.class_log_prior_ = np.full(2, -np.log(2.0))
        else:
            with np.errstate(divide="ignore"):
                self.class_log_prior_ = np.log(self.class_count_) - np.log(self.class_count_.sum())
        if self.event_model == "multinomial":  # each occurrence adds log p(w | y)
            self._word_scores = self.feature_log_prob_
            self._bias = self.class_log_prior_.copy()
        else:  # present words add log p - log(1-p); every word starts absent
            log_absent = np.log1p(-np.exp(self.feature_log_prob_))
            self._word_scores = self.feature_log_prob_ - log_absent
            self._bias = self.class_log_prior_ + log_absent.sum(axis=1)

    def joint_log_likelihood(self, texts: Sequence[str]) -> np.ndarray:
        """log p(message, y) up to a per-message constant: float64 (n_messages, 2)."""
        self._check_fitted()
        if isinstance(texts, str):
            raise TypeError("pass a list of messages, e.g. [text]")
        bags = self._bags([tokenize(text) for text in texts])
        scores = np.tile(self._bias, (bags.n_docs, 1))
        for label in range(2):
            scores[:, label] += np.bincount(bags.doc_ids, weights=self._word_scores[label, bags.word_ids],
                                            minlength=bags.n_docs)
        return scores

    def spam_probability(self, texts: Sequence[str]) -> np.ndarray:
        """p(spam | message): float64 (n_messages,)."""
        return self.predict_proba(texts)[:, 1]

    def explain(self, text: str) -> "Explanation":
        """How every word of one message moves the spam log-odds log p(spam | x) - log p(ham | x)."""
        self._check_fitted()
        tokens = tokenize(text)
        words, counts = np.unique(np.array(tokens, dtype=object), return_counts=True) if tokens \
            else (np.array([], dtype=object), np.array([], dtype=np.int64))
        known = np.array([word in self.vocabulary_.index for word in words], dtype=bool)
        contributions = np.zeros(len(words))
        if known.any():
            ids = np.array([self.vocabulary_.index[word] for word in words[known]], dtype=np.int64)
            per_word = self._word_scores[1, ids] - self._word_scores[0, ids]
            times = counts[known] if self.event_model == "multinomial" else 1
            contributions[known] = per_word * times
        base = float(self._bias[1] - self._bias[0])
        log_odds = base + float(contributions.sum())
        return Explanation(
            words=[str(word) for word in words], counts=counts.astype(np.int64), known=known,
            contributions=contributions, base_log_odds=base, log_odds=log_odds,
            spam_probability=float(log_odds_to_probability(log_odds)),
        )

    def word_table(self, n: int = 15, by: str = "spam") -> dict[str, list]:
        """The top-n words as columns word, p(w|spam), p(w|ham), log-odds log(p(w|spam)/p(w|ham)).

        ``by``: "spam" / "ham" sorts by p(w | that class) (the most frequent words there);
        "spammy" / "hammy" by the log-odds, most indicative of that class first.
        """
        self._check_fitted()
        log_prob = self.feature_log_prob_
        log_odds = log_prob[1] - log_prob[0]
        keys = {"spam": -log_prob[1], "ham": -log_prob[0], "spammy": -log_odds, "hammy": log_odds}
        if by not in keys:
            raise ValueError(f"by must be one of {tuple(keys)}, got {by!r}")
        order = np.lexsort((np.arange(len(log_odds)), keys[by]))[:n]
        return {
            "word": [self.vocabulary_.words[index] for index in order],
            "p(w|spam)": np.exp(log_prob[1, order]).tolist(),
            "p(w|ham)": np.exp(log_prob[0, order]).tolist(),
            "log-odds": log_odds[order].tolist(),
        }


@dataclass(frozen=True)
class Explanation:
    """One message's words (unique, in sorted order) and their share of the spam log-odds."""

    words: list[str]
    counts: np.ndarray  # int64 (n_words,): occurrences in the message
    known: np.ndarray  # bool (n_words,): in the training vocabulary (unknown words add 0)
    contributions: np.ndarray  # float64 (n_words,): nats added to log p(spam|x) - log p(ham|x)
    base_log_odds: float  # prior log-odds, plus (bernoulli) every vocabulary word counted absent
    log_odds: float  # base + sum of contributions
    spam_probability: float


# -- experiment: split, tune k on held-out, test once -------------------------------------------
def stratified_split(labels, fractions: Sequence[float] = SPLIT_FRACTIONS,
                     seed: int = SPLIT_SEED) -> tuple[np.ndarray, ...]:
    """Index arrays (sorted int64) of a seeded split keeping each class's share in every part."""
    labels = np.asarray(labels)
    if not np.isclose(sum(fractions), 1.0) or min(fractions) < 0:
        raise ValueError(f"fractions must be >= 0 and sum to 1, got {fractions}")
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[] for _ in fractions]
    cumulative = np.cumsum(fractions)[:-1]
    for label in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == label))
        cuts = np.round(cumulative * len(members)).astype(int)
        for part, chunk in zip(parts, np.split(members, cuts)):
            part.append(chunk)
    return tuple(np.sort(np.concatenate(part)).astype(np.int64) for part in parts)


@dataclass(frozen=True)
class SpamExperiment:
    """One event model tuned on held-out data and tested once."""

    event_model: str
    model: SpamNB  # fitted on the training part, k set to chosen_k
    k_grid: tuple[float, ...]
    heldout_accuracy: np.ndarray  # (len(k_grid),)
    chosen_k: float
    test_accuracy: float
    baseline_accuracy: float  # the most frequent training label, on the test part
    baseline_label: str
    test_spam_probability: np.ndarray  # (n_test,)
    test_labels: np.ndarray  # int64 (n_test,)

    @property
    def chosen_heldout_accuracy(self) -> float:
        return float(self.heldout_accuracy[self.k_grid.index(self.chosen_k)])

    @property
    def test_probabilities(self) -> np.ndarray:
        """p(ham | x), p(spam | x) per test message: float64 (n_test, 2)."""
        return np.column_stack([1.0 - self.test_spam_probability, self.test_spam_probability])


def run_experiment(texts: Sequence[str], labels, event_model: str = "multinomial",
                   k_grid: Sequence[float] = K_GRID, seed: int = SPLIT_SEED) -> SpamExperiment:
    """Stratified 60/20/20 split; fit once, pick k on held-out (ties: the smaller k), test once."""
    labels = np.asarray(labels, dtype=np.int64)
    train, heldout, test = stratified_split(labels, SPLIT_FRACTIONS, seed)
    train_texts, heldout_texts, test_texts = ([texts[index] for index in part] for part in (train, heldout, test))
    model = SpamNB(k=k_grid[0], event_model=event_model).fit(train_texts, labels[train])
    heldout_accuracy = np.array([model.set_params(k=k).score(heldout_texts, labels[heldout]) for k in k_grid])
    chosen_k = float(k_grid[int(np.argmax(heldout_accuracy))])
    model.set_params(k=chosen_k)
    test_spam_probability = model.spam_probability(test_texts)
    majority = int(np.argmax(np.bincount(labels[train], minlength=2)))
    return SpamExperiment(
        event_model=event_model, model=model, k_grid=tuple(float(k) for k in k_grid),
        heldout_accuracy=heldout_accuracy, chosen_k=chosen_k,
        test_accuracy=model.score(test_texts, labels[test]),
        baseline_accuracy=float(np.mean(labels[test] == majority)), baseline_label=LABEL_NAMES[majority],
        test_spam_probability=test_spam_probability, test_labels=labels[test],
    )


def log_odds_to_probability(log_odds: np.ndarray) -> np.ndarray:
    """Logistic function 1 / (1 + exp(-log_odds)), computed without overflow."""
    return np.exp(-np.logaddexp(0.0, -np.asarray(log_odds, dtype=np.float64)))
