"""Small synthetic MNIST files in the IDX format, for loader tests that must not need the real data.

IDX: a big-endian header ``0x00 0x00 <type> <ndim>`` (type 0x08 = uint8), then one
big-endian uint32 per dimension, then the raw uint8 values. Images are IDX3
(magic 2051 = 0x00000803), labels IDX1 (magic 2049 = 0x00000801).
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

IMAGES_MAGIC = 0x00000803  # uint8, 3 dimensions
LABELS_MAGIC = 0x00000801  # uint8, 1 dimension
FILE_NAMES = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)


def idx_bytes(array: np.ndarray, magic: int | None = None) -> bytes:
    """The IDX encoding of a uint8 array; ``magic`` overrides the header's first 4 bytes."""
    array = np.ascontiguousarray(array, dtype=np.uint8)
    if magic is None:
        magic = 0x00000800 | array.ndim
    header = int(magic).to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    return header + array.tobytes()


def md5_hex(content: bytes) -> str:
    return hashlib.md5(content).hexdigest()


def write_gz(path: Path, content: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb") as handle:
        handle.write(content)
    return path


@dataclass
class SyntheticMnist:
    """Arrays and IDX contents of a tiny MNIST; ``md5`` maps file name -> md5 of its content."""

    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    contents: dict[str, bytes] = field(default_factory=dict)

    @property
    def md5(self) -> dict[str, str]:
        return {name: md5_hex(content) for name, content in self.contents.items()}

    def write(self, root: Path, layout: str = "flat", names=FILE_NAMES) -> Path:
        """Write the files under ``root``.

        layout: "flat" (root/*.gz), "raw-gz" (root/MNIST/raw/*.gz) or
        "raw-extracted" (root/MNIST/raw/* uncompressed).
        """
        root = Path(root)
        for name in names:
            content = self.contents[name]
            if layout == "flat":
                write_gz(root / f"{name}.gz", content)
            elif layout == "raw-gz":
                write_gz(root / "MNIST" / "raw" / f"{name}.gz", content)
            elif layout == "raw-extracted":
                target = root / "MNIST" / "raw" / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
            else:
                raise ValueError(f"unknown layout {layout!r}")
        return root


def make_synthetic_mnist(
    n_train: int = 12, n_test: int = 7, seed: int = 0, magic_override: dict[str, int] | None = None
) -> SyntheticMnist:
    """Random 28x28 uint8 images (every byte value can occur) and labels 0..9."""
    rng = np.random.default_rng(seed)
    train_images = rng.integers(0, 256, size=(n_train, 28, 28), dtype=np.uint8)
    test_images = rng.integers(0, 256, size=(n_test, 28, 28), dtype=np.uint8)
    train_images[0, 0, :4] = (0, 1, 254, 255)  # the extreme values survive the round trip
    train_labels = (np.arange(n_train) % 10).astype(np.uint8)
    test_labels = rng.integers(0, 10, size=n_test, dtype=np.uint8)
    magic_override = magic_override or {}
    arrays = dict(zip(FILE_NAMES, (train_images, train_labels, test_images, test_labels)))
    contents = {name: idx_bytes(array, magic_override.get(name)) for name, array in arrays.items()}
    return SyntheticMnist(train_images, train_labels, test_images, test_labels, contents)
