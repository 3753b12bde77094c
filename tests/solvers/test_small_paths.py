"""The small-n fast paths of the solvers against their general kernels and brute force."""
import numpy as np
from hypothesis import given, settings

from subsel.models import ProblemBatch
from subsel.solvers import Status, get_solver
from subsel.solvers.dpss import _dpss_unit, dpss_batch
from tests.strategies import brute_force_rule, problems, tolerance_hard_problems

unit_problems = problems(n_max=12, cap_max=1, grid=True) | problems(n_max=12, cap_max=1) | tolerance_hard_problems()


@settings(max_examples=200)
@given(problem=unit_problems)
def test_dpss_unit_path_is_the_batch_kernel_bit_for_bit(problem):
    if problem.capacity.max() > 1:
        problem = problem.with_changes(capacity=None)
    quick = _dpss_unit(problem)
    raw = dpss_batch(ProblemBatch.from_problems([problem]))
    assert quick is not None and quick.status is Status.OPTIMAL  # S1 alone is always feasible
    assert raw.status is Status.OPTIMAL
    assert np.array_equal(quick.x, raw.x[0])
    best = brute_force_rule(problem)
    assert best is not None
    sol = get_solver("dpss").solve(problem)
    assert sol.objective == best[0] or abs(sol.objective - best[0]) <= 1e-9 * max(1.0, abs(best[0]))


def test_dpss_unit_path_hands_over_above_twenty_free_agents():
    from subsel import SubsetSelectionProblem

    q = np.r_[np.full(11, 0.9), np.full(11, 0.1)]
    c = np.r_[np.full(11, 0.95), np.full(11, 0.05)]  # 11 agents in S2, 11 in S3
    p = SubsetSelectionProblem(quality=q, cost=c, alpha=0.5)
    assert _dpss_unit(p) is None
    assert get_solver("dpss").solve(p).status is Status.OPTIMAL


# ------------------------------------------------------------------ exact: the compiled kernel
import pytest  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from subsel import SubsetSelectionProblem  # noqa: E402
from subsel.models.instances import KNAPSACK_CLASSES, knapsack_instance  # noqa: E402
from subsel.solvers import exact as exact_module  # noqa: E402
from tests.strategies import knapsack_dp, knapsacks  # noqa: E402

unit_tolerance_hard = tolerance_hard_problems(n_max=12).map(lambda p: p.with_changes(capacity=None))


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


@pytest.fixture
def spy(monkeypatch):
    """Count the calls of the compiled kernel."""
    from subsel.solvers._knapsack_core import unit_selection

    calls = []

    def counting(*args):
        calls.append(args)
        return unit_selection(*args)

    monkeypatch.setattr(exact_module, "unit_selection", counting)
    return calls


@settings(max_examples=250, deadline=None)
@given(problem=problems(n_max=12, cap_max=1, grid=True) | problems(n_max=12, cap_max=1) | unit_tolerance_hard)
def test_compiled_exact_equals_brute_force(problem):
    best = brute_force_rule(problem)
    fast = get_solver("exact", jit=True).solve(problem)
    slow = get_solver("exact", jit=False).solve(problem)
    assert fast.status is Status.OPTIMAL and slow.status is Status.OPTIMAL
    assert problem.evaluate(fast.x).feasible
    assert close(fast.objective, best[0]) and close(slow.objective, best[0])
    assert fast.bound >= fast.objective


@settings(max_examples=150, deadline=None)
@given(data=knapsacks(m_max=12) | knapsacks(m_max=12, integer=False))
def test_compiled_exact_on_knapsack_encodings(data):
    values, weights, capacity = data
    p = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    sol = get_solver("exact", jit=True).solve(p)
    assert sol.status is Status.OPTIMAL
    take = sol.x[1:].astype(bool)
    assert float(np.asarray(weights)[take].sum()) <= capacity + 1e-6
    if all(float(v).is_integer() for v in (*values, *weights, capacity)):
        assert sol.objective == knapsack_dp(values, weights, capacity)
    else:
        assert close(sol.objective, get_solver("exact", jit=False).solve(p).objective)


@pytest.mark.parametrize("kind", KNAPSACK_CLASSES)
@pytest.mark.parametrize("n", [30, 100])
def test_compiled_exact_on_the_knapsack_classes(kind, n):
    """Larger instances against the textbook dynamic program (the hard classes make the branch and
    bound give up and hand over to the numpy dynamic program: the answer is the same)."""
    v, w, c = knapsack_instance(kind, n, 100, np.random.default_rng(n))
    p = SubsetSelectionProblem.from_knapsack(v, w, c)
    sol = get_solver("exact", jit=True).solve(p)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == knapsack_dp(v, w, c)


