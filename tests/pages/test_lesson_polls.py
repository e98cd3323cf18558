"""The lesson's live polls under AppTest: students of a class answer, the teacher sees the counts and reveals,
the truth reaches the students only then; alone, the lesson reveals by itself; the answers' CSV."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lab import class_period, lesson_steps, lesson_steps_limits, model_settings
from lab.data import class_models, class_store
from nbcore.experiments.class_model import DEFAULT_WEIGHT
from tests.apptest import open_page, rerun

pytestmark = pytest.mark.usefixtures("data_dir", "class_store_file")

STEP = "2"  # the class prior: one question, options "digit 0" ... "digit 9"
CLASS_MODEL_STEP = str(lesson_steps.STEPS.index(lesson_steps_limits.CLASS_MODEL) + 1)


def student(code: str, who: int) -> AppTest:
    return open_page(
        "pages/lesson.py", {"class": code, "lesson": STEP}, browser_memory_student={"value": f"{who:032x}"}
    )


def answer(app: AppTest, digit: int) -> AppTest:
    app.radio(key="lesson_answer_prior").set_value(digit)
    app.button(key="lesson_reveal_prior").click()
    return rerun(app)


def counts_shown(teacher: AppTest) -> list[int]:
    [chart] = [c for c in teacher.get("plotly_chart") if '"orientation":"h"' in c.proto.spec]
    return json.loads(chart.proto.spec)["data"][0]["x"]


def truth_shown(app: AppTest) -> bool:
    return any("off most" in item.value for item in [*app.success, *app.info, *app.warning])


@pytest.mark.slow
def test_students_answer_the_teacher_counts_and_reveals(mnist):
    made = class_store.class_store().create_class()
    code, key = made.info.code, made.teacher_key
    teacher = open_page("pages/lesson.py", {"class": code, "key": key, "lesson": STEP})
    assert counts_shown(teacher) == [0] * 10 and not truth_shown(teacher)

    first, second, third = student(code, 1), student(code, 2), student(code, 3)
    assert first.button(key="lesson_reveal_prior").label == f"Send my answer to class {code}"
    answer(first, 3)
    answer(second, 3)
    answer(third, 5)
    assert not truth_shown(first) and any("Your teacher reveals" in item.value for item in first.caption)
    first.button(key="lesson_again_prior").click()
    rerun(first)
    answer(first, 1)  # answered again: replaces, counted once
    rerun(teacher)
    expected = [0] * 10
    expected[1], expected[3], expected[5] = 1, 1, 1
    assert counts_shown(teacher) == expected
    assert class_store.class_store().tally(code, "prior").counted == {"1": 1, "3": 1, "5": 1}

    teacher.button(key="lesson_reveal_class_prior").click()
    rerun(teacher)
    assert truth_shown(teacher) and any("most common answer" in item.value for item in teacher.markdown)
    assert truth_shown(rerun(second)) and truth_shown(rerun(first))  # the reveal reaches every student
    rows = list(csv.DictReader(io.StringIO(class_period.answers_file(code, 1).decode())))
    assert sorted((row["question"], row["answer"], row["after_reveal"]) for row in rows) == [
        ("prior", "1", "no"),
        ("prior", "3", "no"),
        ("prior", "5", "no"),
    ]


@pytest.mark.slow
def test_a_student_cannot_reveal_and_alone_the_lesson_reveals_by_itself(mnist):
    made = class_store.class_store().create_class()
    learner = student(made.info.code, 9)
    assert not [b for b in learner.get("button") if b.key == "lesson_reveal_class_prior"]
    alone = open_page("pages/lesson.py", {"lesson": STEP})
    assert alone.button(key="lesson_reveal_prior").label == "Reveal"
    assert truth_shown(answer(alone, 1))
    assert class_store.class_store().tally(made.info.code, "prior").counted == {}


@pytest.mark.slow
def test_the_class_model_step_reads_the_class_drawings_and_works_alone(mnist):
    alone = open_page("pages/lesson.py", {"lesson": CLASS_MODEL_STEP})
    assert any("open the lesson through your class's link" in item.value for item in alone.info)
    made = class_store.class_store().create_class()
    code = made.info.code
    store = class_store.class_store()
    for who in range(3):  # three students, twenty MNIST test digits each: every digit at least 5 times
        for index in range(who * 20, who * 20 + 20):
            posterior = np.full(10, 0.1)
            store.add_drawing(
                code,
                f"{who + 1:016x}",
                mnist["test_images"][index],
                int(mnist["test_labels"][index]),
                posterior,
                posterior,
            )
    learner = open_page(
        "pages/lesson.py", {"class": code, "lesson": CLASS_MODEL_STEP}, browser_memory_student={"value": f"{50:032x}"}
    )
    assert not learner.info  # every model measured: the question is asked
    learner.radio(key="lesson_answer_class_model").set_value("class")
    learner.button(key="lesson_reveal_class_model").click()
    rerun(learner)
    assert not truth_in(learner)
    teacher = open_page("pages/lesson.py", {"class": code, "key": made.teacher_key, "lesson": CLASS_MODEL_STEP})
    teacher.button(key="lesson_reveal_class_class_model").click()
    rerun(teacher)
    said = truth_in(rerun(learner))
    assert said and "On 60 drawings of 3 students" in said
    expected = class_models.class_evaluation(
        class_models.class_snapshot(code), class_models.class_model_settings(model_settings.TEXTBOOK), DEFAULT_WEIGHT
    )
    assert f"MNIST's model {expected.models['mnist'].accuracy:.0%}" in said


def truth_in(app: AppTest) -> str | None:
    found = [item.value for kind in ("success", "warning") for item in app.get(kind) if "drawings of" in item.value]
    return found[0] if found else None
