"""The package's layout rules that the import graph alone does not show: a light ``import subsel``,
file handling below the model, one home for the rules, a face for each layer."""
import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import subsel

PACKAGE = Path(subsel.__file__).parent


def _imports(path: Path, top_level_only: bool = False) -> list[tuple[int, str]]:
    """(level, module) of every import of ``path`` (relative ones with their dots' count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or ""))
        elif isinstance(node, ast.Import):
            out.extend((0, alias.name) for alias in node.names)
    return out


def _absolute_imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every import of ``path``, relative ones resolved against its package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = list(parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            out.append((node.lineno, ".".join(base + (node.module.split(".") if node.module else []))))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
    return out


def test_other_layers_import_a_package_through_its_face():
    """A module outside ``subsel.<package>`` imports ``subsel.<package>``, never its inner modules (at
    load or inside a function); private helpers shared across layers live at the package root."""
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    reaching = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = path.relative_to(PACKAGE).parts[0]
        for line, module in _absolute_imports(path):
            names = module.split(".")
            if len(names) > 2 and names[0] == "subsel" and names[1] in packages and names[1] != own:
                reaching.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert reaching == []


@pytest.mark.parametrize("package", ["subsel", "subsel.models", "subsel.solvers", "subsel.decisions",
                                     "subsel.evolution", "subsel.experiments"])
def test_lazy_names_of_a_face_load_and_keep_their_value(package):
    """Every name a face loads on first use exists; importing a module whose name is one of its
    functions (``subsel.experiments.compare``) does not shadow the function."""
    face = importlib.import_module(package)
    for name in face._LAZY:
        first = getattr(face, name)
        importlib.import_module(f"{package}.{face._LAZY[name]}")
        assert getattr(face, name) is first and not inspect.ismodule(first), name
        assert name in face.__all__, name


@pytest.mark.parametrize("module", ["subsel", "subsel.bandits"])
def test_import_loads_neither_pandas_nor_a_backend(module):
    """pandas is imported only where a DataFrame is made; a backend only when a solver runs."""
    code = (f"import sys, {module}; heavy = [m for m in ('pandas', 'pulp', 'highspy', 'ortools') "
            "if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == ""


def test_a_solve_on_the_command_line_loads_only_what_it_uses(tmp_path):
    """``subsel solve`` on an agents CSV loads neither the batch, the LP/MPS formulations, the
    knapsack files, the knapsack API, the explanation of infeasibility, the rule among equal optima,
    the planner's per-agent choices, the batch answers, the plug-in solvers' entry points (nor any
    metadata) nor ``numpy.random`` (start-up).

    A module of another package counts only when subsel's code loaded it: what ``import numpy``
    loads itself (numpy 2.4 imports ``tempfile``) is not subsel's doing."""
    agents = tmp_path / "two.csv"
    agents.write_text("name,quality,cost\na,0.9,0.5\nb,0.4,0.2\n")
    unused = ["subsel.models.batch", "subsel.models.formulations", "subsel.models.knapsack",
              "subsel.models.instances", "subsel.solvers.knapsack", "subsel.solvers.explain",
              "subsel.solvers._ties", "subsel.solvers._choices", "subsel.solvers._batch",
              "subsel.solvers._plugins", "importlib.metadata", "tomllib", "numpy.random", "tempfile", "pandas"]
    code = ("import sys; import numpy; by_numpy = set(sys.modules); from subsel.cli import main; "
            f"code = main(['solve', {str(agents)!r}, '--alpha', '0.5']); "
            f"print(code, [m for m in {unused!r} if m in sys.modules and m not in by_numpy])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip().splitlines()[-1] == "0 []"


@pytest.mark.parametrize("argv", [["--help"], ["reproduce", "--help"], ["bandit", "--help"], ["emsco", "--help"]])
def test_the_help_loads_neither_pandas_nor_a_backend(argv):
    """``subsel --help`` builds every command's parser: none of them loads pandas, matplotlib or a
    solver backend (the help took longer than a whole solve)."""
    code = ("import sys; from subsel.cli import main; "
            f"code = main({argv!r}); "
            "print(code, [m for m in ('pandas', 'matplotlib', 'pulp', 'highspy', 'ortools', 'joblib', 'sklearn') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip().splitlines()[-1] == "0 []"


@pytest.mark.parametrize("module", ["_files.py", "models/rules.py"])
def test_lowest_modules_import_nothing_of_subsel(module):
    found = [(level, name) for level, name in _imports(PACKAGE / module) if level or name.startswith("subsel")]
    assert found == []


def test_the_problem_module_does_not_import_the_agents_schema_at_load():
    assert (1, "agents") not in _imports(PACKAGE / "models" / "problem.py", top_level_only=True)


def test_models_reach_no_higher_layer():
    for path in (PACKAGE / "models").glob("*.py"):
        for level, name in _imports(path):
            assert not (level == 2 and name.split(".")[0] in {"solvers", "bandits", "evolution",
                                                               "experiments", "cli"}), (path, name)


def test_the_largest_exact_integer_is_written_once():
    """``2 ** 53`` (and ``2.0 ** 53``) appears as a literal only in the rules module."""
    homes = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) \
                    and isinstance(node.left, ast.Constant) and node.left.value == 2 \
                    and isinstance(node.right, ast.Constant) and node.right.value == 53:
                homes.append(path.relative_to(PACKAGE).as_posix())
    # _knapsack and _ties scale float mantissas (53 significant bits), a property of float64, not the limit.
    assert sorted(set(homes) - {"solvers/_knapsack.py", "solvers/_ties.py"}) == ["models/rules.py"]


def test_a_module_above_600_lines_says_why_at_its_top():
    """A module of the package longer than 600 lines gives its reason in its docstring."""
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 600:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "600 lines" not in doc:
                long.append(f"{path.relative_to(PACKAGE)} ({text.count(chr(10))} lines)")
    assert not long, "modules above 600 lines without a reason in their docstring: " + ", ".join(long)
