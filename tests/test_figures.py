"""Figure builders: pure functions from arrays to plotly figures."""

from __future__ import annotations

import numpy as np

from lab import figures


def test_class_heatmaps_share_one_colour_scale_with_a_colour_bar_and_equal_aspect():
    values = np.random.default_rng(0).random((10, 28, 28))
    figure = figures.class_heatmaps(values, "P(x=1|y)", zrange=(0, 1))
    [heatmap] = figure.data  # one tiled heatmap: one colour scale by construction
    assert heatmap.zmin == 0 and heatmap.zmax == 1 and heatmap.showscale
    assert figure.layout.yaxis.autorange == "reversed" and figure.layout.yaxis.scaleanchor == "x"
    assert not figure.layout.xaxis.showgrid and not figure.layout.yaxis.showgrid
    assert "row %{customdata[0]}, column %{customdata[1]}" in heatmap.hovertemplate
    assert [annotation.text for annotation in figure.layout.annotations][:2] == ["y = 0", "y = 1"]


def test_image_grid_places_every_image_with_its_own_pixel_coordinates():
    images = np.arange(3 * 28 * 28, dtype=float).reshape(3, 28, 28)
    figure = figures.image_grid(images, ["a", "b", "c"], columns=2)
    mosaic, local = np.asarray(figure.data[0].z, dtype=float), np.asarray(figure.data[0].customdata)
    for index, image in enumerate(images):
        top = (index // 2) * (28 + figures.TITLE_ROWS) + figures.TITLE_ROWS
        left = (index % 2) * 30
        np.testing.assert_array_equal(mosaic[top: top + 28, left: left + 28], image)
        assert tuple(local[top + 3, left + 5]) == (3, 5)
    assert np.isnan(mosaic).sum() == mosaic.size - images.size  # gaps and the empty fourth tile


def test_prediction_tiles_frame_errors_in_red_and_keep_the_pixels():
    images = np.zeros((3, 28, 28), dtype=np.uint8)
    images[1, 10, 20] = 255
    tiles, captions = figures.prediction_tiles(images, np.array([1, 2, 3]), np.array([1, 5, 3]), scale=2, frame=3)
    assert captions == ["1 / 1", "✗ 2 / 5", "3 / 3"]
    assert all(tile.shape == (28 * 2 + 6, 28 * 2 + 6, 3) and tile.dtype == np.uint8 for tile in tiles)
    assert tuple(tiles[1][0, 0]) == (0xd6, 0x27, 0x28) == tuple(int(figures.ERROR_COLOUR[i:i + 2], 16)
                                                              for i in (1, 3, 5))
    assert tuple(tiles[0][-1, -1]) == tuple(int(figures.OK_COLOUR[i:i + 2], 16) for i in (1, 3, 5))
    inside = tiles[1][3:-3, 3:-3]
    assert (inside[..., 0] == inside[..., 2]).all()  # grey inside the frame
    assert inside[20, 40, 0] == inside[21, 41, 0] == 255 and inside[:, :, 0].sum() == 4 * 255


def test_difference_map_is_symmetric_around_zero_and_survives_infinities():
    values = np.zeros((28, 28))
    values[0, 0], values[1, 1], values[2, 2] = -3.0, 1.0, -np.inf
    figure = figures.difference_map(values, "difference", "nats")
    heatmap = figure.data[0]
    assert heatmap.zmin == -3.0 and heatmap.zmax == 3.0 and heatmap.colorscale[0][1] != heatmap.colorscale[-1][1]
    z = np.asarray(heatmap.z, dtype=float)
    assert np.isfinite(z[figures.TITLE_ROWS:]).all() and np.nanmin(z) == -3.0
    flat = np.asarray(figures.difference_map(np.zeros((28, 28)), "t", "v").data[0].z, dtype=float)
    assert np.isfinite(flat[figures.TITLE_ROWS:]).all()


def test_class_bars_highlight_the_chosen_digit():
    figure = figures.class_bars(np.linspace(0, 1, 10), "posterior", "p", highlight=9)
    colours = list(figure.data[0].marker.color)
    assert colours[9] == figures.OK_COLOUR and colours.count(figures.OK_COLOUR) == 1
    assert list(figure.data[0].x) == [str(digit) for digit in range(10)]


def test_pixel_picture_blows_each_pixel_up_to_a_square():
    image = np.array([[0, 255], [128.4, 300]])
    picture = figures.pixel_picture(image, scale=3)
    assert picture.shape == (6, 6) and picture.dtype == np.uint8
    assert (picture[:3, :3] == 0).all() and (picture[:3, 3:] == 255).all()
    assert (picture[3:, :3] == 128).all() and (picture[3:, 3:] == 255).all()  # rounded, clipped to 0..255


def test_posterior_comparison_groups_two_models_per_digit():
    certain, unsure = np.eye(10)[3], np.full(10, 0.1)
    figure = figures.posterior_comparison({"naive Bayes": certain, "softmax": unsure})
    assert [trace.name for trace in figure.data] == ["naive Bayes", "softmax"]
    assert figure.layout.barmode == "group" and "naive Bayes" in figure.layout.title.text
    colours = [trace.marker.color for trace in figure.data]
    assert len(set(colours)) == 2 and all(colour in figure.layout.title.text for colour in colours)
    assert list(figure.data[0].y) == list(certain) and list(figure.data[1].x) == [str(d) for d in range(10)]
    assert figure.layout.yaxis.range == (0, 1.02)  # probabilities on a fixed scale, comparable between strokes


def test_curves_draw_every_series_on_a_log_axis():
    figure = figures.curves(np.array([0.1, 1, 10]), {"train": np.ones(3), "test": np.zeros(3)},
                            "alpha", "accuracy", "title", marker_x=1.0, log_x=True)
    assert [trace.name for trace in figure.data] == ["train", "test"]
    assert figure.layout.xaxis.type == "log"
    assert len(figure.layout.shapes) == 1
