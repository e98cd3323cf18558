"""The container images (the Containerfile's two targets), built on this machine's Debian base and run with
Podman, and deploy/compose.yaml started with podman-compose: two replicas, nginx and Redis, all from the serve
image.

Both targets are built once per session (devtools.container.build_image, prepare then serve; their layers stay
cached between runs, so a change to the app rebuilds only its code layers, one to nbcore the prepared data too).
Every test runs the serve image (no torch) but the prepare target's own and the Kubernetes Job's. Every
container uses host networking on free ports and its own named volume, removed afterwards. Missing podman, runc,
mmdebstrap, podman-compose, Chromium or MNIST: fails under CI=true, skipped elsewhere. .ci/run runs this file
beside the other streams.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import time
import urllib.request

import pytest

from devtools import app_server, chromium, container, draw_page, page_checks
from devtools.streamlit_client import StreamlitClient
from lab import serve
from tests.conftest import REPO, SHARED_MNIST, require
from tests.e2e.conftest import SHARED_SMS
from tests.e2e.test_class_store_e2e import run_draw_send

READY_TIMEOUT_S = 180
COMPOSE_FILE = REPO / "deploy" / "compose.yaml"
MANIFEST = REPO / "deploy" / "kubernetes.yaml"


SERVE_CEILING_BYTES = 1.2e9  # issue #40's target, by `podman image inspect`; 6.19 GB with torch


@pytest.fixture(scope="session")
def images(app_data_dir, tmp_path_factory) -> dict[str, str]:
    """Both targets, built on LOCAL_BASE with the MNIST and SMS files of this run's data folder baked in:
    target -> tag."""
    require(
        container.podman_available(), "podman, runc or mmdebstrap is missing (apt-get install podman runc mmdebstrap)"
    )
    missing = container.stage_data(app_data_dir, SHARED_MNIST, SHARED_SMS.parent)
    require(not missing, f"no copy of {missing} to bake into the image")
    logs = tmp_path_factory.mktemp("image")
    for target, tag in container.TARGETS:
        seconds = container.build_image(logs / f"{target}.log", tag, target)
        print(f"{tag} (--target {target}) built in {seconds:.0f} s, {container.image_size(tag) / 1e9:.2f} GB")
    return {target: tag for target, tag in container.TARGETS}


@pytest.fixture(scope="session")
def image(images) -> str:
    """The serve image, which every test but the prepare target's and the Job's runs."""
    return images["serve"]


class Lab:
    """One container of the image on 127.0.0.1:<port> with the named volume ``volume`` at /data."""

    def __init__(self, image: str, volume: str, *command: str) -> None:
        self.port = app_server.free_port()
        self.name = f"nb-lab-test-{secrets.token_hex(4)}"
        container.podman(
            "run",
            "--detach",
            f"--name={self.name}",
            "--network=host",
            f"--env=STREAMLIT_SERVER_PORT={self.port}",
            f"--volume={volume}:/data",
            image,
            *command,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def healthy(self) -> bool:
        """The image's HEALTHCHECK, run once now."""
        return container.podman("healthcheck", "run", self.name, check=False).returncode == 0

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not self.healthy():
            state = container.podman("inspect", "--format={{.State.Status}}", self.name).stdout.strip()
            if state != "running" or time.monotonic() > deadline:
                logs = container.podman("logs", self.name, check=False)
                raise AssertionError(
                    f"{self.name} is {state}, not healthy:\n{logs.stdout[-3000:]}{logs.stderr[-3000:]}"
                )
            time.sleep(1)

    def exec(self, *command: str) -> str:
        return container.podman("exec", self.name, *command).stdout

    def remove(self) -> None:
        container.podman("rm", "--force", "--time=0", self.name, check=False)


@pytest.fixture
def volume():
    name = f"nb-lab-test-{secrets.token_hex(4)}"
    yield name
    container.podman("volume", "rm", "--force", name, check=False)


