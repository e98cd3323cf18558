"""The guided lesson's second part as data, steps 6 to 11: what naive Bayes does with a digit (its evidence,
writing and filling in), where its independence breaks, and what does better (softmax regression, a mixture of
styles, the class's own model). What each says and asks; ``pages/lesson.py`` measures and shows.

Texts are ``str.format`` templates marked for the catalogue (``N_``), filled by the page with what it measured
(``lab/lesson_steps.py`` says how).
"""

from __future__ import annotations

from lab.i18n import N_
from lab.lesson_frame import Link, Question, Step
from lab.lesson_options import COUNT_STOPS, as_count, as_out_of_four, as_percent, steps_of
from lab.lesson_sources import BISHOP, COURSE_NOTE, CS188, D2L, NG_JORDAN

CONFIDENT = 0.99  # the calibration question's "at least this sure"
FEW_IMAGES = 100  # the learning-curve size the last question asks about (one of LEARNING_CURVE_SIZES)
STYLES_PER_DIGIT = 10  # K of the styles question (a K of the prepared mixture curve)
STYLES_DIGIT = 7  # the digit whose styles the step shows
# the mixture's own page, opened from the lesson: 20 styles per digit (a K of the prepared curve)
MIXTURE_LINK = (("model", "mixture"), ("components", "20"))
# the two models of the learning-curve question: its option values (also the curves' keys), and their names
MODEL_NAMES = {"naive Bayes": N_("naive Bayes"), "softmax regression": N_("softmax regression")}

EVIDENCE = Step(
    title=N_("Drawing: the evidence of each pixel"),
    texts={
        "body": N_(
            "This is a {true_label} that naive Bayes reads as a {predicted}. Because log p(x | y) is a sum "
            "over pixels, the decision splits into one vote per pixel: blue pixels speak for {predicted}, red "
            "ones for {true_label}, and their total decides. The outline is the image's ink. On the Draw page "
            "the same map follows your own pen."
        ),
    },
    questions=(
        Question(
            key="disagree",
            prompt=N_(
                "Softmax regression reads the same pixels without the independence assumption. Of "
                "the 10,000 test images, how many does naive Bayes get wrong while softmax gets right?"
            ),
            kind="guess",
            options=COUNT_STOPS,
            shown_as=as_count,
            start=100,
            reveal=N_(
                "{rescued} test images (you said {answer}): naive Bayes is wrong on {wrong} in all, softmax "
                "regression (test accuracy {softmax_accuracy}) gets {rescued} of those right."
            ),
            class_reveal=N_(
                "{rescued} test images (the class's most common answer: {answer}): naive Bayes is wrong on {wrong} "
                "in all, softmax regression (test accuracy {softmax_accuracy}) gets {rescued} of those right."
            ),
        ),
    ),
    try_this=N_("draw a digit naive Bayes gets wrong while softmax gets right, and read its evidence map."),
    try_page=Link("pages/draw.py", N_("Draw: your digit, both models, the evidence of each pixel")),
    sources=(D2L,),
)

GENERATING = Step(
    title=N_("Generating and inpainting"),
    texts={
        "body": N_(
            "Naive Bayes is generative: it can write digits. Pick y, then flip 784 independent coins, "
            "pixel i landing on ink with probability p(xᵢ = 1 | y). The same model fills in hidden pixels: "
            "from the visible ones it infers p(y | visible), then paints each hidden pixel with "
            "Σ_y p(xᵢ = 1 | y) p(y | visible)."
        ),
    },
    questions=(
        Question(
            key="top_half",
            prompt=N_(
                "Hide the bottom half of every test image. How often does naive Bayes still name "
                "the digit right from the top 14 rows alone?"
            ),
            kind="guess",
            options=steps_of(0.0, 0.05, 21),
            shown_as=as_percent,
            start=0.5,
            reveal=N_(
                "From the top half alone, naive Bayes names {truth} of the test images right (you said "
                "{answer}), against {accuracy} with the whole image. Above: test image 0, read as a "
                "{read_as} from its top half, its bottom half filled in."
            ),
            class_reveal=N_(
                "From the top half alone, naive Bayes names {truth} of the test images right (the class's most "
                "common answer: {answer}), against {accuracy} with the whole image. Above: test image 0, read as a "
                "{read_as} from its top half, its bottom half filled in."
            ),
        ),
    ),
    try_this=N_("generate other digits, and hide other parts of an image."),
    try_page=Link("pages/samples.py", N_("Samples: more digits written by the model")),
    more=(Link("pages/inpainting.py", N_("Inpainting: any region, any test image or your drawing")),),
    sources=(COURSE_NOTE, D2L),
)

