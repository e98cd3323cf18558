"""The guided lesson's first part as data, steps 1 to 5: the data, and how naive Bayes learns (counting, the
pictures) and computes (logarithms, smoothing). What each says and asks; ``pages/lesson.py`` measures and shows.

Texts are ``str.format`` templates marked for the catalogue (``N_``), filled by the page with what it measured
(``lab/lesson_steps.py`` says how).
"""

from __future__ import annotations

from lab.i18n import N_
from lab.lesson_frame import Link, Question, Step
from lab.lesson_options import COUNT_STOPS, as_count, as_digit, as_two_places, steps_of
from lab.lesson_sources import CS188, D2L, MNIST_PAPER

SETTINGS_NOTE = N_("the sidebar's T = {threshold}, α = {alpha}, β = {beta}, {prior}")

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
            shown_as=as_digit,
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
            shown_as=as_count,
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
            options=steps_of(0.5, 0.01, 51),
            shown_as=as_two_places,
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
