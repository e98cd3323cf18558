"""Figure builders: pure functions from arrays to plotly figures."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from lab.figures import bar_charts, diagnostics, digits, line_charts, notation, regions, style, styles


def test_class_heatmaps_share_one_colour_scale_with_a_colour_bar_and_equal_aspect():
    values = np.random.default_rng(0).random((10, 28, 28))
    figure = digits.class_heatmaps(values, "P(x=1|y)", zrange=(0, 1))
    [heatmap] = figure.data  # one tiled heatmap: one colour scale by construction
    assert heatmap.zmin == 0 and heatmap.zmax == 1 and heatmap.showscale
    assert figure.layout.yaxis.autorange == "reversed" and figure.layout.yaxis.scaleanchor == "x"
    assert not figure.layout.xaxis.showgrid and not figure.layout.yaxis.showgrid
    assert "row %{customdata[0]}, column %{customdata[1]}" in heatmap.hovertemplate
    assert [annotation.text for annotation in figure.layout.annotations][:2] == ["y = 0", "y = 1"]


def test_image_grid_places_every_image_with_its_own_pixel_coordinates():
    images = np.arange(3 * 28 * 28, dtype=float).reshape(3, 28, 28)
    figure = digits.image_grid(images, ["a", "b", "c"], columns=2)
    mosaic, local = np.asarray(figure.data[0].z, dtype=float), np.asarray(figure.data[0].customdata)
    for index, image in enumerate(images):
        top = (index // 2) * (28 + style.TITLE_ROWS) + style.TITLE_ROWS
        left = (index % 2) * 30
        np.testing.assert_array_equal(mosaic[top : top + 28, left : left + 28], image)
        assert tuple(local[top + 3, left + 5]) == (3, 5)
    assert np.isnan(mosaic).sum() == mosaic.size - images.size  # gaps and the empty fourth tile


def test_prediction_tiles_frame_errors_in_red_and_keep_the_pixels():
    images = np.zeros((3, 28, 28), dtype=np.uint8)
    images[1, 10, 20] = 255
    tiles, captions = digits.prediction_tiles(images, np.array([1, 2, 3]), np.array([1, 5, 3]), scale=2, frame=3)
    assert captions == ["1 / 1", "✗ 2 / 5", "3 / 3"]
    assert all(tile.shape == (28 * 2 + 6, 28 * 2 + 6, 3) and tile.dtype == np.uint8 for tile in tiles)
    assert (
        tuple(tiles[1][0, 0]) == (0xD6, 0x27, 0x28) == tuple(int(style.ERROR_COLOUR[i : i + 2], 16) for i in (1, 3, 5))
    )
    assert tuple(tiles[0][-1, -1]) == tuple(int(style.OK_COLOUR[i : i + 2], 16) for i in (1, 3, 5))
    inside = tiles[1][3:-3, 3:-3]
    assert (inside[..., 0] == inside[..., 2]).all()  # grey inside the frame
    assert inside[20, 40, 0] == inside[21, 41, 0] == 255 and inside[:, :, 0].sum() == 4 * 255


def test_difference_map_is_symmetric_around_zero_and_survives_infinities():
    values = np.zeros((28, 28))
    values[0, 0], values[1, 1], values[2, 2] = -3.0, 1.0, -np.inf
    figure = digits.difference_map(values, "difference", "nats")
    heatmap = figure.data[0]
    assert heatmap.zmin == -3.0 and heatmap.zmax == 3.0 and heatmap.colorscale[0][1] != heatmap.colorscale[-1][1]
    z = np.asarray(heatmap.z, dtype=float)
    assert np.isfinite(z[style.TITLE_ROWS :]).all() and np.nanmin(z) == -3.0
    flat = np.asarray(digits.difference_map(np.zeros((28, 28)), "t", "v").data[0].z, dtype=float)
    assert np.isfinite(flat[style.TITLE_ROWS :]).all()


def test_class_bars_highlight_the_chosen_digit():
    figure = bar_charts.class_bars(np.linspace(0, 1, 10), "posterior", "p", highlight=9)
    colours = list(figure.data[0].marker.color)
    assert colours[9] == style.OK_COLOUR and colours.count(style.OK_COLOUR) == 1
    assert list(figure.data[0].x) == [str(digit) for digit in range(10)]


def test_pixel_picture_blows_each_pixel_up_to_a_square():
    image = np.array([[0, 255], [128.4, 300]])
    picture = digits.pixel_picture(image, scale=3)
    assert picture.shape == (6, 6) and picture.dtype == np.uint8
    assert (picture[:3, :3] == 0).all() and (picture[:3, 3:] == 255).all()
    assert (picture[3:, :3] == 128).all() and (picture[3:, 3:] == 255).all()  # rounded, clipped to 0..255


def test_posterior_comparison_groups_two_models_per_digit():
    certain, unsure = np.eye(10)[3], np.full(10, 0.1)
    figure = bar_charts.posterior_comparison({"naive Bayes": certain, "softmax": unsure})
    assert [trace.name for trace in figure.data] == ["naive Bayes", "softmax"]
    assert figure.layout.barmode == "group"
    assert figure.layout.title.text == "p(y | x): naive Bayes (plain bars) vs softmax (striped bars)"
    colours = [trace.marker.color for trace in figure.data]
    assert len(set(colours)) == 2  # told apart by colour, and by shape: the second's bars are striped
    assert [trace.marker.pattern.shape for trace in figure.data] == ["", "/"]
    assert list(figure.data[0].y) == list(certain) and list(figure.data[1].x) == [str(d) for d in range(10)]
    assert figure.layout.yaxis.range == (0, 1.02)  # probabilities on a fixed scale, comparable between strokes


def test_curves_draw_every_series_on_a_log_axis():
    figure = line_charts.curves(
        np.array([0.1, 1, 10]),
        {"train": np.ones(3), "test": np.zeros(3)},
        "alpha",
        "accuracy",
        "title",
        marker_x=1.0,
        log_x=True,
    )
    assert [trace.name for trace in figure.data] == ["train", "test"]
    assert figure.layout.xaxis.type == "log"
    assert len(figure.layout.shapes) == 1


def test_curves_marks_on_and_off_the_curve():
    """``marked`` stars the curve's own point nearest the value; ``current`` stars a value off the curve on
    the dashed line; ``references`` are horizontal lines across the x range."""
    x = np.array([0.01, 0.1, 1, 10])
    figure = line_charts.curves(
        x,
        {"test": np.array([0.5, 0.7, 0.8, 0.6])},
        "k",
        "accuracy",
        "title",
        log_x=True,
        marker_x=0.5,
        current={"test": 0.75, "train": np.nan},
        marked={"test": 0.9},
        references={"baseline": 0.3},
    )
    by_name = {trace.name: trace for trace in figure.data}
    assert list(by_name) == ["test", "test: 1", "test, current", "baseline"]  # no star for a nan value
    assert by_name["test: 1"].y[0] == 0.8 and by_name["test, current"].x[0] == 0.5
    assert list(by_name["baseline"].x) == [0.01, 10] and figure.layout.shapes[0].x0 == 0.5


def test_curves_stars_can_say_what_they_mark_alone():
    """With one series, ``stars_named=False`` leaves the series' name out of the stars' legend entries, which then
    read ``current_label`` and ``marked_label`` (its ``{x}`` the x marked): "chosen K = 10", not "mixture: 10"."""
    figure = line_charts.curves(
        [1, 2, 5, 10],
        {"mixture": [0.84, 0.88, 0.91, 0.93]},
        "K",
        "accuracy",
        "title",
        log_x=True,
        marker_x=1,
        current={"mixture": 0.84},
        current_label="naive Bayes (K = 1)",
        marked={"mixture": 10},
        marked_label="chosen K = {x:g}",
        stars_named=False,
    )
    assert [trace.name for trace in figure.data] == ["mixture", "chosen K = 10", "naive Bayes (K = 1)"]
    named = line_charts.curves([1, 2], {"s": [0.1, 0.2]}, "x", "y", "t", marked={"s": 2}, marked_label="at {x:g}")
    assert [trace.name for trace in named.data] == ["s", "s: at 2"]


def test_style_maps_put_the_heaviest_style_first_and_title_each_with_its_weight():
    """Each style's picture under its weight p(k | y), heaviest first; a weight that would round to 0% reads "<1%"."""
    weights = np.array([0.2, 0.003, 0.5, 0.297])
    pictures = np.arange(4, dtype=float)[:, None] * np.ones((4, 784)) / 4  # style k: every pixel k / 4
    figure = styles.style_maps(pictures, weights, digit=7)
    titles = [item.text for item in figure.layout.annotations]
    assert titles == ["50%", "30%", "20%", "<1%"]
    mosaic = np.asarray(figure.data[0].z, dtype=float)
    firsts = [value for value in mosaic[style.TITLE_ROWS] if np.isfinite(value)][::28]  # each tile's first pixel
    assert firsts == [0.5, 0.75, 0.0, 0.25]
    assert list(styles.style_order([0.1, 0.3, 0.3])) == [1, 2, 0]  # ties keep their order
    assert [styles.weight_label(value) for value in (0.38, 0.006, 0.0049, 0.0)] == ["38%", "1%", "<1%", "<1%"]


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio of two "#rrggbb" colours."""

    def luminance(colour: str) -> float:
        channels = [int(colour[index : index + 2], 16) / 255 for index in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted([luminance(foreground), luminance(background)], reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def every_figure() -> list:
    """One figure from every builder, on small made-up inputs."""
    rng = np.random.default_rng(0)
    curve = (np.linspace(0.55, 0.95, 5), np.linspace(0.5, 0.97, 5), np.array([3, 0, 10, 40, 900]), 0.02)
    xs, ys = np.linspace(0, 1, 4), np.linspace(0, 1, 3)
    proba = rng.dirichlet(np.ones(3), size=(3, 4))
    return [
        digits.class_heatmaps(rng.random((10, 28, 28)), "p"),
        bar_charts.class_bars(np.linspace(0, 1, 10), "t", "p"),
        bar_charts.posterior_comparison({"a": np.full(10, 0.1), "b": np.eye(10)[2]}),
        line_charts.curves(np.array([0.1, 1, 10]), {"train": np.ones(3)}, "x", "y", "t", marker_x=1.0, log_x=True),
        diagnostics.confusion_heatmap(rng.integers(0, 50, (10, 10)), "t", 50),
        diagnostics.reliability_diagram({"m": curve}),
        line_charts.learning_curves(np.array([10, 100]), {"m": rng.random((2, 3))}),
        regions.decision_regions(
            xs,
            ys,
            proba,
            rng.random((6, 2)),
            np.array([0, 1, 2, 0, 1, 2]),
            ["a", "b", "c"],
            rng.random((3, 2)),
            rng.random((3, 2)) + 0.1,
            ("x", "y"),
            "t",
        ),
        regions.pca_scatter(
            rng.random((6, 2)), np.array([0, 1, 2, 0, 1, 2]), ["a", "b", "c"], np.array([0.7, 0.2]), "t"
        ),
        line_charts.curves([0.1, 1, 10], {"s": [0.1, 0.5, 0.4]}, "x", "y", "t", log_x=True, marked={"s": 1}),
        bar_charts.accuracy_bars({"a": 0.9, "baseline": 0.8}, "t"),
        diagnostics.confidence_histogram(np.linspace(0, 1, 11), np.arange(10), np.full(10, 0.9), "t", 0.5),
    ]


def test_every_chart_has_large_axis_text_in_the_themes_text_colour_on_a_transparent_background():
    """Streamlit's chart theme would draw axis numbers 12.75 px in a grey at 3.6:1; each figure sets its own."""
    for figure in every_figure():
        layout = figure.layout
        assert layout.paper_bgcolor == layout.plot_bgcolor == "rgba(0,0,0,0)"
        assert layout.font.color == style.TEXT_COLOUR and layout.font.size >= 16
        axes = [layout[name] for name in layout if name.startswith(("xaxis", "yaxis"))]
        for axis in axes:
            if axis.showticklabels is not False:
                assert axis.tickfont.size >= 16 and axis.tickfont.color == style.TEXT_COLOUR, figure.layout.title
        if layout.legend.orientation is not None:  # a legend, if placed, lies under the plot, not over it
            assert layout.legend == style.style(go.Figure(), 100, legend_below=True).layout.legend


