"""The spam experiment: naive Bayes over the words of SMS messages, smoothing tuned on held-out data.

Event models (bag of words over the training vocabulary; unknown words are ignored):

* ``multinomial`` (``MultinomialNB`` over word counts): a message is a sequence of word draws,
  p(w | y) = (n(w, y) + alpha) / (N(y) + alpha |V|) with n(w, y) the count of word w in
  class-y messages and N(y) all words in them;
* ``bernoulli`` (``BernoulliNB`` over word presence, beta = alpha): a message is the set of
  words present, p(w present | y) = (d(w, y) + alpha) / (d(y) + 2 alpha) with d(w, y) the number
  of class-y messages containing w and d(y) the class size; absent words count too.

alpha > 0 is Laplace's smoothing strength ("pretend every outcome was seen alpha more times");
the Spam page calls it k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ..datasets.sms import LABEL_NAMES, Vocabulary, tokenize
from ..models.bernoulli import BernoulliNB
from ..models.multinomial import MultinomialNB

EVENT_MODELS = ("multinomial", "bernoulli")
ALPHA_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
SPLIT_FRACTIONS = (0.6, 0.2, 0.2)
SPLIT_SEED = 0
SPAM = 1  # the label of spam (0 is ham)

TextModel = BernoulliNB | MultinomialNB


def text_model(event_model: str, alpha: float) -> TextModel:
    """An unfitted model of this event model: MultinomialNB(alpha) or BernoulliNB(alpha, beta=alpha)."""
    if event_model == "multinomial":
        return MultinomialNB(alpha=alpha)
    if event_model == "bernoulli":
        return BernoulliNB(alpha=alpha)
    raise ValueError(f"event_model must be one of {EVENT_MODELS}, got {event_model!r}")


def word_matrix(vocabulary: Vocabulary, model: TextModel, texts: Sequence[str]):
    """The messages as the matrix ``model`` reads: word counts for MultinomialNB, presence for BernoulliNB."""
    return vocabulary.transform(texts, binary=isinstance(model, BernoulliNB))


def fit_text_model(
    texts: Sequence[str], labels, event_model: str = "multinomial", alpha: float = 1.0
) -> tuple[Vocabulary, TextModel]:
    """Build the vocabulary of these messages and fit the event model's counts: (vocabulary, model)."""
    if isinstance(texts, str):
        raise TypeError("pass a list of messages, e.g. [text]")
    model = text_model(event_model, alpha)
    vocabulary = Vocabulary(texts)
    return vocabulary, model.fit(word_matrix(vocabulary, model, texts), labels)


def spam_probability(vocabulary: Vocabulary, model: TextModel, texts: Sequence[str]) -> np.ndarray:
    """p(spam | message): float64 (n_messages,)."""
    spam_column = int(np.searchsorted(model.classes_, SPAM))
    return model.predict_proba(word_matrix(vocabulary, model, texts))[:, spam_column]


# -- what a model says about one message, and about words ----------------------------------------
def _word_scores(model: TextModel) -> tuple[np.ndarray, float]:
    """Per-word spam log-odds (n_words,) a present word (bernoulli) or each occurrence (multinomial) adds,
    and the base log-odds of a message with no known word."""
    ham, spam = np.searchsorted(model.classes_, [0, SPAM])
    prior = float(model.class_log_prior_[spam] - model.class_log_prior_[ham])
    if isinstance(model, MultinomialNB):  # each occurrence adds log p(w | y)
        return model.feature_log_prob_[spam] - model.feature_log_prob_[ham], prior
    present = model.feature_log_prob_ - model.feature_log_neg_prob_  # present words swap log(1-p) for log p
    absent = model.feature_log_neg_prob_.sum(axis=1)  # every word starts absent
    return present[spam] - present[ham], prior + float(absent[spam] - absent[ham])


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


def explain(vocabulary: Vocabulary, model: TextModel, text: str) -> Explanation:
    """How every word of one message moves the spam log-odds log p(spam | x) - log p(ham | x)."""
    model._check_fitted()
    tokens = tokenize(text)
    words, counts = (
        np.unique(np.array(tokens, dtype=object), return_counts=True)
        if tokens
        else (np.array([], dtype=object), np.array([], dtype=np.int64))
    )
    known = np.array([word in vocabulary.index for word in words], dtype=bool)
    per_word, base = _word_scores(model)
    contributions = np.zeros(len(words))
    if known.any():
        ids = np.array([vocabulary.index[word] for word in words[known]], dtype=np.int64)
        times = counts[known] if isinstance(model, MultinomialNB) else 1
        contributions[known] = per_word[ids] * times
    log_odds = base + float(contributions.sum())
    return Explanation(
        words=[str(word) for word in words],
        counts=counts.astype(np.int64),
        known=known,
        contributions=contributions,
        base_log_odds=base,
        log_odds=log_odds,
        spam_probability=float(expit(log_odds)),
    )