@pytest.fixture(scope="module")
def lab(image):
    """One container serving the app on a fresh volume, healthy."""
    name = f"nb-lab-test-{secrets.token_hex(4)}"
    served = Lab(image, name)
    try:
        served.wait_healthy()
        yield served
    finally:
        served.remove()
        container.podman("volume", "rm", "--force", name, check=False)


def test_the_health_check_passes_on_the_server_and_fails_without_one(image, lab, volume):
    assert lab.healthy()
    idle = Lab(image, volume, "sleep", "300")  # the same image with no server in it
    try:
        assert not idle.healthy()
    finally:
        idle.remove()


def test_the_server_runs_as_a_user_other_than_root_as_pid_1(lab):
    assert lab.exec("id", "-u").strip() != "0"
    users = container.podman("top", lab.name, "user", "pid", "args").stdout.splitlines()[1:]
    server = [line.split(None, 2) for line in users if "streamlit run app.py" in line]
    assert server and all(user not in ("root", "0") for user, _, _ in server), users
    assert [pid for _, pid, _ in server] == ["1"], users  # lab.serve became Streamlit: it gets the SIGTERM


def test_the_serve_image_has_every_pin_but_torch_and_torchvision(image):
    pins = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        found = re.match(r"([A-Za-z0-9_.-]+)={2,3}(\S+)", line)
        if found:
            pins[found[1]] = found[2]
    assert {"torch", "torchvision", "streamlit", "numpy"} <= set(pins), pins
    probe = (
        "import importlib.metadata as m, importlib.util as u, json, sys\n"
        "def version(name):\n"
        "    try:\n        return m.version(name)\n    except m.PackageNotFoundError:\n        return None\n"
        "print(json.dumps({'importable': [name for name in ('torch', 'torchvision') if u.find_spec(name)], "
        "'versions': {name: version(name) for name in json.loads(sys.argv[1])}}))"
    )
    run = container.podman("run", "--rm", "--network=none", image, "python", "-c", probe, json.dumps(list(pins)))
    expected = {name: None if name in ("torch", "torchvision") else version for name, version in pins.items()}
    assert json.loads(run.stdout) == {"importable": [], "versions": expected}


def test_the_serve_image_is_at_most_1_2_gb(images):
    sizes = {target: container.image_size(tag) for target, tag in images.items()}
    print(
        f"image sizes by podman image inspect: serve {sizes['serve'] / 1e9:.2f} GB, prepare {sizes['prepare'] / 1e9:.2f} GB"
    )
    assert sizes["serve"] <= SERVE_CEILING_BYTES, sizes


def test_start_to_healthy_on_a_new_volume_is_printed(image):
    """The figure is docs/deploy.md's (a benchmark's: python -m devtools.container start 5); here each start must
    become healthy, and the times are printed."""
    seconds = [container.start_to_healthy(image, timeout=READY_TIMEOUT_S) for _ in range(3)]
    print(
        f"start to healthy: {', '.join(f'{each:.1f}' for each in seconds)} s, median {statistics.median(seconds):.1f} s"
    )


def test_a_damaged_data_volume_stops_the_server_with_one_sentence_and_fails_the_health_check(image, volume):
    # a new volume gets the image's /data; then one prepared file on it cut short, as a full disk would leave it
    damaged = "/data/MNIST/nbcore/t10k.npz"
    container.podman(
        "run", "--rm", "--network=none", f"--volume={volume}:/data", image, "truncate", "-s", "4096", damaged
    )
    served = Lab(image, volume)
    try:
        deadline = time.monotonic() + 120
        while (state := json.loads(container.podman("inspect", "--format={{json .State}}", served.name).stdout))[
            "Status"
        ] == "running":
            assert time.monotonic() < deadline, "still running on damaged data"
            time.sleep(0.5)
        assert state["ExitCode"] == 2, state
        logs = container.podman("logs", served.name)
        said = (logs.stdout + logs.stderr).strip().splitlines()
        assert len(said) == 1 and said[0].startswith("Naive Bayes Lab not started: the prepared data in /data"), said
        assert damaged in said[0] and f"--target prepare -t {serve.PREPARE_IMAGE}" in said[0]
        assert f"the Job {serve.PREPARE_JOB}" in said[0]
        assert not served.healthy()
    finally:
        served.remove()


