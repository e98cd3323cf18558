"""Text alternatives for the lab's figures, made from the numbers each figure plots (WCAG 1.1.1).

A screen reader meets a chart as one sentence (its accessible name), and, where a reader needs every number
(a confusion matrix, two posteriors), as a table. Both come from the figure's own data, so that they say what
the chart shows and cannot drift from it. Pure: a figure or arrays in, text or rows out, in the reader's language
(its words through the catalogue, its numbers in the reader's form).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab import i18n
from lab.i18n import _, ngettext, pgettext

MAX_LISTED = 12  # a trace with at most this many points is read out point by point; longer ones are summarised
MAX_CHARACTERS = 1200  # an accessible name is read out in one go: longer ones end in "…"
_TAG = re.compile(r"<[^>]+>")
# "α = β (log scale)", "α = β（对数刻度）", not "p(y | x)"
_PARENTHESES = re.compile(r"\s+\([^)]*\)|\s*（[^）]*）")


def plain(text: object) -> str:
    """Plotly text without its markup: "<b>a</b><br>b" -> "a b"."""
    return " ".join(_TAG.sub(" ", str(text or "")).split())


def number(value: float) -> str:
    """A number as a sentence writes it in the reader's form: 4 significant digits, thousands separated, "∞" for
    infinities ("0.8427", "5,923"; "0,8427", "5.923" in Spanish)."""
    value = float(value)
    if np.isnan(value):
        return _("undefined")
    if np.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value == round(value) and abs(value) < 1e15:
        return i18n.integer(int(round(value)))
    mantissa, mark, exponent = f"{value:.4g}".partition("e")
    return i18n.decimal(float(mantissa), len(mantissa.partition(".")[2])) + mark + exponent


def _axis_name(figure: go.Figure, axis: str) -> str:
    """An axis's title without its parentheses ("α = β (log scale)" -> "α = β"), or "" when it has none."""
    layout = figure.layout[axis] if axis in figure.layout else None
    title = plain(layout.title.text) if layout is not None and layout.title is not None else ""
    return _PARENTHESES.sub("", title).strip()


def _values(data) -> np.ndarray | None:
    """A trace's x, y or z as an array (None where the trace has none)."""
    if data is None:
        return None
    array = np.asarray(data)
    return array if array.size else None


def _points(x: np.ndarray | None, y: np.ndarray) -> list[tuple[str, float]]:
    """(label, value) pairs of a trace, its labels the x values (or positions 1, 2, … without x)."""
    labels = [str(label) if not _is_number(label) else number(label) for label in x] if x is not None else None
    return [(labels[i] if labels else str(i + 1), float(value)) for i, value in enumerate(y.astype(float))]


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _series(name: str, points: list[tuple[str, float]], x_name: str) -> str:
    """One trace as words: every point when there are few, else where it starts, ends, peaks and bottoms."""
    finite = [(label, value) for label, value in points if np.isfinite(value)]
    prefix = f"{name}: " if name else ""
    if not finite:
        return prefix + _("no values")
    if len(points) <= MAX_LISTED:
        # ", " in English; "; " where the decimal sign is a comma ("0,01: 0,85; 0,1: 0,83")
        return prefix + pgettext("between the values of a chart read out", ", ").join(
            f"{(x_name + ' ') if x_name else ''}{label}: {number(value)}" for label, value in points
        )
    highest = max(finite, key=lambda point: point[1])
    lowest = min(finite, key=lambda point: point[1])
    first, last = finite[0], finite[-1]
    # where each value is: "α = β 0.001" on a named axis, "0.001" on an unnamed one
    where = (lambda label: f"{x_name} {label}") if x_name else (lambda label: label)
    return prefix + ngettext(
        "{count} point, from {first} at {first_x} to {last} at {last_x}; highest {highest} at {highest_x}, "
        "lowest {lowest} at {lowest_x}",
        "{count} points, from {first} at {first_x} to {last} at {last_x}; highest {highest} at {highest_x}, "
        "lowest {lowest} at {lowest_x}",
        len(points),
    ).format(
        count=i18n.integer(len(points)),
        first=number(first[1]),
        first_x=where(first[0]),
        last=number(last[1]),
        last_x=where(last[0]),
        highest=number(highest[1]),
        highest_x=where(highest[0]),
        lowest=number(lowest[1]),
        lowest_x=where(lowest[0]),
    )


