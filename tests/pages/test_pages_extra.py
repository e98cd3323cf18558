"""The Gaussian NB, Spam filter and XOR pages under AppTest: each runs cleanly and its main control changes it.

Each page runs inside a small navigation of its own (plus the Smoothing page it links to), so
the test does not depend on where the app's page list registers it.
"""

from __future__ import annotations

import json
import shutil

import pytest
from streamlit.testing.v1 import AppTest

from nbcore.datasets import sms
from tests.apptest import rerun
from tests.conftest import REPO, require

TIMEOUT = 240
SHARED_SMS = REPO.parent / "shared" / "sms-spam" / sms.SMS_FILE


@pytest.fixture(scope="module", autouse=True)
def data_dir(mnist_root, tmp_path_factory):
    """A data directory with MNIST and the SMS Spam Collection, as NBCORE_DATA_DIR for the pages."""
    if (mnist_root / sms.SMS_FILE).exists():
        root = mnist_root
    else:
        require(SHARED_SMS.exists(), f"the SMS Spam Collection is missing (not beside MNIST, not {SHARED_SMS})")
        root = tmp_path_factory.mktemp("pages_data")
        for entry in mnist_root.iterdir():  # MNIST stays where it is, linked
            (root / entry.name).symlink_to(entry.resolve(), target_is_directory=entry.is_dir())
        shutil.copy(SHARED_SMS, root / sms.SMS_FILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NBCORE_DATA_DIR", str(root))
        yield root


def open_page(page: str) -> AppTest:
    """Run ``page`` (relative to the repository) as the landing page of a navigation that also has Smoothing."""
    script = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
        "import streamlit as st\n"
        f"st.navigation([st.Page({str(REPO / page)!r}, default=True),"
        f" st.Page({str(REPO / 'pages/smoothing.py')!r})]).run()\n"
    )
    app = AppTest.from_string(script, default_timeout=TIMEOUT)
    return rerun(app)


def metric(app: AppTest, label_start: str) -> str:
    found = [item for item in app.metric if item.label.startswith(label_start)]
    assert found, f"no metric starting {label_start!r} among {[item.label for item in app.metric]}"
    return found[0].value


def chart(app: AppTest, index: int) -> dict:
    return json.loads(app.get("plotly_chart")[index].proto.spec)


@pytest.mark.slow
def test_gaussian_page_features_and_var_smoothing():
    app = open_page("pages/gaussian.py")
    assert metric(app, "Test accuracy at var_smoothing = 1e-09") == "0.5558"
    regions = chart(app, 0)
    assert [trace["type"] for trace in regions["data"]].count("contour") == 3
    app.selectbox(key="gauss_x").set_value(0)
    rerun(app)
    assert chart(app, 0)["layout"]["xaxis"]["title"]["text"].startswith("sepal length")
    app.selectbox(key="gauss_y").set_value(0)  # the same feature twice: a warning, no figure, no error
    rerun(app)
    assert app.warning and "different features" in app.warning[0].value
    app.select_slider(key="gauss_var_smoothing").set_value(0.1)
    rerun(app)
    assert float(metric(app, "Test accuracy at var_smoothing = 1e-01")) > 0.8


@pytest.mark.slow
def test_spam_page_event_model_and_message_box():
    app = open_page("pages/spam.py")
    multinomial_test = metric(app, "Test accuracy")
    baseline = metric(app, "Baseline")
    assert float(multinomial_test) > float(baseline) + 0.1
    assert float(metric(app, "p(spam | message)")) > 0.9  # the example is spam
    spammy, hammy, frequent_spam, frequent_ham = (table.value for table in app.table)
    assert all(len(table) == 10 for table in (spammy, hammy, frequent_spam, frequent_ham))
    assert {"claim", "prize"} <= set(spammy["word"]) and spammy["log-odds"].iloc[0].startswith("+")
    assert hammy["log-odds"].iloc[0].startswith("−") and "× 10" in frequent_ham["p(w|spam)"].iloc[0]
    app.radio(key="spam_event_model").set_value("bernoulli")
    rerun(app)
    assert metric(app, "Test accuracy") != multinomial_test
    app.text_area(key="spam_message").set_value("Are we still meeting for lunch at 1?")
    rerun(app)
    assert float(metric(app, "p(spam | message)")) < 0.1


@pytest.mark.slow
@pytest.mark.parametrize(
    "message, outcome",
    [
        ("", "No words found"),
        ("😀🎉👍", "No words found"),
        ("x" * 100_000, "p(spam | message)"),
        ("free " * 20_000, "p(spam | message)"),
    ],
)
def test_spam_page_odd_messages_give_a_clear_outcome(message, outcome):
    app = open_page("pages/spam.py")
    app.text_area(key="spam_message").set_value(message)
    rerun(app)
    shown = [item.value for item in app.info] + [item.label for item in app.metric]
    assert any(text.startswith(outcome) for text in shown), shown


@pytest.mark.slow
def test_xor_page_smoothing_changes_the_network_not_naive_bayes():
    app = open_page("pages/xor.py")
    assert metric(app, "Naive Bayes accuracy") == "0.50"
    assert metric(app, "Network accuracy") == "1.00"
    network_table = app.dataframe[1].value
    app.select_slider(key="xor_k").set_value(0.0)
    rerun(app)
    assert app.dataframe[1].value["p(x₂ = 1 | x₁ = 0, y)"].tolist() == [0.0, 1.0]
    assert not app.dataframe[1].value.equals(network_table)
    assert (app.dataframe[0].value["p(x₁ = 1 | y)"] == 0.5).all()
    assert metric(app, "Naive Bayes accuracy") == "0.50"
    assert [link.proto.label for link in app.get("page_link")] == ["Smoothing: what α = β = 0 does to MNIST"]


@pytest.mark.slow
def test_xor_answers_wait_behind_show_the_answer():
    app = open_page("pages/xor.py")
    [answer] = [block for block in app.expander if block.label == "Show the answer"]
    assert not answer.proto.expanded  # folded until the student asks
    assert {item.label for item in answer.metric} == {"Naive Bayes accuracy", "Network accuracy"}
    # every answer is inside: the page shows no table, chart or accuracy outside it
    assert len(answer.dataframe) == len(app.dataframe) == 3 and len(answer.metric) == len(app.metric)
    assert len(answer.get("plotly_chart")) == len(app.get("plotly_chart")) == 1


def test_spam_page_without_the_file_and_offline_explains_how_to_get_it(tmp_path, monkeypatch):
    empty = tmp_path / "no-sms"
    empty.mkdir()
    monkeypatch.setenv("NBCORE_DATA_DIR", str(empty))
    monkeypatch.setattr(sms, "SMS_URL", "http://127.0.0.1:9/sms.zip")  # nothing listens there: offline
    script = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\nimport streamlit as st\n"
        f"st.navigation([st.Page({str(REPO / 'pages/spam.py')!r}, default=True)]).run()\n"
    )
    app = AppTest.from_string(script, default_timeout=TIMEOUT).run()
    assert not app.exception, [item.value for item in app.exception]
    text = " ".join(item.value for item in app.markdown)
    assert "SMS Spam Collection" in text and "NBCORE_DATA_DIR" in text
    assert [item.value for item in app.code] == ['python -c "from nbcore.datasets import sms; print(sms.ensure_sms())"']
    assert app.error and "could not be downloaded" in app.error[0].value  # the reason, under the explanation
    # every visitor reads this page: what to set, never where the server keeps its files
    shown = text + " ".join(item.value for item in app.error)
    assert str(empty) not in shown and str(tmp_path) not in shown, shown
    assert not (empty / sms.SMS_FILE).exists()
