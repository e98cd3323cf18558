"""The class gallery: one store of the students' drawings per class code, shared by every session of the server.

Everything else the pages share (MNIST, features, models, curves, iris, spam, lesson answers) is declared in
``lab/data/``, grouped by what it serves.
"""

from __future__ import annotations

from lab.caching import shared
from lab.gallery import ClassGallery

# -- the class gallery (issue 14): students' drawings per class code, in memory ---------------------


@shared(writable=True)
def class_gallery() -> ClassGallery:
    """The server's one class gallery, shared by every session (bounded in drawings, codes and time)."""
    return ClassGallery()
