"""``python -m nbcore class evaluate``: the three accuracies (four with the mixture) as text and JSON, bad files one
line and exit code 2, bad flags usage errors."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from nbcore import __main__ as cli
from nbcore.experiments import class_drawings
from nbcore.experiments.class_model import MIXTURE
from tests.nbcore.test_class_mixture import two_style_class
from tests.nbcore.test_class_model import a_class


def save(path, **arrays) -> str:
    np.savez(path, **arrays)
    return str(path)


@pytest.mark.slow
def test_class_evaluate_prints_the_three_accuracies_and_json(small_mnist, tmp_path, capsys):
    frames, labels, students = a_class(n_students=4, per_digit=5)
    path = save(tmp_path / "class.npz", frames=frames, labels=labels, students=students.astype(str))
    assert cli.main(["class", "evaluate", "--frames", path]) == 0
    out = capsys.readouterr().out
    assert out.startswith("200 drawings from 4 students, read leave-one-student-out")
    for name in ("MNIST's model", "the class's model", r"MNIST \+ the class \(weight 100\)"):
        assert re.search(rf"^{name} +\d+\.\d%  200$", out, re.MULTILINE), name
    assert re.search(r"^9 +20( +\d+\.\d%){3}$", out, re.MULTILINE)
    assert re.search(r"from \d+ drawings? per digit on|does not read better", out)
    assert cli.main(["class", "evaluate", "--frames", path, "--json", "--weight", "5"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["drawings"] == 200 and result["students"] == 4 and result["weight"] == 5
    assert result["drawings_per_digit"] == [20] * 10 and result["shortage"] is None
    assert set(result["models"]) == {"mnist", "class", "mnist_plus_class"}
    assert all(0 <= model["accuracy"] <= 1 for model in result["models"].values())
    assert result["curve"]["drawings_per_digit"][-1] == 15  # three other students' 5 drawings of each digit


@pytest.mark.slow
def test_class_evaluate_components_adds_the_mixture_row(small_mnist, tmp_path, capsys):
    frames, labels, students = two_style_class(n_students=4)
    path = save(tmp_path / "class.npz", frames=frames, labels=labels, students=students)
    assert cli.main(["class", "evaluate", "--frames", path, "--components", "1"]) == 0
    one = capsys.readouterr().out
    assert cli.main(["class", "evaluate", "--frames", path]) == 0
    assert capsys.readouterr().out == one and "mixture" not in one  # K = 1: today's table, to the character
    assert cli.main(["class", "evaluate", "--frames", path, "--components", "2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^the class's mixture \(2 styles per digit\) +\d+\.\d%  160$", out, re.MULTILINE)
    assert re.search(r"^MNIST \+ the class \(weight 100\) +\d+\.\d%  160$", out, re.MULTILINE)
    assert re.search(r"^digit .* class mixture MNIST \+ class$", out, re.MULTILINE)
    assert re.search(r"^9 +16( +\d+\.\d%){4}$", out, re.MULTILINE)
    assert cli.main(["class", "evaluate", "--frames", path, "--components", "20", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["components"] == 20 and set(result["models"]) == {"mnist", "class", MIXTURE, "mnist_plus_class"}
    assert result["components_note"].startswith("20 styles per digit is more than the class's drawings can support")


def bad_files(tmp_path) -> dict[str, tuple[str, str]]:
    """{case: (path, words the error must contain)}."""
    frames, labels, students = a_class(n_students=2, per_digit=1)
    good = save(tmp_path / "good.npz", frames=frames, labels=labels, students=students)
    data = open(good, "rb").read()
    (tmp_path / "truncated.npz").write_bytes(data[: len(data) // 2])
    (tmp_path / "noise.npz").write_bytes(np.random.default_rng(0).bytes(4000))
    flipped = bytearray(data)
    flipped[len(flipped) // 3] ^= 0xFF  # inside frames' bytes or header: stored uncompressed, so the CRC catches it
    (tmp_path / "flipped.npz").write_bytes(bytes(flipped))
    (tmp_path / "folder.npz").mkdir()
    return {
        "missing": (str(tmp_path / "absent.npz"), "no such file"),
        "folder": (str(tmp_path / "folder.npz"), "not a file"),
        "truncated": (str(tmp_path / "truncated.npz"), "not a readable .npz"),
        "noise": (str(tmp_path / "noise.npz"), "not a readable .npz"),
        "flipped": (str(tmp_path / "flipped.npz"), "not a readable .npz"),
        "pickle": (
            save(tmp_path / "pickle.npz", frames=frames, labels=labels, students=students.astype(object)),
            "Python objects",
        ),
        "no students": (save(tmp_path / "two.npz", frames=frames, labels=labels), "no students array"),
        "shape": (save(tmp_path / "shape.npz", frames=frames[:, :27], labels=labels, students=students), "28, 28"),
        "dtype": (save(tmp_path / "dtype.npz", frames=frames / 255, labels=labels, students=students), "uint8"),
        "lengths": (save(tmp_path / "lengths.npz", frames=frames, labels=labels[:-1], students=students), "one entry"),
        "labels": (save(tmp_path / "labels.npz", frames=frames, labels=labels + 5, students=students), "0 to 9"),
    }


def test_bad_files_are_one_line_and_exit_code_2(tmp_path, capsys):
    """Checked before MNIST is needed: no data directory is set up here."""
    for case, (path, words) in bad_files(tmp_path).items():
        assert cli.main(["class", "evaluate", "--frames", path]) == 2, case
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, (case, err)
        assert words in err, (case, err)


def test_a_file_declaring_more_than_the_limit_is_refused_before_reading(tmp_path, monkeypatch, capsys):
    frames, labels, students = a_class(n_students=2, per_digit=1)
    path = tmp_path / "big.npz"
    np.savez_compressed(path, frames=frames, labels=labels, students=students)
    monkeypatch.setattr(class_drawings, "MAX_DRAWINGS", 10)
    assert cli.main(["class", "evaluate", "--frames", str(path)]) == 2
    assert "too large: at most 10 drawings" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["class"],
        ["class", "evaluate"],
        ["class", "evaluate", "--frames", "a.npz", "--load-digits"],
        ["class", "evaluate", "--frames", "a.npz", "--weight", "-1"],
        ["class", "evaluate", "--frames", "a.npz", "--weight", "nan"],
        ["class", "evaluate", "--load-digits", "--limit", "0"],
        ["class", "evaluate", "--load-digits", "--components", "0"],
        ["class", "evaluate", "--load-digits", "--components", "51"],
        ["class", "evaluate", "--load-digits", "--components", "2.5"],
        ["class", "report"],
    ],
)
def test_bad_class_flags_are_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
