"""``python -m nbcore``: every flag validated (a usage error, never a traceback), every --json line is JSON."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from devtools.benchmarks import __main__ as benchmarks_cli
from nbcore import __main__ as cli
from nbcore.cli.output import json_safe
from nbcore.datasets import mnist as mnist_data
from nbcore.inputs import InputForm
from nbcore.prepared import mnist as prepared_mnist
from tests.conftest import require_sklearn, run_nbcore


def strict_json(text: str) -> dict:
    """Parse as RFC 8259 JSON: NaN, Infinity and -Infinity are refused."""

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--alpha", "1e308"],
        ["evaluate", "--alpha", "-1"],
        ["evaluate", "--alpha", "nan"],
        ["evaluate", "--alpha", "inf"],
        ["evaluate", "--alpha", "x"],
        ["evaluate", "--beta", "-inf"],
        ["evaluate", "--beta", "1e7"],
        ["evaluate", "--threshold", "257"],
        ["evaluate", "--threshold", "-1"],
        ["evaluate", "--threshold", "1.5"],
        ["evaluate", "--seed", "-1"],
        ["evaluate", "--seed", str(2**32)],
        ["evaluate", "--model", "svm"],
        ["evaluate", "--prior", "flat"],
        ["evaluate", "--preset", "fast"],
        ["bench"],
        ["no-such-command"],
        [],
    ],
)
def test_bad_flags_are_usage_errors(argv, capsys):
    assert_usage_error(cli.main, argv, capsys)


def assert_usage_error(main, argv: list[str], capsys) -> None:
    """``main(argv)`` stops with exit code 2 and an "error:" line on stderr, no traceback."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["naive-bayes", "--repeats", "0"],
        ["naive-bayes", "--repeats", "-3"],
        ["naive-bayes", "--repeats", "1e9"],
        ["softmax", "--repeats", "0"],
        ["softmax", "--repeats", "1001"],
        ["softmax", "--repeats", "x"],
        ["bench"],
        [],
    ],
)
def test_bad_benchmark_flags_are_usage_errors(argv, capsys):
    """``python -m devtools.benchmarks`` (kept out of nbcore, which needs no scikit-learn) validates its flags as nbcore's CLI does."""
    assert_usage_error(benchmarks_cli.main, argv, capsys)


