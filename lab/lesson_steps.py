"""The guided lesson's eleven steps as data: what each says and asks, in order; ``pages/lesson.py`` measures and shows.

Texts are ``str.format`` templates marked for the catalogue (``N_``) and translated where they are shown: the
fields in braces are what the page measured for the sidebar's settings (``{threshold}``, ``{truth}``, ...),
written in the reader's form by the page, so every number a student reads is measured, never typed in here.
``lab/lesson_frame.py`` defines ``Step`` and ``Question`` and draws them.
"""

from __future__ import annotations

from lab import i18n
from lab.i18n import N_, _
from lab.lesson_frame import Link, Question, Step

TITLE = N_("Lesson: naive Bayes in eleven steps")
COUNT_STOPS = (0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # answers to "how many of the 10,000 test images"
CONFIDENT = 0.99  # the calibration question's "at least this sure"
FEW_IMAGES = 100  # the learning-curve size the last question asks about (one of LEARNING_CURVE_SIZES)
SETTINGS_NOTE = N_("the sidebar's T = {threshold}, α = {alpha}, β = {beta}, {prior}")
PRIOR_NAMES = {"empirical": N_("empirical prior"), "uniform": N_("uniform prior")}  # the sidebar's prior, in words
STYLES_PER_DIGIT = 10  # K of the styles question (a K of the prepared mixture curve)
STYLES_DIGIT = 7  # the digit whose styles the step shows
# the mixture's own page, opened from the lesson: 20 styles per digit (a K of the prepared curve)
MIXTURE_LINK = (("model", "mixture"), ("components", "20"))
# the two models of the learning-curve question: its option values (also the curves' keys), and their names
MODEL_NAMES = {"naive Bayes": N_("naive Bayes"), "softmax regression": N_("softmax regression")}


def _steps_of(start: float, step: float, count: int) -> tuple[float, ...]:
    """``count`` options from ``start`` on, ``step`` apart, rounded as a slider shows them."""
    return tuple(round(start + step * index, 2) for index in range(count))


# how an option reads, in the reader's language and form (named functions: a Question may be kept in a session)
def _digit(option: int) -> str:
    return _("digit {digit}").format(digit=option)


def _count(option: int) -> str:
    return i18n.integer(option)


def _two_places(option: float) -> str:
    return i18n.decimal(option, 2)


def _percent(option: float) -> str:
    return i18n.percent(option)


def _of_four(option: int) -> str:
    return _("{count} of 4").format(count=option)


D2L = N_(
    "[Dive into Deep Learning, appendix chapter “Naive Bayes”]"
    "(https://d2l.ai/chapter_appendix-mathematics-for-deep-learning/naive-bayes.html)"
)
COURSE_NOTE = N_(
    "the course note “Naive Bayes vs. softmax regression on MNIST: a generative and a discriminative "
    "model compared” (a handout, not published online)"
)
CS188 = N_(
    "[Berkeley CS188, Introduction to Artificial Intelligence, lecture on naive Bayes]"
    "(https://inst.eecs.berkeley.edu/~cs188/)"
)
NG_JORDAN = N_(
    "[Ng & Jordan (2002), “On discriminative vs. generative classifiers: a comparison of logistic "
    "regression and naive Bayes”](https://papers.nips.cc/paper/2020-on-discriminative-vs-generative-"
    "classifiers-a-comparison-of-logistic-regression-and-naive-bayes)"
)
MNIST_PAPER = N_(
    "[LeCun, Bottou, Bengio & Haffner (1998), “Gradient-based learning applied to document "
    "recognition”](https://doi.org/10.1109/5.726791)"
)
BISHOP = N_(
    "[Bishop (2006), *Pattern Recognition and Machine Learning*, section 9.3.3 “Mixtures of Bernoulli "
    "distributions”](https://www.microsoft.com/en-us/research/publication/pattern-recognition-machine-learning/)"
)
# the list at the end of the lesson (its page writes each with a capital letter, the course note's too)
ALL_SOURCES = (D2L, COURSE_NOTE, CS188, NG_JORDAN, BISHOP, MNIST_PAPER)

DATA = Step(
    title=N_("The data"),
    texts={
        "written": N_("**As written**: grey levels 0 to 255"),
        "seen": N_("**As the model sees them**: {as_seen}"),
        "body": N_(
            "MNIST holds {n_train} training images and {n_test} test images of handwritten digits, each "
            "28 × 28 pixels with grey levels from 0 to 255. The lab turns every pixel into a yes/no question, "
            "*is there ink here?*, by comparing it with the threshold T = {threshold}. From here on a digit is "
            "784 bits."
        ),
    },
    try_this=N_("move the binarization threshold in the sidebar and watch the ink pictures thicken or thin."),
    try_page=Link("pages/home.py", N_("Home: how well the current model does, and some test images")),
    sources=(MNIST_PAPER, D2L),
)

COUNTING = Step(
    title=N_("Counting"),
    texts={
        "body": N_(
            "Training naive Bayes is counting. For each digit y it counts how many training images show y "
            "(n_y), and for each pixel how many of those have ink there (n_iy). The share n_y / n is the "
            "class prior p(y): how common a digit is before the model looks at the picture. With the "
            "uniform prior (sidebar) every digit gets 1/10 instead."
        ),
    },
    questions=(
        Question(
            key="prior",
            prompt=N_(
                "The prior is fitted to the training images and then used on the test images. For "
                "which digit is it furthest from the share of that digit among the 10,000 test images?"
            ),
            kind="choice",
            options=tuple(range(10)),
            shown_as=_digit,
            reveal=N_(
                "With the {prior}, digit {digit} is off most: p(y) = {prior_p} against {share} of "
                "the test images ({gap} points); for your digit {answer} the gap is {your_gap} points. "
                "Switch the prior in the sidebar and the answer changes."
            ),
            class_reveal=N_(
                "With the {prior}, digit {digit} is off most: p(y) = {prior_p} against {share} of "
                "the test images ({gap} points); for the class's digit {answer} the gap is {your_gap} points. "
                "Switch the prior in the sidebar and the answer changes."
            ),
        ),
    ),
    try_this=N_("compare the empirical and the uniform prior in the sidebar."),
    try_page=Link("pages/heatmaps.py", N_("Heatmaps: the prior under the pixel pictures")),
    sources=(D2L,),
)

IMAGES = Step(
    title=N_("The pictures P(x | y)"),
    texts={
        "body": N_(
            "Divide each pixel's ink count by the number of images of the digit and you get p(xᵢ = 1 | y), "
            "one probability per pixel and digit: ten blurred average digits. They are the whole model. "
            "Naive Bayes reads a new image by asking, pixel by pixel, how well its ink and its blank paper "
            "fit each of these pictures, and it treats every pixel as a separate coin flip once the digit "
            "is known: that is the *naive* assumption."
        ),
    },
    try_this=N_(
        "look at the log-odds view and at the difference of two digits that are easy to confuse, such as 4 and 9."
    ),
    try_page=Link("pages/heatmaps.py", N_("Heatmaps: what the model learned")),
    sources=(D2L, CS188),
)

LOGS = Step(
    title=N_("Why logarithms: underflow"),
    texts={
        "body": N_(
            "p(x | y) is the product of these 784 numbers, one per pixel. Most are close to 1, but the "
            "product of hundreds of numbers below 1 shrinks towards 0 very fast, and a computer's floating "
            "point numbers cannot go below a smallest positive value."
        ),
        "true_tiny": N_("about 10^{exponent}"),
        "true_zero": N_("exactly 0 too, because with α or β = 0 one of its pixels has probability 0"),
        "stuck": N_(
            "That is not the true value either: below about 10⁻³⁸ float32 keeps only a few digits, so multiplying "
            "by a probability close to 1 rounds the product back up to where it was, and it stops shrinking. "
        ),
    },
    questions=(
        Question(
            key="float32",
            prompt=N_(
                "Multiply these 784 probabilities in float32, the 32-bit numbers of the textbook's "
                "tensors. What comes out for test image {index}?"
            ),
            kind="choice",
            options=("moderate", "tiny", "zero"),
            shown_as={
                "moderate": N_("an ordinary small number, such as 0.001"),
                "tiny": N_("a tiny positive number, such as 10⁻¹⁰⁰"),
                "zero": N_("exactly 0.0"),
            },
            reveal=N_(
                "The float32 product of test image {index} is {product}; the true value is {true_value}. "
                "{stuck}Over all test images, {float32_zero} of {images} products become exactly 0.0 in "
                "float32, {float32_stuck} more stick at a wrong tiny value, and {float64_zero} become 0.0 in "
                "float64, while the sum of logarithms is an ordinary number for {log_finite} of them. Two zeros "
                "cannot be compared; two sums of logs can, so naive Bayes adds logarithms."
            ),
        ),
    ),
    try_this=N_("pick other test images above, or set α = 0 in the sidebar."),
    try_page=Link("pages/smoothing.py", N_("Smoothing: underflow in float32 and float64")),
    sources=(D2L,),
)

SMOOTHING = Step(
    title=N_("Smoothing, and α = 0"),
    texts={
        "body": N_(
            "A pixel that never had ink in any training 2 gets p = 0 for a 2, and then a single stray ink "
            "dot there makes a 2 impossible, however well the other 783 pixels fit. Smoothing pretends "
            "the model saw α extra images with the pixel on and β with it off: "
            "p(xᵢ = 1 | y) = (nᵢᵧ + α) / (nᵧ + α + β). α = β = 1 is Laplace smoothing; α = β = 0 is none."
        ),
    },
    questions=(
        Question(
            key="alpha_zero",
            prompt=N_(
                "With α = β = 0, how many of the 10,000 test images get p(x | true digit) = 0, "
                "impossible under their own digit?"
            ),
            kind="guess",
            options=COUNT_STOPS,
            shown_as=_count,
            start=1000,
            reveal=N_(
                "{truth} test images are impossible under their own digit at T = {threshold} (you said "
                "{answer}); {all_impossible} are impossible under every digit. Test accuracy at α = β = 0: "
                "{accuracy}."
            ),
            class_reveal=N_(
                "{truth} test images are impossible under their own digit at T = {threshold} (the class's most "
                "common answer: {answer}); {all_impossible} are impossible under every digit. Test accuracy at "
                "α = β = 0: {accuracy}."
            ),
        ),
        Question(
            key="alpha_100",
            prompt=N_(
                "Test accuracy now is {accuracy} ({settings_note}). "
                "What will it be with α = β = {strongest}, {strongest} imaginary images on each side?"
            ),
            kind="guess",
            options=_steps_of(0.5, 0.01, 51),
            shown_as=_two_places,
            start=0.85,
            reveal=N_(
                "At α = β = {strongest} the test accuracy is {truth}, {change} against the current {accuracy}; "
                "your guess was {error} off. Heavy smoothing pulls every pixel probability towards ½ and "
                "blurs the ten pictures together."
            ),
            class_reveal=N_(
                "At α = β = {strongest} the test accuracy is {truth}, {change} against the current {accuracy}; "
                "the class's most common guess was {error} off. Heavy smoothing pulls every pixel probability "
                "towards ½ and blurs the ten pictures together."
            ),
        ),
    ),
    try_this=N_("drag α and β in the sidebar from 0 to 100."),
    try_page=Link("pages/smoothing.py", N_("Smoothing: α, β and α = 0")),
    sources=(D2L, CS188),
)

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
            shown_as=_count,
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
            options=_steps_of(0.0, 0.05, 21),
            shown_as=_percent,
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
            shown_as=_of_four,
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
            options=_steps_of(0.5, 0.01, 51),
            shown_as=_percent,
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
            # templates: the page fills in the accuracies it measured (pages/lesson.py, step_styles)
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

STEPS = (
    DATA,
    COUNTING,
    IMAGES,
    LOGS,
    SMOOTHING,
    EVIDENCE,
    GENERATING,
    INDEPENDENCE,
    VERSUS_SOFTMAX,
    STYLES,
    CLASS_MODEL,
)