def test_the_kernel_hands_over_when_it_gives_up(spy, monkeypatch):
    v, w, c = knapsack_instance("strongly_correlated", 40, 100, np.random.default_rng(3))
    p = SubsetSelectionProblem.from_knapsack(v, w, c)
    monkeypatch.setattr(exact_module, "_JIT_NODES", 2)
    sol = get_solver("exact", jit=True).solve(p)
    assert len(spy) == 1 and sol.status is Status.OPTIMAL
    assert sol.objective == knapsack_dp(v, w, c)


def test_the_rule_uses_the_compiled_kernel_and_answers_as_the_numpy_path(spy):
    """With the rule among equal optima on the kernel answers; its answer is
    the numpy path's, however many problems the process solved before.  The default (no rule)
    never loads the kernel."""
    p = SubsetSelectionProblem.random(8, 0.7, 0)
    answers = [get_solver("exact", lexicographic=True).solve(p) for _ in range(5)]
    assert len(spy) == 5
    assert all(np.array_equal(a.x, answers[0].x) for a in answers)
    assert np.array_equal(get_solver("exact", jit=False, lexicographic=True).solve(p).x, answers[0].x)
    assert len(spy) == 5
    get_solver("exact").solve(p)   # the default, without the rule: the numpy path only
    assert len(spy) == 5


def test_tie_choices_do_not_depend_on_the_history_of_the_process():
    """Integer knapsacks with many optimal selections: the default answer equals a fresh process's."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import numpy as np\n"
            "from subsel import SubsetSelectionProblem, get_solver\n"
            "rng = np.random.default_rng(5)\n"
            "out = []\n"
            "for k in range(40):\n"
            "    v, w = rng.integers(1, 6, 9), rng.integers(1, 6, 9)\n"
            "    p = SubsetSelectionProblem.from_knapsack(v, w, int(w.sum() // 2))\n"
            "    out.append(''.join(map(str, get_solver('exact').solve(p).x)))\n"
            "print(' '.join(out))\n")
    root = str(Path(__file__).resolve().parents[2])

    def run(prefix: str) -> str:
        done = subprocess.run([sys.executable, "-c", prefix + code], capture_output=True, text=True,
                              check=True, cwd=root, env=dict(os.environ, PYTHONPATH=root))
        return done.stdout.strip()

    warm = ("from subsel import SubsetSelectionProblem as P, get_solver as g\n"
            "for s in range(6000):\n"
            "    g('exact').solve(P.random(6, 0.7, s))\n")
    assert run("") == run(warm)


def test_the_size_boundary_of_the_compiled_kernel(spy):
    rng = np.random.default_rng(7)
    for n, used in ((exact_module.JIT_MAX_N, 1), (exact_module.JIT_MAX_N + 1, 0)):
        p = SubsetSelectionProblem.random(n, 0.7, rng)
        before = len(spy)
        fast = get_solver("exact", jit=True).solve(p)
        assert len(spy) - before == used
        slow = get_solver("exact", jit=False).solve(p)
        assert fast.status is slow.status is Status.OPTIMAL
        assert close(fast.objective, slow.objective)


def test_other_problems_take_the_numpy_path(spy):
    p = SubsetSelectionProblem.random(6, 0.7, 1)
    for q in (p.with_changes(capacity=[2] * 6), p.with_changes(must_take=[0]), p.with_changes(must_not_take=[1])):
        sol = get_solver("exact", jit=True).solve(q)
        assert sol.status is Status.OPTIMAL and close(sol.objective, brute_force_rule(q)[0])
    assert get_solver("exact", jit=True, time_limit_s=0.01).solve(p).is_feasible
    assert len(spy) == 0


def test_jit_option_is_checked(monkeypatch):
    with pytest.raises(TypeError, match="jit must be True, False or None; got 'yes'"):
        get_solver("exact", jit="yes")
    with pytest.raises(TypeError, match="lexicographic must be True or False; got None"):
        get_solver("exact", lexicographic=None)
    assert get_solver("exact").solve(SubsetSelectionProblem.random(5, 0.7, 0)).status is Status.OPTIMAL


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), alpha=st.sampled_from([0.3, 0.5, 0.7]))
def test_compiled_exact_on_the_tolerance_bound(seed, alpha):
    """Qualities on a 1e-9 grid around alpha: sums land on the rule's bound -1e-9, where the kernel
    hands the decision to the exact rule (and tightens its capacity when rounding pushed it over)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    q = np.clip(alpha + rng.integers(-3, 4, n) * 1e-9, 0, 1)
    p = SubsetSelectionProblem(quality=q, cost=np.zeros(n), alpha=alpha, R=10.0 ** rng.uniform(-3, 3))
    best = brute_force_rule(p)
    sol = get_solver("exact", jit=True).solve(p)
    assert sol.status is Status.OPTIMAL and close(sol.objective, best[0])


