"""Bar charts: a value per digit (a prior, a posterior, two models' posteriors), per model, per word or per answer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab import i18n
from lab.figures import notation
from lab.figures.style import (
    AXIS_TEXT,
    ERROR_COLOUR,
    HAM_COLOUR,
    LAYOUT,
    MODEL_COLOURS,
    NEUTRAL_COLOUR,
    OK_COLOUR,
    PRIOR_COLOUR,
    SPAM_COLOUR,
    style,
    title_lines,
)
from lab.i18n import N_, _


def _digit_hover() -> str:
    """The hover's "digit 3" line (plotly fills in the digit)."""
    return _("digit {digit}").format(digit="%{x}")


def _formatted(value: float, value_format: str) -> str:
    """``value`` in a Python format spec (".3f", ".1%"), written in the reader's form where the spec is one of those."""
    places = value_format[1:-1]
    if value_format.startswith(".") and places.isdigit() and value_format[-1] in "f%":
        if value_format[-1] == "f":
            return i18n.decimal(value, int(places))
        return i18n.percent(value, int(places))
    return f"{value:{value_format}}"


def class_bars(
    values: np.ndarray,
    title: str,
    value_name: str,
    highlight: int | None = None,
    value_format: str = ".3f",
    height: int = 320,
) -> go.Figure:
    """A bar per digit 0-9 (e.g. a posterior or a prior), the highlighted one in a strong colour."""
    values = np.asarray(values)
    colours = [OK_COLOUR if label == highlight else "#9bb7d4" for label in range(len(values))]
    bars = go.Bar(
        x=[str(label) for label in range(len(values))],
        y=values,
        marker_color=colours,
        text=[_formatted(value, value_format) for value in values],
        textposition="outside",
        hovertemplate=_digit_hover() + f"<br>{value_name} %{{y:{value_format}}}<extra></extra>",
    )
    title_layout, top = title_lines(title)
    return go.Figure(
        bars,
        layout=dict(
            height=height + top - 60,
            title=title_layout,
            margin=dict(l=10, r=10, t=top, b=10),
            xaxis=dict(AXIS_TEXT, title=dict(AXIS_TEXT["title"], text=_("digit")), type="category"),
            yaxis=dict(
                AXIS_TEXT,
                title=dict(AXIS_TEXT["title"], text=value_name),
                range=[0, max(1e-9, float(np.max(values))) * 1.18],
            ),
            **LAYOUT,
        ),
    )


BAR_PATTERNS = ("", "/")  # the first model's bars plain, the second's striped: told apart without colour
BAR_LOOKS = (N_("plain bars"), N_("striped bars"))  # the same in words, for the title


def posterior_comparison(posteriors: dict[str, np.ndarray], height: int = 340) -> go.Figure:
    """Two models' p(y | x), each (10,), as grouped bars per digit (exact values on hover).

    The models differ by colour and by shape (the second's bars striped), and the title says which is which in
    words; a legend would cost the browser about 70 ms more per redraw, and this chart is redrawn on every stroke.
    Both colours are >= 3:1 on the light and the dark background (WCAG 1.4.11).
    """
    colours = MODEL_COLOURS
    digit_line = _digit_hover()
    # plain trace dicts, validated once by go.Figure (go.Bar objects are validated again when the figure copies
    # them: 1.9 -> 1.1 ms per call, and this chart is rebuilt on every stroke)
    bars = [
        dict(
            type="bar",
            x=[str(label) for label in range(len(posterior))],
            y=np.asarray(posterior, dtype=float),
            name=name,
            marker=dict(color=colour, pattern=dict(shape=shape, fgcolor="#ffffff", size=6, solidity=0.3)),
            hovertemplate=f"{name}<br>{digit_line}<br>p(y | x) %{{y:.4f}}<extra></extra>",
        )
        for colour, shape, (name, posterior) in zip(colours, BAR_PATTERNS, posteriors.items())
    ]
    looks = [_("{model} ({look})").format(model=name, look=_(look)) for look, name in zip(BAR_LOOKS, posteriors)]
    names = looks[0] if looks else ""
    for look in looks[1:]:
        names = _("{first} vs {second}").format(first=names, second=look)
    # built in one go: plotly validates on every update_* call, which cost 8 ms more here (per stroke)
    return go.Figure(
        bars,
        layout=dict(
            height=height,
            title=f"p(y | x): {names}",
            margin=dict(l=10, r=10, t=60, b=10),
            barmode="group",
            bargap=0.2,
            showlegend=False,
            xaxis=dict(AXIS_TEXT, title=dict(AXIS_TEXT["title"], text=_("digit")), type="category"),
            yaxis=dict(AXIS_TEXT, title=dict(AXIS_TEXT["title"], text="p(y | x)"), range=[0, 1.02]),
            **LAYOUT,
        ),
    )


