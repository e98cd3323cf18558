"""lab/link_names.py is the one table of link names: every name a link carries, read from the sources, is a row.

A name is found where the code puts it in a link or reads it there: ``links.widget(kind, label, NAME)``,
``links.counter(label, NAME, …)``, ``links.component_value(label, NAME)``, ``links.control(label, NAME)``,
``st.query_params[NAME]`` / ``.get(NAME)`` / ``.get_all(NAME)`` / ``NAME in st.query_params``, a page link's
``query_params={NAME: …}``, an address's ``**{NAME: …}`` and a lesson step's ``Link(page, label, ((NAME, value),))``.
NAME may be a string, a module's constant holding one, or a row (``link_names.row("x").name``). A name the table does
not hold fails, and so does one a page reads that its row does not list (a second meaning for one name).
"""

from __future__ import annotations

import ast
from pathlib import Path

from lab import link_names
from tests.conftest import REPO

_PLACES = {"widget": 2, "counter": 1, "component_value": 1, "control": 1}
_READS = {"get", "get_all"}


def _constants(path: Path) -> dict[str, ast.expr]:
    """A module's top-level names -> the expression assigned (``A, B = "x", "y"`` split)."""
    found: dict[str, ast.expr] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                found[target.id] = node.value  # type: ignore[union-attr]
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):  # type: ignore[union-attr]
                for name, value in zip(target.elts, node.value.elts):  # type: ignore[union-attr]
                    if isinstance(name, ast.Name):
                        found[name.id] = value
    return found


def _imported_from(path: Path) -> dict[str, Path]:
    """Names ``path`` imports with ``from lab.x import NAME`` -> lab/x.py."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lab."):
            module = REPO / (node.module.replace(".", "/") + ".py")
            found |= {alias.asname or alias.name: module for alias in node.names if module.exists()}
    return found


def _module_file(name: str) -> Path | None:
    for candidate in (REPO / "lab" / f"{name}.py", REPO / "lab" / "data" / f"{name}.py"):
        if candidate.exists():
            return candidate
    return None


def resolve(node: ast.expr, path: Path) -> str | None:
    """The link name ``node`` stands for, or None when the sources do not say it."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        value = _constants(path).get(node.id)
        if value is not None:
            return resolve(value, path)
        origin = _imported_from(path).get(node.id)
        return None if origin is None else resolve(ast.Name(node.id), origin)
    if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "row":
        return resolve(node.args[0], path) if node.args else None
    if isinstance(node, ast.Attribute):
        if node.attr == "name":  # a row's name
            return resolve(node.value, path)
        if isinstance(node.value, ast.Name):
            module = _module_file(node.value.id)
            value = _constants(module).get(node.attr) if module else None
            return None if value is None or module is None else resolve(value, module)
    return None


def _is_query_params(node: ast.expr) -> bool:
    """``st.query_params``: the page's link (not ``request.query_params``, /api/pace's own query)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "query_params"
        and isinstance(node.value, ast.Name)
        and node.value.id == "st"
    )


def named_in(path: Path) -> list[tuple[int, str | None]]:
    """(line, link name or None when unresolvable) for every place ``path`` puts a name in a link or reads one."""
    places: list[tuple[int, ast.expr]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "links":
                position = _PLACES.get(func.attr)
                if position is not None and len(node.args) > position:
                    places.append((node.lineno, node.args[position]))
            if isinstance(func, ast.Attribute) and func.attr in _READS and _is_query_params(func.value) and node.args:
                places.append((node.lineno, node.args[0]))
            for keyword in node.keywords:
                pairs = keyword.value if keyword.arg in (None, "query_params") else None
                if isinstance(pairs, ast.Dict):
                    places += [(node.lineno, key) for key in pairs.keys if key is not None]
            if isinstance(func, ast.Name) and func.id == "Link" and len(node.args) > 2:
                query = node.args[2]
                if isinstance(query, ast.Name):
                    query = _constants(path).get(query.id, query)
                for pair in query.elts if isinstance(query, ast.Tuple) else []:
                    places.append((node.lineno, pair.elts[0] if isinstance(pair, ast.Tuple) else pair))
        elif isinstance(node, ast.Subscript) and _is_query_params(node.value):
            places.append((node.lineno, node.slice))
        elif isinstance(node, ast.Compare) and any(_is_query_params(right) for right in node.comparators):
            places.append((node.lineno, node.left))
    return [(line, resolve(expression, path)) for line, expression in places]


def problems(paths: list[Path]) -> list[str]:
    """Every name used that the table does not hold or whose row does not list the page that reads it."""
    found = []
    for path in paths:
        where = path.relative_to(REPO)
        for line, name in named_in(path):
            if name is None:
                if where.as_posix() != "lab/links.py":  # the machinery: every name comes to it as an argument
                    found.append(f"{where}:{line}: a link name the sources do not say (use the table's row)")
            elif name not in link_names.NAMES:
                found.append(f"{where}:{line}: {name!r} is not in lab/link_names.py")
            elif where.parts[0] == "pages":
                pages = link_names.NAMES[name].pages
                if pages != link_names.EVERY_PAGE and path.stem not in pages:
                    found.append(f"{where}:{line}: {name!r} is read on {path.stem}, which its row does not list")
    return found


def sources() -> list[Path]:
    return sorted([*REPO.glob("lab/**/*.py"), *REPO.glob("pages/*.py"), REPO / "app.py"])


def test_every_link_name_in_the_sources_is_a_row_of_the_table():
    used = {name for path in sources() for _, name in named_in(path)}
    assert {"threshold", "alpha", "class", "key", "lesson", "lock", "lang", "draw_brush", "model"} <= used
    assert problems(sources()) == []


def test_every_row_is_used_and_means_one_thing():
    used = {name for path in sources() for _, name in named_in(path)}
    assert len(link_names.NAMES) == len(link_names.TABLE), "a name has two rows"
    assert sorted(set(link_names.NAMES) - used) == []
    for row in link_names.TABLE:
        shown = [row.default] if row.default not in (None, link_names.DATA) else []
        for value in [*shown, *(row.values or ())]:
            assert isinstance(value, row.kind), (row.name, value)
        if row.bounds is not None:
            low, high = row.bounds
            assert low <= high and (row.default is None or low <= row.default <= high), row.name
        assert row.values is None or row.bounds is None, row.name
        assert row.pages == link_names.EVERY_PAGE or all((REPO / "pages" / f"{page}.py").exists() for page in row.pages)


def test_a_planted_name_outside_the_table_and_a_second_meaning_are_found(tmp_path, monkeypatch):
    page = REPO / "pages" / "planted_for_a_test.py"
    source = (
        "import streamlit as st\nfrom lab import links\n"
        'links.widget(st.slider, "x", "no_such_name")\n'
        'if "nor_this" in st.query_params:\n    st.query_params["nor_this"] = "1"\n'
        'links.widget(st.selectbox, "y", "samples_digit")\n'
    )
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source if self == page else "")
    found = problems([page])
    assert any("'no_such_name' is not in" in problem for problem in found)
    assert sum("'nor_this' is not in" in problem for problem in found) == 2
    assert any("'samples_digit' is read on planted_for_a_test" in problem for problem in found)
