"""Replicas of the app behind nginx with sticky sessions, on one port: ``ClassServer``.

1. ``python -m nbcore prepare`` once: MNIST found, checked and decoded in the data directory before any
   replica starts, so that the replicas only read it.
2. N ``streamlit run app.py`` on free loopback ports (one process group each, one shared cookie
   secret), each waited for on its ``/_stcore/health``. The first one starts alone and is visited
   once on /draw (devtools.streamlit_client), which trains the softmax weights and caches them in
   <data>/models; the others then start and read that file instead of training too.
3. nginx (Debian's package) in front, from ``deploy/nginx.conf`` filled into a temporary prefix:
   sticky by the ``nb_replica`` cookie (see the template), websocket upgrade headers, at most
   ``sockets_per_address`` open websockets on ``/_stcore/stream`` per client address (a handshake beyond
   them gets HTTP 429; 0: no limit, for a class behind one NAT address); uploads on their own upstream
   that never marks a replica down nor passes a sent upload to another; ``/_stcore/metrics`` for
   127.0.0.1 and ::1 only; Streamlit's front end (``/static/``) from the prefix, compressed once at start.

Used by devtools/serve_class.py (a class served from the command line), devtools/load_protocol
(``--replicas``) and tests/e2e/test_replicas.py.
"""

from __future__ import annotations

import getpass
import gzip
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import streamlit

from devtools.app_server import REPO, StreamlitServer, free_port, spawn_logged

NGINX_TEMPLATE = REPO / "deploy" / "nginx.conf"
TEMP_FOLDERS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
SOCKETS_PER_ADDRESS = 12  # one student with several tabs; on a classroom network each device has its own address
# the template's one limit_conn line, removed for "no limit" (nginx refuses "limit_conn <zone> 0")
# Streamlit's front end, served by nginx (deploy/nginx.conf's /static/): the folder its pages load /static/ from
STREAMLIT_STATIC = Path(streamlit.__file__).parent / "static" / "static"
# what is worth a .gz: text (fonts as woff2 and pictures are compressed already)
COMPRESSED = {".js", ".css", ".svg", ".json", ".map", ".txt", ".html", ".ttf", ".otf", ".wasm"}
SOCKET_LIMIT_LINE = re.compile(r"^[ \t]*limit_conn [a-z_]+ @SOCKETS_PER_ADDRESS@;[^\n]*\n", re.MULTILINE)


def nginx_binary() -> str | None:
    """Path of the nginx executable (PATH, else Debian's /usr/sbin/nginx), or None."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def render_nginx_conf(
    prefix: Path,
    listen: str,
    replica_ports: list[int],
    sockets_per_address: int = SOCKETS_PER_ADDRESS,
    template: Path = NGINX_TEMPLATE,
) -> str:
    """``deploy/nginx.conf`` with its @...@ fields filled for replicas on 127.0.0.1:<port>.

    ``sockets_per_address``: open websockets allowed per client address; 0 drops the limit_conn line (no limit).
    """
    if sockets_per_address < 0:
        raise ValueError(f"sockets_per_address must be 0 (no limit) or more, not {sockets_per_address}")
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=2 fail_timeout=10s;" for port in replica_ports)
    # the same replicas in the same order (the consistent hash then picks the same one), never marked down
    upload_servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=0;" for port in replica_ports)
    # nginx started by root runs its workers as another user; this keeps them as the one owning the prefix
    worker_user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
    text = template.read_text()
    if sockets_per_address == 0:
        text, removed = SOCKET_LIMIT_LINE.subn("", text)
        if removed != 1:
            raise ValueError(f"{template} has {removed} limit_conn lines with @SOCKETS_PER_ADDRESS@, expected 1")
    for field, value in {
        "@PREFIX@": str(prefix),
        "@LISTEN@": listen,
        "@UPSTREAM_SERVERS@": servers,
        "@UPLOAD_SERVERS@": upload_servers,
        "@WORKER_USER@": worker_user,
        "@SOCKETS_PER_ADDRESS@": str(sockets_per_address),
    }.items():
        text = text.replace(field, value)
    return text


def write_front_end(folder: Path, source: Path = STREAMLIT_STATIC) -> int:
    """Streamlit's front end (``source``: its ``static/static`` folder) in ``folder`` for nginx to serve: each file
    linked to, and beside each of ``COMPRESSED`` a ``.gz`` of it (gzip_static); returns the bytes of the ``.gz``
    files. Compressed in threads (zlib lets go of the GIL): about a second for Streamlit's 23 MB of JavaScript."""
    files = [path for path in source.rglob("*") if path.is_file()]
    for path in files:
        target = folder / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(path)

    def compress(path: Path) -> int:
        packed = gzip.compress(path.read_bytes(), compresslevel=9, mtime=0)
        (folder / path.relative_to(source)).with_name(path.name + ".gz").write_bytes(packed)
        return len(packed)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return sum(pool.map(compress, [path for path in files if path.suffix in COMPRESSED]))


def write_nginx_prefix(
    prefix: Path, listen: str, replica_ports: list[int], sockets_per_address: int = SOCKETS_PER_ADDRESS
) -> Path:
    """nginx's temp folders, Streamlit's front end compressed (``write_front_end``) and the filled ``nginx.conf``
    in ``prefix``; returns the conf's path."""
    for folder in TEMP_FOLDERS:
        (prefix / folder).mkdir(exist_ok=True)
    if not (prefix / "static").exists():
        write_front_end(prefix / "static")
    conf = prefix / "nginx.conf"
    conf.write_text(render_nginx_conf(prefix, listen, replica_ports, sockets_per_address))
    return conf