def blank_posterior_comparison(names: Sequence[str], height: int = 340) -> go.Figure:
    """``posterior_comparison``'s frame before there is a digit: the same axes and title, no bars, no hover."""
    figure = posterior_comparison({name: np.zeros(10) for name in names}, height=height)
    figure.update_traces(hoverinfo="skip", hovertemplate=None)
    return figure


def prior_against_frequency(prior: np.ndarray, frequency: np.ndarray, most_wrong: int, height: int = 340) -> go.Figure:
    """Grouped bars per digit: the model's prior p(y) (10,) and the test images' class frequency (10,).

    The digit where they differ most gets a red outline and its gap, in percentage points, above it.
    """
    digits = [str(digit) for digit in range(len(prior))]
    outline = [ERROR_COLOUR if digit == most_wrong else "rgba(0,0,0,0)" for digit in range(len(prior))]
    digit_line = _digit_hover()
    bars = [
        go.Bar(
            x=digits,
            y=np.asarray(values, dtype=float),
            name=name,
            marker_color=colour,
            marker_line_color=outline,
            marker_line_width=3,
            hovertemplate=f"{name}<br>{digit_line}: %{{y:.4f}}<extra></extra>",
        )
        for name, values, colour in (
            (_("prior p(y)"), prior, PRIOR_COLOUR),
            (_("share of the test images"), frequency, OK_COLOUR),
        )
    ]
    top = float(max(np.max(prior), np.max(frequency)))
    gap = float(prior[most_wrong] - frequency[most_wrong])
    return (
        go.Figure(
            bars,
            layout=dict(
                height=height,
                barmode="group",
                bargap=0.2,
                margin=dict(l=10, r=10, t=40, b=10),
                legend=dict(orientation="h", y=-0.25),
                # the text in the theme's colour (a red one was unreadable on the dark theme); the red outline marks the digit
                annotations=[
                    dict(
                        x=str(most_wrong),
                        y=top * 1.08,
                        showarrow=False,
                        text=_("{gap} points").format(gap=notation.signed(gap * 100, 2)),
                    )
                ],
                xaxis=dict(title=_("digit"), type="category"),
                yaxis=dict(title=_("probability"), range=[0, top * 1.18]),
                **LAYOUT,
            ),
        )
        .update_xaxes(**AXIS_TEXT)
        .update_yaxes(**AXIS_TEXT)
    )  # the theme's text colour: its grey was 3.6:1


def accuracy_bars(
    accuracies: dict[str, float], title: str, height: int = 300, baseline: str | None = None
) -> go.Figure:
    """One horizontal bar per named accuracy, values printed on the bars, x from 0 to 1; the bar named ``baseline``
    (a name in the reader's language, so it is given, not guessed) in grey."""
    names = list(accuracies)
    values = [accuracies[name] for name in names]
    colours = [NEUTRAL_COLOUR if name == baseline else OK_COLOUR for name in names]
    figure = go.Figure(
        go.Bar(
            x=values,
            y=names,
            orientation="h",
            marker_color=colours,
            text=[i18n.decimal(value, 4) for value in values],
            textposition="inside",
            hovertemplate="%{y}: %{x:.4f}<extra></extra>",
        )
    )
    figure.update_xaxes(title=_("test accuracy"), range=[0, 1])
    figure.update_yaxes(autorange="reversed")
    return style(figure, height=height, title=title)


