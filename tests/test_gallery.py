"""The class gallery: the store (bounds, expiry, separation, threads, codes), its CSV and PNG, the math, and
the pages under AppTest (sessions in one class code see each other's drawings, other codes and no code see none).
"""

from __future__ import annotations

import io
import json
import threading

import numpy as np
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from lab import gallery
from lab.figures import export
from lab.gallery import ClassGallery
from nbcore.metrics import class_errors, confusion_matrix
from tests.apptest import data_dir, open_page, rerun  # noqa: F401 (data_dir: a fixture)
from tests.test_pages import array

HOSTILE_CODES = [
    "<script>alert(1)</script>",
    "ABC",
    "ABCDEFGHI",
    "AB CD",
    "../../etc",
    "ABCD%00",
    "ÄBCD",
    "X" * 10_000,
    "",
    "ab-cd",
    "1e5'",
]


class Clock:
    """A clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def posterior(digit: int) -> np.ndarray:
    values = np.full(10, 0.01)
    values[digit] = 0.91
    return values


def frame(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=(28, 28), dtype=np.uint8)


def send(store: ClassGallery, code: str, meant: int, bayes: int, softmax: int, seed: int = 0):
    return store.add(code, frame(seed), meant, posterior(bayes), posterior(softmax))


# -- class codes -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw, code",
    [("ABCD", "ABCD"), ("abcd", "ABCD"), (" math3b ", "MATH3B"), ("12345678", "12345678"), ("ABCD\n", "ABCD")],
)
def test_valid_class_codes_are_upper_cased(raw, code):
    assert gallery.class_code(raw) == code


@pytest.mark.parametrize("raw", HOSTILE_CODES + [None, 1234, ["ABCD"]])
def test_anything_else_is_not_a_class_code(raw):
    assert gallery.class_code(raw) is None


def test_new_codes_are_valid_and_differ():
    codes = {gallery.new_code() for _ in range(50)}
    assert len(codes) > 45 and all(gallery.class_code(code) == code for code in codes)


# -- the store ---------------------------------------------------------------------------------
def test_a_drawing_is_kept_as_a_read_only_copy_with_both_readings():
    store = ClassGallery()
    pixels = frame(1)
    drawing = store.add("ABCD", pixels, 3, posterior(5), posterior(3))
    pixels[:] = 0  # the caller's array changes later: the gallery keeps what was sent
    [kept] = store.drawings("ABCD")
    assert kept is drawing and np.array_equal(kept.frame, frame(1)) and kept.frame.dtype == np.uint8
    assert (kept.meant, kept.bayes_prediction, kept.softmax_prediction) == (3, 5, 3)
    with pytest.raises(ValueError):
        kept.frame[0, 0] = 1


def test_each_code_sees_only_its_own_drawings():
    store = ClassGallery()
    send(store, "ABCD", 1, 1, 1)
    send(store, "ABCD", 2, 2, 2)
    send(store, "WXYZ", 7, 1, 7)
    assert [drawing.meant for drawing in store.drawings("ABCD")] == [1, 2]
    assert [drawing.meant for drawing in store.drawings("WXYZ")] == [7]
    assert store.drawings("QQQQ") == ()
    store.clear("ABCD")
    assert store.drawings("ABCD") == () and len(store.drawings("WXYZ")) == 1


def test_at_most_per_class_drawings_the_oldest_go_first():
    store = ClassGallery(per_class=5)
    for index in range(12):
        send(store, "ABCD", index % 10, 0, 0, seed=index)
    kept = store.drawings("ABCD")
    assert len(kept) == 5
    assert [drawing.meant for drawing in kept] == [7, 8, 9, 0, 1]


def test_at_most_max_classes_the_least_recently_used_goes():
    store = ClassGallery(max_classes=3)
    for code in ("AAAA", "BBBB", "CCCC"):
        send(store, code, 1, 1, 1)
    store.drawings("AAAA")  # the teacher of AAAA looks: BBBB is now the least recently used
    send(store, "DDDD", 1, 1, 1)
    assert store.class_count() == 3
    assert store.drawings("BBBB") == ()
    assert all(store.drawings(code) for code in ("AAAA", "CCCC", "DDDD"))


def test_drawings_are_forgotten_after_the_set_time():
    clock = Clock()
    store = ClassGallery(keep_seconds=3 * 3600, clock=clock)
    send(store, "ABCD", 1, 1, 1)
    clock.now += 2 * 3600
    send(store, "ABCD", 2, 2, 2)
    send(store, "WXYZ", 3, 3, 3)
    clock.now += 3600 + 1  # the first drawing is 3 h 1 s old, the others 1 h 1 s
    assert [drawing.meant for drawing in store.drawings("ABCD")] == [2]
    clock.now += 2 * 3600
    assert store.drawings("ABCD") == () and store.class_count() == 0


@pytest.mark.parametrize("code", ["abcd", "ABC", "<b>ABCD</b>", " ABCD"])
def test_the_store_takes_only_valid_upper_case_codes(code):
    store = ClassGallery()
    with pytest.raises(ValueError):
        send(store, code, 1, 1, 1)
    with pytest.raises(ValueError):
        store.drawings(code)


@pytest.mark.parametrize(
    "pixels, meant, bayes",
    [
        (np.zeros((28, 27), np.uint8), 1, posterior(1)),
        (np.full((28, 28), 300), 1, posterior(1)),
        (np.zeros((28, 28)), 1, posterior(1)),  # floats: not a framed drawing
        (np.zeros((28, 28), np.uint8), 10, posterior(1)),
        (np.zeros((28, 28), np.uint8), True, posterior(1)),
        (np.zeros((28, 28), np.uint8), 1, np.full(10, np.nan)),
        (np.zeros((28, 28), np.uint8), 1, np.ones(9) / 9),
    ],
)
def test_a_malformed_drawing_is_refused(pixels, meant, bayes):
    store = ClassGallery()
    with pytest.raises(ValueError):
        store.add("ABCD", pixels, meant, bayes, posterior(1))
    assert store.drawings("ABCD") == ()


def test_many_threads_sending_and_reading_at_once_keep_the_bounds():
    store = ClassGallery(per_class=50, max_classes=4)
    codes = ["AAAA", "BBBB", "CCCC", "DDDD", "EEEE", "FFFF"]
    failures = []

    def student(index: int) -> None:
        try:
            for step in range(200):
                code = codes[(index + step) % len(codes)]
                send(store, code, step % 10, step % 10, (step + 1) % 10, seed=step)
                if len(store.drawings(code)) > 50:
                    failures.append(code)
        except Exception as error:  # noqa: BLE001 (any error in a thread is a failure of the test)
            failures.append(repr(error))

    threads = [threading.Thread(target=student, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert store.class_count() <= 4
    assert all(len(store.drawings(code)) <= 50 for code in codes)
    assert sum(len(store.drawings(code)) for code in codes) > 0


# -- CSV and PNG -------------------------------------------------------------------------------
def test_csv_has_a_header_and_one_row_per_drawing_with_labels_then_784_pixels():
    store = ClassGallery()
    send(store, "ABCD", 3, 5, 3, seed=1)
    send(store, "ABCD", 8, 8, 9, seed=2)
    rows = gallery.to_csv(store.drawings("ABCD")).decode("utf-8").splitlines()
    header = rows[0].split(",")
    assert header[:4] == ["meant", "naive_bayes", "softmax", "pixel0"] and header[-1] == "pixel783"
    values = np.array([row.split(",") for row in rows[1:]], dtype=np.int64)
    assert values.shape == (2, 3 + 784)
    assert values[:, :3].tolist() == [[3, 5, 3], [8, 8, 9]]
    assert np.array_equal(values[0, 3:].reshape(28, 28), frame(1))
    assert np.array_equal(values[1, 3:].reshape(28, 28), frame(2))
    assert gallery.to_csv(()).decode("utf-8").splitlines() == [",".join(gallery.CSV_HEADER)]


def test_png_shows_every_drawing_and_grows_with_the_gallery():
    store = ClassGallery()
    sizes = []
    for count in (0, 3, 25):
        while len(store.drawings("ABCD")) < count:
            send(store, "ABCD", 1, 2, 1, seed=len(store.drawings("ABCD")))
        arrays = gallery.as_arrays(store.drawings("ABCD"))
        png = export.gallery_png(
            arrays.frames,
            arrays.meant,
            arrays.bayes,
            arrays.softmax,
            "Class ABCD",
            {"Meant vs naive Bayes": confusion_matrix(arrays.meant, arrays.bayes)},
        )
        picture = Image.open(io.BytesIO(png))
        assert picture.format == "PNG"
        sizes.append(picture.size)
    assert sizes[0][1] < sizes[1][1] < sizes[2][1]  # a row of drawings, then three rows


# -- the math ----------------------------------------------------------------------------------
def test_class_errors_counts_misreadings_per_meant_digit():
    meant = np.array([3, 3, 3, 8, 8, 1])
    read = np.array([3, 5, 5, 8, 3, 1])
    errors = class_errors(confusion_matrix(meant, read))
    assert errors.count[[1, 3, 8]].tolist() == [1, 3, 2] and errors.count[0] == 0
    assert errors.wrong[[1, 3, 8]].tolist() == [0, 2, 1]
    assert errors.error_rate[3] == pytest.approx(2 / 3) and np.isnan(errors.error_rate[0])
    assert errors.instead[3, 5] == 2 and errors.instead[3, 3] == 0 and errors.instead[8, 3] == 1
    assert errors.most_misread() == 3
    assert errors.accuracy == pytest.approx(3 / 6)
    assert class_errors(confusion_matrix(meant, meant)).most_misread() is None
    with pytest.raises(ValueError):
        class_errors(np.zeros((3, 4)))


# -- the pages (AppTest) -----------------------------------------------------------------------


def send_from_draw(code: str | None, digit_image: np.ndarray, meant: int) -> AppTest:
    """A student's session on Draw (with ``?class=code``) sends this image, saying it meant ``meant``."""
    app = open_page("pages/draw.py", {"class": code} if code else None, draw_frame=digit_image)
    app.segmented_control(key="gallery_meant").set_value(meant)
    app.button(key="gallery_send_button").click()
    rerun(app)
    assert any("gallery" in item.value for item in app.success), "no confirmation"
    return app