def word_table(vocabulary: Vocabulary, model: TextModel, n: int = 15, by: str = "spam") -> dict[str, list]:
    """The top-n words as columns word, p(w|spam), p(w|ham), log-odds log(p(w|spam)/p(w|ham)).

    ``by``: "spam" / "ham" sorts by p(w | that class) (the most frequent words there);
    "spammy" / "hammy" by the log-odds, most indicative of that class first.
    """
    model._check_fitted()
    ham, spam = np.searchsorted(model.classes_, [0, SPAM])
    log_prob = model.feature_log_prob_
    log_odds = log_prob[spam] - log_prob[ham]
    keys = {"spam": -log_prob[spam], "ham": -log_prob[ham], "spammy": -log_odds, "hammy": log_odds}
    if by not in keys:
        raise ValueError(f"by must be one of {tuple(keys)}, got {by!r}")
    order = np.lexsort((np.arange(len(log_odds)), keys[by]))[:n]
    return {
        "word": [vocabulary.words[index] for index in order],
        "p(w|spam)": np.exp(log_prob[spam, order]).tolist(),
        "p(w|ham)": np.exp(log_prob[ham, order]).tolist(),
        "log-odds": log_odds[order].tolist(),
    }


# -- experiment: split, tune alpha on held-out, test once ---------------------------------------
def stratified_split(
    labels, fractions: Sequence[float] = SPLIT_FRACTIONS, seed: int = SPLIT_SEED
) -> tuple[np.ndarray, ...]:
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
    vocabulary: Vocabulary  # the words of the training part
    model: TextModel  # fitted on the training part, alpha set to chosen_alpha
    alpha_grid: tuple[float, ...]
    heldout_accuracy: np.ndarray  # (len(alpha_grid),)
    chosen_alpha: float
    test_accuracy: float
    baseline_accuracy: float  # the most frequent training label, on the test part
    baseline_label: str
    test_spam_probability: np.ndarray  # (n_test,)
    test_labels: np.ndarray  # int64 (n_test,)

    @property
    def chosen_heldout_accuracy(self) -> float:
        return float(self.heldout_accuracy[self.alpha_grid.index(self.chosen_alpha)])

    @property
    def test_probabilities(self) -> np.ndarray:
        """p(ham | x), p(spam | x) per test message: float64 (n_test, 2)."""
        return np.column_stack([1.0 - self.test_spam_probability, self.test_spam_probability])


def run_experiment(
    texts: Sequence[str],
    labels,
    event_model: str = "multinomial",
    alpha_grid: Sequence[float] = ALPHA_GRID,
    seed: int = SPLIT_SEED,
) -> SpamExperiment:
    """Stratified 60/20/20 split; fit once, pick alpha on held-out (ties: the smaller alpha), test once."""
    labels = np.asarray(labels, dtype=np.int64)
    train, heldout, test = stratified_split(labels, SPLIT_FRACTIONS, seed)
    train_texts, heldout_texts, test_texts = ([texts[index] for index in part] for part in (train, heldout, test))
    vocabulary, model = fit_text_model(train_texts, labels[train], event_model, alpha_grid[0])
    heldout_words, test_words = (word_matrix(vocabulary, model, part) for part in (heldout_texts, test_texts))
    heldout_accuracy = np.array(
        [model.set_params(alpha=alpha).score(heldout_words, labels[heldout]) for alpha in alpha_grid]
    )
    chosen_alpha = float(alpha_grid[int(np.argmax(heldout_accuracy))])
    model.set_params(alpha=chosen_alpha)
    majority = int(np.argmax(np.bincount(labels[train], minlength=2)))
    return SpamExperiment(
        event_model=event_model,
        vocabulary=vocabulary,
        model=model,
        alpha_grid=tuple(float(alpha) for alpha in alpha_grid),
        heldout_accuracy=heldout_accuracy,
        chosen_alpha=chosen_alpha,
        test_accuracy=model.score(test_words, labels[test]),
        baseline_accuracy=float(np.mean(labels[test] == majority)),
        baseline_label=LABEL_NAMES[majority],
        test_spam_probability=spam_probability(vocabulary, model, test_texts),
        test_labels=labels[test],
    )
