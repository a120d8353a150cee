# No circle in python/satcc's imports, counting those inside functions
# (they hide a circle from Python but not from a reader): read from the
# source, so every module is checked whether or not a test imports it.
# Imports under `if TYPE_CHECKING:` are for annotations only and left out.
import ast
import graphlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "satcc"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(module: str, path: Path, node: ast.AST, known: set[str]) -> list[str]:
    """The satcc modules an import statement names (a name imported from a
    package counts as its submodule when there is one)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if path.name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    out = []
    for name in names:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in known and name != module:
            out.append(name)
    return out


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(paths)
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        graph[module] = {
            dep
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in typing_only
            for dep in imported(module, path, node, known)
        }
    return graph


def test_the_graph_is_read():
    graph = import_graph()
    assert "satcc.studies.spec" in graph["satcc.studies.proactive_atm"]
    assert "satcc.studies.proactive_atm.model" in graph["satcc.studies.proactive_atm.figures"]


def test_no_module_imports_one_that_imports_it_back():
    try:
        list(graphlib.TopologicalSorter(import_graph()).static_order())
    except graphlib.CycleError as e:
        pytest.fail("import circle: " + " -> ".join(e.args[1]))


def test_a_circle_would_be_found():
    graph = import_graph()
    graph["satcc.studies.proactive_atm.model"].add("satcc.studies.proactive_atm.figures")
    with pytest.raises(graphlib.CycleError):
        list(graphlib.TopologicalSorter(graph).static_order())