def nginx_command(nginx: str, prefix: Path, conf: Path, *options: str) -> list[str]:
    """argv running ``nginx`` on ``conf`` with everything in ``prefix`` (``options``: e.g. "-t", or "-g", "...")."""
    return [nginx, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log"), *options]


def answers_health(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except OSError:
        return False


def visit_draw(url: str, timeout: float) -> None:
    """Open /draw once (MNIST loaded, naive Bayes and softmax trained or read from the model cache)."""
    from devtools.streamlit_client import StreamlitClient

    with StreamlitClient(url, timeout=timeout) as client:
        run = client.connect(page="draw")
    if run.errors:
        raise RuntimeError(f"the first visit to {url}/draw failed: {run.errors}")


def prepare_data(data_dir: Path) -> None:
    """``python -m nbcore prepare`` with NBCORE_DATA_DIR=data_dir; raises with its output if it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "nbcore", "prepare"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NBCORE_DATA_DIR": str(data_dir)},
    )
    if done.returncode != 0:
        raise RuntimeError(f"python -m nbcore prepare failed ({done.returncode}):\n{done.stdout}{done.stderr}")


class ClassServer:
    """``replicas`` app servers behind one nginx on ``host:port``; a context manager that stops all of it.

    ``server_prefix``: argv put before each replica's ``python -m streamlit ...`` (e.g. ``["taskset", "-c", "1"]``).
    ``sockets_per_address``: open websockets nginx allows per client address (0: no limit; see deploy/nginx.conf).
    """

    def __init__(
        self,
        replicas: int,
        data_dir: Path,
        port: int | None = None,
        host: str = "127.0.0.1",
        log_dir: Path | None = None,
        extra_env: dict[str, str] | None = None,
        prepare: bool = True,
        server_prefix: list[str] | None = None,
        sockets_per_address: int = SOCKETS_PER_ADDRESS,
    ) -> None:
        if replicas < 1:
            raise ValueError("at least one replica")
        if sockets_per_address < 0:
            raise ValueError(f"sockets_per_address must be 0 (no limit) or more, not {sockets_per_address}")
        self.sockets_per_address = sockets_per_address
        self.replicas = replicas
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port or free_port()
        self.prefix = Path(tempfile.mkdtemp(prefix="nb-class-nginx-"))
        self.log_dir = Path(log_dir) if log_dir else self.prefix
        self.prepare = prepare
        env = {"STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32), **(extra_env or {})}
        self.servers = [
            PrefixedServer(
                self.data_dir, self.log_dir / f"replica-{index}.log", extra_env=env, prefix=server_prefix or []
            )
            for index in range(replicas)
        ]
        self.nginx: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://{'127.0.0.1' if self.host in ('0.0.0.0', '') else self.host}:{self.port}"

    def start(self, timeout: float = 120.0) -> ClassServer:
        nginx = nginx_binary()
        if nginx is None:
            raise FileNotFoundError("nginx is not installed (apt-get install -y nginx)")
        if self.prepare:
            prepare_data(self.data_dir)
        first, others = self.servers[0], self.servers[1:]
        first.start().wait_ready(timeout)
        visit_draw(first.url, timeout)
        for server in others:
            server.start()
        if others:
            with ThreadPoolExecutor(len(others)) as pool:
                list(pool.map(lambda server: server.wait_ready(timeout), others))
        conf = write_nginx_prefix(
            self.prefix, f"{self.host}:{self.port}", [s.port for s in self.servers], self.sockets_per_address
        )
        self.nginx = spawn_logged(
            nginx_command(nginx, self.prefix, conf, "-g", "daemon off;"), self.prefix / "nginx-output.log"
        )
        deadline = time.monotonic() + 20
        while not answers_health(self.url):
            if self.nginx.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not serve {self.url}: {self.nginx_log()}")
            time.sleep(0.1)
        return self

    def nginx_log(self) -> str:
        parts = []
        for name in ("nginx-output.log", "error.log"):
            path = self.prefix / name
            if path.is_file():
                parts.append(path.read_text(errors="replace")[-3000:])
        return "\n".join(parts)

    def health(self) -> list[bool]:
        """Whether each replica answers /_stcore/health now."""
        return [answers_health(server.url) for server in self.servers]

    def stop(self) -> None:
        """nginx (SIGTERM to its group, SIGKILL if it lingers), then every replica; the temp prefix is removed."""
        nginx, self.nginx = self.nginx, None
        if nginx is not None:
            try:
                os.killpg(nginx.pid, signal.SIGTERM)
                nginx.wait(10)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                os.killpg(nginx.pid, signal.SIGKILL)
                nginx.wait(10)
        for server in self.servers:
            server.stop()
        shutil.rmtree(self.prefix, ignore_errors=True)  # with the replicas' logs unless log_dir was given

    def __enter__(self) -> ClassServer:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


class PrefixedServer(StreamlitServer):
    """A ``StreamlitServer`` whose command starts with ``prefix`` (e.g. taskset)."""

    def __init__(self, *args, prefix: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.prefix = prefix

    def command(self) -> list[str]:
        return [*self.prefix, *super().command()]
