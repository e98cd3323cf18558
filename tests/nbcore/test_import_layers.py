"""nbcore's imports point down: no cycles (imports inside functions included), nothing from the dashboard."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

NBCORE = Path(__file__).resolve().parents[2] / "nbcore"
ABOVE_NBCORE = {"app", "lab", "pages", "streamlit"}


def module_names() -> dict[str, Path]:
    """Every module of nbcore by dotted name ("nbcore.prepared.disk"; a package by its own name)."""
    names = {}
    for path in NBCORE.rglob("*.py"):
        parts = path.relative_to(NBCORE.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imported(name: str, path: Path, modules: set[str]) -> set[str]:
    """Every module ``path`` imports anywhere in it (top level, in functions, under TYPE_CHECKING), by dotted name:
    ``from a import b`` is ``a.b`` when that is one of ``modules``, else ``a``."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names}
    return found


@cache
def nbcore_imports() -> dict[str, set[str]]:
    """nbcore module -> every module it imports."""
    modules = module_names()
    return {name: imported(name, path, set(modules)) for name, path in modules.items()}


def import_graph() -> dict[str, set[str]]:
    """nbcore module -> the nbcore modules it imports."""
    imports = nbcore_imports()
    return {
        name: {target for target in targets if target in imports and target != name}
        for name, targets in imports.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = stack[stack.index(node) :]
                    del stack[stack.index(node) :]
                    if len(component) > 1:
                        found.append(sorted(component))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                work.append((target, iter(sorted(graph[target]))))
            elif target in stack:
                low[node] = min(low[node], index[target])
    return found


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_nbcore_has_no_import_cycles():
    assert cycles(import_graph()) == []


def test_nbcore_imports_nothing_of_the_dashboard():
    above = {
        (name, target)
        for name, targets in nbcore_imports().items()
        for target in targets
        if target.split(".")[0] in ABOVE_NBCORE
    }
    assert above == set()
