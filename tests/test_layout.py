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


#: The private modules below the models that every layer imports directly: the exact arithmetic of the
#: rules and the field checks (file handling is ``subsel._files``, at the package root).
SHARED_PRIVATE = {"subsel.models._rules", "subsel.models._checks"}


def test_other_layers_import_a_package_through_its_face():
    """A module outside ``subsel.<package>`` imports ``subsel.<package>``, never its inner modules (at
    load or inside a function); private helpers shared across layers live at the package root or in
    the private modules below the models (``SHARED_PRIVATE``)."""
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    reaching = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = path.relative_to(PACKAGE).parts[0]
        for line, module in _absolute_imports(path):
            names = module.split(".")
            if module in SHARED_PRIVATE:
                continue
            if len(names) > 2 and names[0] == "subsel" and names[1] in packages and names[1] != own:
                reaching.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert reaching == []


@pytest.mark.parametrize("package", ["subsel", "subsel.models", "subsel.knapsack", "subsel.solvers", "subsel.decisions",
                                     "subsel.evolution", "subsel.experiments"])
def test_lazy_names_of_a_face_load_and_keep_their_value(package):
    """Every name a face loads on first use exists; importing a module whose name is one of its
    functions (``subsel.experiments.compare``) does not shadow the function."""
    face = importlib.import_module(package)
    for name in face._LAZY:
        first = getattr(face, name)
        importlib.import_module(f".{face._LAZY[name]}", package)  # relative: "._files" is the root's
        assert getattr(face, name) is first and not inspect.ismodule(first), name
        assert name in face.__all__, name


@pytest.mark.parametrize("package", ["subsel", "subsel.models", "subsel.knapsack", "subsel.solvers", "subsel.decisions",
                                     "subsel.evolution", "subsel.experiments"])
