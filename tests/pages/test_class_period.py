"""A class period under AppTest, from the teacher's page: start, join, stay in the class, lead the lesson,
answers that lock at the reveal, end, keep, and a new period with the same code."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lab.data import class_store
from nbcore.experiments.class_drawings import load_drawings
from tests.apptest import open_page, rerun
from tests.conftest import REPO

pytestmark = pytest.mark.usefixtures("data_dir")

PUBLIC = "http://lab.school.test:8080"


@pytest.fixture(autouse=True)
def class_store_file(tmp_path, monkeypatch):
    """A store per test: AppTest gives every session one id, so the per-session budget of new classes would
    otherwise carry from one test to the next."""
    path = tmp_path / "classes.sqlite3"
    monkeypatch.setenv("NBCORE_CLASS_STORE", f"sqlite:///{path}")
    monkeypatch.setenv("NBCORE_PUBLIC_URL", PUBLIC)
    monkeypatch.delenv("NBCORE_TEACHER_PASSPHRASE", raising=False)
    return path


def param(app: AppTest, name: str) -> str | None:
    value = app.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def start_class() -> tuple[AppTest, str]:
    teacher = open_page("pages/teach.py")
    teacher.button(key="teach_new_class_button").click()
    rerun(teacher)
    code = param(teacher, "class")
    assert code and teacher.title[0].value == f"Class {code}"
    return teacher, code


def secret(who: int) -> str:
    return f"{who:032x}"


@pytest.mark.slow
def test_the_join_slide_gives_the_code_the_qr_and_reachable_links(mnist):
    teacher, code = start_class()
    assert "key" not in teacher.query_params  # the projector never shows the key
    assert any(block.value == f"# {code}" for block in teacher.markdown)
    assert any(block.value == "## lab.school.test:8080" for block in teacher.markdown)
    links = [block.value for block in teacher.main.get("code")]
    assert links[0] == f"{PUBLIC}/draw?class={code}"
    assert links[1].startswith(f"{PUBLIC}/teach?class={code}&key=")
    assert len(teacher.main.get("image")) == 1  # the QR code
    assert any("students joined" in block.value for block in teacher.markdown)


def test_with_a_passphrase_only_its_holders_make_classes(mnist, monkeypatch):
    monkeypatch.setenv("NBCORE_TEACHER_PASSPHRASE", "tulip-harbour")
    guess = open_page("pages/teach.py")
    guess.text_input(key="teach_passphrase").set_value("tulip")
    guess.button(key="teach_new_class_button").click()
    rerun(guess)
    assert any("not the passphrase" in item.value for item in guess.warning) and not param(guess, "class")
    guess.text_input(key="teach_passphrase").set_value("tulip-harbour")
    guess.button(key="teach_new_class_button").click()
    rerun(guess)
    assert param(guess, "class")


@pytest.mark.slow
def test_a_student_stays_in_the_class_across_pages_and_can_leave(mnist):
    _, code = start_class()
    learner = open_page("pages/draw.py", {"class": code}, browser_memory_student={"value": secret(1)})
    assert any(f"Class {code}" in block.value for block in learner.markdown)
    learner.switch_page(str(REPO / "pages" / "lesson.py"))
    learner.query_params.clear()  # a sidebar click: the new page's address has no class in it
    rerun(learner)
    assert param(learner, "class") == code  # the frame puts it back: a reload keeps the class
    learner.button(key="class_leave").click()
    rerun(learner)
    assert param(learner, "class") is None and not [b for b in learner.get("button") if b.key == "class_leave"]


@pytest.mark.slow
def test_a_typed_code_joins_and_a_wrong_one_says_so(mnist):
    _, code = start_class()
    visitor = open_page("pages/home.py", browser_memory_student={"value": secret(2)})
    visitor.text_input(key="home_code").set_value("NOPE2222")
    visitor.button(key="FormSubmitter:home_join-Join").click()
    rerun(visitor)
    assert any("no open class" in item.value for item in visitor.warning)
    visitor.text_input(key="home_code").set_value(f"  {code.lower()} ")
    visitor.button(key="FormSubmitter:home_join-Join").click()
    visitor.run()
    assert param(visitor, "class") == code


def answer(app: AppTest, digit: int) -> AppTest:
    app.radio(key="lesson_answer_prior").set_value(digit)
    app.button(key="lesson_reveal_prior").click()
    return rerun(app)


@pytest.mark.slow
def test_answers_lock_at_the_reveal_and_late_ones_are_kept_apart(mnist):
    made = class_store.class_store().create_class()
    code, key = made.info.code, made.teacher_key
    first = open_page("pages/lesson.py", {"class": code, "lesson": "2"}, browser_memory_student={"value": secret(3)})
    answer(first, 3)
    teacher = open_page("pages/lesson.py", {"class": code, "key": key, "lesson": "2"})
    teacher.button(key="lesson_reveal_class_prior").click()
    rerun(teacher)
    assert not [b for b in rerun(first).get("button") if b.key == "lesson_again_prior"]  # locked
    assert any("locked at the reveal" in block.value for block in first.markdown)
    late = open_page("pages/lesson.py", {"class": code, "lesson": "2"}, browser_memory_student={"value": secret(4)})
    answer(late, 5)
    assert any("after the reveal" in block.value for block in late.markdown)
    tally = class_store.class_store().tally(code, "prior")
    assert tally.counted == {"3": 1} and tally.after_reveal == {"5": 1}
    rerun(teacher)
    assert any("1 more answered after the reveal" in item.value for item in teacher.caption)
    assert any("1 student answered before the reveal" in block.value for block in teacher.markdown)


@pytest.mark.slow
def test_the_teacher_leads_and_students_follow_even_late(mnist):
    made = class_store.class_store().create_class()
    code, key = made.info.code, made.teacher_key
    teacher = open_page("pages/lesson.py", {"class": code, "key": key, "lesson": "4"})
    teacher.button(key="lesson_pace_lead").click()
    rerun(teacher)
    assert class_store.class_store().class_info(code).pace == 4
    late = open_page("pages/lesson.py", {"class": code, "lesson": "1"}, browser_memory_student={"value": secret(5)})
    assert late.header[0].value.startswith("4.") and param(late, "lesson") == "4"
    late.button(key="lesson_next_top").click()  # running ahead of the class
    rerun(late)
    assert late.header[0].value.startswith("4.")
    teacher.button(key="lesson_next_top").click()
    rerun(teacher)
    assert class_store.class_store().class_info(code).pace == 5
    assert rerun(late).header[0].value.startswith("5.")


@pytest.mark.slow
def test_ending_keeps_everything_for_the_export_and_a_new_period_starts_clean(mnist, tmp_path):
    teacher, code = start_class()
    store = class_store.class_store()
    posterior = np.full(10, 0.1)
    for who in (1, 2):
        store.add_drawing(
            code, f"{who:016x}", mnist["test_images"][who], int(mnist["test_labels"][who]), posterior, posterior
        )
    teacher.checkbox(key="teach_new_period_sure").check()
    rerun(teacher)
    teacher.button(key="teach_new_period").click()
    rerun(teacher)
    assert store.drawings(code) == () and store.class_info(code).period == 2
    assert len(store.drawings(code, period=1)) == 2
    teacher.checkbox(key="teach_end_sure").check()
    rerun(teacher)
    teacher.button(key="teach_end").click()
    rerun(teacher)
    assert any("ended at" in item.value for item in teacher.info)
    learner = open_page(
        "pages/draw.py",
        {"class": code},
        draw_frame=mnist["test_images"][3],
        browser_memory_student={"value": secret(6)},
    )
    assert any(f"Class {code} ended at" in block.value for block in learner.markdown)
    assert not [b for b in learner.get("button") if b.key == "class_send_button"]
    downloads = {button.proto.label for button in teacher.get("download_button")}
    assert {"Drawings (.npz)", "Answers (.csv)"} <= downloads
    from lab import class_period

    exported = tmp_path / "drawings.npz"
    exported.write_bytes(class_period.drawings_file(code, 1))
    drawings = load_drawings(exported)
    assert len(drawings.labels) == 2 and drawings.frames.shape == (2, 28, 28)