def gallery_tiles(app: AppTest) -> list[str]:
    """The captions of the drawings in the gallery's grid (none when it is empty)."""
    images = app.get("image")
    return [caption for image in images for caption in image.captions]


def test_two_students_in_one_class_see_each_others_drawings_and_other_codes_see_none(mnist):
    code, other = gallery.new_code(8), gallery.new_code(8)  # own codes: AppTests in this process share the gallery
    seven, two = mnist["test_images"][0], mnist["test_images"][1]  # a 7 and a 2
    send_from_draw(code, seven, 7)
    send_from_draw(code, two, 2)
    send_from_draw(code, seven, 1)  # a third student says this 7 was meant as a 1: naive Bayes reads 7
    teacher = open_page("pages/gallery.py", {"class": code})
    captions = gallery_tiles(teacher)
    assert captions == ["✗ meant 1 · NB 7 · SM 7", "meant 2 · NB 2 · SM 2", "meant 7 · NB 7 · SM 7"]
    assert [item.value for item in teacher.metric if item.label == "Drawings"] == ["3"]
    assert [item.value for item in teacher.metric if item.label == "Naive Bayes read right"] == ["67%"]
    assert len(teacher.get("download_button")) == 2  # CSV and PNG
    bayes_chart = json.loads(teacher.get("plotly_chart")[0].proto.spec)  # then softmax's
    expected = np.zeros((10, 10), dtype=int)
    expected[[7, 2, 1], [7, 2, 7]] = 1
    assert np.array_equal(array(bayes_chart["data"][0]["z"]), expected)
    assert any(
        "Most often fooled by **1s**: wrong on 1 of 1, mostly read as **7**" in item.value for item in teacher.markdown
    )
    elsewhere = open_page("pages/gallery.py", {"class": other})
    assert gallery_tiles(elsewhere) == []
    assert any("No drawings" in item.value for item in elsewhere.info)
    # the teacher's page shows the same drawings that the CSV holds
    rows = gallery.to_csv(gallery_state().drawings(code)).decode("utf-8").splitlines()[1:]
    assert [row.split(",")[:3] for row in rows] == [["7", "7", "7"], ["2", "2", "2"], ["1", "7", "7"]]
    pixels = np.array(rows[0].split(",")[3:], dtype=np.int64).reshape(28, 28)
    assert pixels.max() > 0 and np.array_equal(pixels, gallery_state().drawings(code)[0].frame)


