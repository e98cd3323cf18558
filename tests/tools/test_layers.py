"""The layers of docs/design.md's drawing, enforced: every import points to its own layer or a lower one.

The drawing is the table: a fenced ``layers`` block in which a row that starts with a name begins a layer (the lowest
first) and every repository path on its lines (``nbcore/models/``, ``lab/links.py``, ``app.py``) belongs to it; a
folder stands for every module under it. Every import statement counts, at the top of a file or inside a function (a
deferred import is still an arrow), relative imports resolved. Run as a script, it prints every upward import.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DESIGN = REPO / "docs" / "design.md"
_BLOCK = re.compile(r"^```layers\n(.*?)^```", re.S | re.M)
_ROW = re.compile(r"^ ([a-z][a-z ]*?)  +(\S.*)$")  # a layer's first row: its name, then its paths and words
_PATH = re.compile(r"(?<![\w/.-])((?:nbcore|lab|pages)/[\w/]*(?:\.py)?|app\.py)(?![\w/])")
STREAMLIT_THEME_COLOUR = "streamlit.elements.lib.streamlit_plotly_theme"  # lab/figures/style.py's one exception


def layers(drawing: str) -> list[tuple[str, list[str]]]:
    """(layer name, its paths), lowest first, from the text of docs/design.md."""
    block = _BLOCK.search(drawing)
    assert block, "docs/design.md has no ```layers block"
    found: list[tuple[str, list[str]]] = []
    for line in block.group(1).splitlines():
        row = _ROW.match(line)
        if row and row.group(1) != "layer":
            found.append((row.group(1), []))
        if found:
            found[-1][1].extend(_PATH.findall(line))
    return found


def module_paths() -> dict[str, Path]:
    """Every module of nbcore/, lab/, pages/ and app.py by dotted name (a package by its own name)."""
    paths = [*REPO.glob("nbcore/**/*.py"), *REPO.glob("lab/**/*.py"), *REPO.glob("pages/*.py"), REPO / "app.py"]
    names = {}
    for path in paths:
        parts = path.relative_to(REPO).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imported(name: str, path: Path, modules: set[str]) -> set[str]:
    """Every module ``path`` imports anywhere in it, by dotted name: ``from a import b`` is ``a.b`` when that is a
    module, else ``a``; ``from . import x`` is resolved against ``name``'s package."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names}
    return found - {name}


@cache
def all_imports() -> dict[str, frozenset[str]]:
    """Module -> every module it imports (ours and others')."""
    paths = module_paths()
    return {name: frozenset(imported(name, path, set(paths))) for name, path in paths.items()}


def layer_of_modules(table: list[tuple[str, list[str]]], paths: dict[str, str]) -> dict[str, list[str]]:
    """Module -> the layers whose paths name it (``paths``: module -> its path in the repository)."""
    return {
        module: [
            layer
            for layer, entries in table
            for entry in entries
            if path == entry or (entry.endswith("/") and path.startswith(entry))
        ]
        for module, path in paths.items()
    }


def upward(table: list[tuple[str, list[str]]], paths: dict[str, str], graph: dict[str, set[str]]) -> list[str]:
    """Each import of a higher layer's module, as "a (layer) → b (layer)"."""
    rank = {layer: position for position, (layer, _) in enumerate(table)}
    placed = {module: found[0] for module, found in layer_of_modules(table, paths).items() if len(found) == 1}
    return [
        f"{module} ({placed[module]}) → {target} ({placed[target]})"
        for module in sorted(graph)
        for target in sorted(graph[module])
        if module in placed and target in placed and rank[placed[target]] > rank[placed[module]]
    ]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module] & graph.keys()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def our_graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports."""
    imports = all_imports()
    return {module: set(targets & imports.keys()) for module, targets in imports.items()}


def repository_paths() -> dict[str, str]:
    return {module: str(path.relative_to(REPO)) for module, path in module_paths().items()}


def test_every_module_is_in_exactly_one_layer_and_every_path_drawn_exists():
    table = layers(DESIGN.read_text())
    assert len(table) >= 10 and table[0][0] == "data sets" and table[-1][0] == "pages"
    placements = layer_of_modules(table, repository_paths())
    assert len(placements) > 100
    assert {module: found for module, found in placements.items() if len(found) != 1} == {}
    drawn = [entry for _, entries in table for entry in entries]
    assert [entry for entry in drawn if not (REPO / entry).exists()] == []
    assert len(drawn) == len(set(drawn)), "a path is drawn twice"


def test_imports_point_down_deferred_ones_included():
    assert upward(layers(DESIGN.read_text()), repository_paths(), our_graph()) == []


def test_no_import_cycles():
    assert cycles(our_graph()) == []


def test_caches_are_declared_in_lab_data_only():
    """``lab/caching.py``'s decorators keep what the server shares: only lab/data's modules use them."""
    users = {module for module, targets in all_imports().items() if "lab.caching" in targets}
    assert users and {module for module in users if not module.startswith("lab.data")} == set()


def test_nothing_below_the_frame_imports_streamlit_but_figures_one_colour():
    """nbcore and lab's words are Streamlit-free; the figure builders take one colour constant (design.md says why)."""
    for module, targets in all_imports().items():
        streamlit = {target for target in targets if target.split(".")[0] == "streamlit"}
        if module.startswith(("nbcore", "lab.figures", "lab.i18n", "lab.model_settings", "lab.link_names")):
            assert streamlit <= {STREAMLIT_THEME_COLOUR}, module
        if module.startswith("nbcore"):
            assert not streamlit, module


def test_pages_import_only_lab_and_nbcore_of_the_project():
    project = {"app", "devtools", "lab", "nbcore", "pages", "tests"}
    for module, targets in all_imports().items():
        packages = {target.split(".")[0] for target in targets} & project
        if module.startswith(("lab", "nbcore", "pages")):
            assert packages <= {"lab", "nbcore"}, f"{module} imports {packages - {'lab', 'nbcore'}}"


DRAWING = """
```layers
 layer    modules                        what
 low      lab/x.py                       the lowest
    │
 high     lab/y.py lab/sub/              above it
```
"""


@pytest.mark.parametrize("planted", ["lab.y", "lab.sub.z"])
def test_a_planted_upward_import_is_found(planted):
    table = layers(DRAWING)
    assert table == [("low", ["lab/x.py"]), ("high", ["lab/y.py", "lab/sub/"])]
    paths = {"lab.x": "lab/x.py", "lab.y": "lab/y.py", "lab.sub.z": "lab/sub/z.py"}
    graph: dict[str, set[str]] = {"lab.x": set(), "lab.y": {"lab.x"}, "lab.sub.z": {"lab.x", "lab.y"}}
    assert upward(table, paths, graph) == []
    graph["lab.x"] = {planted}
    assert upward(table, paths, graph) == [f"lab.x (low) → {planted} (high)"]


def test_a_deferred_import_counts(tmp_path):
    source = tmp_path / "low.py"
    source.write_text("def later():\n    from lab import shell\n    return shell\n")
    assert imported("lab.low", source, {"lab.shell"}) == {"lab.shell"}


def test_the_cycle_check_finds_a_deferred_cycle():
    assert cycles({"a": {"b"}, "b": {"c", "numpy"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


if __name__ == "__main__":
    for arrow in upward(layers(DESIGN.read_text()), repository_paths(), our_graph()):
        print("upward:", arrow)
    for component in cycles(our_graph()):
        print("cycle:", " ↔ ".join(component))