INDEPENDENCE = Step(
    title=N_("Where independence breaks"),
    texts={
        "body": N_(
            "Naive Bayes assumes that, once the digit is known, one pixel says nothing about another. The map "
            "measures that in the training images: p(right neighbour ink | this pixel ink) − p(right neighbour "
            "ink), how much more likely the right-hand neighbour is to be ink when this pixel is. Naive Bayes "
            "assumes 0 everywhere; strokes make it strongly positive. "
            "The model therefore counts one stroke as many independent witnesses and grows too sure."
        ),
        "none_sure": N_("With these settings no test image gets a top probability of {confident} or more."),
    },
    questions=(
        Question(
            key="xor",
            prompt=N_(
                "The smallest case: two bits, labelled 1 when exactly one is on (XOR). Naive Bayes sees "
                "all four points. How many of them does it classify right?"
            ),
            kind="choice",
            options=(4, 3, 2, 1, 0),
            shown_as=as_out_of_four,
            reveal=N_(
                "{right} of 4 (smoothing k = α = {k}): every p(xⱼ = 1 | y) is ½, so p(y = 1 | x) = "
                "{posterior} at every point and the tie goes to class 0. The class lives in how "
                "x₁ and x₂ vary together, exactly what the naive assumption throws away."
            ),
        ),
        Question(
            key="calibration",
            prompt=N_("When naive Bayes is at least {confident} sure of a test image, how often is it right?"),
            kind="guess",
            options=steps_of(0.5, 0.01, 51),
            shown_as=as_percent,
            start=0.99,
            reveal=N_(
                "{count} of 10,000 test images get p ≥ {confident} (mean {mean}), and naive Bayes is "
                "right on {accuracy} of them (you said {answer}). A calibrated model would be right as "
                "often as it is sure, on about {mean_percent} of them."
            ),
            class_reveal=N_(
                "{count} of 10,000 test images get p ≥ {confident} (mean {mean}), and naive Bayes is "
                "right on {accuracy} of them (the class's most common answer: {answer}). A calibrated model would "
                "be right as often as it is sure, on about {mean_percent} of them."
            ),
        ),
    ),
    try_this=N_("solve the XOR exercise, then compare both models' calibration."),
    try_page=Link("pages/xor.py", N_("XOR exercise: why it fails, and the one edge that fixes it")),
    more=(Link("pages/compare.py", N_("Compare: reliability of naive Bayes and softmax regression")),),
    sources=(D2L, CS188),
)

VERSUS_SOFTMAX = Step(
    title=N_("Naive Bayes vs. softmax regression"),
    texts={
        "body": N_(
            "Naive Bayes models how digits are written, p(x | y), and turns it around with Bayes' rule; "
            "softmax regression fits the decision p(y | x) directly. Ng and Jordan (2002) argue that the "
            "generative model reaches its (lower) best with fewer examples, while the discriminative one ends "
            "higher once data is plentiful. Whether naive Bayes is ahead at the small end on MNIST depends on "
            "its settings: the curves here are measured for the sidebar's."
        ),
    },
    questions=(
        Question(
            key="learning_curve",
            prompt=N_("Train both models on only {size} images. Which one does better on the 10,000 test images?"),
            kind="choice",
            options=tuple(MODEL_NAMES),
            shown_as=MODEL_NAMES,
            reveal=N_(
                "With {size} training images {winner} wins: naive Bayes {bayes}, softmax regression "
                "{softmax} (mean over {seeds} random training sets). With all {full_size}: naive Bayes "
                "{bayes_full}, softmax regression {softmax_full}."
            ),
        ),
    ),
    try_this=N_("change α in the sidebar and see where the two curves cross."),
    try_page=Link("pages/compare.py", N_("Compare: both models side by side")),
    sources=(NG_JORDAN, COURSE_NOTE),
)

