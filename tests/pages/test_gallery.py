"""The class gallery under AppTest: a teacher's class, students sending from Draw, strangers refused, the teacher's
moderation, the budgets; and the class CLI. The store itself: tests/nbcore/test_class_store_*.py."""

from __future__ import annotations

import io
import json
import time

import numpy as np
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from lab import classroom, display
from lab.data import class_store
from lab.figures import export, style
from lab.model_choice import NEEDS_SMOOTHING
from nbcore import __main__ as cli
from nbcore.classroom import class_code, codes, open_store
from nbcore.classroom.export import as_arrays
from nbcore.classroom.store import NOT_OPEN, TEACHER_ONLY
from nbcore.experiments.class_model import MIXTURE, evaluate_class
from nbcore.features import binarize
from nbcore.metrics import class_errors, confusion_matrix
from nbcore.models.bernoulli import BernoulliNB
from tests.apptest import open_page, rerun
from tests.pages.test_pages import array, caption_with

pytestmark = pytest.mark.usefixtures("data_dir", "class_store_file")

HOSTILE_CODES = [
    "<script>alert(1)</script>",
    "ABC",
    "ABCDEFGHIJKLM",
    "AB CD",
    "../../etc",
    "ABCD%00",
    "ÄBCD",
    "X" * 10_000,
    "",
    "ab-cd",
    "1e5'",
]


def secret(n: int) -> str:
    return f"{n:032x}"


@pytest.mark.parametrize("raw, code", [("abcd", "ABCD"), (" math3b ", "MATH3B"), ("ABCDEFGHJKLM", "ABCDEFGHJKLM")])
def test_valid_class_codes_are_upper_cased(raw, code):
    assert class_code(raw) == code


@pytest.mark.parametrize("raw", HOSTILE_CODES + [None, 1234, ["ABCD"]])
def test_anything_else_is_not_a_class_code(raw):
    assert class_code(raw) is None


def test_new_codes_are_long_unambiguous_and_differ():
    made = {codes.new_code() for _ in range(200)}
    assert len(made) == 200 and all(len(code) == 8 and class_code(code) == code for code in made)
    assert not any(set(code) & set("01IO") for code in made)


def test_png_shows_every_drawing_and_grows_with_the_gallery():
    rng = np.random.default_rng(0)
    sizes = []
    for count in (0, 3, 25):
        frames = rng.integers(0, 256, (count, 28, 28), dtype=np.uint8)
        digits = rng.integers(0, 10, count)
        png = export.gallery_png(
            frames, digits, digits, digits, "Class ABCD", {"Meant vs naive Bayes": confusion_matrix(digits, digits)}
        )
        picture = Image.open(io.BytesIO(png))
        assert picture.format == "PNG"
        sizes.append(picture.size)
    assert sizes[0][1] < sizes[1][1] < sizes[2][1]  # a row of drawings, then three rows


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


# -- the pages ----------------------------------------------------------------------------------
def new_class_on_the_page() -> tuple[AppTest, str, str]:
    """A teacher's session on the gallery through a new class's teacher link: the session, the code and the link's
    path (the class page makes classes: tests/pages/test_class_period.py)."""
    made = class_store.class_store().create_class()
    code, teacher_path = made.info.code, f"/gallery?class={made.info.code}&key={made.teacher_key}"
    teacher = open_page("pages/gallery.py", {"class": code, "key": made.teacher_key})
    assert "key" not in teacher.query_params  # the key is not in the address bar the projector shows
    return teacher, code, teacher_path


def student_on_draw(code: str | None, image: np.ndarray, who: int) -> AppTest:
    """A student's session on Draw through the class link, with a drawing on the canvas and a browser secret."""
    return open_page(
        "pages/draw.py",
        {"class": code} if code else None,
        draw_frame=image,
        browser_memory_student={"value": secret(who)},
    )


def send(app: AppTest, meant: int | None) -> AppTest:
    if meant is not None:
        app.segmented_control(key="class_meant").set_value(meant)
    app.button(key="class_send_button").click()
    return rerun(app)


def tiles(app: AppTest) -> list[str]:
    return [caption for image in app.main.get("image") for caption in image.captions]


