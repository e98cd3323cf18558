"""``python -m devtools.install_size [requirements.txt]``: how much ``pip install -r`` of a requirements file puts on disk.

pip resolves the file without installing (``--dry-run --report``, metadata only), and the size of each resolved
distribution is summed from its installed files here (its RECORD). So it needs the requirements installed in this
environment, as the README's commands leave them; a distribution installed here at another version is measured
as it is here, and named.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from devtools.app_server import REPO

PYTORCH = ("torch", "torchvision", "triton", "nvidia-")  # PyTorch's build and the CUDA libraries it brings


def installed_bytes(name: str) -> int | None:
    """The bytes of distribution ``name``'s installed files here, or None when it is not installed."""
    try:
        files = importlib.metadata.distribution(name).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    paths = [Path(file.locate()) for file in files]
    return sum(path.stat().st_size for path in paths if path.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.install_size", description=__doc__)
    parser.add_argument("requirements", nargs="?", type=Path, default=REPO / "requirements.txt")
    requirements = parser.parse_args(argv).requirements
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--dry-run",
                "--ignore-installed",
                "--quiet",
                "--report",
                str(report),
                "-r",
                str(requirements),
            ],
            check=True,
        )
        resolved = [
            (item["metadata"]["name"], item["metadata"]["version"])
            for item in json.loads(report.read_text())["install"]
        ]
    sizes, absent, other_version = {}, [], []
    for name, version in resolved:
        size = installed_bytes(name)
        if size is None:
            absent.append(name)
            continue
        sizes[name] = size
        if importlib.metadata.version(name) != version:
            other_version.append(f"{name} {importlib.metadata.version(name)} (pip would take {version})")
    total = sum(sizes.values())
    pytorch = sum(size for name, size in sizes.items() if name.lower().startswith(PYTORCH))
    print(f"{requirements.name}: {len(resolved)} distributions, {total / 1e9:.2f} GB installed")
    print(f"  PyTorch, torchvision, triton and the nvidia-* CUDA libraries: {pytorch / 1e9:.2f} GB")
    print(f"  everything else: {(total - pytorch) / 1e9:.2f} GB")
    if absent:
        print(f"  not installed here, not counted: {', '.join(absent)}")
    if other_version:
        print(f"  measured at this environment's version: {'; '.join(other_version)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
