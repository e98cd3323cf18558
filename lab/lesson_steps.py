"""The guided lesson's eleven steps in order, and its title; what each step says and asks is in its part:
``lab/lesson_steps_model.py`` (steps 1 to 5) and ``lab/lesson_steps_limits.py`` (6 to 11).

Texts are ``str.format`` templates marked for the catalogue (``N_``) and translated where they are shown: the
fields in braces are what the page measured for the sidebar's settings (``{threshold}``, ``{truth}``, ...),
written in the reader's form by the page, so every number a student reads is measured, never typed in.
``lab/lesson_frame.py`` defines ``Step`` and ``Question``; ``pages/lesson.py`` measures and shows each step.
"""

from __future__ import annotations

from lab.i18n import N_
from lab.lesson_steps_limits import CLASS_MODEL, EVIDENCE, GENERATING, INDEPENDENCE, STYLES, VERSUS_SOFTMAX
from lab.lesson_steps_model import COUNTING, DATA, IMAGES, LOGS, SMOOTHING

TITLE = N_("Lesson: naive Bayes in eleven steps")

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