@pytest.mark.slow
def test_students_send_and_only_the_teacher_sees_and_moderates(mnist):
    teacher, code, teacher_path = new_class_on_the_page()
    assert any("Nothing sent to class" in item.value for item in teacher.info)
    seven, two = mnist["test_images"][0], mnist["test_images"][1]
    for who, image, meant in ((1, seven, 7), (2, two, 2), (3, seven, 1)):
        student = send(student_on_draw(code, image, who), meant)
        assert [item.value for item in student.success] == [f"Sent: your {meant} is in class {code}'s gallery."]
        assert any("You have sent 1 drawing" in item.value for item in student.caption)
    rerun(teacher)
    assert [line.split(" · ", 2)[2] for line in tiles(teacher)] == [
        "✗ meant 1 · NB 7 · SM 7",
        "meant 2 · NB 2 · SM 2",
        "meant 7 · NB 7 · SM 7",
    ]
    assert {item.label: item.value for item in teacher.metric}["Students"] == "3"
    assert {item.label: item.value for item in teacher.metric}["Naive Bayes read right"] == "67%"
    bayes_chart = json.loads(teacher.get("plotly_chart")[0].proto.spec)
    expected = np.zeros((10, 10), dtype=int)
    expected[[7, 2, 1], [7, 2, 7]] = 1
    assert np.array_equal(array(bayes_chart["data"][0]["z"]), expected)

    # a student (the code, no key) on the teacher's page sees nothing of the class and cannot moderate
    stranger = open_page("pages/gallery.py", {"class": code})
    assert tiles(stranger) == [] and not stranger.get("plotly_chart")
    assert not [item for item in stranger.main.get("button") if item.key == "gallery_clear"]
    forged = open_page("pages/gallery.py", {"class": code, "key": "guessed" * 6})
    assert tiles(forged) == [] and any("does not open a class" in item.value for item in forged.warning)

    # the teacher link opens the class anywhere; the teacher removes one student's drawings by label
    elsewhere = open_page("pages/gallery.py", dict(part.split("=") for part in teacher_path.split("?")[1].split("&")))
    assert len(tiles(elsewhere)) == 3 and "key" not in elsewhere.query_params
    label = tiles(elsewhere)[0].split(" · ")[1]
    elsewhere.text_input(key="gallery_remove_target").input(label)
    elsewhere.button(key="FormSubmitter:gallery_remove-Remove").click()
    rerun(elsewhere)
    assert any(f"Removed 1 drawing of {label}" in item.value for item in elsewhere.markdown)
    rerun(elsewhere)
    assert len(tiles(elsewhere)) == 2
    assert elsewhere.button(key="gallery_clear").disabled  # emptying needs the checkbox first
    elsewhere.checkbox(key="gallery_clear_sure").check()
    rerun(elsewhere)
    elsewhere.button(key="gallery_clear").click()
    rerun(elsewhere)
    assert tiles(rerun(elsewhere)) == []


def test_a_made_up_code_is_refused_at_once_and_creates_nothing(mnist):
    student = student_on_draw("ZZZZZZZZ", mnist["test_images"][0], 9)
    assert [item.value for item in student.warning] == [NOT_OPEN]
    assert not [item for item in student.get("segmented_control") if item.key == "class_meant"]
    assert class_store.class_store().class_info("ZZZZZZZZ") is None


def test_sending_twice_keeps_one_and_a_missing_digit_is_asked_for(mnist):
    _, code, _ = new_class_on_the_page()
    student = send(student_on_draw(code, mnist["test_images"][0], 11), 7)
    send(student, 7)
    assert any("already" in item.value for item in student.info)
    send(student, None)
    assert any("Pick the digit" in item.value for item in student.warning)
    assert len(class_store.class_store().drawings(code)) == 1


@pytest.mark.slow
def test_a_student_over_their_budget_is_told_to_wait_and_others_still_send(mnist, monkeypatch):
    _, code, _ = new_class_on_the_page()
    # budgets count in fixed one-minute windows: with the clock held, the sends cannot straddle two of them
    # (they did once, on a loaded machine, and the eleventh went through)
    held = time.time()
    monkeypatch.setattr(class_store.class_store(), "clock", lambda: held)
    student = student_on_draw(code, mnist["test_images"][0], 21)
    # a new drawing is drawn (a run) before it is sent: the form sends the drawing it was drawn with
    for n in range(classroom.SENDS_PER_STUDENT):
        student.session_state["draw_frame"] = np.roll(mnist["test_images"][0], n + 1, axis=1)
        send(rerun(student), 7)
    assert len(student.success) == 1
    student.session_state["draw_frame"] = mnist["test_images"][2]
    send(rerun(student), 1)
    assert [item.value for item in student.warning] == [f"Not sent: {classroom.TOO_FAST}"]
    other = send(student_on_draw(code, mnist["test_images"][1], 22), 2)
    assert len(other.success) == 1
    assert len(class_store.class_store().drawings(code)) == classroom.SENDS_PER_STUDENT + 1