def _grid(trace, x_name: str, y_name: str) -> str:
    """A heatmap or contour as words: its size and range, and for a square grid with the same labels on both
    axes (a confusion matrix) the share on the diagonal and the largest cell off it."""
    z = np.asarray(trace.z, dtype=float)
    if z.ndim != 2 or not np.isfinite(z).any():
        return _("an empty grid")
    rows, columns = z.shape
    finite = z[np.isfinite(z)]
    clauses = [
        _("a {rows} × {columns} grid of values from {low} to {high}").format(
            rows=i18n.integer(rows), columns=i18n.integer(columns), low=number(finite.min()), high=number(finite.max())
        )
    ]
    x, y = _values(trace.x), _values(trace.y)
    if rows == columns and x is not None and y is not None and list(map(str, x)) == list(map(str, y)):
        diagonal = float(np.trace(np.nan_to_num(z)))
        total = float(np.nansum(z))
        off = np.where(np.eye(rows, dtype=bool), -np.inf, np.nan_to_num(z, nan=-np.inf))
        row, column = np.unravel_index(int(np.argmax(off)), off.shape)
        row_name, column_name = y_name or _("row"), x_name or _("column")
        clauses.append(
            _("{diagonal} of {total} on the diagonal where {row_name} = {column_name}").format(
                diagonal=number(diagonal), total=number(total), row_name=row_name, column_name=column_name
            )
        )
        if np.isfinite(off[row, column]) and off[row, column] > 0:
            clauses.append(
                _("largest off it: {row_name} {row}, {column_name} {column}: {count}").format(
                    row_name=row_name,
                    row=y[row],
                    column_name=column_name,
                    column=x[column],
                    count=number(off[row, column]),
                )
            )
    return "; ".join(clauses)


def text_alternative(figure: go.Figure, title: str | None = None) -> str:
    """One sentence saying what ``figure`` shows, from its own data: title, axes, then each named trace in words.

    ``title``: the chart's title when the page shows it above the chart (style.prepared takes it out of the
    figure); else the figure's own. Traces without hover (bands, blank frames) are left out.
    """
    title = plain(title if title is not None else figure.layout.title.text)
    x_name, y_name = _axis_name(figure, "xaxis"), _axis_name(figure, "yaxis")
    parts = [title or _("Chart")]
    horizontal = any(trace.type == "bar" and trace.orientation == "h" for trace in figure.data)
    if horizontal:  # bars along x, their names along y
        parts.append(_("{value} of each {bar}").format(value=x_name or _("value"), bar=y_name or _("bar")))
    elif x_name or y_name:
        parts.append(
            _("{value} against {position}").format(value=y_name or _("value"), position=x_name or _("position"))
        )
    grids = 0
    for trace in figure.data:
        if trace.hoverinfo == "skip" or trace.visible is False:
            continue
        kind = trace.type
        name = plain(trace.name) if trace.name else ""
        if kind in ("heatmap", "contour", "histogram2d"):
            grids += 1
            if grids <= 2:
                parts.append((f"{name}: " if name else "") + _grid(trace, x_name, y_name))
            continue
        x, y = _values(trace.x), _values(trace.y)
        if kind == "bar" and trace.orientation == "h":
            x, y = y, x  # categories along y, values along x
            if trace.customdata is not None:
                x = _values([plain(item) for item in np.asarray(trace.customdata).ravel()])
            elif figure.layout.yaxis.ticktext is not None:
                x = _values([plain(item) for item in figure.layout.yaxis.ticktext])
        if y is None or not np.issubdtype(np.asarray(y).dtype, np.number):
            continue
        parts.append(_series(name, _points(x, np.asarray(y, dtype=float)), y_name if horizontal else x_name))
    if grids > 2:
        more = grids - 2
        parts.append(
            ngettext("and {count} more grid like this", "and {count} more grids like these", more).format(
                count=i18n.integer(more)
            )
        )
    panels = [plain(annotation.text) for annotation in figure.layout.annotations if annotation.text]
    if panels:
        listed = ", ".join(panels[:MAX_LISTED]) + ("…" if len(panels) > MAX_LISTED else "")
        parts.append(_("panels: {panels}").format(panels=listed))
    # ". " between sentences, "." at the end (Chinese: "。")
    stop = pgettext("between the sentences of a chart read out", ". ")
    text = stop.join(part for part in parts if part) + stop.rstrip()
    return text if len(text) <= MAX_CHARACTERS else text[: MAX_CHARACTERS - 1].rstrip() + "…"


def confusion_rows(matrix: np.ndarray, row_name: str, column_name: str) -> dict[str, list[str]]:
    """A (k, k) confusion matrix as a table: a column per ``column_name`` digit, a row per ``row_name`` digit."""
    counts = np.asarray(matrix)
    table = {row_name: [str(digit) for digit in range(len(counts))]}
    for column in range(counts.shape[1]):
        table[f"{column_name} {column}"] = [i18n.integer(count) for count in counts[:, column]]
    return table


def posterior_rows(posteriors: dict[str, Sequence[float]]) -> dict[str, list[str]]:
    """Models' p(y | x), each (10,), as a table: a row per digit, a column per model, 4 decimals."""
    first = next(iter(posteriors.values()))
    table = {_("digit"): [str(digit) for digit in range(len(first))]}
    for name, values in posteriors.items():
        table[name] = [i18n.decimal(float(value), 4) for value in values]
    return table
