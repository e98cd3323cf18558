"""The SMS spam pipeline: data checks, download path (network faked), tokenizer, both event models."""

from __future__ import annotations

import io
import os
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB as SklearnBernoulliNB
from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB

from lab.figures import bar_charts, diagnostics, line_charts
from nbcore import metrics
from nbcore.datasets import sms as sms_data
from nbcore.experiments import spam
from tests.conftest import REPO, require

SHARED_SMS = REPO.parent / "shared" / "sms-spam" / sms_data.SMS_FILE


@pytest.fixture(scope="session")
def sms_path() -> Path:
    """The real SMSSpamCollection: in $NBCORE_DATA_DIR, else ../shared/sms-spam."""
    configured = os.environ.get("NBCORE_DATA_DIR")
    if configured and (Path(configured) / sms_data.SMS_FILE).exists():
        return Path(configured) / sms_data.SMS_FILE
    require(SHARED_SMS.exists(), f"the SMS Spam Collection is missing (not in NBCORE_DATA_DIR, not {SHARED_SMS})")
    return SHARED_SMS


@pytest.fixture(scope="session")
def sms(sms_path):
    return sms_data.load_sms(sms_path.parent, download=False)


@pytest.fixture(scope="session")
def experiments(sms):
    texts, labels = sms
    return {event_model: spam.run_experiment(texts, labels, event_model) for event_model in spam.EVENT_MODELS}


# -- data -------------------------------------------------------------------------------------------
def test_real_file_loads_with_expected_counts(sms):
    texts, labels = sms
    assert len(texts) == 5574 and int(labels.sum()) == 747
    assert texts[0].startswith("Go until jurong point")


def test_missing_file_without_download_says_where(tmp_path):
    with pytest.raises(sms_data.SpamDataError, match="missing from") as caught:
        sms_data.ensure_sms(tmp_path, download=False)
    assert "NBCORE_DATA_DIR" in str(caught.value)


