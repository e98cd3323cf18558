"""Figure builders: pure functions from arrays to plotly figures."""

from __future__ import annotations

import numpy as np

from lab import figures


def test_class_heatmaps_share_one_colour_scale_with_a_colour_bar_and_equal_aspect():
    values = np.random.default_rng(0).random((10, 28, 28))
    figure = figures.class_heatmaps(values, "P(x=1|y)", zrange=(0, 1))
    assert len(figure.data) == 10
    assert {trace.coloraxis for trace in figure.data} == {"coloraxis"}
    assert figure.layout.coloraxis.cmin == 0 and figure.layout.coloraxis.cmax == 1
    assert figure.layout.coloraxis.showscale
    assert figure.layout.yaxis.autorange == "reversed" and figure.layout.yaxis.scaleanchor == "x"
    assert figure.layout.yaxis10.scaleanchor == "x10" and not figure.layout.xaxis.showgrid
    assert "row %{y}, column %{x}" in figure.data[0].hovertemplate
    assert [annotation.text for annotation in figure.layout.annotations][:2] == ["y = 0", "y = 1"]


def test_prediction_grid_marks_errors_in_red():
    images = np.zeros((3, 28, 28))
    figure = figures.prediction_grid(images, np.array([1, 2, 3]), np.array([1, 5, 3]), columns=3)
    titles = [annotation.text for annotation in figure.layout.annotations]
    assert titles == ["1 / 1", "✗ 2 / 5", "3 / 3"]
    assert figure.layout.annotations[1].font.color == figures.ERROR_COLOUR
    assert figure.layout.annotations[0].font.color == figures.OK_COLOUR


def test_difference_map_is_symmetric_around_zero_and_survives_infinities():
    values = np.zeros((28, 28))
    values[0, 0], values[1, 1], values[2, 2] = -3.0, 1.0, -np.inf
    figure = figures.difference_map(values, "difference", "nats")
    axis = figure.layout.coloraxis
    assert axis.cmin == -3.0 and axis.cmax == 3.0 and axis.colorscale[0][1] != axis.colorscale[-1][1]
    assert np.isfinite(np.asarray(figure.data[0].z, dtype=float)).all()
    assert np.isfinite(np.asarray(figures.difference_map(np.zeros((28, 28)), "t", "v").data[0].z)).all()


def test_class_bars_highlight_the_chosen_digit():
    figure = figures.class_bars(np.linspace(0, 1, 10), "posterior", "p", highlight=9)
    colours = list(figure.data[0].marker.color)
    assert colours[9] == figures.OK_COLOUR and colours.count(figures.OK_COLOUR) == 1
    assert list(figure.data[0].x) == [str(digit) for digit in range(10)]


def test_curves_draw_every_series_on_a_log_axis():
    figure = figures.curves(np.array([0.1, 1, 10]), {"train": np.ones(3), "test": np.zeros(3)},
                            "alpha", "accuracy", "title", marker_x=1.0, log_x=True)
    assert [trace.name for trace in figure.data] == ["train", "test"]
    assert figure.layout.xaxis.type == "log"
    assert len(figure.layout.shapes) == 1
