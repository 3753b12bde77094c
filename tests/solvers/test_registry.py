"""The solver registry: this package's backends, plug-ins by entry point or by call, lazy loading."""
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest

from subsel import SubsetSelectionProblem
from subsel.solvers import (
    SOLVERS,
    Solver,
    _plugins,
    available_solvers,
    get_solver,
    register_solver,
    registry,
    solver_info,
)

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ["dpss", "gss", "exact", "cbc", "highs", "ortools-scip", "ortools-cpsat"]


@pytest.fixture
def clean_registry(monkeypatch):
    """A registry with no run-time registrations; plug-ins re-read afterwards."""
    monkeypatch.setattr(registry, "_REGISTERED", {})
    registry._reset_plugins()
    yield
    registry._reset_plugins()


def fake_entry_points(monkeypatch, eps, tree=None):
    """Installed entry points ``eps`` (name, value, dist name, requires) and no source tree."""
    dists = {}
    objs = []
    for name, value, dist, requires in eps:
        d = dists.setdefault(dist, SimpleNamespace(metadata={"Name": dist}, requires=requires))
        objs.append(SimpleNamespace(name=name, value=value, group=registry.ENTRY_POINT_GROUP, dist=d))
    monkeypatch.setattr(_plugins, "_source_tree_project", lambda: tree)
    monkeypatch.setattr(metadata, "entry_points",
                        lambda group=None: [e for e in objs if group in (None, e.group)])
    registry._reset_plugins()


