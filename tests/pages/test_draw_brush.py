"""Draw's brush width in the link: the canvas draws the control itself (moving it costs no run, tests/e2e/
test_live_reading.py), and the page keeps its value in the link like a widget's: read from it, a value it cannot use
named in the notice, reset by "Reset this page", locked by the teacher's link, dropped on other pages."""

from __future__ import annotations

import pytest

from lab import link_names, links
from tests.apptest import open_page, rerun

pytestmark = pytest.mark.usefixtures("data_dir")
DEFAULT = link_names.MNIST_LIKE_BRUSH
LOWEST, HIGHEST = link_names.row("draw_brush").bounds


def link_notices(app) -> list[str]:
    return [toast.value for toast in app.toast if "could not be used" in toast.value]


@pytest.mark.parametrize("width", [LOWEST, 13, HIGHEST])
def test_a_width_within_bounds_is_the_canvas_width_and_stays_in_the_link(width):
    app = open_page("pages/draw.py", {"draw_brush": str(width)})
    assert app.session_state["draw_brush"] == width
    assert app.query_params["draw_brush"] == str(width)
    assert not link_notices(app)


@pytest.mark.parametrize("value", [str(LOWEST - 1), str(HIGHEST + 1), "abc", "-8", "1e1", "24.5", "", "9" * 40])
def test_a_width_the_page_cannot_use_is_named_and_the_default_drawn(value):
    app = open_page("pages/draw.py", {"draw_brush": value})
    assert app.session_state["draw_brush"] == DEFAULT
    assert "draw_brush" not in app.query_params
    [notice] = link_notices(app)
    assert "Brush width" in notice and (not value or value not in notice.replace("Brush width", ""))


def test_the_default_written_out_is_no_problem_and_leaves_the_link():
    app = open_page("pages/draw.py", {"draw_brush": str(DEFAULT)})
    assert app.session_state["draw_brush"] == DEFAULT and "draw_brush" not in app.query_params
    assert not link_notices(app)


def test_a_locked_width_is_offered_among_the_locks_and_reset_spares_it():
    app = open_page("pages/draw.py", {"draw_brush": "33", "lock": "draw_brush"})
    assert links.locked("draw_brush") is False  # outside the session: nothing locked here
    assert app.session_state["_links_locked"] == {"draw_brush"}
    assert "Brush width" in app.sidebar.multiselect(key="links_lock_choice").options  # shown by its label
    app.sidebar.button(key="links_reset_page").click()
    rerun(app)
    assert app.session_state["draw_brush"] == 33 and app.query_params["draw_brush"] == "33"


def test_another_page_drops_the_width_from_its_link():
    app = open_page("pages/heatmaps.py", {"draw_brush": "33"})
    assert "draw_brush" not in app.query_params
    assert not link_notices(app)
