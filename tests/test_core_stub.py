# python/satcc/_core.pyi, the binding's type stub, names exactly what the
# compiled module has: every function, class and method, with the same
# parameters, so editors and type checkers see the real interface.
import ast
import inspect
from pathlib import Path

from satcc import _core

STUB = Path(__file__).resolve().parents[1] / "python" / "satcc" / "_core.pyi"


def _stub() -> dict[str, ast.AST]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}


def _public(obj) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


def _params(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in fn.args.args if a.arg != "self"]


def test_the_stub_names_what_the_module_has():
    assert set(_stub()) == _public(_core)


def test_each_class_has_the_stubbed_methods():
    for name, node in _stub().items():
        if not isinstance(node, ast.ClassDef):
            continue
        methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        assert methods - {"__init__"} == _public(getattr(_core, name)), name


def test_functions_take_the_stubbed_parameters():
    for name, node in _stub().items():
        if isinstance(node, ast.FunctionDef):
            real = list(inspect.signature(getattr(_core, name)).parameters)
            assert _params(node) == real, name