def gallery_state() -> ClassGallery:
    """The app's shared gallery (the same object the AppTest sessions used: one cache per process)."""
    from lab import state

    return state.class_gallery()


def test_sending_twice_keeps_one_drawing_and_a_missing_digit_is_asked_for(mnist):
    code = gallery.new_code(8)
    app = send_from_draw(code, mnist["test_images"][0], 7)
    app.segmented_control(key="gallery_meant").set_value(7)
    app.button(key="gallery_send_button").click()
    rerun(app)
    assert any("already" in item.value for item in app.info)
    app.button(key="gallery_send_button").click()  # nothing picked
    rerun(app)
    assert any("Pick the digit" in item.value for item in app.warning)
    assert len(gallery_state().drawings(code)) == 1


def test_without_a_class_code_there_is_no_form(mnist):
    app = open_page("pages/draw.py", draw_frame=mnist["test_images"][0])
    assert [item for item in app.metric if item.label == "Naive Bayes prediction"]
    assert not app.get("segmented_control") or all(item.key != "gallery_meant" for item in app.get("segmented_control"))
    teacher = open_page("pages/gallery.py")  # a new, empty code
    assert gallery_tiles(teacher) == [] and not teacher.get("plotly_chart")


@pytest.mark.parametrize("hostile", ["<script>alert(1)</script>", "../../etc/passwd", "X" * 10_000])
def test_a_hostile_class_value_gives_a_notice_that_does_not_echo_it_and_shares_nothing(mnist, hostile):
    classes_before = gallery_state().class_count()
    app = open_page("pages/draw.py", {"class": hostile}, draw_frame=mnist["test_images"][0])
    notices = [item.value for item in app.caption if "class code in this link was ignored" in item.value]
    assert len(notices) == 1 and hostile not in notices[0]
    assert all(item.key != "gallery_meant" for item in app.get("segmented_control"))
    teacher = open_page("pages/gallery.py", {"class": hostile})
    assert any("class code in this link was ignored" in item.value for item in teacher.caption)
    assert gallery_tiles(teacher) == [] and not teacher.get("plotly_chart")
    page_text = " ".join(str(element.proto) for element in teacher.main)
    assert "<script>" not in page_text and "passwd" not in page_text
    assert gallery_state().class_count() == classes_before


def test_the_teacher_types_a_code_or_is_told_it_is_not_one():
    teacher = open_page("pages/gallery.py")
    offered = teacher.text_input(key="gallery_code_input").value  # a new code, ready to hand out
    assert gallery.class_code(offered) == offered and teacher.query_params["class"] in (offered, [offered])
    assert any(f"No drawings in class {offered}" in item.value for item in teacher.info)
    teacher.text_input(key="gallery_code_input").input("<b>x</b>")
    rerun(teacher)
    assert any("not a class code" in item.value and "<b>" not in item.value for item in teacher.warning)
    assert not teacher.main.get("code") and not teacher.metric  # (the sidebar has its own copy-link box)
    teacher.text_input(key="gallery_code_input").input("")
    rerun(teacher)
    assert any("Type a class code" in item.value for item in teacher.info) and "class" not in teacher.query_params
    code = gallery.new_code(8)
    teacher.text_input(key="gallery_code_input").input(code.lower())
    rerun(teacher)
    assert teacher.query_params["class"] in (code, [code])
    assert [block.value for block in teacher.main.get("code")] == [f"/draw?class={code}"]
    assert any(f"No drawings in class {code}" in item.value for item in teacher.info)
