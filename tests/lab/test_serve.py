"""lab.serve, the serving image's entry: a prepared folder becomes ``streamlit run app.py`` in the same process;
a damaged one stops it with the one sentence that names the prepare image and the Kubernetes Job."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from devtools.container import PREPARE_IMAGE
from lab import serve
from nbcore.datasets.mnist import decoded_cache_path
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # prepared_root runs prepare once per session


def test_a_prepared_folder_becomes_streamlit_run_app_py_with_the_arguments(prepared_root, monkeypatch, tmp_path):
    root, first = prepared_root
    assert first.returncode == 0, first.stderr
    monkeypatch.setenv("NBCORE_DATA_DIR", str(root))
    monkeypatch.chdir(tmp_path)
    calls = []
    monkeypatch.setattr(os, "execv", lambda path, args: calls.append((path, args)))
    serve.main(["--server.port", "8601"])
    assert calls == [(sys.executable, [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", "8601"])]
    assert os.getcwd() == str(REPO)  # where app.py is


def test_a_damaged_folder_stops_it_with_one_sentence_naming_the_prepare_image_and_the_job(prepared_root, tmp_path):
    root, _ = prepared_root
    copy = tmp_path / "data"
    shutil.copytree(root, copy, copy_function=os.link)
    damaged = decoded_cache_path(copy, False)
    content = damaged.read_bytes()
    damaged.unlink()  # a new file: the hard-linked original keeps its bytes
    damaged.write_bytes(content[: len(content) // 2])
    env = {**os.environ, "NBCORE_DATA_DIR": str(copy), "PYTHONPATH": str(REPO)}
    stopped = subprocess.run(
        [sys.executable, "-m", "lab.serve"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert stopped.returncode == 2 and stopped.stdout == ""
    lines = stopped.stderr.strip().splitlines()
    assert len(lines) == 1, stopped.stderr
    said = lines[0]
    assert said.startswith(f"Naive Bayes Lab not started: the prepared data in {copy} is not whole (MNIST: {damaged}")
    assert serve.PREPARE_IMAGE == PREPARE_IMAGE and f"--target prepare -t {PREPARE_IMAGE}" in said
    assert f"the Job {serve.PREPARE_JOB}" in said and said.endswith(".")
