"""What the dashboard shares between sessions: computed once per server, read-only, grouped by what it serves.

* ``mnist``: MNIST as published and as the models see it, and the features for each input form;
* ``models``: naive Bayes and softmax regression for the sidebar's settings, their scores and curves;
* ``mixtures``: naive Bayes with styles (fitted by EM) for the sidebar's settings, and the unlabeled-digit curves;
* ``gaussian``: iris, and Gaussian naive Bayes on MNIST (the Gaussian NB page);
* ``spam_filter``: the SMS Spam Collection and its experiments (the Spam filter page);
* ``lesson_answers``: the guided lesson's measured answers.

Every function there is a declaration: ``@shared`` (read-only results kept for the server's lifetime, out of
reach of a client's ``clear_cache``) or ``@background`` (slow work in a thread, waited for behind a progress
bar); the machinery is ``lab/caching.py``, which nothing else imports. A cache keys on values: a session's model
settings are a ``Settings`` (``lab/model_settings.py``; the sidebar that edits them, ``lab/settings.py``, is above
this package), and a model for them is derived from the shared counts in about a millisecond. The class store, the
one writable share, is opened in ``class_store.py``.
"""

from __future__ import annotations

import logging

import nbcore

LOG = logging.getLogger(__name__)


def data_dir() -> str:
    """The data folder, as an argument of the cached functions (tests and restarts change it)."""
    return str(nbcore.default_data_dir())


def without_data_dir(error: Exception, folder: str) -> str:
    """``error``'s message for every visitor to read: ``folder`` (the server's data folder) called "the data folder".

    A data error names the folder for whoever runs the server; a page says what to set, not where the server
    keeps its files. The whole message, folder and all, goes to the server's log.
    """
    LOG.warning("%s (data folder: %s)", error, folder)
    return str(error).replace(folder, "the data folder")
