"""deploy/kubernetes.yaml, checked without a cluster (there is none here; docs/deploy.md says what that leaves).

* kubernetes-validate (a development dependency whose schemas ship inside the package: no network) finds the
  manifest valid for Kubernetes 1.30 and 1.37 with --strict, and refuses a copy with one unexpected field;
* no secret value is written in it: there is no Secret object, and the keys the pods read from Secret nb-lab
  are exactly those the `kubectl create secret` command in its header creates;
* the app's NBCORE_CLASS_STORE names the Redis that the manifest runs (Service, port, password variable defined
  before it is used), and that Redis evicts nothing;
* every container gives ``command`` (none ``args``);
* the init container, run with ``sh`` on a scratch folder standing for the data volume, keeps waiting while
  the folder is empty or a prepared file is damaged, and exits 0 once the folder is prepared and whole;
* the body cap is the same in deploy/nginx.conf and on every Ingress: Streamlit's maxUploadSize + 1 MB;
* the websocket path alone has a per-address connection cap, the same number as deploy/nginx.conf's default,
  and every path to the app has the same cookie affinity (ingress-nginx applies annotations per Ingress);
* uploads are streamed (no retry once sent) and /_stcore/metrics is refused to every address;
* the pods believe X-Forwarded-For (FORWARDED_ALLOW_IPS) and a NetworkPolicy lets only the ingress
  controller's namespace reach them; only the app's pods reach Redis;
* the Job runs the prepare image and every other container the serve image, each the tag docs/deploy.md's build
  commands give (devtools.container.PREPARE_IMAGE, IMAGE), as deploy/compose.yaml runs the serve image, without
  pulling it, on a volume its user (uid and gid 10001, the Containerfile's) can write; the app starts through
  lab.serve (the data checked first), under the name of the Job its refusal names. tests/e2e/test_image.py runs
  the Job's command in the prepare image.

kubernetes-validate missing: fails under CI=true, skipped elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
from urllib.parse import urlsplit

import pytest

from devtools import replicas
from devtools.container import IMAGE, PREPARE_IMAGE
from lab import serve
from tests.conftest import REPO, require

MANIFEST = REPO / "deploy" / "kubernetes.yaml"
NGINX_CONF = REPO / "deploy" / "nginx.conf"
AFFINITY = (
    "affinity",
    "affinity-mode",
    "session-cookie-name",
    "session-cookie-path",
    "session-cookie-samesite",
)
PREFIX = "nginx.ingress.kubernetes.io/"


def validator_available() -> bool:
    try:
        import kubernetes_validate  # noqa: F401
    except ImportError:
        return False
    return True


def documents() -> list[dict]:
    require(validator_available(), "kubernetes-validate is missing (pip install -r requirements-dev.txt)")
    import yaml  # PyYAML, a dependency of kubernetes-validate

    return [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]


def objects(kind: str) -> dict[str, dict]:
    return {doc["metadata"]["name"]: doc for doc in documents() if doc["kind"] == kind}


def pod_spec(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]


def env_of(container: dict) -> list[dict]:
    return container.get("env", [])


def app_container() -> dict:
    return next(c for c in pod_spec(objects("Deployment")["nb-lab"])["containers"] if c["name"] == "app")


def validate(path, version: str) -> subprocess.CompletedProcess:
    require(validator_available(), "kubernetes-validate is missing (pip install -r requirements-dev.txt)")
    return subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "-k", version, "--quiet", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("version", ["1.30.0", "1.37.0"])
def test_the_manifest_is_valid_for_kubernetes(version):
    done = validate(MANIFEST, version)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), done.stdout + done.stderr


def test_the_validator_refuses_an_unexpected_field(tmp_path):
    text = MANIFEST.read_text()
    assert "  backoffLimit: 2\n" in text
    broken = tmp_path / "kubernetes.yaml"
    broken.write_text(text.replace("  backoffLimit: 2\n", "  backoffLimit: 2\n  retries: 3\n", 1))
    done = validate(broken, "1.30.0")
    assert done.returncode != 0 and "'retries' was unexpected" in done.stdout + done.stderr, done.stdout


def test_no_secret_value_is_written_in_the_manifest():
    assert "Secret" not in {doc["kind"] for doc in documents()}
    command = re.search(r"kubectl create secret generic nb-lab((?:[^\n]*\\\n)*[^\n]*)", MANIFEST.read_text())
    assert command is not None, "the header does not say how to create the Secret"
    created = set(re.findall(r"--from-literal=([\w.-]+)=", command[1]))
    referenced = set()
    for doc in documents():
        if "template" not in doc.get("spec", {}):
            continue
        spec = pod_spec(doc)
        for container in spec.get("initContainers", []) + spec["containers"]:
            for variable in env_of(container):
                ref = variable.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["name"] == "nb-lab", ref
                    referenced.add(ref["key"])
    assert created == referenced != set()
    assert "replace-with" not in MANIFEST.read_text()


def test_the_app_uses_the_redis_that_the_manifest_runs():
    env = env_of(app_container())
    names = [variable["name"] for variable in env]
    store = {variable["name"]: variable.get("value") for variable in env}.get("NBCORE_CLASS_STORE")
    assert store, "the app has no NBCORE_CLASS_STORE"
    url = urlsplit(store)
    assert url.scheme == "redis" and url.path == "/0", store
    # Kubernetes fills $(VAR) only from variables listed before the one using it
    for used in re.findall(r"\$\((\w+)\)", store):
        assert used in names[: names.index("NBCORE_CLASS_STORE")], f"{used} is not defined before NBCORE_CLASS_STORE"

    service = objects("Service")[url.hostname]
    redis = next(
        doc
        for doc in objects("Deployment").values()
        if service["spec"]["selector"].items() <= doc["spec"]["template"]["metadata"]["labels"].items()
    )
    container = pod_spec(redis)["containers"][0]
    port = next(p for p in service["spec"]["ports"] if p["port"] == url.port)
    assert any(p.get("name") == port["targetPort"] and p["containerPort"] == 6379 for p in container["ports"])
    command = container["command"]
    assert command[0] == "redis-server"
    assert command[command.index("--requirepass") + 1] == url.password == "$(REDIS_PASSWORD)"
    assert "REDIS_PASSWORD" in [variable["name"] for variable in env_of(container)]
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert command[command.index("--appendonly") + 1] == "yes"


def test_every_container_gives_its_command():
    for kind in ("Job", "Deployment"):
        for name, doc in objects(kind).items():
            spec = pod_spec(doc)
            for container in spec.get("initContainers", []) + spec["containers"]:
                where = f"{kind} {name}, container {container['name']}"
                assert container.get("command"), f"{where}: no command"
                assert "args" not in container, f"{where}: args"


@pytest.mark.slow
def test_the_app_waits_until_the_prepared_data_is_whole(prepared_root, tmp_path):
    from nbcore.datasets import mnist

    init = pod_spec(objects("Deployment")["nb-lab"])["initContainers"][0]
    mount = init["volumeMounts"][0]["mountPath"]
    assert {variable["name"]: variable["value"] for variable in env_of(init)} == {"NBCORE_DATA_DIR": mount}
    data = tmp_path / "data"
    data.mkdir()
    env = {**os.environ, "NBCORE_DATA_DIR": str(data), "PYTHONPATH": str(REPO)}

    def still_waiting(seconds: float) -> bool:
        process = subprocess.Popen(
            init["command"], stdout=subprocess.DEVNULL, start_new_session=True, cwd=REPO, env=env
        )
        try:
            process.wait(seconds)
            return False
        except subprocess.TimeoutExpired:
            return True
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)

    assert still_waiting(5.0), "started on an empty volume"
    root, first = prepared_root
    assert first.returncode == 0, first.stderr
    data.rmdir()
    shutil.copytree(root, data, copy_function=os.link)
    decoded = mnist.decoded_cache_path(data, True)
    content = decoded.read_bytes()
    decoded.unlink()  # a new file: the hard-linked original keeps its bytes
    decoded.write_bytes(content[:-1])
    assert still_waiting(5.0), "started with a damaged file"
    decoded.unlink()
    decoded.write_bytes(content)
    assert not still_waiting(30.0), "everything is there and whole and it still waits"


def test_the_body_cap_agrees_with_nginx_and_streamlit():
    with open(REPO / ".streamlit" / "config.toml", "rb") as config:
        upload_mb = tomllib.load(config)["server"]["maxUploadSize"]
    expected = f"{upload_mb + 1}m"  # Streamlit's own streaming cap: maxUploadSize + 1 MB of multipart framing
    assert re.findall(r"client_max_body_size (\S+);", NGINX_CONF.read_text()) == [expected]
    caps = {
        name: doc["metadata"]["annotations"].get(PREFIX + "proxy-body-size") for name, doc in objects("Ingress").items()
    }
    assert set(caps.values()) == {expected}, caps


def paths(ingress: dict) -> list[tuple[str, str]]:
    return [(p["path"], p["pathType"]) for rule in ingress["spec"]["rules"] for p in rule["http"]["paths"]]


def test_websockets_are_capped_per_address_and_every_path_to_the_app_is_sticky():
    ingresses = objects("Ingress")
    capped = {
        name: doc for name, doc in ingresses.items() if PREFIX + "limit-connections" in doc["metadata"]["annotations"]
    }
    assert len(capped) == 1, list(capped)
    (stream,) = capped.values()
    assert paths(stream) == [("/_stcore/stream", "Exact")]
    assert stream["metadata"]["annotations"][PREFIX + "limit-connections"] == str(replicas.SOCKETS_PER_ADDRESS)

    routed = [doc for doc in ingresses.values() if paths(doc) != [("/_stcore/metrics", "Exact")]]
    assert len(routed) == 3
    affinity = {tuple(doc["metadata"]["annotations"].get(PREFIX + key) for key in AFFINITY) for doc in routed}
    assert affinity == {("cookie", "persistent", "nb_replica", "/", "Lax")}, affinity
    assert "nb_replica=" in NGINX_CONF.read_text()  # the same cookie as behind plain nginx


def test_uploads_are_streamed_and_metrics_refused():
    by_path = {path: doc for doc in objects("Ingress").values() for path in paths(doc)}
    uploads = by_path[("/_stcore/upload_file", "Prefix")]["metadata"]["annotations"]
    assert uploads[PREFIX + "proxy-request-buffering"] == "off"
    metrics = by_path[("/_stcore/metrics", "Exact")]["metadata"]["annotations"]
    assert set(metrics[PREFIX + "denylist-source-range"].split(",")) == {"0.0.0.0/0", "::/0"}
    assert PREFIX + "whitelist-source-range" not in metrics


def test_only_the_ingress_reaches_the_app_and_only_the_app_reaches_redis():
    env = {variable["name"]: variable.get("value") for variable in env_of(app_container())}
    assert env["FORWARDED_ALLOW_IPS"] == "*"
    policies = objects("NetworkPolicy")
    app = next(p for p in policies.values() if p["spec"]["podSelector"]["matchLabels"] == {"app": "nb-lab"})
    assert app["spec"]["policyTypes"] == ["Ingress"]
    sources = [source for rule in app["spec"]["ingress"] for source in rule["from"]]
    assert sources and all(list(source) == ["namespaceSelector"] for source in sources), sources
    redis = next(p for p in policies.values() if p["spec"]["podSelector"]["matchLabels"] == {"app": "nb-lab-redis"})
    sources = [source for rule in redis["spec"]["ingress"] for source in rule["from"]]
    assert sources == [{"podSelector": {"matchLabels": {"app": "nb-lab"}}}]


def test_the_job_runs_the_prepare_image_and_the_rest_the_serve_image_the_docs_build():
    docs = (REPO / "docs" / "deploy.md").read_text()
    assert f"podman build --format docker -t {IMAGE} ." in docs
    assert f"podman build --format docker --target prepare -t {PREPARE_IMAGE} ." in docs
    assert f"${{NB_LAB_IMAGE:-{IMAGE}}}" in (REPO / "deploy" / "compose.yaml").read_text()
    uid = re.search(r"useradd --uid (\d+) --gid (\d+)", (REPO / "Containerfile").read_text())
    assert uid is not None and uid[1] == uid[2]
    assert list(objects("Job")) == [serve.PREPARE_JOB]  # the Job the serve image's refusal names
    for kind, name, image in (("Job", serve.PREPARE_JOB, PREPARE_IMAGE), ("Deployment", "nb-lab", IMAGE)):
        spec = pod_spec(objects(kind)[name])
        assert spec["securityContext"] == {"fsGroup": int(uid[1])}, f"{kind} {name}"
        for each in spec.get("initContainers", []) + spec["containers"]:
            assert (each["image"], each["imagePullPolicy"]) == (image, "IfNotPresent"), each["name"]
    assert app_container()["command"][:3] == ["python", "-m", "lab.serve"]  # the data checked before Streamlit
