"""The robustness tests' fixtures: no network, and a data folder of each module's own (both for every test here).

No network: name look-ups for anything but the loopback fail, so a missing data folder takes the offline path.
"""

from __future__ import annotations

import logging
import shutil
import socket

import pytest

import nbcore
from nbcore.datasets import sms
from tests.conftest import REPO, require

SHARED_SMS = REPO.parent / "shared" / "sms-spam" / sms.SMS_FILE


# -- fixtures --------------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def no_network():
    """Name look-ups only for the loopback: the app's download fallbacks fail fast and offline."""
    real_getaddrinfo = socket.getaddrinfo

    def loopback_only(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if host is None or name in ("localhost", "::1") or name.startswith("127."):
            return real_getaddrinfo(host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, f"no network in tests (looked up {name})")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", loopback_only)
        yield


@pytest.fixture(scope="module", autouse=True)
def data_dir(mnist_root, tmp_path_factory):
    """NBCORE_DATA_DIR for this module: MNIST linked from mnist_root, the SMS collection, models/ of its own.

    ``models/`` is a real folder (the softmax weights copied in), so that corrupting a cache file
    here never touches mnist_root.
    """
    root = tmp_path_factory.mktemp("robust-data")
    for entry in mnist_root.iterdir():
        if entry.name != "models":
            (root / entry.name).symlink_to(entry.resolve(), target_is_directory=entry.is_dir())
    (root / "models").mkdir()
    for weights in (mnist_root / "models").glob("softmax-*.npz"):
        shutil.copy(weights, root / "models" / weights.name)
    if not (root / sms.SMS_FILE).exists():
        require(SHARED_SMS.exists(), f"the SMS Spam Collection is missing (not beside MNIST, not {SHARED_SMS})")
        shutil.copy(SHARED_SMS, root / sms.SMS_FILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NBCORE_DATA_DIR", str(root))
        yield root


@pytest.fixture(scope="module")
def mnist_test_split(data_dir):
    images, labels = nbcore.load_mnist(False, root=data_dir, download=False)
    return images, labels


@pytest.fixture
def quiet_streamlit():
    """Calling cached functions outside a script run logs 'missing ScriptRunContext' each time: hush it."""
    logger = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)
