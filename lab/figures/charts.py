"""Curves and bars: values per digit, per model or per setting, against training size, smoothing or k."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from lab import i18n
from lab.figures import notation
from lab.figures.style import (
    AXIS_TEXT,
    CLASS_COLOURS,
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
from lab.i18n import N_, _, pgettext


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


def curves(
    x: ArrayLike,
    series: dict[str, ArrayLike],
    x_title: str,
    y_title: str,
    title: str,
    log_x: bool = False,
    marker_x: float | None = None,
    current: dict[str, float] | None = None,
    current_label: str | None = None,
    marked: dict[str, float] | None = None,
    references: dict[str, float] | None = None,
    height: int = 370,
    tick_every_x: bool = False,
    marked_label: str | None = None,
    stars_named: bool = True,
) -> go.Figure:
    """Named series over a shared x (log-scaled if ``log_x``), in the class colours, and three kinds of mark.

    ``marker_x``: a vertical dashed line there; ``current[name]`` puts a star for that series on the line
    (a value measured off the curve, e.g. at α ≠ β when x is α = β; non-finite values get none; on a log
    axis an x ≤ 0 is drawn at the smallest x). ``marked[name]``: a star on that series at its nearest x.
    ``references``: named horizontal dashed lines across the x range. ``tick_every_x``: a tick labelled at each x
    (a short grid such as K = 1, 2, 5, 10, 20, 50), not the axis's own.
    A star's legend entry is its series' name, then ``current_label`` (default "current") or ``marked_label``
    (``{x}``: the x marked; default the x alone, in the reader's form);
    ``stars_named=False`` leaves the name out (a chart of one series, whose stars say what they mark alone).
    """
    if current_label is None:
        current_label = _("current")
    figure = go.Figure()
    xs = np.asarray(x, dtype=np.float64)
    colours = {name: CLASS_COLOURS[index % len(CLASS_COLOURS)] for index, name in enumerate(series)}
    shown_x = marker_x
    if log_x and marker_x is not None and marker_x <= 0:  # no place on a log axis: drawn at the smallest x
        shown_x = float(np.min(xs))

    def star(name: str, at_x: float, y: float, label: str) -> go.Scatter:
        return go.Scatter(
            x=[at_x],
            y=[y],
            mode="markers",
            name=label,
            marker=dict(
                symbol="star", size=17, color=colours.get(name, NEUTRAL_COLOUR), line=dict(color="black", width=1)
            ),
            hovertemplate=f"{label}: %{{y:.4f}}<extra></extra>",
        )

    for name, given in series.items():
        values = np.asarray(given, dtype=np.float64)
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=values,
                mode="lines+markers",
                name=name,
                line=dict(color=colours[name]),
                hovertemplate=f"{name}<br>%{{x:.3g}}: %{{y:.4f}}<extra></extra>",
            )
        )
        if marked and name in marked:
            position = int(np.argmin(np.abs(np.log(xs) - np.log(marked[name])) if log_x else np.abs(xs - marked[name])))
            label = notation.general(xs[position]) if marked_label is None else marked_label.format(x=xs[position])
            figure.add_trace(star(name, xs[position], values[position], f"{name}: {label}" if stars_named else label))
    if shown_x is not None:
        figure.add_vline(x=shown_x, line_dash="dash", line_color="#555")
        for name, value in (current or {}).items():
            if np.isfinite(value):
                label = f"{name}, {current_label}" if stars_named else current_label
                figure.add_trace(star(name, shown_x, value, label))
    for name, level in (references or {}).items():
        figure.add_trace(
            go.Scatter(
                x=[xs.min(), xs.max()],
                y=[level, level],
                mode="lines",
                name=name,
                line=dict(color=NEUTRAL_COLOUR, dash="dash"),
                hovertemplate=f"{name}: {i18n.decimal(level, 4)}<extra></extra>",
            )
        )
    if log_x:
        figure.update_xaxes(type="log", exponentformat="power", dtick=1)
    if tick_every_x:
        figure.update_xaxes(tickvals=xs, ticktext=[notation.general(value) for value in xs])
    figure.update_xaxes(title=x_title)
    figure.update_yaxes(title=y_title)
    return style(figure, height=height, title=title, legend_below=True)


def smoothing_accuracy(curve: dict[str, np.ndarray], marker_x: float | None, **options) -> go.Figure:
    """Train and test accuracy over α = β on a log axis, from a ``smoothing_curve`` dict; ``options`` as ``curves``
    (``current`` and ``marked`` keyed "train" and "test", whatever the reader's language)."""
    names = {"train": pgettext("accuracy on", "train"), "test": pgettext("accuracy on", "test")}
    for option in ("current", "marked"):
        if options.get(option):
            options[option] = {names.get(name, name): value for name, value in options[option].items()}
    return curves(
        curve["alpha"],
        {names["train"]: curve["train_accuracy"], names["test"]: curve["test_accuracy"]},
        _("{quantity} (log scale)").format(quantity="α = β"),
        _("accuracy"),
        _("Accuracy against smoothing"),
        marker_x=marker_x,
        log_x=True,
        **options,
    )


def learning_curves(sizes: np.ndarray, accuracy_by_model: dict[str, np.ndarray]) -> go.Figure:
    """Test accuracy (mean and min-max over seeds) against training-set size, log x axis.

    ``accuracy_by_model[name]`` is (len(sizes), n_seeds).
    """
    figure = go.Figure()
    hover = _("{images} images: accuracy {accuracy}").format(images="%{x:,}", accuracy="%{y:.4f}")
    for (name, accuracy), colour in zip(accuracy_by_model.items(), CLASS_COLOURS):
        low, high = accuracy.min(axis=1), accuracy.max(axis=1)
        figure.add_trace(
            go.Scatter(
                x=np.r_[sizes, sizes[::-1]],
                y=np.r_[high, low[::-1]],
                fill="toself",
                fillcolor=colour,
                opacity=0.2,
                line=dict(width=0),
                hoverinfo="skip",
                showlegend=False,
            )
        )
        figure.add_trace(
            go.Scatter(
                x=sizes,
                y=accuracy.mean(axis=1),
                mode="lines+markers",
                name=name,
                line=dict(color=colour),
                hovertemplate=hover + "<extra>" + name + "</extra>",
            )
        )
    figure.update_xaxes(title=_("training images (log scale)"), type="log")
    figure.update_yaxes(title=_("test accuracy"))
    return style(figure, height=460, title=_("Learning curves (band: range over seeds)"), legend_below=True)


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


def running_product(log10_product: np.ndarray, limits: dict[str, float], height: int = 360) -> go.Figure:
    """log10 of the running product of pixel probabilities (784,) against the pixel count, with a dashed
    horizontal line for each named limit (log10 of the smallest positive number a float type holds)."""
    pixels = np.arange(1, len(log10_product) + 1)
    figure = go.Figure(
        go.Scatter(
            x=pixels,
            y=log10_product,
            mode="lines",
            name=_("log₁₀ of the product so far"),
            line=dict(color=OK_COLOUR, width=3),
            hovertemplate=_("after {pixels} pixels: {product}").format(pixels="%{x}", product="10^%{y:.1f}")
            + "<extra></extra>",
        )
    )
    for (name, level), dash in zip(limits.items(), ("dash", "dot")):
        figure.add_trace(
            go.Scatter(
                x=[pixels[0], pixels[-1]],
                y=[level, level],
                mode="lines",
                name=name,
                line=dict(color=ERROR_COLOUR, dash=dash),
                hovertemplate=f"{name}: 10^{i18n.decimal(level, 1)}<extra></extra>",
            )
        )
    figure.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=20, b=10),
        legend=dict(orientation="h", y=-0.3),
        xaxis=dict(title=_("pixels multiplied")),
        yaxis=dict(title=_("log₁₀ of the product")),
        **LAYOUT,
    )
    return figure


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
