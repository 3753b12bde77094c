"""How the property tests use hypothesis: an example they cannot use is refused with ``assume()``
(hypothesis then draws another and reports how many it discarded), never skipped with ``return``,
which passes silently and lets a test that checks nothing look green."""
import ast
from pathlib import Path

TESTS = Path(__file__).parent


def _is_given(decorator: ast.expr) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(func, ast.Name) and func.id == "given") or (
        isinstance(func, ast.Attribute) and func.attr == "given")


def _returns(node: ast.AST):
    """The return statements of a function body (not of functions defined inside it)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(child, ast.Return):
            yield child
        yield from _returns(child)


def test_no_hypothesis_test_returns_early():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(map(_is_given, node.decorator_list)):
                found += [f"{path.relative_to(TESTS)}:{r.lineno} in {node.name}" for r in _returns(node)]
    assert found == []