def test_the_theme_text_colour_becomes_high_contrast_text_in_both_themes():
    """TEXT_COLOUR is Streamlit's GRAY_90 placeholder: its frontend swaps it for gray90 (light) or gray10 (dark)."""
    from streamlit.elements.lib import streamlit_plotly_theme

    assert style.TEXT_COLOUR == streamlit_plotly_theme.GRAY_90
    # what Chromium computed for the axis numbers (rgb(38, 39, 48) light, rgb(250, 250, 250) dark),
    # on the lab's background and on Streamlit's dark one
    assert contrast("#262730", "#fbfaf7") >= 4.5 and contrast("#fafafa", "#0e1117") >= 4.5


def test_confusion_counts_are_at_least_14_px_and_the_reliability_axes_stay_in_0_1():
    assert diagnostics.confusion_heatmap(np.eye(10, dtype=int), "t", 1).data[0].textfont.size >= 14
    curve = (np.array([0.55, 0.99]), np.array([0.4, 0.98]), np.array([5, 900]), 0.03)
    figure = diagnostics.reliability_diagram({"spam NB": curve}, x_min=0.5, unit="messages")
    low, high = figure.layout.xaxis.range
    assert 0.45 < low < 0.5 and 1 < high < 1.02 and figure.layout.yaxis.scaleanchor is None
    assert figure.layout.yaxis.range[0] < 0.4  # a bin less accurate than x_min stays in view
    assert "messages" in figure.data[1].hovertemplate and not figure.data[1].text  # counts in the hover, no labels


