"""A classroom on one server, its shared state: every array a ``lab.data`` cache returns is read-only; two sessions
with different settings see different numbers, and the shared counts do not change (app_under_test.py).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import numpy as np
import pytest

import lab.data
import nbcore
from lab import caching, model_settings
from lab.data import class_models, models
from lab.data import mnist as shared_mnist
from lab.figures import digits
from nbcore.classroom.records import Drawing
from tests.pages.robustness.app_under_test import app_for, metric, run_clean


def read_only_problems(value, path: str, seen: set[int] | None = None) -> list[str]:
    """Paths of writable numpy arrays reachable from ``value`` (same walk as lab.caching.read_only)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return [path] if value.flags.writeable else []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [(f".{field.name}", getattr(value, field.name)) for field in dataclasses.fields(value)]
    elif isinstance(value, dict):
        items = [(f"[{key!r}]", item) for key, item in value.items()]
    elif isinstance(value, (tuple, list)):
        items = [(f"[{index}]", item) for index, item in enumerate(value)]
    elif type(value).__module__.startswith("nbcore") and hasattr(value, "__dict__"):
        items = [(f".{name}", item) for name, item in vars(value).items()]
    else:
        return []
    return [problem for suffix, item in items for problem in read_only_problems(item, path + suffix, seen)]


# -- shared state -------------------------------------------------------------------------
@pytest.mark.slow
def test_two_sessions_keep_their_own_settings_and_the_shared_counts_stay(quiet_streamlit):
    first = run_clean(app_for("pages/home.py"), "session 1")
    counted = models.counted_model(model_settings.TEXTBOOK.input_form)
    counts = counted.feature_count_.copy(), counted.class_count_.copy()
    textbook_log_prob = models.evaluation(model_settings.TEXTBOOK).model.feature_log_prob_.copy()
    accuracy = "Test accuracy (10,000 images)"
    assert metric(first, accuracy).value == "0.8427"

    first.select_slider(key="alpha").set_value(100.0)
    run_clean(first, "session 1, alpha = 100")
    second = run_clean(app_for("pages/home.py"), "session 2")
    assert metric(first, accuracy).value != "0.8427"
    assert metric(second, accuracy).value == "0.8427"
    assert second.select_slider(key="alpha").value == 1.0

    second.select_slider(key="threshold").set_value(192)
    run_clean(second, "session 2, threshold 192")
    run_clean(first, "session 1 again")
    assert first.select_slider(key="threshold").value == 128
    assert metric(first, accuracy).value not in ("0.8427", metric(second, accuracy).value)

    assert models.counted_model(model_settings.TEXTBOOK.input_form) is counted  # one model for every session
    np.testing.assert_array_equal(counted.feature_count_, counts[0])
    np.testing.assert_array_equal(counted.class_count_, counts[1])
    np.testing.assert_array_equal(models.evaluation(model_settings.TEXTBOOK).model.feature_log_prob_, textbook_log_prob)
    with pytest.raises(ValueError, match="read-only"):
        counted.feature_count_[0, 0] += 1


@pytest.mark.slow
def test_every_shared_cache_returns_read_only_arrays(data_dir, prepared_mixtures, quiet_streamlit):
    for page in ("pages/compare.py", "pages/gaussian.py", "pages/spam.py"):  # fill most caches the app's way
        run_clean(app_for(page), page)
    folder = str(nbcore.default_data_dir())
    form = model_settings.TEXTBOOK.input_form
    test = shared_mnist.loaded().test_images, shared_mnist.loaded().test_labels
    sent = Drawing(1, "0123456789abcdef", test[0][0], 7, np.full(10, 0.1), np.full(10, 0.1), 0.0)
    drawn = class_models.ClassSnapshot(  # a class of two students, five drawings each
        "ROBUSTCLASS", tuple(range(10)), test[0][:10], test[1][:10], np.repeat([1, 2], 5)
    )
    modules = [importlib.import_module(f"lab.data.{module.name}") for module in pkgutil.iter_modules(lab.data.__path__)]
    calls = {  # module.name -> arguments; background resources are checked through their results
        "mnist._published": (folder,),
        "mnist._deskewed": (folder,),
        "mnist.features": (form,),
        "models.counted_model": (form,),
        "models.evaluation": (model_settings.TEXTBOOK,),
        "models._smoothing_curve": (form, "empirical"),
        "models._zero_smoothing": (form, "empirical"),
        "models._softmax": ("default",),
        "models.softmax_learning_curve": (False,),
        "models.bernoulli_learning_curve": (model_settings.TEXTBOOK,),
        "mixtures.curve": (model_settings.TEXTBOOK,),
        "mixtures._fitted": (model_settings.TEXTBOOK, 3),
        "mixtures._scored": (model_settings.TEXTBOOK, 3),
        "mixtures.unlabeled": (model_settings.TEXTBOOK,),
        "gaussian.iris": (),
        "gaussian._gaussian_mnist": (folder, False),
        "spam_filter._sms": (folder,),
        "spam_filter._experiments": (folder,),
        "lesson_answers.first_of_each_digit": (form,),
        "lesson_answers.underflow": (model_settings.TEXTBOOK,),
        "lesson_answers.top_half_accuracy": (model_settings.TEXTBOOK,),
        "lesson_answers.neighbour_dependence": (form, 1),
        "class_store._class_store": ("", folder),  # holds no arrays: how to reach the classes' file
        "class_models.class_evaluation": (drawn, model_settings.TEXTBOOK, 100.0),
        "class_models.class_mixture_readings": (drawn, model_settings.TEXTBOOK, 2),
        "class_models._class_curve": (drawn, model_settings.TEXTBOOK),
        "gallery_views._gallery_view": ("ROBUSTCLASS", (1, 1, 1), None, (sent,)),
        "fixed_charts.prepared": (digits.blank_evidence_map, (), None, "en"),
    }
    declared = {
        f"{module.__name__.rsplit('.', 1)[-1]}.{name}": value
        for module in modules
        for name, value in vars(module).items()
        if caching.is_shared(value) and value.__module__ == module.__name__
    }
    assert sorted(declared) == sorted(calls), f"lab.data's cached functions changed: add them here ({sorted(declared)})"
    writable = [
        problem
        for name, args in calls.items()
        for problem in read_only_problems(
            declared[name].result(*args)
            if isinstance(declared[name], caching.BackgroundResource)
            else declared[name](*args),
            name,
        )
    ]
    assert not writable, f"writable arrays in shared caches: {writable}"
