"""nginx in front of replicas that are already running (deploy/compose.yaml's nginx service), in the foreground.

    python -m devtools.serve_nginx --listen 0.0.0.0:8080 --replica-port 8601 --replica-port 8602
                                  [--sockets-per-address 12]

deploy/nginx.conf is filled into a temporary prefix by ``devtools.replicas.write_nginx_prefix``, as for
devtools/serve_class.py (sticky by the nb_replica cookie, Streamlit's front end served compressed from the prefix),
for replicas on 127.0.0.1:<port>; then nginx replaces this process, so that the container's SIGTERM reaches it.
serve_class.py starts the replicas itself; here they are other containers, and nginx's passive checks skip one
that is not up yet.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from devtools.replicas import (
    SOCKETS_PER_ADDRESS,
    nginx_binary,
    nginx_command,
    write_nginx_prefix,
)


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.serve_nginx", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--listen", default="0.0.0.0:8080", help="nginx's address:port (default 0.0.0.0:8080)")
    parser.add_argument("--replica-port", type=int, action="append", required=True, help="a replica's port")
    parser.add_argument(
        "--sockets-per-address",
        type=int,
        default=SOCKETS_PER_ADDRESS,
        help=f"open websockets per client address (default {SOCKETS_PER_ADDRESS}; 0: no limit)",
    )
    args = parser.parse_args()
    nginx = nginx_binary()
    if nginx is None:
        parser.error("nginx is not installed (apt-get install -y nginx)")
    prefix = Path(tempfile.mkdtemp(prefix="nb-lab-nginx-"))
    conf = write_nginx_prefix(prefix, args.listen, args.replica_port, args.sockets_per_address)
    command = nginx_command(nginx, prefix, conf, "-g", "daemon off;")
    print(f"nginx on {args.listen} -> replicas on 127.0.0.1 ports {args.replica_port}", flush=True)
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main())
