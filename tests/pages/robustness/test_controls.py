"""A classroom on one server: every sidebar control and every page slider at both ends of its range, on every page,
with no error and every chart strict JSON (app_under_test.py).
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lab import link_names
from lab.data import gaussian
from nbcore.experiments.mixture import MAX_COMPONENTS
from nbcore.features import OBSERVED_REGIONS
from tests.pages.robustness.app_under_test import EXTREMES, PAGES, app_for, assert_defined_prediction, run_clean

# -- both ends of every control, on every page --------------------------------------------------
# every slider / select slider / number input in a page's main area: key -> (lowest, highest)
PAGE_CONTROLS = {
    "smoothing_image": (0, 9999),
    "samples_count": (4, 16),
    "inpaint_fraction": (0.0, 1.0),
    "inpaint_index": (0, 9999),
    "gauss_var_smoothing": (gaussian.VAR_SMOOTHING_GRID[0], gaussian.VAR_SMOOTHING_GRID[-1]),
    "xor_k": (0.0, 10.0),
    "home_batch": (0, link_names.COUNTER_MAX),
    "compare_batch": (0, link_names.COUNTER_MAX),
    "samples_seed": (0, link_names.COUNTER_MAX),
    "deskew_batch": (0, link_names.COUNTER_MAX),
    "class_components": (1, 10),  # the teacher's gallery, with a class: tests/pages/test_gallery.py
    "components": (1, MAX_COMPONENTS),
    "mixture_seed": (0, link_names.COUNTER_MAX),
}
# other page choices worth combining with extreme settings (each a session_state preset)
PAGE_VARIANTS = {
    "pages/heatmaps.py": [{"heatmap_view": view} for view in ("Probability", "Log-odds", "Difference of two digits")],
    "pages/inpainting.py": [{"inpaint_region": region} for region in OBSERVED_REGIONS]
    + [{"inpaint_source": "My drawing", "inpaint_region": "random pixels"}],
}


def main_controls(app: AppTest) -> dict:
    widgets = [*app.main.slider, *app.main.select_slider, *app.main.number_input]
    return {widget.key: widget for widget in widgets}


@pytest.mark.slow
@pytest.mark.parametrize("extreme", list(EXTREMES))
@pytest.mark.parametrize("page", PAGES)
def test_every_page_at_both_ends_of_every_control(page, extreme, mnist_test_split):
    images, _ = mnist_test_split
    for variant in PAGE_VARIANTS.get(page, [{}]):
        where = f"{page} at {extreme} {variant or ''}"
        app = run_clean(app_for(page, **EXTREMES[extreme], draw_frame=images[0], **variant), where)
        controls = main_controls(app)
        unknown = sorted(set(controls) - set(PAGE_CONTROLS))
        assert not unknown, f"{where}: add the range of {unknown} to PAGE_CONTROLS"
        for key in controls:
            for end, value in zip(("lowest", "highest"), PAGE_CONTROLS[key]):
                main_controls(app)[key].set_value(value)
                run_clean(app, f"{where}, {key} at its {end} ({value})")
                assert main_controls(app)[key].value == value, f"{where}: {key} did not take {value}"
        if page == "pages/draw.py":
            assert_defined_prediction(app)