def test_the_kernel_flags_a_selection_on_the_bound():
    from subsel.solvers._knapsack_core import unit_selection

    tol = 2.0 ** -30  # the item's weight is the tolerance: its surplus lies exactly on the bound
    x, done, bound, capacity = unit_selection(np.array([0.0, -tol]), np.array([0.0, 1.0]), tol, 0.0, 100)
    assert x.tolist() == [1, 1] and done == 2 and capacity == tol
    x, done, _, _ = unit_selection(np.array([0.5, -0.25]), np.array([0.0, 1.0]), tol, 0.0, 100)
    assert x.tolist() == [1, 1] and done == 1


def test_a_selection_that_fails_the_rule_hands_over_to_the_numpy_path(spy, monkeypatch):
    """The kernel's answer is decided by the exact rule when flagged; one that fails it hands over to
    the numpy path, which keeps the best selection the rule accepts."""
    real = exact_module.unit_selection
    shifts = []

    def first_wrong(margin, r, tol, shift, nodes):
        shifts.append(shift)
        x, done, bound, capacity = real(margin, r, tol, shift, nodes)
        if len(shifts) == 1:
            return np.ones_like(x), 2, bound, capacity  # over the bound: must not be accepted
        return x, done, bound, capacity

    monkeypatch.setattr(exact_module, "unit_selection", first_wrong)
    p = SubsetSelectionProblem(quality=[0.9, 0.2, 0.6], cost=[0.1, 0.05, 0.1], alpha=0.7)
    sol = get_solver("exact", jit=True).solve(p)
    assert shifts == [0.0]  # one kernel call, its answer refused
    assert sol.status is Status.OPTIMAL and close(sol.objective, brute_force_rule(p)[0])


def test_the_compiled_kernels_load_without_numba_and_compile_nothing(tmp_path):
    """Importing subsel and solving with both compiled kernels (the branch and bound of ``exact``,
    the knapsack core search) in a fresh process imports no numba and writes no file: not into the
    package, not into a cache folder (the extension was built at install)."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    import subsel

    package = Path(subsel.__file__).parent
    started = time.time() - 1
    code = ("import sys, subsel, subsel.cli\n"
            "from subsel import SubsetSelectionProblem, get_solver, solve_knapsack\n"
            "for seed in range(5):\n"
            "    get_solver('exact', jit=True).solve(SubsetSelectionProblem.random(8, 0.7, seed))\n"
            "sol = solve_knapsack(list(range(1, 60)), list(range(2, 61)), 500)\n"
            "print(sol.status.value, 'numba' in sys.modules)\n")
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=root, XDG_CACHE_HOME=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "nb"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root, env=env)
    assert out.stdout.split() == ["optimal", "False"]
    assert not (tmp_path / "cache").exists() and not (tmp_path / "nb").exists()
    assert [p for p in package.rglob("*") if p.is_file() and p.stat().st_mtime >= started
            and "__pycache__" not in p.parts] == []


@pytest.mark.parametrize("m", [9, 10, 11, 12, 19, 20, 21])
def test_numpy_path_at_the_enumeration_boundaries(m):
    """Knapsacks around the direct enumeration (10 items), the halves (20) and the dynamic program."""
    rng = np.random.default_rng(m)
    for _ in range(5):
        v, w = rng.integers(0, 60, m), rng.integers(0, 60, m)
        c = int(rng.integers(0, w.sum() + 1))
        p = SubsetSelectionProblem.from_knapsack(v, w, c)
        sol = get_solver("exact", jit=False).solve(p)
        assert sol.status is Status.OPTIMAL and sol.objective == knapsack_dp(v, w, c)
        assert sol.objective == get_solver("exact", jit=True).solve(p).objective


def test_exact_repr_shows_its_non_default_options():
    assert repr(get_solver("exact")) == "Exact()"
    assert repr(get_solver("exact", jit=np.True_)) == "Exact(jit=True)"  # numpy booleans are booleans
    assert repr(get_solver("exact", time_limit_s=2, memory_limit_mb=None, jit=True)) == \
        "Exact(time_limit_s=2, memory_limit_mb=None, jit=True)"