def test_species_differ_by_marker_shape_as_well_as_colour():
    decision, projection = every_figure()[7:9]
    for figure in (decision, projection):
        points = [trace for trace in figure.data if getattr(trace, "mode", None) == "markers"]
        assert len({trace.marker.symbol for trace in points}) == 3, [trace.marker.symbol for trace in points]
    # flat: a 3-D scene would swallow the mouse wheel of the page scrolled over it
    assert not any(trace.type == "scatter3d" for trace in projection.data)
    assert len(set(style.CLASS_SYMBOLS)) == len(style.CLASS_SYMBOLS)


def test_class_heatmaps_hover_names_the_digit_and_leave_room_for_titles():
    figure = digits.class_heatmaps(np.zeros((10, 28, 28)), "p")
    heatmap = figure.data[0]
    assert heatmap.hovertemplate.startswith("digit %{customdata[2]}")
    local = np.asarray(heatmap.customdata)
    top = style.TITLE_ROWS  # five images a row: the second row starts with digit 5
    assert tuple(local[top + 28 + style.TITLE_ROWS + 2, 3]) == (2, 3, 5) and local[top + 1, 30 + 2][2] == 1
    assert heatmap.colorbar.orientation == "h"  # under the images: on a phone it does not take their width


def test_scientific_notation_keeps_the_exponent():
    assert notation.scientific(1.5812e-49) == "1.58 × 10⁻⁴⁹"
    assert notation.scientific(2.5e5) == "2.50 × 10⁵"
    assert notation.scientific(0.0) == "0.0"


