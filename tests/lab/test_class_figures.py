"""The class's model's figures: pure builders from arrays to plotly figures."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from lab.figures import class_model, style


def test_probability_pairs_put_each_digits_class_tile_above_its_mnist_tile():
    rng = np.random.default_rng(0)
    class_prob, mnist_prob = rng.random((10, 784)), rng.random((10, 28, 28))
    drawn = np.arange(10) * 3
    figure = class_model.probability_pairs(class_prob, mnist_prob, drawings_per_digit=drawn, columns=5)
    [heatmap] = figure.data  # one tiled heatmap: one colour scale for both models
    assert (heatmap.zmin, heatmap.zmax) == (0, 1) and heatmap.showscale
    mosaic = np.asarray(heatmap.z, dtype=float)
    tile_height, tile_width = 28 + style.TITLE_ROWS, 30
    for digit in (0, 3, 7, 9):
        block_row, column = 2 * (digit // 5), digit % 5
        for row, expected in ((block_row, class_prob[digit].reshape(28, 28)), (block_row + 1, mnist_prob[digit])):
            top, left = row * tile_height + style.TITLE_ROWS, column * tile_width
            np.testing.assert_array_equal(mosaic[top : top + 28, left : left + 28], expected)
    titles = [annotation.text for annotation in figure.layout.annotations]
    assert titles[:6] == ["class 0: none", "class 1", "class 2", "class 3", "class 4", "MNIST 0"]
    assert titles[10:12] == ["class 5", "class 6"] and titles[-1] == "MNIST 9" and len(titles) == 20


def test_probability_pairs_on_one_wide_row_each():
    values = np.full((10, 784), 0.5)
    wide = class_model.probability_pairs(values, values, columns=10)
    titles = [annotation.text for annotation in wide.layout.annotations]
    assert titles[9:11] == ["class 9", "MNIST 0"] and "none" not in " ".join(titles)
    assert wide.layout.height < class_model.probability_pairs(values, values).layout.height
    with pytest.raises(ValueError, match="divide"):
        class_model.probability_pairs(values, values, columns=4)


def curve_figure(overtake: int | None) -> go.Figure:
    sizes = np.array([1, 2, 3, 5, 10, 20, 35])
    accuracy = {
        class_model.CLASS_NAME: np.array([0.45, 0.55, 0.6, 0.7, 0.8, 0.85, 0.86]),
        "MNIST + the class": np.array([0.5, 0.52, 0.55, 0.6, 0.7, 0.8, 0.84]),
    }
    return class_model.accuracy_against_drawings(sizes, accuracy, 0.5, overtake)


def test_accuracy_curve_marks_where_the_class_overtakes_mnist():
    figure = curve_figure(overtake=2)
    by_name = {trace.name: trace for trace in figure.data}
    assert list(by_name) == [
        class_model.CLASS_NAME,
        "MNIST + the class",
        f"{class_model.CLASS_NAME}, better than MNIST's from here",
        class_model.MNIST_NAME,
    ]
    star = by_name[f"{class_model.CLASS_NAME}, better than MNIST's from here"]
    assert (star.x[0], star.y[0]) == (2, 0.55)  # on the class's curve at the overtake point
    assert [shape.x0 for shape in figure.layout.shapes] == [2]
    assert list(by_name[class_model.MNIST_NAME].y) == [0.5, 0.5] and list(by_name[class_model.MNIST_NAME].x) == [1, 35]
    assert figure.layout.xaxis.type == "log" and list(figure.layout.xaxis.tickvals) == [1, 2, 5, 10, 20]
    assert figure.layout.yaxis.tickformat == ".0%"


def test_accuracy_curve_without_an_overtake_has_no_mark():
    figure = curve_figure(overtake=None)
    assert len(figure.data) == 3 and not figure.layout.shapes


def test_class_figures_follow_the_lab_style():
    """Large axis text in the theme's text colour, transparent background, legend under the plot."""
    values = np.full((10, 784), 0.5)
    for figure in (class_model.probability_pairs(values, values), curve_figure(3)):
        layout = figure.layout
        assert layout.paper_bgcolor == layout.plot_bgcolor == "rgba(0,0,0,0)"
        assert layout.font.color == style.TEXT_COLOUR and layout.font.size >= 16
        for axis in (layout.xaxis, layout.yaxis):
            if axis.showticklabels is not False:
                assert axis.tickfont.size >= 16 and axis.tickfont.color == style.TEXT_COLOUR
        if layout.legend.orientation is not None:
            assert layout.legend == style.style(go.Figure(), 100, legend_below=True).layout.legend