STYLES = Step(
    title=N_("How many ways to write a {digit}?"),
    title_fields=(("digit", STYLES_DIGIT),),
    texts={
        "body": N_(
            "A {digit} is written with a bar across its stem or without, upright or slanted. Naive Bayes keeps one "
            "picture per digit, above: the average of every way of writing it. A *mixture of styles* keeps K "
            "pictures per digit, one per way of writing it (a style), each with a weight p(k | y). To write a digit "
            "it first picks a style, then flips that style's pixel coins; to read one it asks which digit *and "
            "style* explain the pixels best. EM finds the styles by counting, as naive Bayes does, with each "
            "training image counted into its digit's styles in proportion to how well each explains it, over and "
            "over until the counts settle. With K = 1 it is naive Bayes."
        ),
    },
    questions=(
        Question(
            key="styles",
            prompt=N_(
                "Give naive Bayes {components} styles per digit, found by EM from the same training images. "
                "Which test accuracy will it reach?"
            ),
            kind="choice",
            options=("lower", "between", "upper"),  # nbcore.experiments.lesson.ACCURACY_BANDS
            # templates: the page fills in the accuracies it measured (lab/lesson_beyond.py, styles)
            shown_as={
                "lower": N_("no better than naive Bayes' {bayes}"),
                "between": N_("between naive Bayes' {bayes} and softmax regression's {softmax}"),
                "upper": N_("softmax regression's {softmax} or more"),
            },
            reveal=N_(
                "With {components} styles per digit the mixture reads {mixture} of the test images right: "
                "naive Bayes {bayes}, softmax regression {softmax}. EM settled in {iterations} iterations, "
                "told only which digit each training image is, never how it was written. Above: the {components} "
                "styles of {digit}, heaviest first, and the test accuracies. Within a style every pixel is still "
                "its own coin: the model is naive inside each style, no longer across them."
            ),
        ),
    ),
    try_this=N_(
        "generate digits from 20 styles per digit and compare them with naive Bayes' speckled ones, then let the "
        "styles fill in a hidden half."
    ),
    try_page=Link("pages/samples.py", N_("Samples: digits written by 20 styles per digit"), MIXTURE_LINK),
    more=(Link("pages/inpainting.py", N_("Inpainting: the hidden half filled in from the styles"), MIXTURE_LINK),),
    sources=(BISHOP,),
)

CLASS_MODEL = Step(
    title=N_("Your class's own handwriting"),
    texts={
        "body": N_(
            "MNIST's model learned from 60,000 digits written by strangers in the 1990s. A class that sends its "
            "own drawings from Draw can train a naive Bayes on them: the same counting, on the class's digits "
            "(the digit each student meant). Each drawing is read by a model that never saw its student, so "
            "no model is marked on what it learned by heart."
        ),
        "alone": N_(
            "This step measures your class's drawings: open the lesson through your class's link once the class "
            "has sent drawings from Draw (the teacher's gallery shows them)."
        ),
    },
    questions=(
        Question(
            key="class_model",
            prompt=N_(
                "Which model reads your class's drawings best, each student's drawings read by a model that "
                "never saw that student?"
            ),
            kind="choice",
            options=("mnist", "class", "mnist_plus_class"),
            shown_as={
                "mnist": N_("MNIST's model (60,000 strangers)"),
                "class": N_("the class's model (only the class)"),
                "mnist_plus_class": N_("MNIST + the class"),
            },
            reveal=N_(
                "On {drawings} drawings of {students} students: MNIST's model {mnist}, the class's model {own}, "
                "MNIST + the class (each class drawing counted ×{weight}) {both}. A model reads best what is "
                "like what it learned from."
            ),
        ),
    ),
    try_this=N_("draw more digits and send them: watch the class's model catch up with MNIST's on the gallery page."),
    try_page=Link("pages/draw.py", N_("Draw: send your digits to the class")),
    sources=(NG_JORDAN,),
)
