"""``class``: the command group over the class store and the class's own model (its actions in class_admin and
class_report)."""

from __future__ import annotations

from .class_admin import add_class_admin
from .class_report import add_class_evaluate, add_class_report


def add_class(commands) -> None:
    group = commands.add_parser(
        "class",
        help="classes in the class store ($NBCORE_CLASS_STORE, or the data directory), and the class's own model. "
        "Run on the server: whoever can read the store can read every class, so these commands ask for no "
        "teacher key",
    )
    actions = group.add_subparsers(dest="class_command", required=True)
    add_class_admin(actions)
    add_class_evaluate(actions)
    add_class_report(actions)
