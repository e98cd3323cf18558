"""The container images (Containerfile's two targets) built and run with Podman, for tests/e2e/test_image.py and by
hand.

    python -m devtools.container build      # the local Debian base when absent, then prepare, then serve; prints
                                            # each build's time and each image's size
    python -m devtools.container start 5    # the serve image started 5 times, each on a new volume: the seconds
                                            # from `podman run` to a passing health check, and their median

No container registry is reachable here, so the Containerfile's BASE (python:3.11-slim by default) is replaced
by LOCAL_BASE: Debian bookworm with python3, python3-venv and ca-certificates, made by mmdebstrap and
`podman import`ed once (about 40 s; kept, so that the image's layers stay cached from one run to the next).
Podman runs as root with runc (crun refuses this machine's cgroups) and host networking; .ci/run writes the
containers.conf it needs. The data baked into the image is copied into deploy/image-data/ (gitignored): the four
MNIST *-ubyte.gz files and SMSSpamCollection, from $NBCORE_DATA_DIR or ../shared.
"""

from __future__ import annotations

import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from devtools.app_server import REPO, free_port
from lab.serve import PREPARE_IMAGE  # the prepare target (torchvision), the Kubernetes Job's

IMAGE = "localhost/naive-bayes-lab:latest"  # the serve target, what docs/deploy.md's build command tags
TARGETS = (("prepare", PREPARE_IMAGE), ("serve", IMAGE))  # in the order built: serve copies prepare's /data
LOCAL_BASE = "localhost/nb-lab-base:bookworm"
PODMAN = ("podman", "--runtime=runc")
DATA_FOLDER = REPO / "deploy" / "image-data"
DATA_FILES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "SMSSpamCollection",
)
# This machine reaches PyPI through a proxy whose certificate only the host's bundle holds, and pip trusts its
# own bundle unless told: both are mounted for the build's RUN steps only (nothing of them stays in the image).
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
BUILD_TIMEOUT_S = 3600


def podman_available() -> bool:
    """podman, runc and mmdebstrap (for the base) are installed."""
    return all(shutil.which(tool) for tool in ("podman", "runc", "mmdebstrap"))


