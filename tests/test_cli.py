"""``python -m nbcore``: every flag validated (a usage error, never a traceback), every --json line is JSON."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from benchmarks import __main__ as benchmarks_cli
from nbcore import __main__ as cli
from nbcore.datasets import mnist as mnist_data
from nbcore.inputs import InputForm
from tests.conftest import require_sklearn


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
    """``python -m benchmarks`` (kept out of nbcore, which needs no scikit-learn) validates its flags as nbcore's CLI does."""
    assert_usage_error(benchmarks_cli.main, argv, capsys)


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
    assert strict_json(json.dumps(cli._json_safe(value), allow_nan=False)) == {
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


def test_handwriting_command_prints_the_benchmark_and_its_control(small_mnist, monkeypatch, tmp_path, capsys):
    """``evaluate-handwriting`` end to end on 20 digits: load_digits' table, then the control's two formats."""
    require_sklearn()
    monkeypatch.setenv("NBCORE_DATA_DIR", str(tmp_path))  # the softmax weights' disk cache goes there
    deskewed = InputForm(deskew=True).splits(small_mnist)
    monkeypatch.setattr(mnist_data, "deskewed_splits", lambda: deskewed)
    assert cli.main(["evaluate-handwriting", "--limit", "20"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^dark on light +framed +on +naive Bayes, textbook +\d+\.\d%", out, re.MULTILINE)
    assert "MNIST test digits (20) in load_digits' 8x8 format" in out
    assert re.search(r"^32x20 box( +\d+\.\d%){3}$", out, re.MULTILINE)
    assert re.search(r"^shape kept( +\d+\.\d%){3}$", out, re.MULTILINE)
