"""The class's model in words for the command line: the three accuracies (four with the class's mixture), per
digit, and the curve."""

from __future__ import annotations

import numpy as np

from .class_model import MIXTURE, ClassEvaluation


def _percent(value: float | None) -> str:
    return "—" if value is None or not np.isfinite(value) else f"{value:.1%}"


def format_evaluation(evaluation: ClassEvaluation) -> str:
    """The evaluation as text for the command line: the three accuracies, per digit, and the curve."""
    names = {**evaluation.names, "mnist_plus_class": f"MNIST + the class (weight {evaluation.weight:g})"}
    width = max(34, *(len(name) for name in names.values()))
    total = int(evaluation.drawings_per_digit.sum())
    lines = [
        f"{total:,} drawings from {evaluation.students:,} student{'s' if evaluation.students != 1 else ''}, "
        f"read leave-one-student-out (pixel >= {evaluation.threshold}, alpha = {evaluation.alpha:g}, "
        f"{evaluation.prior} prior)",
        "",
        f"{'model':<{width}} {'accuracy':>8}  drawings read",
    ]
    for name, score in evaluation.models.items():
        lines.append(f"{names[name]:<{width}} {_percent(score.accuracy):>8}  {score.read:,}")
    if evaluation.shortage is not None:
        lines += ["", evaluation.shortage.sentence()]
    if evaluation.components_note is not None:
        lines += ["", evaluation.components_note]
    short_names = {
        "mnist": "MNIST's",
        "class": "the class's",
        MIXTURE: "class mixture",
        "mnist_plus_class": "MNIST + class",
    }
    lines += ["", f"{'digit':<6} {'drawings':>8}" + "".join(f" {short_names[name]:>13}" for name in evaluation.models)]
    for digit in range(10):
        accuracies = "".join(f" {_percent(score.per_digit[digit]):>13}" for score in evaluation.models.values())
        lines.append(f"{digit:<6} {int(evaluation.drawings_per_digit[digit]):>8}{accuracies}")
    curve = evaluation.curve
    if curve is not None:
        lines += [
            "",
            f"accuracy against class drawings per digit (mean of {curve.repeats} draws; students in "
            f"{curve.folds} groups, each read by models trained on the others)",
            f"{'drawings per digit':<{width}}" + "".join(f" {size:>6}" for size in curve.sizes),
        ]
        for name, values in curve.accuracy.items():
            lines.append(f"{names[name]:<{width}}" + "".join(f" {_percent(value):>6}" for value in values))
        lines.append(f"{names['mnist']:<{width}} {_percent(curve.mnist):>6} at every size")
        if curve.overtake is None:
            lines.append(
                f"The class's model does not read better than MNIST's within the drawings there are "
                f"(up to {int(curve.sizes[-1])} per digit)."
            )
        else:
            drawings = "1 drawing" if curve.overtake == 1 else f"{curve.overtake} drawings"
            lines.append(f"The class's model reads better than MNIST's from {drawings} per digit on.")
    elif evaluation.curve_note:
        lines += ["", evaluation.curve_note]
    return "\n".join(lines)
