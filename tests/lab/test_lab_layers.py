"""The lab's layers, read from the sources: imports point down only.

Every import statement of ``lab/`` and ``pages/`` counts, at the top of a file or inside a function (a deferred
import is still an arrow). Run as a script, it prints the cycles it finds: ``python tests/lab/test_lab_layers.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def module_name(path: Path) -> str:
    """``lab/data/mnist.py`` → ``lab.data.mnist``; ``lab/data/__init__.py`` → ``lab.data``."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each module of ``lab/`` and ``pages/`` → the modules it imports (all of them, not only ours)."""
    paths = sorted([*REPO.glob("lab/**/*.py"), *REPO.glob("pages/*.py")])
    ours = {module_name(path) for path in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from lab import shell`` imports the module lab.shell; ``from lab.data import data_dir`` a name
                imported |= {
                    f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in ours else node.module
                    for alias in node.names
                }
        graph[module_name(path)] = imported
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph[module] & graph.keys():
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


def test_lab_and_pages_have_no_import_cycles_deferred_imports_included():
    graph = import_graph()
    assert len(graph) > 40 and "lab.data.mnist" in graph and "pages.draw" in graph
    assert cycles(graph) == []


def test_the_figure_builders_import_no_streamlit():
    """Pure builders: arrays in, figure out. The one exception is a colour constant (docs/design.md says why)."""
    theme_colour = "streamlit.elements.lib.streamlit_plotly_theme"
    for module, imported in import_graph().items():
        if module.startswith("lab.figures"):
            assert not {name for name in imported if name.split(".")[0] == "streamlit"} - {theme_colour}, module


def test_pages_import_lab_and_nbcore_of_the_project_and_nothing_imports_a_page():
    project = {"app", "benchmarks", "devtools", "lab", "nbcore", "pages", "scripts", "tests"}
    for module, imported in import_graph().items():
        packages = {name.split(".")[0] for name in imported} & project
        assert "pages" not in packages, f"{module} imports a page"
        if module.startswith("pages."):
            assert packages <= {"lab", "nbcore"}, f"{module} imports {packages - {'lab', 'nbcore'}}"


def test_the_cycle_check_finds_a_deferred_cycle():
    graph = {"a": {"b"}, "b": {"c", "numpy"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


if __name__ == "__main__":
    graph = import_graph()
    print(f"{len(graph)} modules in lab/ and pages/, {sum(map(len, graph.values()))} imports")
    for component in cycles(graph):
        print("cycle:", " ↔ ".join(component))