def test_log_probability_image_moves_with_smoothing_and_blanks_probability_zero():
    counts, total = np.zeros((28, 28)), 6000
    counts[10:18, 10:18] = 3000
    with np.errstate(divide="ignore"):  # log 0 = -inf is the point at alpha = 0
        images = {
            alpha: digits.log_probability_image(np.log((counts + alpha) / (total + 2 * alpha)), "t")
            for alpha in (0.0, 1.0, 100.0)
        }
    corner = {alpha: np.asarray(figure.data[0].z, dtype=float)[style.TITLE_ROWS, 0] for alpha, figure in images.items()}
    assert np.isnan(corner[0.0])  # exactly 0: blank
    assert corner[1.0] == pytest.approx(np.log10(1 / 6002)) and corner[100.0] == pytest.approx(np.log10(100 / 6200))
    assert images[1.0].data[0].zmin == images[100.0].data[0].zmin  # one fixed scale, so the change shows


def test_with_article_speaks_the_digit():
    assert [notation.with_article(digit) for digit in (8, 3, 0, 1)] == ["an 8", "a 3", "a 0", "a 1"]


@pytest.mark.slow
def test_presenter_fonts_reach_every_text_but_switch_on_no_colour_scale():
    """A colour-bar font on a scatter or bar trace switches its marker's colour scale on: plotly then draws a
    bar of numbers beside a line chart. Only the bars a figure shows get the presenter's size."""
    for figure in every_figure():
        style.with_presenter_fonts(figure, 20)
        assert figure.layout.font.size == 20 and figure.layout.xaxis.tickfont.size == 20
        for trace in figure.data:
            data = trace.to_plotly_json()
            if "colorbar" in trace:  # heatmaps and contours draw a bar unless told not to
                assert trace.showscale is False or trace.colorbar.tickfont.size == 20, trace.type
            elif not data.get("marker", {}).get("showscale"):
                assert "colorbar" not in data.get("marker", {}), f"a {trace.type} trace was given a colour bar"


