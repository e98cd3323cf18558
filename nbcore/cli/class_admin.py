"""``class new|list|extend|end|export``: a class's life in the class store, run on the server (whoever can read
the store can read every class, so these commands ask for no teacher key)."""

from __future__ import annotations

import argparse
import json
import sys

from ..classroom.bounds import LONGEST_KEEP_SECONDS, MAX_PERIODS
from ..classroom.records import KEEP_AFTER_END_SECONDS, KEEP_SECONDS
from .arguments import number_in

KEEP_HOURS = KEEP_SECONDS / 3600
LONGEST_KEEP_HOURS = LONGEST_KEEP_SECONDS / 3600
KEEP_AFTER_END_HOURS = KEEP_AFTER_END_SECONDS // 3600
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}


def add_class_admin(actions) -> None:
    """The actions new, list, extend, end and export, in that order, under ``class``."""
    new = actions.add_parser(
        "new", help="create a class before the lesson: its code, the students' links and the teacher's links"
    )
    new.add_argument("--code", help="the code to use (4 to 12 letters A-Z or digits; default: 8 random ones)")
    new.add_argument(
        "--url",
        type=server_address,
        help="the address students' devices reach the lab at (http://host:port, or with a path behind a proxy), "
        "to print the links in full",
    )
    new.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: code, student_path, student_lesson_path, teacher_path, teacher_lesson_path, "
        "expires_at (seconds since the epoch), expires_at_iso, and with --url the same links in full (*_url)",
    )
    listing = actions.add_parser("list", help="every class held: open or ended, period, drawings, students, times")
    listing.add_argument("--json", action="store_true", help="print one JSON array, a class per object")
    extend = actions.add_parser("extend", help="keep a class open longer (an ended class is reopened)")
    extend.add_argument("code", help="the class code")
    extend.add_argument(
        "--hours",
        type=number_in(0.01, LONGEST_KEEP_HOURS),
        default=KEEP_HOURS,
        help=f"how many hours longer, up to {LONGEST_KEEP_HOURS:g} (default {KEEP_HOURS:g})",
    )
    end = actions.add_parser(
        "end",
        help=f"end a class now: read-only, kept {KEEP_AFTER_END_HOURS} hours for its export, then deleted",
    )
    end.add_argument("code", help="the class code")
    export = actions.add_parser(
        "export",
        help="write a period's drawings (class-CODE-pN-drawings.npz: frames, labels, students, what "
        "'class evaluate --frames' reads) and answers (class-CODE-pN-answers.csv: per student and question, "
        "with time and before/after the reveal); open and ended classes alike",
    )
    export.add_argument("code", help="the class code")
    export.add_argument(
        "--period", type=number_in(1, MAX_PERIODS, integer=True), default=None, help="default: the current one"
    )
    export.add_argument("--out", default=".", help="the folder to write them in (default: here)")
    for action in (new, listing, extend, end, export):
        action.set_defaults(run=run_class_admin)


def server_address(text: str) -> str:
    """An argparse ``type``: ``http(s)://host[:port][/path]`` without query, fragment or credentials, no
    trailing slash; else a usage error saying so."""
    from urllib.parse import urlsplit

    rule = "give http://host:port (or https://..., with a path if the lab is served under one)"
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number or out of range
    except ValueError:
        raise argparse.ArgumentTypeError(f"that is not an address: {rule}") from None
    if (
        len(text) > 200
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.query
        or parts.fragment
        or not all(c.isalnum() or c in "-._~/" for c in parts.path)
    ):
        raise argparse.ArgumentTypeError(f"that is not an address students can open: {rule}")
    return text.rstrip("/")


def run_class_admin(args) -> int:
    """One of new, list, extend, end, export on the class store; a refusal of the store is exit code 2."""
    from ..classroom import Refused, open_store

    store = open_store()
    try:
        if args.class_command == "new":
            return _class_new(store, args)
        if args.class_command == "list":
            return _class_list(store, args.json)
        if args.class_command == "export":
            return _class_export(store, held_class(store, args.code), args.period, args.out)
        return _class_extend_or_end(store, args)
    except Refused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return 2


def _valid_class_code(code: str) -> str:
    from ..classroom import CODE_RULE, class_code

    valid = class_code(code)
    if valid is None:
        raise ValueError(f"that is not a class code: a class code is {CODE_RULE}")
    return valid


def held_class(store, code: str):
    """The ClassInfo of ``code`` (open or ended); ValueError with a sentence when there is none."""
    info = store.class_info(_valid_class_code(code))
    if info is None:
        raise ValueError(f"there is no class {_valid_class_code(code)}: it was never made, or it was deleted")
    return info


def _local_time(seconds: float) -> str:
    """``2026-11-27 14:05`` in the server's local time."""
    from datetime import datetime

    return datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")


def _iso_time(seconds: float) -> str:
    """ISO 8601 with the server's UTC offset, to the second."""
    from datetime import datetime

    return datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")