def test_corrupt_file_is_refused_clearly(tmp_path, sms_path):
    content = sms_path.read_bytes()
    (tmp_path / sms_data.SMS_FILE).write_bytes(content[: len(content) // 2])
    with pytest.raises(sms_data.SpamDataError, match="md5"):
        sms_data.load_sms(tmp_path, download=True)
    assert (tmp_path / sms_data.SMS_FILE).exists()  # a user's file is never deleted or overwritten


def test_malformed_lines_are_named(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("ham\tfine\nnot a message line\n", encoding="utf-8")
    with pytest.raises(sms_data.SpamDataError, match="line 2"):
        sms_data.read_sms(bad)


def test_download_without_network_gives_clear_error(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    with pytest.raises(sms_data.SpamDataError, match="could not be downloaded") as caught:
        sms_data.load_sms(tmp_path, download=True)
    assert "Without a network connection" in str(caught.value) and str(tmp_path) in str(caught.value)
    assert list(tmp_path.iterdir()) == []  # no partial files left behind


class FakeResponse(io.BytesIO):
    """What urlopen returns: a readable body with headers, usable as a context manager."""

    def __init__(self, body: bytes):
        super().__init__(body)
        self.headers = {"Content-Length": str(len(body))}


def zipped(name: str, content: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr(name, content)
        bundle.writestr("readme", b"SMS Spam Collection v.1")
    return buffer.getvalue()


def test_download_extracts_verifies_and_reports_progress(tmp_path, monkeypatch, sms_path):
    body = zipped(sms_data.SMS_FILE, sms_path.read_bytes())
    requested = []
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: requested.append(url) or FakeResponse(body))
    reports = []
    path = sms_data.ensure_sms(
        tmp_path / "fresh", progress=lambda fraction, message: reports.append((fraction, message))
    )
    assert requested == [sms_data.SMS_URL]
    assert path == tmp_path / "fresh" / sms_data.SMS_FILE and path.read_bytes() == sms_path.read_bytes()
    assert sorted(item.name for item in path.parent.iterdir()) == [sms_data.SMS_FILE]
    fractions = [fraction for fraction, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and 0 < fractions[0] < 1


@pytest.mark.parametrize(
    "body",
    [
        b"<html>503 Service Unavailable</html>",
        zipped("other.txt", b"ham\thello\n"),
        zipped(sms_data.SMS_FILE, b"ham\thello\n"),
    ],
)
def test_bad_download_is_refused_and_leaves_nothing(tmp_path, monkeypatch, body):
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: FakeResponse(body))
    with pytest.raises(sms_data.SpamDataError, match="not a zip|md5"):
        sms_data.ensure_sms(tmp_path)
    assert list(tmp_path.iterdir()) == []


# -- words --------------------------------------------------------------------------------------------
def test_tokenizer_on_ordinary_and_odd_input():
    assert sms_data.tokenize("FREE entry!! Call 0800-123, don't wait") == [
        "free",
        "entry",
        "call",
        "0800",
        "123",
        "don't",
        "wait",
    ]
    assert sms_data.tokenize("") == []
    assert sms_data.tokenize("😀🎉 !!! ...") == []
    assert sms_data.tokenize("party🎉time") == ["party", "time"]
    assert sms_data.tokenize("Ünïcödé café") == ["ünïcödé", "café"]
    assert sms_data.tokenize("snake_case") == ["snake", "case"]
    long_text = "win " * 50_000
    assert sms_data.tokenize(long_text) == ["win"] * 50_000
    assert sms_data.tokenize("x" * 100_000) == ["x" * 100_000]


def test_explain_is_consistent_and_handles_odd_messages(sms):
    texts, labels = sms
    for event_model in spam.EVENT_MODELS:
        vocabulary, model = spam.fit_text_model(texts[:3000], labels[:3000], event_model, alpha=0.5)
        for message in [
            "",
            "🎉😀",
            "WINNER claim your prize now",
            "ok see you at home",
            "x" * 100_000,
            "free " * 20_000,
            "zzzunknownword",
        ]:
            explanation = spam.explain(vocabulary, model, message)
            probability = spam.spam_probability(vocabulary, model, [message])[0]
            assert 0 <= explanation.spam_probability <= 1
            assert explanation.spam_probability == pytest.approx(probability, rel=1e-9, abs=1e-12)
            assert explanation.log_odds == pytest.approx(explanation.base_log_odds + explanation.contributions.sum())
        empty = spam.explain(vocabulary, model, "")
        assert empty.words == [] and empty.log_odds == empty.base_log_odds
        unknown = spam.explain(vocabulary, model, "zzzunknownword")
        assert unknown.known.tolist() == [False] and unknown.contributions.tolist() == [0.0]


@pytest.mark.parametrize(
    "event_model, reference", [("multinomial", SklearnMultinomialNB), ("bernoulli", SklearnBernoulliNB)]
)
def test_both_event_models_match_sklearn(sms, event_model, reference):
    """To 1e-10 in log probabilities, with the words counted by scikit-learn's own CountVectorizer."""
    texts, labels = sms
    train, test = list(texts[:4000]), list(texts[4000:])
    vocabulary, ours = spam.fit_text_model(train, labels[:4000], event_model, alpha=0.3)
    vectorizer = CountVectorizer(
        tokenizer=sms_data.tokenize, lowercase=False, token_pattern=None, vocabulary=vocabulary.words
    )
    theirs = reference(alpha=0.3).fit(vectorizer.transform(train), labels[:4000])
    words, their_words = spam.word_matrix(vocabulary, ours, test), vectorizer.transform(test)
    np.testing.assert_allclose(ours.predict_log_proba(words), theirs.predict_log_proba(their_words), rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(words), theirs.predict_joint_log_proba(their_words), rtol=0, atol=1e-10
    )
    np.testing.assert_array_equal(ours.predict(words), theirs.predict(their_words))
    # learned in two batches, the same model
    halves = spam.text_model(event_model, 0.3)
    for rows in (slice(0, 1500), slice(1500, 4000)):
        halves.partial_fit(spam.word_matrix(vocabulary, ours, train[rows]), labels[rows], classes=[0, 1])
    np.testing.assert_allclose(halves.predict_log_proba(words), ours.predict_log_proba(words), rtol=0, atol=1e-10)


def test_k_is_rederived_from_counts(sms):
    texts, labels = sms
    vocabulary, model = spam.fit_text_model(texts[:2000], labels[:2000], alpha=1.0)
    counts = model.feature_count_.copy()
    model.set_params(alpha=0.01)
    np.testing.assert_array_equal(model.feature_count_, counts)
    _, fresh = spam.fit_text_model(texts[:2000], labels[:2000], alpha=0.01)
    words = spam.word_matrix(vocabulary, model, texts[2000:2500])
    np.testing.assert_allclose(model.predict_log_proba(words), fresh.predict_log_proba(words))
    with pytest.raises(ValueError, match="alpha must be"):
        model.set_params(alpha=0)
    assert model.alpha == 0.01
    with pytest.raises(ValueError, match="unknown parameter"):  # the event model is the class, not a parameter
        model.set_params(event_model="bernoulli")


def test_word_tables_point_the_right_way(sms):
    texts, labels = sms
    vocabulary, model = spam.fit_text_model(texts, labels, alpha=1.0)
    spammy, hammy = spam.word_table(vocabulary, model, 10, "spammy"), spam.word_table(vocabulary, model, 10, "hammy")
    assert min(spammy["log-odds"]) > 0 > max(hammy["log-odds"])
    assert spammy["log-odds"] == sorted(spammy["log-odds"], reverse=True)
    assert {"claim", "prize"} <= set(spam.word_table(vocabulary, model, 20, "spammy")["word"])
    frequent = spam.word_table(vocabulary, model, 10, "spam")["p(w|spam)"]
    assert frequent == sorted(frequent, reverse=True)


# -- experiment ---------------------------------------------------------------------------------------
def test_split_is_stratified_seeded_and_disjoint(sms):
    _, labels = sms
    train, heldout, test = spam.stratified_split(labels)
    assert all(
        len(np.intersect1d(first, second)) == 0 for first, second in ((train, heldout), (train, test), (heldout, test))
    )
    assert len(train) + len(heldout) + len(test) == len(labels)
    assert [len(part) for part in (train, heldout, test)] == [3344, 1116, 1114]  # rounded per class
    for part in (train, heldout, test):
        assert labels[part].mean() == pytest.approx(747 / 5574, abs=0.002)
    np.testing.assert_array_equal(spam.stratified_split(labels)[2], test)


def test_tuned_models_beat_the_baseline_by_a_wide_margin(experiments):
    for experiment in experiments.values():
        assert experiment.baseline_label == "ham"
        assert experiment.baseline_accuracy == pytest.approx(0.8662, abs=1e-4)  # 965 ham of 1114 test messages
        # measured: multinomial 0.9874 (alpha = 0.01), bernoulli 0.9919 (alpha = 0.03)
        assert experiment.test_accuracy > experiment.baseline_accuracy + 0.10
        assert experiment.test_accuracy > 0.97
        assert experiment.chosen_heldout_accuracy == max(experiment.heldout_accuracy)
        assert experiment.chosen_alpha in experiment.alpha_grid
    # strong smoothing hurts: the largest alpha is never the best
    assert all(result.heldout_accuracy[-1] < result.chosen_heldout_accuracy for result in experiments.values())


def test_spam_figures(experiments):
    experiment = experiments["multinomial"]
    calibration = metrics.reliability(experiment.test_probabilities, experiment.test_labels, n_bins=20)
    assert calibration.count[:10].sum() == 0  # two classes: the top posterior is at least 0.5
    histogram = diagnostics.confidence_histogram(
        calibration.bin_edges, calibration.count, calibration.accuracy, "title", x_min=0.5
    )
    assert [trace.name for trace in histogram.data] == ["correct", "wrong"]
    assert all(len(trace.x) == 10 for trace in histogram.data)
    assert sum(sum(trace.y) for trace in histogram.data) == len(experiment.test_labels)
    wrong = int(np.sum((experiment.test_spam_probability > 0.5) != (experiment.test_labels == 1)))
    assert sum(histogram.data[1].y) == wrong == round((1 - experiment.test_accuracy) * len(experiment.test_labels))
    # the lab's one reliability diagram (lab.figures), as Compare draws it: the diagonal, then a point per filled bin
    diagram = diagnostics.reliability_diagram(
        {"multinomial": (calibration.confidence, calibration.accuracy, calibration.count, calibration.ece)},
        "title",
        unit="messages",
        x_min=0.5,
    )
    assert [trace.type for trace in diagram.data] == ["scatter", "scatter"]
    assert len(diagram.data[1].x) == int(np.sum(calibration.count > 0))
    explanation = spam.explain(experiment.vocabulary, experiment.model, "FREE prize " + "y" * 5000 + " 😀")
    bars = bar_charts.word_contributions(
        explanation.words, explanation.contributions, explanation.known, "prior", explanation.base_log_odds, "title"
    )
    labels = list(bars.layout.yaxis.ticktext)
    assert labels[0] == "prior" and len(labels) == 4 and max(len(label) for label in labels) < 50
    curve = line_charts.curves(
        experiment.alpha_grid,
        {"m": experiment.heldout_accuracy},
        "k",
        "acc",
        "t",
        log_x=True,
        marked={"m": experiment.chosen_alpha},
    )
    assert curve.data[1].x[0] == experiment.chosen_alpha