def test_dir_of_a_face_lists_its_names_before_they_load(package):
    """``dir()`` (and so ``help()`` and tab completion) shows every exported name in a fresh process,
    and none of the helpers the face imports."""
    code = (f"import importlib; face = importlib.import_module({package!r}); names = dir(face); "
            "print(sorted(set(face.__all__) - set(names)), [n for n in names if n in "
            "('lazy_attribute', 'face_dir', 'importlib', 'TYPE_CHECKING')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == "[] []"


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
              "subsel.models.instances", "subsel.knapsack.solve", "subsel.solvers.explain",
              "subsel.knapsack._ties", "subsel.solvers._choices", "subsel.solvers._batch",
              "subsel.solvers._plugins", "importlib.metadata", "tomllib", "numpy.random", "numpy.ma", "tempfile",
              "pandas"]
    code = ("import sys; import numpy; by_numpy = set(sys.modules); from subsel.cli import main; "
            f"code = main(['solve', {str(agents)!r}, '--alpha', '0.5']); "
            f"print(code, [m for m in {unused!r} if m in sys.modules and m not in by_numpy])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip().splitlines()[-1] == "0 []"


def test_a_knapsack_on_the_command_line_loads_neither_masked_arrays_nor_a_solver(tmp_path):
    """``subsel knapsack FILE`` checks its arrays without loading ``numpy.ma`` (a masked array exists
    only once it is loaded) and loads neither subsel.solvers nor the subset-selection problem, nor
    pandas (start-up: the knapsack package and its file reader are all it needs)."""
    instance = tmp_path / "kp.txt"
    instance.write_text("3 10\n5 4\n4 3\n3 2\n")
    unused = ["numpy.ma", "subsel.solvers", "subsel.solvers.exact", "subsel.solvers._batch", "subsel.models.problem",
              "subsel.models.agents", "subsel.cli.core", "pandas"]
    code = ("import sys; import numpy; by_numpy = set(sys.modules); from subsel.cli import main; "
            f"code = main(['knapsack', {str(instance)!r}]); "
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


@pytest.mark.parametrize("module", ["_files.py", "models/_rules.py"])
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
    assert sorted(set(homes) - {"knapsack/_knapsack.py", "knapsack/_ties.py"}) == ["models/_rules.py"]


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


def _is_type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (the imports of annotations, never run)."""
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _import_graph(*packages: str) -> dict[str, set[str]]:
    """The modules of ``packages`` (``subsel.<name>``) and, for each, the modules of that set it imports:
    every ``import`` and ``from ... import`` at any depth (inside functions too), relative ones
    resolved; ``from pkg import sub`` counts as an import of the module ``pkg.sub`` when there is one,
    else of ``pkg``.  The imports under ``if TYPE_CHECKING:`` are left out: they never run."""
    files = {}
    for package in packages:
        for path in sorted((PACKAGE / package).glob("*.py")):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = {id(n) for top in ast.walk(tree) if _is_type_checking(top) for n in ast.walk(top)}
        graph[module] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                target = ".".join(base + (node.module.split(".") if node.module else []))
                found = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in files]
                found = found or [target]
            elif isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            else:
                continue
            graph[module].update(name for name in found if name in files and name != module)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("packages", [("knapsack",), ("knapsack", "solvers")])
def test_no_import_cycle_among_the_solvers_and_the_knapsack_core(packages):
    """No module of the knapsack core and the solvers imports, even inside a function, a module that
    imports it back (directly or through others): each can be loaded, read and tested on its own."""
    assert _cycles(_import_graph(*packages)) == []


def test_the_knapsack_core_reaches_no_solver():
    graph = _import_graph("knapsack", "solvers")
    assert {(m, t) for m, ts in graph.items() for t in ts
            if m.startswith("subsel.knapsack") and t.startswith("subsel.solvers")} == set()


#: The face of ``subsel.models``: what a user calls (the problem and the batch, the constraints, the
#: readers and writers, the formulations, the instance generators, the rules' constants).  A name added
#: to ``subsel.models.__all__`` is added here on purpose, never by accident.
MODELS_FACE = frozenset({
    "SubsetSelectionProblem", "Evaluation", "ProblemBatch", "BatchEvaluation", "BatchPartition",
    "Constraint", "ConstraintRow", "CONSTRAINT_KINDS", "LinearConstraint", "QualityFloor",
    "Budget", "Demand", "GroupLimit", "MustNotTake", "MustTake",
    "EXTENSIONS", "PLANNER_EXTENSIONS", "GROUP_LIMIT_KEYS",
    "FEASIBILITY_TOL", "OPTIMALITY_RTOL", "MAX_COST", "MAX_EXACT_INT", "MAX_KNAPSACK_TOTAL", "R_RANGE",
    "InputError", "read_agents", "read_group_limits", "group_limits_csv_text", "problem_from_table",
    "problem_to_csv_text", "selection_csv_text",
    "LinearForm", "LinearRow", "linear_form", "lp_text", "mps_text", "to_ortools", "to_pulp", "variable_names",
    "write_lp", "write_mps",
    "KnapsackInstance", "read_knapsack", "read_optimum", "IntegerKnapsack",
    "KNAPSACK_CLASSES", "HARD_KNAPSACK_CLASSES", "knapsack_instance",
    "PLANNER_REGIONS", "PLANNER_LOT_SIZES", "planner_instance", "planner_plan",
})

#: Modules whose functions and classes are plumbing, not the face (``InputError`` excepted: users catch it).
PRIVATE_HOMES = {*SHARED_PRIVATE, "subsel._files", "subsel._validation", "subsel._extras", "subsel._random",
                 "subsel._text"}


def test_the_models_face_lists_what_a_user_calls():
    """``subsel.models.__all__`` is the face, once each: no exact-arithmetic helper, field check or
    file plumbing (those live in private modules every layer imports from there)."""
    import subsel.models as models

    assert len(models.__all__) == len(set(models.__all__))
    assert set(models.__all__) == MODELS_FACE
    plumbing = [name for name in models.__all__ if name != "InputError"
                and getattr(getattr(models, name), "__module__", None) in PRIVATE_HOMES]
    assert plumbing == []


def test_every_name_of_the_models_face_resolves():
    """Each name of ``subsel.models.__all__`` is an attribute of the face (loaded on first use or not),
    and ``from subsel.models import *`` gives all of them."""
    import subsel.models as models

    missing = [name for name in models.__all__ if not hasattr(models, name)]
    assert missing == []
    namespace: dict[str, object] = {}
    exec("from subsel.models import *", namespace)
    assert set(models.__all__) <= set(namespace)


@pytest.mark.parametrize("name", ["exact_total", "weighted_sum", "linear_at_least", "rounded_up", "Partition",
                                  "check_names", "default_names", "CSVTable", "read_csv", "atomic_write_text"])
def test_a_helper_is_not_on_the_models_face(name):
    import subsel.models as models

    assert name not in models.__all__
    with pytest.raises(AttributeError):
        getattr(models, name)