def test_the_prepare_target_has_torchvision_and_its_data_passes_the_check(images):
    checked = container.podman(
        "run", "--rm", "--network=none", images["prepare"], "python", "-m", "nbcore", "prepare", "--check"
    )
    assert re.search(r"^Checked in /data: all \d+ prepared, nothing computed\.$", checked.stdout, re.M), checked.stdout
    probe = "import importlib.util as u; print(u.find_spec('torchvision') is not None)"
    found = container.podman("run", "--rm", "--network=none", images["prepare"], "python", "-c", probe)
    assert found.stdout.strip() == "True"


def test_a_page_renders_in_chromium_and_predicts_a_drawing(lab, browser):
    context = browser.new_context(viewport=chromium.VIEWPORT)
    try:
        page = context.new_page()
        page.goto(lab.url + "/", timeout=60_000)
        page.locator('[data-testid="stMetric"]').first.wait_for(timeout=120_000)
        chromium.wait_for_run(page, timeout=120)
        assert page_checks.page_problems(page) == []
        page.goto(lab.url + "/draw", timeout=60_000)
        chromium.wait_for_run(page, timeout=120)
        draw_page.draw_digit(page, 1, draw_page.canvas_origin(page, timeout=120))
        shown = draw_page.wait_for_prediction(page, timeout=120)
        assert shown[0] == "1", shown
        assert page_checks.page_problems(page) == []
    finally:
        context.close()


def drawings_seen(url: str, code: str, teacher_key: str) -> str | None:
    """The class's drawing count on the teacher's gallery at ``url``."""
    with StreamlitClient(url, timeout=120) as teacher:
        return teacher.connect(page="gallery", query_string=f"class={code}&key={teacher_key}").metric("Drawings")


def new_class(lab_or_name: Lab | str) -> tuple[str, str]:
    """(code, teacher key) of a class made in the container with the command line, as a teacher would."""
    name = lab_or_name.name if isinstance(lab_or_name, Lab) else lab_or_name
    made = json.loads(container.podman("exec", name, "python", "-m", "nbcore", "class", "new", "--json").stdout)
    key = made["teacher_path"].split("key=", 1)[1]
    return made["code"], key


def test_a_class_outlives_a_restart_and_a_new_container_on_its_volume(image, volume):
    first = Lab(image, volume)
    try:
        first.wait_healthy()
        code, key = new_class(first)
        said = run_draw_send(first.url, code, secrets.token_hex(16), 3)
        assert f"Sent: your 3 is in class {code}'s gallery." in said, said
        assert drawings_seen(first.url, code, key) == "1"
        container.podman("restart", first.name, timeout=120)
        first.wait_healthy()
        assert drawings_seen(first.url, code, key) == "1"
    finally:
        first.remove()
    second = Lab(image, volume)
    try:
        second.wait_healthy()
        assert drawings_seen(second.url, code, key) == "1"
    finally:
        second.remove()


def test_sigterm_stops_it_cleanly_within_10_s(image, volume):
    served = Lab(image, volume)
    try:
        served.wait_healthy()
        # podman stop sends the image's STOPSIGNAL (SIGTERM) and SIGKILLs after 10 s: exit code 137 if it had to
        container.podman("stop", "--time=10", served.name, timeout=60)
        state = json.loads(container.podman("inspect", "--format={{json .State}}", served.name).stdout)
        assert state["ExitCode"] == 0, state
    finally:
        served.remove()


