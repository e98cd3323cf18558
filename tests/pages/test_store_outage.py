"""The class store stops answering under AppTest (``lab/store_outage.py``): every class page keeps its class and
what it last knew, marked not live, under one notice; a refused send keeps its digit; once the store answers, the
page's watcher brings it back. The real outages (Redis killed, SQLite made read-only) are tests/e2e/test_store_outage.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lab import refresh, store_outage
from lab.data import class_store
from nbcore.classroom import student_id
from nbcore.classroom.records import UNAVAILABLE, StoreUnavailable
from tests.apptest import open_page, rerun
from tests.pages.test_class_period import class_store_file, secret  # noqa: F401 (a store per test)

pytestmark = pytest.mark.usefixtures("data_dir")
NOTICE = store_outage.NOTICE


@pytest.fixture
def store(monkeypatch):
    """Switches the class store off (``down()``) and on (``up()``) as Redis stopping would: every call refuses."""
    answering = class_store.class_store

    def refusing():
        raise StoreUnavailable(UNAVAILABLE)

    class Switch:
        def down(self) -> None:
            monkeypatch.setattr(class_store, "class_store", refusing)

        def up(self) -> None:
            monkeypatch.setattr(class_store, "class_store", answering)

    return Switch()


def texts(app: AppTest) -> list[str]:
    """Every text the page shows (markdown, captions, alerts, titles), in order within each kind."""
    kinds = ("title", "markdown", "caption", "info", "warning", "success", "subheader")
    return [str(item.value) for kind in kinds for item in app.get(kind)]


def notices(app: AppTest) -> int:
    return sum(item.value == NOTICE for item in app.warning)


def buttons(app: AppTest) -> set[str]:
    return {str(item.key) for item in app.get("button")} | {str(item.key) for item in app.get("form_submit_button")}


def new_class():
    made = class_store.class_store().create_class()
    return made.info.code, made.teacher_key


def add_drawings(code: str, who: int, digits: list[int]) -> None:
    posterior = np.full(10, 0.1)
    for digit in digits:
        frame = np.zeros((28, 28), np.uint8)
        frame[4 + digit : 20, 10:14] = 255
        class_store.class_store().add_drawing(code, student_id(secret(who)), frame, digit, posterior, posterior)


@pytest.mark.slow
def test_the_class_page_left_open_keeps_the_class_and_its_count_then_comes_back(store):
    code, key = new_class()
    class_store.class_store().check_in(code, student_id(secret(1)), None)
    teacher = open_page("pages/teach.py", {"class": code, "key": key})
    assert any("**1 student joined**" in text for text in texts(teacher)) and notices(teacher) == 0
    store.down()
    rerun(teacher)
    shown = texts(teacher)
    assert teacher.title[0].value == f"Class {code}" and notices(teacher) == 1
    assert any("**1 student joined**" in text for text in shown)  # the last known count, not 0
    assert any(text.startswith(":material/cloud_off: Not live: as the class store last answered") for text in shown)
    assert "teach_new_class_button" not in buttons(teacher)
    store.up()
    rerun(teacher)  # the watcher finds the store answering and draws the page again
    assert notices(teacher) == 0 and not any("Not live" in text for text in texts(teacher))


@pytest.mark.slow
def test_pages_reloaded_in_the_outage_stay_the_class_and_fill_in_once_it_answers(store, mnist):
    code, key = new_class()
    store.down()
    # a teacher's reload: the link names the class, the browser keeps the key (no session state of the class)
    teacher = open_page("pages/teach.py", {"class": code}, **{f"browser_memory_teacher-{code}": {"value": key}})
    assert teacher.title[0].value == f"Class {code}" and notices(teacher) == 1
    assert "teach_new_class_button" not in buttons(teacher)
    assert any(text == f":material/co_present: **Teaching class {code}**" for text in texts(teacher))
    gallery = open_page("pages/gallery.py", {"class": code}, **{f"browser_memory_teacher-{code}": {"value": key}})
    assert any(text == f"### Class {code}" for text in texts(gallery)) and notices(gallery) == 1
    assert not any("A teacher starts a class" in text for text in texts(gallery))
    student = open_page(
        "pages/draw.py",
        {"class": code},
        draw_frame=mnist["test_images"][0],
        browser_memory_student={"value": secret(2)},
    )
    assert any(text == f":material/groups: **Class {code}**" for text in texts(student)) and notices(student) == 1
    store.up()
    for page in (teacher, gallery, student):
        rerun(page)
        assert notices(page) == 0
    assert "teach_extend" in buttons(teacher) and any("students joined" in text for text in texts(teacher))
    assert any(item.label == "Drawings" for item in gallery.metric)
    assert "class_send_button" in buttons(student)


@pytest.mark.slow
def test_the_gallery_and_its_model_keep_the_last_drawings_not_live(store):
    code, key = new_class()
    add_drawings(code, 1, [1, 7])
    add_drawings(code, 2, [1, 7])
    gallery = open_page("pages/gallery.py", {"class": code, "key": key})
    metrics = {item.label: item.value for item in gallery.metric}
    tiles = [caption for image in gallery.main.get("image") for caption in image.captions]
    assert metrics["Drawings"] == "4" and len(tiles) == 4
    store.down()
    rerun(gallery)
    assert {item.label: item.value for item in gallery.metric} == metrics
    assert [caption for image in gallery.main.get("image") for caption in image.captions] == tiles
    assert sum("Not live" in text for text in texts(gallery)) == 2  # the drawings and the class's model
    assert notices(gallery) == 1


@pytest.mark.slow
def test_a_refused_send_says_not_sent_keeps_its_digit_and_one_press_sends_it(store, mnist):
    code, _ = new_class()
    student = open_page(
        "pages/draw.py",
        {"class": code},
        draw_frame=mnist["test_images"][0],
        browser_memory_student={"value": secret(3)},
    )
    store.down()
    student.segmented_control(key="class_meant").set_value(7)
    student.button(key="class_send_button").click()
    rerun(student)
    assert [item.value for item in student.warning if item.value != NOTICE] == [
        "Not sent: the class store is not answering. Your drawing and its digit are kept here: press Send to the "
        "class again in a moment."
    ]
    assert student.segmented_control(key="class_meant").value == 7 and notices(student) == 1
    store.up()
    rerun(student)  # the watcher: the page is whole again, the digit still chosen
    assert student.segmented_control(key="class_meant").value == 7
    student.button(key="class_send_button").click()
    rerun(student)
    assert [item.value for item in student.success] == [f"Sent: your 7 is in class {code}'s gallery."]
    assert student.segmented_control(key="class_meant").value is None
    assert [d.meant for d in class_store.class_store().drawings(code)] == [7]


@pytest.mark.slow
def test_a_paused_page_is_not_redrawn_when_the_store_answers_again(store):
    code, key = new_class()
    teacher = open_page("pages/teach.py", {"class": code, "key": key}, **{refresh.PAUSED_KEY: True})
    store.down()
    rerun(teacher)
    assert notices(teacher) == 1
    store.up()
    rerun(teacher)
    shown = texts(teacher)
    assert notices(teacher) == 1  # drawn as it was: the watcher only says the store is back
    assert ":material/cloud_done: The class store answers again; this page is paused." in shown
    teacher.button(key="store_outage_refresh").click()
    rerun(teacher)
    assert notices(teacher) == 0


def test_a_reading_keeps_the_last_answer_and_says_when(store):
    """``kept`` and ``mark`` on their own: the answer while live, the last one (and its time) while refused."""

    def page() -> None:
        import streamlit as st

        from lab import store_outage
        from lab.data import class_store

        calls = st.session_state.setdefault("calls", [])
        reading = store_outage.kept("count", lambda: class_store.class_store() and len(calls))  # 0, 1, 2, ...
        calls.append(reading)
        st.write(f"value={reading.value} live={reading.live}")
        store_outage.mark(reading)

    app = AppTest.from_function(page)
    app.run()
    assert app.markdown[0].value == "value=0 live=True" and not app.caption
    store.down()  # the store's answer would now be 1
    app.run()
    assert app.markdown[0].value == "value=0 live=False"
    assert app.caption[0].value.startswith(":material/cloud_off: Not live: as the class store last answered, at ")
    assert app.session_state[store_outage._SINCE] is not None


def test_a_part_never_read_says_it_is_not_known(store):
    def page() -> None:
        from lab import store_outage
        from lab.data import class_store

        store_outage.mark(store_outage.kept("never", lambda: class_store.class_store().list_classes()))

    store.down()
    app = AppTest.from_function(page)
    app.run()
    assert [item.value for item in app.caption] == [
        ":material/cloud_off: Not known while the class store is not answering."
    ]


@pytest.mark.slow
def test_new_class_in_an_outage_is_a_sentence_and_downloads_wait(store):
    teacher = open_page("pages/teach.py")
    store.down()
    teacher.button(key="teach_new_class_button").click()
    rerun(teacher)
    assert UNAVAILABLE in [item.value for item in teacher.warning]  # the budgets' refusal, not an error box
    store.up()
    code, key = new_class()
    class_page = open_page("pages/teach.py", {"class": code, "key": key})
    store.down()
    rerun(class_page)
    downloads = [item for item in class_page.get("download_button")]
    assert downloads and all(item.proto.disabled for item in downloads)  # made from the store when clicked


@pytest.mark.slow
def test_the_lesson_keeps_its_counts_and_reveal_and_a_refused_answer_keeps_its_choice(store):
    code, key = new_class()
    for who, choice in ((4, "3"), (5, "5")):
        class_store.class_store().answer(code, student_id(secret(who)), "prior", choice)
    teacher = open_page("pages/lesson.py", {"class": code, "key": key, "lesson": "2"})
    learner = open_page("pages/lesson.py", {"class": code, "lesson": "2"}, browser_memory_student={"value": secret(6)})

    def counts(app: AppTest) -> list[int]:
        [chart] = [c for c in app.get("plotly_chart") if '"orientation":"h"' in c.proto.spec]
        return json.loads(chart.proto.spec)["data"][0]["x"]

    before = counts(teacher)
    assert sum(before) == 2
    store.down()
    rerun(teacher)
    assert counts(teacher) == before and notices(teacher) == 1  # the last counts, not 0
    assert any(text.startswith(":material/cloud_off: Not live") for text in texts(teacher))
    learner.radio(key="lesson_answer_prior").set_value(7)
    learner.button(key="lesson_reveal_prior").click()
    rerun(learner)
    assert any(item.value.startswith("Not sent: The class store is not answering") for item in learner.warning)
    assert learner.radio(key="lesson_answer_prior").value == 7  # kept: one press sends it
    store.up()
    rerun(learner)
    learner.button(key="lesson_reveal_prior").click()
    rerun(learner)
    assert class_store.class_store().tally(code, "prior").counted == {"3": 1, "5": 1, "7": 1}
    teacher.button(key="lesson_reveal_class_prior").click()
    rerun(teacher)  # revealed; then the store stops: the teacher's page stays revealed, not asking again
    store.down()
    rerun(teacher)
    assert "lesson_reveal_class_prior" not in buttons(teacher) and "lesson_reopen_prior" in buttons(teacher)