def test_a_plain_title_leaves_the_figure_with_its_room_and_a_coloured_one_stays():
    long = "Reliability on the 10,000 test images, every bin"
    figure = line_charts.curves([0.1, 1, 10], {"s": [0.1, 0.5, 0.4]}, "x", "y", long, log_x=True)
    lines = figure.layout.title.text.count("<br>") + 1
    assert lines > 1  # wrapped for plotly at style.TITLE_CHARACTERS
    height, top = figure.layout.height, figure.layout.margin.t
    assert style.take_title(figure) == long  # one line again: the page's text wraps it to the chart's width
    assert not figure.layout.title.text
    assert figure.layout.margin.t == 10 and top - 10 == height - figure.layout.height
    coloured = bar_charts.class_bars(np.full(10, 0.1), "t", "p")
    coloured.update_layout(title='<span style="color:#17655c">naive Bayes</span>')
    assert style.take_title(coloured) is None and "naive Bayes" in coloured.layout.title.text


def test_count_colour_bars_mark_whole_numbers_and_sit_under_the_axis_title():
    few = np.zeros((10, 10), dtype=int)
    few[3, 3] = few[7, 1] = 1
    figure = diagnostics.meant_confusion(few, "naive Bayes")
    bar = figure.data[0].colorbar
    assert bar.dtick == 1 and bar.tick0 == 0 and bar.tickformat == "d"  # 0 and 1, never 0.5
    # along the figure's foot, under the digits and the axis title, whatever the figure's height
    assert bar.yref == "container" and bar.y == 0 and bar.yanchor == "bottom" and figure.layout.margin.b >= 100
    assert bar.title.text == "drawings"
    assert figure.layout.xaxis.title.text == "naive Bayes read"
    assert figure.layout.xaxis.title.font.color == style.TEXT_COLOUR  # the lab's axis-title style kept
    for largest in (1, 2, 7, 12, 60, 1135):
        ticks = diagnostics.count_ticks(largest)
        assert ticks["dtick"] >= 1 and float(ticks["dtick"]).is_integer() and largest / ticks["dtick"] <= 5


def test_an_image_grid_without_titles_keeps_no_room_for_them():
    image = np.ones((28, 28))
    assert np.asarray(digits.image_grid(image[None], [""], columns=1).data[0].z).shape == (28, 28)
    assert not digits.image_grid(image[None], [""], columns=1).layout.annotations
    titled = digits.image_grid(image[None], ["a 7"], columns=1)
    assert np.asarray(titled.data[0].z).shape == (28 + style.TITLE_ROWS, 28)