@pytest.mark.slow
@pytest.mark.parametrize("hostile", ["<script>alert(1)</script>", "../../etc/passwd", "X" * 10_000])
def test_a_hostile_class_value_gives_a_notice_that_does_not_echo_it(mnist, hostile):
    app = student_on_draw(hostile, mnist["test_images"][0], 31)
    notices = [item.value for item in app.caption if "class code in this link was ignored" in item.value]
    assert len(notices) == 1 and hostile not in notices[0]
    teacher = open_page("pages/gallery.py", {"class": hostile})
    page_text = " ".join(str(element.proto) for element in teacher.main)
    assert "<script>" not in page_text and "passwd" not in page_text


def test_the_cli_creates_a_class_the_pages_know(capsys, mnist):
    assert cli.main(["class", "new", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert {"code", "student_path", "teacher_path"} <= set(made) and len(made["code"]) == 8
    assert made["student_path"] == f"/draw?class={made['code']}"
    key = made["teacher_path"].split("key=")[1]
    assert class_store.class_store().is_teacher(made["code"], key)
    assert cli.main(["class", "new", "--code", "lesson7"]) == 0
    assert "class LESSON7" in capsys.readouterr().out
    assert cli.main(["class", "new", "--code", "LESSON7"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert cli.main(["class", "new", "--code", "<b>"]) == 2
    student = send(student_on_draw(made["code"], mnist["test_images"][0], 41), 7)
    assert len(student.success) == 1
    with pytest.raises(Exception, match=TEACHER_ONLY[:20]):
        open_store().clear(made["code"], "not the key")
    assert as_arrays(open_store().drawings(made["code"])).meant.tolist() == [7]


# -- the class's model on the teacher's page ------------------------------------------------------
CURVE_TITLE = "Accuracy as the class draws more"


def class_of_mnist_digits(mnist, per_digit: dict[int, int], n_students: int) -> tuple[str, str, np.ndarray]:
    """A class made in the store, each of ``n_students`` sending ``per_digit[d]`` real MNIST test digits d (each
    image once): the code, the teacher key, and the images' indexes in sending order."""
    made = class_store.class_store().create_class()
    labels, flat = mnist["test_labels"], np.full(10, 0.1)
    pools = {digit: iter(np.flatnonzero(labels == digit)) for digit in per_digit}
    sent = []
    for student in range(n_students):
        for digit, count in per_digit.items():
            for _ in range(count):
                index = next(pools[digit])
                class_store.class_store().add_drawing(
                    made.info.code, secret(900 + student)[-16:], mnist["test_images"][index], digit, flat, flat
                )
                sent.append(index)
    return made.info.code, made.teacher_key, np.array(sent)


def textbook_mnist_model(mnist) -> BernoulliNB:
    """The plain textbook model (pixel >= 128, alpha = beta = 1, empirical prior), fitted here, not by the app."""
    return BernoulliNB(alpha=1.0).fit(binarize(mnist["train_images"], 128), mnist["train_labels"])


def teacher_page(code: str, key: str) -> AppTest:
    return open_page("pages/gallery.py", {"class": code, "key": key})


TITLE_KEYS = {
    CURVE_TITLE: "gallery_class_curve",
    "P(xᵢ = 1 | y): the class's model above MNIST's": "gallery_class_pairs",
}


def titled(app: AppTest, title: str) -> list[dict]:
    """The page's figures with this title, shown above the chart (display.chart), and the chart's key."""
    shown = any(item.value == f"**{display.escape_markdown(title)}**" for item in app.markdown)
    key = TITLE_KEYS[title]
    return [json.loads(c.proto.spec) for c in app.get("plotly_chart") if shown and c.proto.id.endswith("-" + key)]


def until_the_curve_is_drawn(app: AppTest, tries: int = 120) -> dict:
    """Run the page again until the curve (drawn in a thread) shows; its figure."""
    for _ in range(tries):
        shown = titled(app, CURVE_TITLE)
        if shown:
            return shown[0]
        time.sleep(1)
        rerun(app)
    raise AssertionError("the class's curve never showed")


@pytest.mark.slow
def test_the_class_model_section_shows_what_evaluate_class_measures(mnist):
    """Three students, nine digits drawn twice each and the 9 once: the page's accuracies, counts, shortage,
    heatmaps and curve are evaluate_class's on the same drawings with a model fitted here."""
    per_digit = {digit: 2 for digit in range(9)} | {9: 1}
    code, key, sent = class_of_mnist_digits(mnist, per_digit, n_students=3)
    frames, meant = mnist["test_images"][sent], mnist["test_labels"][sent].astype(np.int64)
    students = np.repeat([1, 2, 3], len(sent) // 3)
    expected = evaluate_class(frames, meant, students, textbook_mnist_model(mnist), weight=100.0, threshold=128)

    teacher = teacher_page(code, key)
    curve = until_the_curve_is_drawn(teacher)
    shown = {item.label: item.value for item in teacher.metric}
    scores = expected.models
    assert shown["MNIST's model"] == f"{scores['mnist'].accuracy:.0%}"
    assert shown["The class's model"] == f"{scores['class'].accuracy:.0%}"
    assert shown["MNIST + the class ×100"] == f"{scores['mnist_plus_class'].accuracy:.0%}"
    counts = caption_with(teacher, "Read right")
    assert counts.startswith("57 drawings from 3 students.")
    for name, label in (("mnist", "MNIST's model"), ("class", "the class's model")):
        # the 9s (3 drawings) are left out of every accuracy
        assert f"{label} {scores[name].correct} of {scores[name].read};" in counts and scores[name].read == 54
    assert [item.value for item in teacher.info if "more 9s" in item.value] == [expected.shortage.sentence()]
    assert "they need 2 more 9s" in expected.shortage.sentence()

    [pairs] = titled(teacher, "P(xᵢ = 1 | y): the class's model above MNIST's")
    mosaic = array(pairs["data"][0]["z"]).reshape(-1, 5 * 30 - 2)
    tile = 28 + style.TITLE_ROWS
    np.testing.assert_allclose(
        mosaic[style.TITLE_ROWS : tile, 30 * 3 : 30 * 3 + 28], expected.class_feature_prob[3].reshape(28, 28)
    )
    np.testing.assert_allclose(
        mosaic[tile + style.TITLE_ROWS : 2 * tile, 30 * 3 : 30 * 3 + 28],
        textbook_mnist_model(mnist).feature_prob_[3].reshape(28, 28),
    )

    series = {trace["name"]: trace for trace in curve["data"]}
    np.testing.assert_allclose(array(series["the class's model"]["y"]), expected.curve.accuracy["class"])
    np.testing.assert_array_equal(array(series["the class's model"]["x"]), expected.curve.sizes)
    overtake = expected.curve.overtake
    sentence = (
        "does not read better than MNIST's yet"
        if overtake is None
        else f"reads better than MNIST's from **{overtake} drawing{'s' if overtake != 1 else ''} per digit** on"
    )
    assert any(sentence in item.value for item in teacher.markdown)

    teacher.select_slider(key="gallery_weight").set_value(10)
    rerun(teacher)
    reweighted = evaluate_class(frames, meant, students, textbook_mnist_model(mnist), weight=10.0, curve=False)
    shown = {item.label: item.value for item in teacher.metric}
    assert shown["MNIST + the class ×10"] == f"{reweighted.models['mnist_plus_class'].accuracy:.0%}"
    assert f"MNIST + the class ×10 {reweighted.models['mnist_plus_class'].correct} of 54" in caption_with(
        teacher, "Read right"
    )


@pytest.mark.slow
def test_the_class_model_section_with_no_drawings_then_one_student(mnist):
    code, key, _ = class_of_mnist_digits(mnist, {}, n_students=0)
    teacher = teacher_page(code, key)
    assert any(item.value.startswith("No drawings yet: once students send some") for item in teacher.info)
    assert not [item for item in teacher.metric if item.label == "The class's model"]

    flat = np.full(10, 0.1)
    for index in np.flatnonzero(mnist["test_labels"] == 4)[:6]:
        class_store.class_store().add_drawing(code, secret(950)[-16:], mnist["test_images"][index], 4, flat, flat)
    rerun(teacher)
    shown = {item.label: item.value for item in teacher.metric}
    assert shown["The class's model"] == "—" and shown["MNIST + the class ×100"] == "—"
    assert shown["MNIST's model"].endswith("%")
    assert any("once two students or more have sent drawings" in item.value for item in teacher.info)


@pytest.mark.slow
def test_the_class_model_section_at_extreme_settings_and_weights(mnist):
    """No smoothing (α = β = 0: a digit the class never drew has 0/0 pixel probabilities), any ink, a uniform
    prior, and both ends of the weight: the section still draws, with no error."""
    code, key, _ = class_of_mnist_digits(mnist, {0: 3, 1: 3, 7: 2}, n_students=2)
    teacher = rerun(
        open_page("pages/gallery.py", {"class": code, "key": key}, threshold=1, alpha=0.0, beta=0.0, prior="uniform")
    )
    until_the_curve_is_drawn(teacher)
    assert "pixel ≥ 1, α = 0, β = 0, uniform prior" in caption_with(teacher, "Read right")
    for weight in (0, 10000):
        teacher.select_slider(key="gallery_weight").set_value(weight)
        rerun(teacher)
        assert f"MNIST + the class ×{weight:,}" in {item.label for item in teacher.metric}
    assert titled(teacher, "P(xᵢ = 1 | y): the class's model above MNIST's")


@pytest.mark.slow
def test_the_class_model_section_with_the_class_mixture_from_the_link(mnist):
    """``?class_components=3``: the class's mixture of 3 styles per digit is a fourth model, read as evaluate_class
    reads it on the same drawings; K = 10 is more than these drawings support and the page says so; with α = 0 the
    page says the mixture needs smoothing and shows the class's model alone."""
    code, key, sent = class_of_mnist_digits(mnist, {digit: 2 for digit in range(10)}, n_students=3)
    frames, meant = mnist["test_images"][sent], mnist["test_labels"][sent].astype(np.int64)
    students = np.repeat([1, 2, 3], len(sent) // 3)

    def expected(components: int):
        return evaluate_class(
            frames, meant, students, textbook_mnist_model(mnist), threshold=128, curve=False, components=components
        )

    teacher = open_page("pages/gallery.py", {"class": code, "key": key, "class_components": "3"})
    assert teacher.slider(key="class_components").value == 3
    three = expected(3)
    mixture = three.models[MIXTURE]
    shown = {item.label: item.value for item in teacher.metric}
    assert shown["The class's mixture (3 styles per digit)"] == f"{mixture.accuracy:.0%}"
    assert shown["The class's model"] == f"{three.models['class'].accuracy:.0%}"
    assert shown["MNIST + the class ×100"] == f"{three.models['mnist_plus_class'].accuracy:.0%}"
    assert f"the class's mixture (3 styles per digit) {mixture.correct} of 60;" in caption_with(teacher, "Read right")
    [table] = [item.value for item in teacher.table if "class's mixture" in item.value]
    assert list(table["class's mixture"]) == [f"{value:.0%}" for value in mixture.per_digit]
    assert three.components_note is None  # each model learns a digit from 4 drawings: 3 styles fit
    assert not [item for item in teacher.info if "styles per digit is more than" in item.value]

    teacher.slider(key="class_components").set_value(10)
    rerun(teacher)
    ten = expected(10)
    assert ten.components_note is not None and "as few as 4 drawings of 0" in ten.components_note
    assert [item.value for item in teacher.info if "styles per digit is more than" in item.value] == [
        ten.components_note
    ]
    shown = {item.label: item.value for item in teacher.metric}
    assert shown["The class's mixture (10 styles per digit)"] == f"{ten.models[MIXTURE].accuracy:.0%}"

    unsmoothed = open_page("pages/gallery.py", {"class": code, "key": key, "class_components": "3"}, alpha=0.0)
    assert any(item.value.startswith(NEEDS_SMOOTHING) for item in unsmoothed.info)
    labels = {item.label for item in unsmoothed.metric}
    assert "The class's model" in labels and not [label for label in labels if "mixture" in label]