def _class_new(store, args) -> int:
    from urllib.parse import urlencode, urlsplit

    made = store.create_class(args.code)
    code, key = made.info.code, made.teacher_key
    paths = {
        "student_path": "/draw?" + urlencode({"class": code}),
        "student_lesson_path": "/lesson?" + urlencode({"class": code}),
        "teacher_path": "/teach?" + urlencode({"class": code, "key": key}),
        "teacher_lesson_path": "/lesson?" + urlencode({"class": code, "key": key}),
    }
    base = args.url or "<server address>"
    if args.url and (urlsplit(args.url).hostname or "").lower() in LOOPBACK_NAMES | {"0.0.0.0"}:
        print(
            f"warning: students' devices cannot open {args.url}: it names this machine only; give the address "
            "their devices reach it at (its address on the room's network, such as http://192.168.1.20:8501)",
            file=sys.stderr,
        )
    if args.json:
        links = {name.replace("_path", "_url"): args.url + path for name, path in paths.items()} if args.url else {}
        expiry = {"expires_at": made.info.expires_at, "expires_at_iso": _iso_time(made.info.expires_at)}
        print(json.dumps({"code": code, **paths, **links, **expiry}))
        return 0
    print(
        f"class {code}: open until {_local_time(made.info.expires_at)} local time ({_iso_time(made.info.expires_at)}) "
        f"if nobody uses it; every drawing or answer keeps it open {KEEP_HOURS:g} hours from then"
    )
    print("students (Draw):    " + base + paths["student_path"])
    print("students (lesson):  " + base + paths["student_lesson_path"])
    print("teacher's page:     " + base + paths["teacher_path"] + "   (keep the teacher links private)")
    print("teacher (lesson):   " + base + paths["teacher_lesson_path"])
    return 0


def _class_summary(store, info) -> dict:
    """One class as plain values: code, state, period, drawings and students of the current period, times."""
    now = store.clock()
    drawings = store.drawings(info.code)
    students = set(store.presence(info.code))
    students |= {d.student for d in drawings} | {a.student for a in store.answers(info.code)}
    return {
        "code": info.code,
        "state": "open" if info.is_open(now) else "ended",
        "period": info.period,
        "drawings": len(drawings),
        "students": len(students),
        "created_at": info.created_at,
        "expires_at": info.expires_at,
        "ended_at": info.ended(now),
        "deleted_at": info.deleted_at(now),
    }


def _class_list(store, as_json: bool) -> int:
    classes = [_class_summary(store, info) for info in store.list_classes()]
    if as_json:
        print(json.dumps(classes))
        return 0
    if not classes:
        print("No classes: python -m nbcore class new makes one.")
        return 0
    header = f"{'code':<12}  {'state':<5}  {'period':>6}  {'drawings':>8}  {'students':>8}  ends / ended (local time)"
    print(header)
    for row in classes:
        if row["ended_at"] is None:
            when = f"ends {_local_time(row['expires_at'])} if nobody uses it"
        else:
            when = f"ended {_local_time(row['ended_at'])}, deleted {_local_time(row['deleted_at'])}"
        print(
            f"{row['code']:<12}  {row['state']:<5}  {row['period']:>6}  {row['drawings']:>8}  {row['students']:>8}  "
            + when
        )
    return 0


def _class_extend_or_end(store, args) -> int:
    from ..classroom import OPERATOR

    code = held_class(store, args.code).code
    if args.class_command == "extend":
        info = store.extend(code, OPERATOR, args.hours * 3600)
        print(f"class {code}: open until {_local_time(info.expires_at)} local time ({_iso_time(info.expires_at)})")
        return 0
    info = store.end(code, OPERATOR)
    ended, deleted = info.ended(store.clock()), info.deleted_at(store.clock())
    print(
        f"class {code}: ended at {_local_time(ended)} local time; kept read-only until {_local_time(deleted)}, then "
        f"deleted. Export it: python -m nbcore class export {code}; reopen it: python -m nbcore class extend {code}"
    )
    return 0


def _class_export(store, info, period: int | None, out: str) -> int:
    """Write the period's drawings (.npz) and answers (.csv) of class ``info`` in ``out``; their paths on stdout."""
    from pathlib import Path

    from ..classroom.export import answers_csv, drawings_npz
    from ..files import write_atomically

    code = info.code
    chosen = info.period if period is None else period
    if chosen > info.period:
        raise ValueError(f"class {code} has periods 1 to {info.period}")
    folder = Path(out)
    files = {
        f"class-{code}-p{chosen}-drawings.npz": drawings_npz(store.drawings(code, period=chosen)),
        f"class-{code}-p{chosen}-answers.csv": answers_csv(store.answers(code, period=chosen)),
    }
    for name, content in files.items():

        def write(handle, content: bytes = content) -> None:
            handle.write(content)

        write_atomically(folder / name, write)
        print(folder / name)
    return 0