@pytest.mark.slow
def test_naive_bayes_benchmark_prints_both_inputs(small_mnist, capsys):
    """Every step against scikit-learn given uint8 and given float64 (what a scikit-learn user would pass), and the two libraries agree."""
    assert benchmarks_cli.main(["naive-bayes", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    for step in ("fit, 3,000 images", "predict, 500 images", "change alpha + re-score 500"):
        for given in ("uint8", "float64"):
            assert re.search(
                rf"^\| {re.escape(step)} \({given} input\) \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \|$", out, re.MULTILINE
            ), (step, given, out)
    agreement = float(re.search(r"scikit-learn\| on the test set: (\S+)", out).group(1))
    assert agreement < 1e-9


@pytest.mark.parametrize(
    "flags",
    [
        ["--alpha", "0"],
        ["--alpha", "0", "--beta", "0"],
        ["--alpha", "1e6", "--beta", "1e6"],
        ["--threshold", "0"],
        ["--threshold", "256"],
        ["--prior", "uniform", "--alpha", "1e-300"],
    ],
)
def test_every_accepted_bernoulli_setting_prints_json(flags, small_mnist, capsys):
    assert cli.main(["evaluate", "--json", *flags]) == 0
    result = strict_json(capsys.readouterr().out)
    assert 0 <= result["test_accuracy"] <= 1 and 0 <= result["train_accuracy"] <= 1
    loglik = result["mean_train_loglik"]
    assert math.isfinite(loglik) and loglik <= 0  # 1e6 is far from where n + alpha + beta overflows


def test_json_safe_turns_non_finite_and_numpy_values_into_json():
    value = {"a": float("-inf"), "b": np.float32(0.5), "c": [np.int64(3), float("nan")], "d": "text"}
    assert strict_json(json.dumps(json_safe(value), allow_nan=False)) == {
        "a": None,
        "b": 0.5,
        "c": [3, None],
        "d": "text",
    }


def test_data_errors_are_a_sentence_not_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))
    (tmp_path / "MNIST" / "raw").mkdir(parents=True)
    (tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte").mkdir()  # a directory where a file belongs
    monkeypatch.setattr("nbcore.datasets.mnist._download_with_torchvision", lambda *args: pytest.fail("no download"))
    assert cli.main(["prepare"]) == 2
    err = capsys.readouterr().err
    assert "not a file" in err and "Traceback" not in err


@pytest.mark.slow
def test_handwriting_command_prints_the_benchmark_and_its_control(small_mnist, monkeypatch, tmp_path, capsys):
    """``evaluate-handwriting`` end to end on 20 digits: load_digits' table, then the control's two formats."""
    require_sklearn()
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))  # the softmax weights' disk cache goes there
    deskewed = InputForm(deskew=True).splits(small_mnist)
    monkeypatch.setattr(prepared_mnist, "deskewed_splits", lambda progress=None: deskewed)
    assert cli.main(["evaluate-handwriting", "--limit", "20"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^dark on light +framed +on +naive Bayes, textbook +\d+\.\d%", out, re.MULTILINE)
    assert "MNIST test digits (20) in load_digits' 8x8 format" in out
    assert re.search(r"^32x20 box( +\d+\.\d%){3}$", out, re.MULTILINE)
    assert re.search(r"^shape kept( +\d+\.\d%){3}$", out, re.MULTILINE)


# -- class report ---------------------------------------------------------------------------------
@pytest.fixture
def class_store(tmp_path, monkeypatch):
    """A scratch class store, the one $NBCORE_CLASS_STORE names."""
    from nbcore.classroom import open_store

    monkeypatch.setenv("NBCORE_CLASS_STORE", f"sqlite:///{tmp_path / 'classes.sqlite3'}")
    return open_store()


def a_reported_class(store, splits) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """Class REPORT7: three students, each two MNIST test digits of 0-8 and one 9, and answers to two questions.
    The code, and the frames, digits and student numbers in sending order."""
    store.create_class("REPORT7")
    flat, sent, students = np.full(10, 0.1), [], []
    for student in range(3):
        for digit in range(10):
            for index in np.flatnonzero(splits.test_labels == digit)[
                student * 2 : student * 2 + (1 if digit == 9 else 2)
            ]:
                store.add_drawing("REPORT7", f"{student + 1:016x}", splits.test_images[index], digit, flat, flat)
                sent.append(index)
                students.append(student + 1)
        store.answer("REPORT7", f"{student + 1:016x}", "underflow", "0.0" if student else "1e-300")
    store.answer("REPORT7", f"{1:016x}", "underflow", "0.0")  # answering again replaces
    store.answer("REPORT7", f"{2:016x}", "top-half", "\x1b[2Jwiped")  # a terminal escape sent as an answer
    sent_array = np.array(sent)
    return "REPORT7", splits.test_images[sent_array], splits.test_labels[sent_array], np.array(students)


def test_class_report_prints_drawings_answers_and_the_three_accuracies(small_mnist, class_store, capsys):
    from nbcore.experiments.class_model import evaluate_class
    from nbcore.features import binarize
    from nbcore.models.bernoulli import BernoulliNB

    code, frames, labels, students = a_reported_class(class_store, small_mnist)
    model = BernoulliNB(alpha=1.0).fit(binarize(small_mnist.train_images, 128), small_mnist.train_labels)
    expected = evaluate_class(frames, labels, students, model, weight=100.0, curve=False)

    assert cli.main(["class", "report", code.lower()]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"class {code}: 57 drawings from 3 students, open until ")
    assert re.search(r"^drawings +6 +6 +6 +6 +6 +6 +6 +6 +6 +3$", out, re.MULTILINE)
    assert 'underflow: 3 answered: "0.0" 3\n' in out
    assert 'top-half: 1 answered: "\\u001b[2Jwiped" 1\n' in out and "\x1b" not in out
    assert "they need 2 more 9s" in out
    for name, label in (
        ("mnist", "MNIST's model"),
        ("class", "the class's model"),
        ("mnist_plus_class", "MNIST + the class (weight 100)"),
    ):
        assert re.search(rf"^{re.escape(label)} +{expected.models[name].accuracy:.1%} +54$", out, re.MULTILINE)

    assert cli.main(["class", "report", code, "--json", "--weight", "10"]) == 0
    report = strict_json(capsys.readouterr().out)
    assert set(report) == {
        "code",
        "expires_at",
        "ended_at",
        "drawings",
        "students",
        "drawings_per_digit",
        "answers",
        "evaluation",
    }
    assert report["ended_at"] is None
    assert (report["code"], report["drawings"], report["students"]) == (code, 57, 3)
    assert report["drawings_per_digit"] == [6] * 9 + [3]
    assert report["answers"] == {"top-half": {"\x1b[2Jwiped": 1}, "underflow": {"0.0": 3}}
    reweighted = evaluate_class(frames, labels, students, model, weight=10.0, curve=False)
    assert report["evaluation"]["weight"] == 10.0 and report["evaluation"]["curve"] is None
    for name, score in reweighted.models.items():
        assert report["evaluation"]["models"][name]["accuracy"] == score.accuracy
        assert report["evaluation"]["models"][name]["correct"] == score.correct


def test_class_report_of_a_class_without_drawings_needs_no_mnist(class_store, monkeypatch, capsys):
    monkeypatch.setattr(
        prepared_mnist, "mnist_splits", lambda: pytest.fail("MNIST loaded for a class without drawings")
    )
    class_store.create_class("QUIET1")
    assert cli.main(["class", "report", "QUIET1"]) == 0
    out = capsys.readouterr().out
    assert "No answers to the lesson's questions yet." in out and "No drawings yet" in out
    assert cli.main(["class", "report", "QUIET1", "--json"]) == 0
    report = strict_json(capsys.readouterr().out)
    assert report["drawings"] == 0 and report["answers"] == {} and report["evaluation"] is None


@pytest.mark.parametrize("code", ["NOSUCH12", "ENDED1", "<script>", "AB"])
def test_class_report_of_an_unknown_or_ended_code_is_one_line_and_exit_2(code, class_store, capsys):
    made = class_store.create_class("ENDED1")
    class_store.delete_class("ENDED1", made.teacher_key)
    assert cli.main(["class", "report", code]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and captured.err.startswith("error: ")
    assert "<script>" not in captured.err and "Traceback" not in captured.err


def test_class_report_of_an_ended_class_says_when_it_ended(class_store, capsys):
    from nbcore.classroom import OPERATOR

    class_store.create_class("OVER1")
    class_store.end("OVER1", OPERATOR)
    assert cli.main(["class", "report", "OVER1"]) == 0
    assert capsys.readouterr().out.startswith("class OVER1: 0 drawings from 0 students, ended at ")


# -- class new, list, extend, end, export -----------------------------------------------------------
def test_class_new_prints_every_link_in_full_and_when_it_ends(class_store, capsys):
    before = class_store.clock()
    assert cli.main(["class", "new", "--code", "room12", "--url", "http://10.0.0.5:8501/"]) == 0
    out = capsys.readouterr().out
    key = re.search(r"/teach\?class=ROOM12&key=([\w-]+)", out)[1]
    assert class_store.is_teacher("ROOM12", key)
    assert re.search(r"^students \(Draw\): +http://10\.0\.0\.5:8501/draw\?class=ROOM12$", out, re.MULTILINE)
    assert re.search(r"^students \(lesson\): +http://10\.0\.0\.5:8501/lesson\?class=ROOM12$", out, re.MULTILINE)
    assert re.search(rf"^teacher's page: +http://10\.0\.0\.5:8501/teach\?class=ROOM12&key={key} ", out, re.MULTILINE)
    assert re.search(
        rf"^teacher \(lesson\): +http://10\.0\.0\.5:8501/lesson\?class=ROOM12&key={key}$", out, re.MULTILINE
    )
    assert re.search(r"^class ROOM12: open until \d{4}-\d\d-\d\d \d\d:\d\d local time \(\d{4}-.+\) if nobody", out)

    assert cli.main(["class", "new", "--json", "--url", "https://lab.school.example/nb"]) == 0
    made = strict_json(capsys.readouterr().out)
    code = made["code"]
    key = made["teacher_path"].split("key=")[1]
    assert class_store.is_teacher(code, key)
    assert made["student_path"] == f"/draw?class={code}" and made["student_lesson_path"] == f"/lesson?class={code}"
    assert made["teacher_lesson_path"] == f"/lesson?class={code}&key={key}"
    assert made["teacher_url"] == f"https://lab.school.example/nb/teach?class={code}&key={key}"
    assert made["student_lesson_url"] == f"https://lab.school.example/nb/lesson?class={code}"
    info = class_store.class_info(code)
    assert made["expires_at"] == info.expires_at and info.expires_at >= before + 3 * 3600
    assert "T" in made["expires_at_iso"]

    assert cli.main(["class", "new", "--json"]) == 0  # without --url: paths only
    assert not any(name.endswith("_url") for name in strict_json(capsys.readouterr().out))
    assert cli.main(["class", "new", "--url", "http://localhost:8501"]) == 0
    captured = capsys.readouterr()
    assert "http://localhost:8501/draw?class=" in captured.out and "cannot open http://localhost:8501" in captured.err


@pytest.mark.parametrize(
    "url",
    [
        "ftp://10.0.0.5",
        "http://",
        "10.0.0.5:8501",
        "javascript:alert(1)",
        "http://user:secret@10.0.0.5",
        "http://10.0.0.5/?next=evil",
        "http://10.0.0.5/#x",
        "http://10.0.0.5:99999",
        "http://10.0.0.5/<script>",
        "http://" + "a" * 300,
    ],
)
def test_class_new_refuses_an_address_students_cannot_open(url, class_store, capsys):
    assert_usage_error(cli.main, ["class", "new", "--url", url], capsys)
    assert class_store.list_classes() == []


def test_class_list_end_extend_and_export_a_period(class_store, tmp_path, capsys):
    from nbcore.classroom import OPERATOR
    from nbcore.classroom.records import Refused
    from nbcore.classroom.store import ENDED
    from nbcore.experiments.class_drawings import load_drawings

    store = class_store
    store.create_class("EMPTY1")
    store.create_class("LESSON9")
    flat = np.full(10, 0.1)
    for who, digit in ((1, 4), (2, 7), (1, 9)):
        store.add_drawing("LESSON9", f"{who:016x}", np.full((28, 28), digit * 20, np.uint8), digit, flat, flat)
    store.answer("LESSON9", f"{2:016x}", "prior", "3")
    store.reveal("LESSON9", OPERATOR, "prior")
    store.answer("LESSON9", f"{1:016x}", "prior", "=1+1")
    store.check_in("LESSON9", f"{3:016x}", 2)  # joined, sent nothing: a student all the same

    assert cli.main(["class", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["code", "state", "period", "drawings", "students"]
    assert lines[1].split()[:5] == ["EMPTY1", "open", "1", "0", "0"]
    assert lines[2].split()[:5] == ["LESSON9", "open", "1", "3", "3"] and "ends " in lines[2]

    assert cli.main(["class", "end", "lesson9"]) == 0
    assert capsys.readouterr().out.startswith("class LESSON9: ended at ")
    with pytest.raises(Refused, match=ENDED):
        store.answer("LESSON9", f"{1:016x}", "prior", "4")
    assert cli.main(["class", "list", "--json"]) == 0
    listed = {row["code"]: row for row in json.loads(capsys.readouterr().out)}
    assert listed["LESSON9"]["state"] == "ended" and listed["EMPTY1"]["state"] == "open"
    ended = listed["LESSON9"]
    assert ended["deleted_at"] == ended["ended_at"] + 24 * 3600 and ended["drawings"] == 3

    out = tmp_path / "exports"
    assert cli.main(["class", "export", "LESSON9", "--out", str(out)]) == 0  # an ended class exports
    printed = capsys.readouterr().out.split()
    npz, answers = out / "class-LESSON9-p1-drawings.npz", out / "class-LESSON9-p1-answers.csv"
    assert printed == [str(npz), str(answers)]
    loaded = load_drawings(npz)
    assert loaded.labels.tolist() == [4, 7, 9] and loaded.students.tolist() == [1, 2, 1]
    assert (loaded.frames[1] == 140).all()
    rows = answers.read_text().splitlines()
    assert rows[0] == "student,question,answer,answered_at,after_reveal"
    assert re.fullmatch(r"1,prior,3,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ,no", rows[1])
    assert re.fullmatch(r"2,prior,'=1\+1,.*Z,yes", rows[2]) and len(rows) == 3

    assert cli.main(["class", "extend", "LESSON9", "--hours", "2"]) == 0
    assert capsys.readouterr().out.startswith("class LESSON9: open until ")
    info = store.class_info("LESSON9")
    assert info.is_open(store.clock()) and info.expires_at >= store.clock() + 2 * 3600 - 5
    store.new_period("LESSON9", OPERATOR)
    assert cli.main(["class", "export", "LESSON9", "--out", str(out)]) == 0
    assert capsys.readouterr().out.split()[0].endswith("class-LESSON9-p2-drawings.npz")
    assert len(load_drawings(out / "class-LESSON9-p2-drawings.npz").labels) == 0
    assert cli.main(["class", "export", "LESSON9", "--period", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert load_drawings(out / "class-LESSON9-p1-drawings.npz").labels.tolist() == [4, 7, 9]


@pytest.mark.parametrize(
    "argv",
    [
        ["class", "end", "NOSUCH12"],
        ["class", "extend", "NOSUCH12"],
        ["class", "export", "NOSUCH12"],
        ["class", "export", "<script>"],
        ["class", "export", "EMPTY1", "--period", "2"],
        ["class", "end", "../../etc"],
    ],
)
def test_class_commands_on_unknown_codes_or_periods_are_one_line_and_exit_2(argv, class_store, tmp_path, capsys):
    class_store.create_class("EMPTY1")
    assert cli.main([*argv, *(["--out", str(tmp_path)] if "export" in argv else [])]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and captured.err.startswith("error: ")
    assert "<script>" not in captured.err and "Traceback" not in captured.err
    assert list(tmp_path.glob("class-*")) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["class", "extend", "EMPTY1", "--hours", "0"],
        ["class", "extend", "EMPTY1", "--hours", "169"],
        ["class", "extend", "EMPTY1", "--hours", "nan"],
        ["class", "export", "EMPTY1", "--period", "0"],
        ["class", "export", "EMPTY1", "--period", "x"],
        ["class", "end"],
    ],
)
def test_bad_class_flags_are_usage_errors(argv, class_store, capsys):
    assert_usage_error(cli.main, argv, capsys)


@pytest.mark.slow
def test_an_exported_class_goes_through_class_evaluate(mnist, mnist_root, class_store, tmp_path, capsys):
    """A class's drawings, exported by the CLI, read by ``python -m nbcore class evaluate --frames`` in its own
    process: the accuracies it prints are those of the drawings sent."""
    from nbcore.experiments.class_model import evaluate_class
    from nbcore.features import binarize
    from nbcore.models.bernoulli import BernoulliNB

    code, frames, labels, students = a_reported_class(class_store, mnist_data.MnistSplits(**mnist))
    assert cli.main(["class", "export", code, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    ran = run_nbcore(
        ["class", "evaluate", "--frames", str(tmp_path / f"class-{code}-p1-drawings.npz"), "--json"], mnist_root
    )
    assert ran.returncode == 0, ran.stderr
    result = strict_json(ran.stdout)
    model = BernoulliNB(alpha=1.0).fit(binarize(mnist["train_images"], 128), mnist["train_labels"])
    expected = evaluate_class(frames, labels, students, model, curve=False)
    assert (result["drawings"], result["students"]) == (57, 3)
    for name, score in expected.models.items():
        assert result["models"][name]["correct"] == score.correct