def word_contributions(
    words: Sequence[str],
    contributions: np.ndarray,
    known: np.ndarray,
    base_label: str,
    base_log_odds: float,
    title: str,
    max_words: int = 30,
    max_label: int = 24,
) -> go.Figure:
    """Horizontal bars: nats each word adds to the spam log-odds (red towards spam, blue towards ham).

    The base term (prior, and for the Bernoulli model every word counted absent) comes first;
    unknown words are shown grey at 0; of more than ``max_words`` words, the largest in
    absolute value are kept; labels longer than ``max_label`` characters are shortened.
    """
    contributions = np.asarray(contributions, dtype=np.float64)
    order = np.argsort(-np.abs(contributions), kind="stable")[:max_words]
    order = order[np.argsort(-contributions[order], kind="stable")]  # most spammy at the top
    labels = [base_label] + [
        _shorten(words[index], max_label)
        if known[index]
        else _("{word} (unknown)").format(word=_shorten(words[index], max_label))
        for index in order
    ]
    values = np.concatenate([[base_log_odds], contributions[order]])
    is_known = [True] + [bool(known[index]) for index in order]
    colours = [
        SPAM_COLOUR if value > 0 else HAM_COLOUR if ok else NEUTRAL_COLOUR for value, ok in zip(values, is_known)
    ]
    rows = list(range(len(values)))  # positions, so equal labels stay separate bars
    figure = go.Figure(
        go.Bar(
            x=values,
            y=rows,
            orientation="h",
            marker_color=colours,
            customdata=labels,
            hovertemplate=_("{word}: {nats} nats").format(word="%{customdata}", nats="%{x:+.3f}") + "<extra></extra>",
        )
    )
    figure.update_xaxes(title=_("← ham · nats · spam →"), zeroline=True, zerolinecolor="#555")
    figure.update_yaxes(autorange="reversed", tickvals=rows, ticktext=labels)
    return style(figure, height=max(260, 90 + 26 * len(values)), title=title)


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return _("{start}… ({count} chars)").format(start=text[: limit - 1], count=i18n.integer(len(text)))


def answer_counts(
    labels: list[str], counts: list[int], title: str, height: int = 300, right: int | None = None
) -> go.Figure:
    """How many students gave each answer: a horizontal bar per answer (in the question's order), its count at the end.

    ``labels`` the answers as the question shows them; ``counts`` students per answer (0 for none); ``right`` the
    index of the right answer once revealed: its bar is coloured and its label says "✓ right" (words, not only colour).
    """
    total = max(1, sum(counts))
    if right is None:
        colours = [OK_COLOUR if count == max(counts) and count > 0 else "#9bb7d4" for count in counts]
        shown = list(labels)
    else:
        colours = [OK_COLOUR if index == right else "#9bb7d4" for index in range(len(labels))]
        shown = [
            _("✓ {answer} (right)").format(answer=label) if index == right else label
            for index, label in enumerate(labels)
        ]
    bars = go.Bar(
        y=shown,
        x=counts,
        orientation="h",
        marker_color=colours,
        text=[f"{i18n.integer(count)} ({i18n.percent(count / total)})" for count in counts],
        textposition="outside",
        cliponaxis=False,
        hovertemplate=_("{answer}: {count} students").format(answer="%{y}", count="%{x}") + "<extra></extra>",
    )
    title_layout, top = title_lines(title)
    return go.Figure(
        bars,
        layout=dict(
            height=max(height, 60 + 34 * len(labels)) + top - 60,
            title=title_layout,
            margin=dict(l=10, r=60, t=top, b=10),
            xaxis=dict(
                AXIS_TEXT, title=dict(AXIS_TEXT["title"], text=_("students")), range=[0, max(counts + [1]) * 1.25]
            ),
            yaxis=dict(AXIS_TEXT, type="category", autorange="reversed"),
            **LAYOUT,
        ),
    )