def podman(*args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
    """``podman --runtime=runc <args>``, output captured as text; raises with the output if ``check`` and it fails."""
    done = subprocess.run([*PODMAN, *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done


def image_exists(name: str) -> bool:
    return podman("image", "exists", name, check=False).returncode == 0


def build_base() -> None:
    """LOCAL_BASE from Debian's packages, when it is not there yet."""
    if image_exists(LOCAL_BASE):
        return
    with tempfile.TemporaryDirectory(prefix="nb-lab-base-") as folder:
        tarball = Path(folder) / "base.tar"
        subprocess.run(
            ["mmdebstrap", "--variant=minbase", "--include=python3,python3-venv,ca-certificates", "bookworm", tarball],
            check=True,
            capture_output=True,
            timeout=900,
        )
        podman("import", str(tarball), LOCAL_BASE, timeout=600)


def stage_data(*sources: Path) -> list[str]:
    """Each of DATA_FILES not yet in DATA_FOLDER copied there from the first of ``sources`` holding it; returns the
    names found nowhere (the build's ``prepare`` downloads those)."""
    missing = []
    for name in DATA_FILES:
        if (DATA_FOLDER / name).is_file():
            continue
        found = next((source / name for source in sources if (source / name).is_file()), None)
        if found is None:
            missing.append(name)
        else:
            shutil.copyfile(found, DATA_FOLDER / name)
    return missing


def build_image(log_path: Path, tag: str = IMAGE, target: str = "serve") -> float:
    """The Containerfile's ``target`` built on LOCAL_BASE and tagged ``tag``, its output in ``log_path``; returns
    the seconds."""
    build_base()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nb-lab-build-") as folder:
        pip_conf = Path(folder) / "pip.conf"
        pip_conf.write_text(f"[global]\ncert = {HOST_CA_BUNDLE}\n")
        command = [
            *PODMAN,
            "build",
            "--format=docker",  # the OCI format has no HEALTHCHECK
            "--network=host",
            f"--build-arg=BASE={LOCAL_BASE}",
            f"--target={target}",
            f"--volume={HOST_CA_BUNDLE}:{HOST_CA_BUNDLE}:ro",
            f"--volume={pip_conf}:/etc/pip.conf:ro",
            f"--tag={tag}",
            str(REPO),
        ]
        with open(log_path, "w") as log:
            done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"podman build failed ({done.returncode}):\n{log_path.read_text()[-4000:]}")
    # the image this replaced, untagged now: its own layers (the prepared data, the code) are about 170 MB a build
    # (the prepare target's layers stay: the tagged image holds them)
    podman("image", "prune", "--force", timeout=600)
    return time.monotonic() - started


def start_to_healthy(image: str = IMAGE, timeout: float = 180) -> float:
    """Seconds from ``podman run`` of ``image`` (a new named volume at /data, which Podman fills with a copy of the
    image's; host network, a free port) to its health check passing, tried every 0.2 s (each try takes about
    0.3 s itself); the container and its volume removed after. RuntimeError with its log when it is not
    healthy within ``timeout`` seconds or stops."""
    name = f"nb-lab-start-{secrets.token_hex(4)}"
    started = time.monotonic()
    podman(
        "run",
        "--detach",
        f"--name={name}",
        "--network=host",
        f"--env=STREAMLIT_SERVER_PORT={free_port()}",
        f"--volume={name}:/data",
        image,
    )
    try:
        while podman("healthcheck", "run", name, check=False).returncode != 0:
            state = podman("inspect", "--format={{.State.Status}}", name).stdout.strip()
            if state != "running" or time.monotonic() - started > timeout:
                log = podman("logs", name, check=False)
                raise RuntimeError(f"{name} is {state}, not healthy:\n{log.stdout[-3000:]}{log.stderr[-3000:]}")
            time.sleep(0.2)
        return time.monotonic() - started
    finally:
        podman("rm", "--force", "--time=0", name, check=False)
        podman("volume", "rm", "--force", name, check=False)


def report_starts(runs: int) -> None:
    """``start_to_healthy()`` ``runs`` times, each printed, then their median."""
    seconds = []
    for run in range(runs):
        seconds.append(start_to_healthy())
        print(f"start {run + 1}: healthy after {seconds[-1]:.1f} s", flush=True)
    print(f"{IMAGE}: start to healthy, median of {runs}: {statistics.median(seconds):.1f} s")


def build_both() -> None:
    """The data staged, then each of TARGETS built, its time and size printed."""
    shared = REPO.parent / "shared"
    data_dir = os.environ.get("NBCORE_DATA_DIR")
    sources = [Path(data_dir)] if data_dir else []
    missing = stage_data(*sources, shared / "mnist", shared / "sms-spam")
    if missing:
        print(f"not found, downloaded by the build: {', '.join(missing)}")
    logs = Path(tempfile.mkdtemp(prefix="nb-lab-build-log-"))
    for target, tag in TARGETS:
        seconds = build_image(logs / f"{target}.log", tag, target)
        print(f"{tag} (--target {target}): built in {seconds:.0f} s, {image_size(tag) / 1e9:.2f} GB", flush=True)
    print(f"logs: {logs}")


def main() -> int:
    args = sys.argv[1:]
    if args == ["build"]:
        build_both()
        return 0
    if args[:1] == ["start"] and len(args) <= 2 and all(arg.isdigit() and int(arg) >= 1 for arg in args[1:]):
        report_starts(int(args[1]) if len(args) == 2 else 5)
        return 0
    print(__doc__)
    return 2


def image_size(name: str) -> int:
    """Bytes of image ``name``, as ``podman image inspect`` gives them."""
    return int(podman("image", "inspect", "--format", "{{.Size}}", name).stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
