"""The class store: what students share, in a file or Redis that every replica opens; the one writable share.
What pages compute from a class's drawings is kept beside it: ``class_models.py`` (the class's model) and
``gallery_views.py`` (the teacher's gallery)."""

from __future__ import annotations

import logging
from pathlib import Path

from lab.caching import shared
from lab.data import data_dir
from nbcore.classroom import ClassStore, open_store, store_setting
from nbcore.classroom.records import UNAVAILABLE, StoreUnavailable

LOG = logging.getLogger(__name__)


@shared(writable=True)
def _class_store(setting: str, folder: str) -> ClassStore:
    return open_store(setting, Path(folder))


def class_store() -> ClassStore:
    """The class store the setting names (``$NBCORE_CLASS_STORE``; by default a file in the data folder);
    the object holds no classes itself, only how to reach them. ``StoreUnavailable`` (a sentence) when unusable."""
    try:
        return _class_store(store_setting(), data_dir())
    except (OSError, ConnectionError, ValueError) as error:  # a damaged file, Redis down, a setting we do not know
        LOG.warning("class store unavailable: %s", error)
        raise StoreUnavailable(UNAVAILABLE) from error