def test_the_kubernetes_job_fills_an_empty_volume_without_a_network(images, volume):
    """The manifest's prepare Job in the prepare image, then the replicas' init container in the serve image, on a
    new volume with no network: the Job copies the image's data and checks it (nothing to download), and the
    wait (prepare --check) ends."""
    import yaml  # PyYAML, a dependency of kubernetes-validate and podman-compose

    documents = [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]
    job = next(doc for doc in documents if doc["kind"] == "Job")["spec"]["template"]["spec"]["containers"][0]
    app = next(doc for doc in documents if doc["kind"] == "Deployment" and doc["metadata"]["name"] == "nb-lab")
    wait = app["spec"]["template"]["spec"]["initContainers"][0]
    env = [f"--env={variable['name']}={variable['value']}" for variable in job["env"]]
    # :U gives the new volume to the image's user, as the pod's fsGroup does on a cluster
    mount = f"--volume={volume}:{job['volumeMounts'][0]['mountPath']}:U"
    assert job["image"] == images["prepare"] and wait["image"] == images["serve"]
    filled = container.podman("run", "--rm", "--network=none", *env, mount, job["image"], *job["command"], timeout=600)
    said = filled.stdout + filled.stderr
    assert re.search(r"Prepared in /\w+: 0 of \d+ made now", said), said  # all of it copied, nothing redone
    waited = container.podman(
        "run",
        "--rm",
        "--network=none",
        *[f"--env={variable['name']}={variable['value']}" for variable in wait["env"]],
        f"--volume={volume}:{wait['volumeMounts'][0]['mountPath']}:ro",
        wait["image"],
        *wait["command"],
        timeout=120,
    )
    assert "waiting" not in waited.stdout, waited.stdout


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def test_compose_serves_a_class_from_two_replicas_behind_nginx_with_redis(image):
    require(
        shutil.which("podman-compose") is not None, "podman-compose is missing (pip install -r requirements-dev.txt)"
    )
    ports = {name: app_server.free_port() for name in ("NB_LAB_PORT", "NB_LAB_APP1_PORT", "NB_LAB_APP2_PORT")}
    ports["NB_LAB_REDIS_PORT"] = app_server.free_port()
    password = secrets.token_hex(16)
    env = {
        **{key: str(value) for key, value in ports.items()},
        "NB_LAB_IMAGE": image,
        "NB_LAB_COOKIE_SECRET": secrets.token_hex(32),
        "NB_LAB_REDIS_PASSWORD": password,
    }
    project = f"nblabtest{secrets.token_hex(4)}"
    compose = ["podman-compose", "--podman-args=--runtime=runc", "-p", project, "-f", str(COMPOSE_FILE)]

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*compose, *args], capture_output=True, text=True, timeout=300, env={**os.environ, **env})

    volumes_before = set(container.podman("volume", "ls", "--quiet").stdout.split())
    up = run("up", "-d")
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        nginx = f"http://127.0.0.1:{ports['NB_LAB_PORT']}"
        app1 = f"http://127.0.0.1:{ports['NB_LAB_APP1_PORT']}"
        app2 = f"http://127.0.0.1:{ports['NB_LAB_APP2_PORT']}"
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not all(answers(url) for url in (nginx, app1, app2)):
            assert time.monotonic() < deadline, run("logs").stdout[-4000:]
            time.sleep(1)
        code, key = new_class(f"{project}_app1_1")
        said = run_draw_send(app1, code, secrets.token_hex(16), 7)
        assert f"Sent: your 7 is in class {code}'s gallery." in said, said
        assert drawings_seen(app2, code, key) == "1"
        assert drawings_seen(nginx, code, key) == "1"
        # the class is in Redis, not in a replica's SQLite file
        keys = container.podman(
            "exec",
            f"{project}_redis_1",
            "redis-cli",
            "-p",
            str(ports["NB_LAB_REDIS_PORT"]),
            "--no-auth-warning",
            "-a",
            password,
            "--scan",
        ).stdout.split()
        assert any(code in name for name in keys), keys
    finally:
        down = run("down", "--volumes")
        assert down.returncode == 0, down.stdout + down.stderr
    left = set(container.podman("volume", "ls", "--quiet").stdout.split()) - volumes_before
    assert not left, f"volumes left after down --volumes: {left}"
