"""The serving image's entry (Containerfile, ``CMD ["python", "-m", "lab.serve"]``): check the prepared data, then
become ``python -m streamlit run app.py`` with this command's arguments.

The serving image has no torchvision, so it cannot make again what ``python -m nbcore prepare`` made (MNIST
decoded, the models and curves): each file is read and checked first, nothing computed or written
(``nbcore.prepared.prepare.prepare(check=True)``, about a second). Missing or damaged: one sentence on stderr,
saying what to run (the prepare image or the Kubernetes Job), and exit 2, so the container stops and its health
check fails. Whole: ``os.execv`` replaces this process with Streamlit's, which keeps its process id (PID 1 in a
container: it gets the SIGTERM of ``podman stop`` or Kubernetes itself).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

APP_FOLDER = Path(__file__).resolve().parents[1]  # where app.py is
PREPARE_IMAGE = "localhost/naive-bayes-lab:prepare"  # deploy/kubernetes.yaml's Job; devtools.container builds it
PREPARE_JOB = "nb-lab-prepare"


def refusal(data_dir: Path, title: str, problem: str) -> str:
    """The one sentence a server whose prepared data is not whole stops with."""
    return (
        f"Naive Bayes Lab not started: the prepared data in {data_dir} is not whole ({title}: {problem}), and this "
        f"image cannot make it again: run the prepare image on this data volume (podman run --rm -v <volume>:/data "
        f"{PREPARE_IMAGE}, built with podman build --format docker --target prepare -t {PREPARE_IMAGE} .) or, on "
        f"Kubernetes, the Job {PREPARE_JOB} (deploy/kubernetes.yaml)."
    )


def check() -> str | None:
    """None when every prepared result is there and whole, else the refusal sentence."""
    from nbcore.datasets import default_data_dir
    from nbcore.prepared.prepare import prepare

    started = time.perf_counter()
    outcomes = prepare(download=False, check=True)
    unprepared = [outcome for outcome in outcomes if outcome.status == "unprepared"]
    if unprepared:
        return refusal(default_data_dir(), unprepared[0].title, unprepared[0].problem or "")
    seconds = time.perf_counter() - started
    print(f"Naive Bayes Lab: {len(outcomes)} prepared results checked in {seconds:.1f} s", file=sys.stderr, flush=True)
    return None


def main(argv: list[str]) -> int:
    """Check, then exec Streamlit with ``argv`` after ``run app.py``; 2 (having said why) when the data is not whole."""
    problem = check()
    if problem is not None:
        print(problem, file=sys.stderr, flush=True)
        return 2
    os.chdir(APP_FOLDER)
    os.execv(sys.executable, [sys.executable, "-m", "streamlit", "run", "app.py", *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
