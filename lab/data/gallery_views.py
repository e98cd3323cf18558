"""The teacher's gallery: what a refresh shows (tiles and confusion figures), made once per class's drawings, chart
text size and language, and shared by every replica's teachers that show the same."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from lab import i18n
from lab.caching import shared
from lab.figures import diagnostics, digits, export, style
from lab.i18n import _
from nbcore.classroom.export import as_arrays
from nbcore.classroom.records import Drawing
from nbcore.metrics import confusion_matrix

GALLERY_SHOWN = 60  # newest drawings in the grid on screen; the downloads hold them all
STUDENT_LABEL = 5  # hex digits of the anonymous id shown on a tile: enough to tell a class's students apart


@dataclass(frozen=True)
class GalleryView:
    """The gallery's slow parts: the newest ``GALLERY_SHOWN`` drawings as PNG tiles (bytes, newest first) with
    their captions, and the two confusion figures (naive Bayes', softmax's). Shared: never change a figure. Its
    texts are in one reader's language (``_gallery_view`` keeps one per language)."""

    tiles: tuple[bytes, ...]
    tile_width: int  # px
    captions: tuple[str, ...]
    descriptions: tuple[str, ...]  # each tile's text alternative
    confusions: tuple[tuple[go.Figure, str | None], ...]  # (figure, its title), style.prepared


# the figures' titles, axes and hover texts and the tiles' captions are in the reader's language: one view per language
@shared(
    max_entries=16,
    key=lambda code, version, font_px, _drawings, language: (code, version, font_px, language),
)
def _gallery_view(
    code: str, version: tuple[int, int, int], font_px: int | None, _drawings, language: str = i18n.SOURCE_LANGUAGE
) -> GalleryView:
    with i18n.speaking(language):
        newest = _drawings[::-1][:GALLERY_SHOWN]
        shown, every = as_arrays(newest), as_arrays(_drawings)
        tiles, captions = digits.drawing_tiles(shown.frames, shown.meant, shown.bayes, shown.softmax)
        figures = tuple(
            style.prepared(diagnostics.meant_confusion(confusion_matrix(every.meant, read), name), font_px)
            for read, name in ((every.bayes, _("naive Bayes")), (every.softmax, "softmax"))
        )
        return GalleryView(
            tuple(export.png_bytes(tile) for tile in tiles),
            tiles[0].shape[1] if tiles else 0,
            tuple(f"#{d.id} · {d.student[:STUDENT_LABEL]} · {text}" for d, text in zip(newest, captions)),
            tuple(digits.drawing_descriptions(shown.meant, shown.bayes, shown.softmax)),
            figures,
        )


def gallery_view(code: str, drawings: Sequence[Drawing], font_px: int | None) -> GalleryView:
    """What the teacher's gallery shows of these drawings; built again only when they change (a refresh every few
    seconds with nothing new costs the store's read), per chart text size (``font_px``: presenter mode's, or None)
    and per language (the reader's)."""
    ids = [drawing.id for drawing in drawings]
    version = (len(ids), sum(ids), ids[-1] if ids else 0)  # any send or removal changes one of them
    return _gallery_view(code, version, font_px, tuple(drawings), i18n.current().code)
