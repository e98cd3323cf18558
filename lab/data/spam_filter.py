"""The Spam filter page's data: the SMS Spam Collection, and both event models tuned and tested on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lab.caching import background, shared
from lab.data import data_dir, without_data_dir
from lab.i18n import N_
from nbcore.datasets.sms import SMS_FILE, SpamDataError, load_sms
from nbcore.experiments import spam


@background(
    N_("SMS Spam Collection"),
    "nbcore-sms",
    stop_on=(SpamDataError, N_("The SMS Spam Collection is not available.")),
)
def _sms(folder: str, progress) -> tuple[tuple[str, ...], np.ndarray]:
    try:
        texts, labels = load_sms(Path(folder), progress=progress)
    except SpamDataError as error:  # shown to every visitor: what to set, not where the server keeps its files
        raise SpamDataError(without_data_dir(error, folder)) from error
    return tuple(texts), labels


def sms() -> tuple[tuple[str, ...], np.ndarray]:
    """All messages and labels (0 = ham, 1 = spam), loaded once per server; a clear stop on errors."""
    return _sms(data_dir())


@shared(N_("Splitting, counting words and tuning k on the held-out messages…"))
def _experiments(folder: str) -> dict[str, spam.SpamExperiment]:
    texts, labels = _sms.result(folder)
    return {event_model: spam.run_experiment(texts, labels, event_model) for event_model in spam.EVENT_MODELS}


def experiments() -> dict[str, spam.SpamExperiment]:
    """Both event models, each tuned on held-out data and tested once (shared, do not mutate the models)."""
    sms()
    return _experiments(data_dir())


def tune() -> None:
    """Tune both event models on the messages (about 0.2 s), as the server starts, if the data folder holds them:
    nothing is downloaded that no visitor asked for."""
    if (Path(data_dir()) / SMS_FILE).is_file():
        _experiments(data_dir())