def run(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_table_order_is_builtin_then_plugins():
    assert list(SOLVERS)[:len(BUILTIN)] == BUILTIN
    assert "emsco" in SOLVERS and SOLVERS["emsco"] == "subsel.evolution.genetic_solver:EMSCOSolver"
    assert [r.name for r in solver_info()] == list(SOLVERS)
    assert set(available_solvers()) <= set(SOLVERS)


def test_listing_and_the_default_solve_import_no_heavy_backend():
    # available_solvers() decides without importing the plug-in (EMSCO: scikit-learn, SciPy) ...
    out = run("import sys; from subsel.solvers import available_solvers; "
              "names = available_solvers(); "
              "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy') "
              "or m.startswith('subsel.evolution')); print(names, heavy)")
    assert "'emsco'" in out and out.strip().endswith("[]")
    # ... and `subsel solve` with the default solver loads neither it nor the bandit or MILP code
    code = ("import sys, tempfile, pathlib; from subsel.cli import main; "
            "p = pathlib.Path(tempfile.mkdtemp()) / 'a.csv'; "
            "p.write_text('name,quality,cost\\na,0.9,0.5\\nb,0.4,0.2\\n'); "
            "assert main(['solve', str(p), '--alpha', '0.5']) == 0; "
            "print(sorted({m.split('.')[0] if not m.startswith('subsel') else m for m in sys.modules "
            "if m.split('.')[0] in ('sklearn', 'scipy', 'pulp', 'ortools', 'highspy', 'matplotlib') "
            "or m.startswith(('subsel.evolution', 'subsel.bandits', 'subsel.experiments', 'subsel.cli.bandit', "
            "'subsel.cli.emsco', 'subsel.cli.experiments'))}))")
    loaded = run(code).strip().splitlines()[-1]
    # (exact's compiled branch and bound is opt-in)
    assert loaded == "[]"


def test_solver_info_reads_class_attributes_lazily(clean_registry):
    register_solver("lazy-gss", "subsel.solvers.gss:GSS")
    row = solver_info(["lazy-gss"])[0]
    assert row.name == "lazy-gss" and "_class" not in vars(row)
    assert row.available and "_class" not in vars(row)  # a registered solver is not probed
    assert row.exact is False and row.complexity == "O(n log n)" and "must_take" in row.supports
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        solver_info(["nope"])


def test_register_solver_adds_a_runtime_solver(clean_registry):
    register_solver("My-GSS", "subsel.solvers.gss:GSS")
    register_solver("my-gss", "subsel.solvers.gss:GSS")  # the same again: nothing happens
    assert list(SOLVERS)[-1] == "my-gss" and "my-gss" in available_solvers()
    p = SubsetSelectionProblem(quality=[0.9, 0.2], cost=[0.1, 0.1], alpha=0.5)
    assert get_solver("MY-GSS").solve(p).x.tolist() == [1, 1]


@pytest.mark.parametrize("name, target, exc, match", [
    ("", "a.b:C", ValueError, "must be lower case letters"),
    ("with space", "a.b:C", ValueError, "must be lower case letters"),
    ("ok", "a.b.C", ValueError, "must be 'module:Class'"),
    ("ok", "a.b:", ValueError, "must be 'module:Class'"),
    ("gss", "subsel.solvers.dpss:DPSS", ValueError, "already registered as 'subsel.solvers.gss:GSS'"),
    ("emsco", "x.y:Z", ValueError, "already registered as 'subsel.evolution.genetic_solver:EMSCOSolver'"),
    (3, "a.b:C", TypeError, "must be strings"),
    ("ok", None, TypeError, "must be strings"),
])
def test_register_solver_rejects(clean_registry, name, target, exc, match):
    with pytest.raises(exc, match=match):
        register_solver(name, target)


def test_a_target_that_is_no_solver_is_refused_on_use(clean_registry):
    register_solver("not-a-solver", "subsel.models:SubsetSelectionProblem")
    with pytest.raises(TypeError, match="not-a-solver.*is not a Solver subclass"):
        get_solver("not-a-solver")


def test_a_missing_requirement_is_not_available_and_names_the_extra(clean_registry):
    register_solver("needs-lib", "subsel.solvers.gss:GSS", requires=["no_such_library_xyz"], extra="evolution")
    row = solver_info(["needs-lib"])[0]
    assert not row.available
    assert row.reason == 'needs no_such_library_xyz, which is not installed: pip install "subsel[evolution]"'
    assert row.exact is False and row.supports == frozenset()  # nothing loaded for a missing library
    assert "needs-lib" not in available_solvers()
    with pytest.raises(ImportError, match=r'solver .needs-lib. needs no_such_library_xyz.*subsel\[evolution\]'):
        get_solver("needs-lib")


def test_entry_points_of_installed_distributions(monkeypatch, clean_registry):
    fake_entry_points(monkeypatch, [
        ("zeta", "acme.solvers:Zeta [fast]", "acme", ["numpy; extra == 'fast'", "acme[more]; extra == 'fast'",
                                                    "no-such-dist-xyz>=1; extra == \"more\"", "pandas"]),
        ("alpha", "subsel.solvers.gss:GSS", "acme", []),
    ])
    # plug-ins follow this package's backends, sorted by name
    assert list(SOLVERS) == BUILTIN + ["alpha", "zeta"]
    rows = {r.name: r for r in solver_info()}
    assert rows["alpha"].available and get_solver("alpha").name == "gss"
    # zeta's extra pulls in numpy and (through acme[more]) a distribution that is not installed
    entry = registry._entry("zeta")
    assert entry.distributions == ("numpy", "no-such-dist-xyz") and entry.modules == ("acme",)
    assert not rows["zeta"].available
    assert rows["zeta"].reason == ('needs acme, no-such-dist-xyz, which are not installed: '
                                   'pip install "subsel[fast]"')


def test_plugin_names_that_are_taken_or_invalid_are_skipped_with_a_warning(monkeypatch, clean_registry):
    fake_entry_points(monkeypatch, [("gss", "acme:Gss", "acme", []), ("Bad Name", "acme:B", "acme", []),
                                    ("fine", "acme:F", "acme", [])])
    with pytest.warns(RuntimeWarning, match="ignored"):
        names = list(SOLVERS)
    assert names == BUILTIN + ["fine"] and SOLVERS["gss"] == "subsel.solvers.gss:GSS"


def test_installed_without_plugins_emsco_is_unknown_and_the_rest_works(monkeypatch, clean_registry):
    fake_entry_points(monkeypatch, [])
    assert list(SOLVERS) == BUILTIN
    with pytest.raises(ValueError, match="unknown solver 'emsco'; known solvers: dpss, gss"):
        get_solver("emsco")
    assert get_solver("exact").name == "exact"


def test_a_source_tree_reads_its_own_pyproject_and_ignores_stale_metadata(monkeypatch, clean_registry):
    tree = _plugins._source_tree_project()
    assert tree is not None and tree["name"] == "subsel"  # the tests run from a source tree
    # installed metadata of subsel that predates the tree's table is ignored; other plug-ins are kept
    fake_entry_points(monkeypatch, [("emsco", "old.place:Old", "subsel", []),
                                    ("other", "subsel.solvers.gss:GSS", "acme", [])], tree=tree)
    assert SOLVERS["emsco"] == "subsel.evolution.genetic_solver:EMSCOSolver" and "other" in SOLVERS
    entry = registry._entry("emsco")
    assert entry.extra == "evolution" and "scikit-learn" in entry.distributions
    assert entry.origin == "entry point of subsel"


def test_missing_evolution_extra_makes_emsco_unavailable(monkeypatch, clean_registry):
    real = metadata.distribution

    def distribution(name):
        if name == "scikit-learn":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", distribution)
    row = solver_info(["emsco"])[0]
    assert not row.available and 'pip install "subsel[evolution]"' in row.reason
    assert "emsco" not in available_solvers() and "exact" in available_solvers()
    with pytest.raises(ImportError, match=r'^solver .emsco. needs scikit-learn, which is not installed: '
                                          r'pip install "subsel\[evolution\]"$'):
        get_solver("emsco")


def test_extra_requirements_follow_self_references():
    requires = ['scikit-learn>=1.3; extra == "evolution"', 'tqdm; extra == "bandits"',
                'subsel[bandits,evolution]; extra == "all"', 'dask[distributed]>=2024; extra == "dask"',
                'numpy>=1.24']
    assert _plugins._extra_requirements(requires, ["all"], "subsel") == ["tqdm", "scikit-learn"]
    assert _plugins._extra_requirements(requires, ["dask"], "subsel") == ["dask"]
    assert _plugins._extra_requirements(requires, [], "subsel") == []


def test_every_builtin_backend_is_a_solver():
    for name in BUILTIN:
        row = solver_info([name])[0]
        assert issubclass(row._class, Solver) and row._class.name == name


def test_one_default_solver_rule():
    """The first available preferred backend that supports what the problem uses and is not
    slower on it than a later one."""
    from subsel.solvers import DEFAULT_SOLVER_PREFERENCE, default_solver, solver_info

    rows = {r.name: r for r in solver_info([n for n in DEFAULT_SOLVER_PREFERENCE if n in SOLVERS])}
    for needed in [(), ("must_take",), ("budget",), ("budget", "demand")]:
        expected = next(n for n in DEFAULT_SOLVER_PREFERENCE
                        if n in rows and rows[n].available and set(needed) <= rows[n].supports
                        and not set(needed) & rows[n].not_default_for)
        assert default_solver(needed) == expected
    # exact supports a budget but is not the default for it (a MILP backend proves those sooner)
    assert "budget" in rows["exact"].supports and default_solver(["budget"]) != "exact"
    assert default_solver() == "exact"
    with pytest.raises(LookupError, match="no exact solver is available"):
        default_solver(["no-such-extension"])
