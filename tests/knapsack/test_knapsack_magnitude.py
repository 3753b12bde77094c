"""No integer knapsack is refused for its magnitude: a problem built with ``from_knapsack`` keeps its
integers, decides its quality constraint on them beyond exact float64, and ``exact`` / ``dpss`` solve
it on the integer path; the MILP backends refuse it in one line.  Checked against brute force on
coefficients up to 10^12 and totals near 2^62, through the API and both commands."""
import contextlib
import io
import itertools
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel import SubsetSelectionProblem, get_solver, solve_knapsack
from subsel.cli import main
from subsel.solvers import _knapsack, available_solvers
from tests.strategies import int_brute_force, int_lex_optimum

LIMIT = 2 ** 62


@st.composite
def big_knapsacks(draw, m_max: int = 9):
    """``(values, weights, capacity)`` as Python ints: uniform up to 10^12, a large scale times small
    numbers plus an offset (many ties), or entries near ``2^62 / m`` (totals near 2^62)."""
    m = draw(st.integers(1, m_max))
    kind = draw(st.sampled_from(["uniform", "ties", "near_limit", "small"]))
    if kind == "uniform":
        coef = st.integers(0, 10 ** 12)
        values, weights = draw(st.lists(coef, min_size=m, max_size=m)), draw(st.lists(coef, min_size=m, max_size=m))
    elif kind in ("ties", "small"):
        scale = 1 if kind == "small" else draw(st.sampled_from([10 ** 12, 3 ** 25, 2 ** 54, 10 ** 8 + 7]))
        small, off = st.integers(0, 5), st.integers(0, 2)
        values = [a * scale + b for a, b in zip(draw(st.lists(small, min_size=m, max_size=m)),
                                                draw(st.lists(off, min_size=m, max_size=m)))]
        weights = [a * scale + b for a, b in zip(draw(st.lists(small, min_size=m, max_size=m)),
                                                 draw(st.lists(off, min_size=m, max_size=m)))]
    else:
        top = LIMIT // m
        near = st.integers(top - 2 ** 40, top)
        values = draw(st.lists(st.one_of(near, st.integers(0, 10)), min_size=m, max_size=m))
        weights = draw(st.lists(st.one_of(near, st.integers(0, 10)), min_size=m, max_size=m))
    assert sum(values) <= LIMIT and sum(weights) <= LIMIT
    total = sum(weights)
    capacity = draw(st.one_of(st.integers(0, total + 2), st.just(total // 2), st.just(10 ** 30)))
    return values, weights, capacity


def _fits(weights, capacity, x) -> bool:
    return x[0] in (0, 1) and sum(int(a) * b for a, b in zip(x[1:], weights)) <= x[0] * min(capacity, sum(weights))


@settings(max_examples=150, deadline=None)
@given(data=big_knapsacks(), lexicographic=st.booleans())
def test_exact_through_from_knapsack_matches_brute_force(data, lexicographic):
    values, weights, capacity = data
    p = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    assert p.knapsack is not None and p.knapsack.capacity == capacity
    sol = get_solver("exact", lexicographic=lexicographic).solve(p)
    assert sol.status.value == "optimal"
    y = sol.x[1:].tolist()
    best = int_brute_force(values, weights, capacity)
    assert p.knapsack.value(sol.x) == sum(a * b for a, b in zip(y, values)) == best
    assert p.knapsack.weight(sol.x) <= capacity
    if lexicographic:
        assert y == int_lex_optimum(values, weights, capacity)
    if not p.knapsack.exact_in_float64:  # the integer path: dpss answers the same optimum
        other = get_solver("dpss").solve(p)
        assert p.knapsack.value(other.x) == int_brute_force(values, weights, capacity)
        greedy = get_solver("gss").solve(p)  # a heuristic, checked in integers
        assert greedy.status.value == "feasible" and _fits(weights, capacity, greedy.x.tolist())


@settings(max_examples=150, deadline=None)
@given(data=big_knapsacks(m_max=6), rows=st.data())
def test_the_feasibility_rule_is_the_knapsack_in_integers(data, rows):
    """Every selection (anchor and items 0/1, plus a few out of bounds) is feasible exactly when it
    fits, whether or not float64 holds the encoding exactly."""
    values, weights, capacity = data
    p = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    for x in itertools.islice(itertools.product((0, 1), repeat=len(values) + 1), 64):
        assert p.evaluate(np.array(x)).feasible == _fits(weights, capacity, x), x
        assert p.evaluate(list(x)).feasible == _fits(weights, capacity, x)
    x = rows.draw(st.lists(st.integers(-1, 2), min_size=len(values) + 1, max_size=len(values) + 1))
    ev = p.evaluate(x)
    assert ev.feasible == (min(x) >= 0 and max(x) <= 1 and _fits(weights, capacity, x))


def test_milp_backends_refuse_beyond_exact_float64_and_verify_within():
    big = SubsetSelectionProblem.from_knapsack([10 ** 12, 10 ** 12 + 1, 3], [10 ** 12, 10 ** 12 - 1, 1], 10 ** 12)
    small = SubsetSelectionProblem.from_knapsack([10, 11, 3], [10, 9, 1], 10)
    names = [n for n in ("highs", "cbc", "ortools-scip", "ortools-cpsat") if n in available_solvers()]
    assert names
    for name in names:
        with pytest.raises(ValueError) as info:
            get_solver(name).solve(big)
        message = str(info.value)
        assert message.startswith(f"{name}: ") and "\n" not in message
        assert "1000000000001" in message and "'exact'" in message
        sol = get_solver(name).solve(small)  # within exact float64: solved and verified as before
        assert sol.status.value == "optimal" and sol.x.tolist() == [1, 0, 1, 1]
    assert get_solver("exact").solve(big).x.tolist() == [1, 0, 1, 1]  # 10^12 - 1 + 1 fits exactly


def test_the_paper_problem_and_small_knapsacks_stay_on_the_float_path():
    p = SubsetSelectionProblem.random(50, 0.6, rng=3)
    assert p.knapsack is None and p._integer_rule is None
    k = SubsetSelectionProblem.from_knapsack([4, 3, 2], [3, 2, 2], 5)
    assert k.knapsack.exact_in_float64 and k._integer_rule is None
    real = SubsetSelectionProblem.from_knapsack([4.5, 3, 2], [3, 2, 2.25], 5)
    assert real.knapsack is None
    # with_changes makes another problem: the knapsack's integers are not carried over.
    assert k.with_changes(alpha=0.5).knapsack is None and k.with_changes(budget=3).knapsack is None


def _run(argv) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


@settings(max_examples=40, deadline=None)
@given(data=big_knapsacks(m_max=7), pisinger=st.booleans())
def test_both_commands_answer_big_knapsack_files(data, pisinger):
    values, weights, capacity = data
    best = int_brute_force(values, weights, capacity)
    if pisinger:
        text = f"big\nn {len(values)}\nc {capacity}\n" + "".join(
            f"{j + 1},{p},{w},0\n" for j, (p, w) in enumerate(zip(values, weights))) + "-----\n"
    else:
        text = f"{len(values)} {capacity}\n" + "".join(f"{p} {w}\n" for p, w in zip(values, weights))
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "big.txt"
        f.write_text(text)
        code, out = _run(["knapsack", str(f), "--json"])
        assert code == 0, out
        d = json.loads(out)
        assert d["status"] == "optimal" and d["value"] == best and d["capacity"] == capacity
        code, out = _run(["solve", str(f), "--knapsack", "--json"])
        assert code == 0, out
        s = json.loads(out)
        items = s["x"] if "value" in s else s["x"][1:]  # the integer report, or the problem's agents
        assert sum(a * b for a, b in zip(items, values)) == best
        assert sum(a * b for a, b in zip(items, weights)) <= capacity


def test_read_knapsack_reads_integers_exactly(tmp_path):
    from subsel.models import read_knapsack

    f = tmp_path / "k.txt"
    f.write_text("2 9007199254740993\n9007199254740993 9007199254740993\n4602678819172646911 1\n")
    [inst] = read_knapsack(f)  # the profits sum to 2^62 exactly
    assert inst.values.dtype == np.int64 and inst.values.tolist() == [2 ** 53 + 1, 2 ** 62 - 2 ** 53 - 1]
    assert inst.capacity == 2 ** 53 + 1 and type(inst.capacity) is int
    p = inst.to_problem()
    assert p.knapsack.values.tolist() == [2 ** 53 + 1, 2 ** 62 - 2 ** 53 - 1]
    assert get_solver("exact").solve(p).x.tolist() == [1, 0, 1]
    f.write_text("2 10000000000000000000000000000000\n1 2\n3 4\n")  # a capacity of any size
    assert read_knapsack(f)[0].capacity == 10 ** 31
    f.write_text("2 1e399\n1 2\n3 4\n")  # beyond float64 too
    assert read_knapsack(f)[0].capacity == 10 ** 399
    assert get_solver("exact").solve(read_knapsack(f)[0].to_problem()).x.tolist() == [1, 1, 1]
    f.write_text("1 5\n2.0000000000000001 1\n")
    with pytest.raises(ValueError, match=rf"^{f}: line 2, column 'p': has a fractional part below float64's "
                                         r"resolution"):
        read_knapsack(f)


def test_a_knapsack_beyond_float64_is_never_changed_batched_or_decided_on_its_floats():
    """Its floats alone would call [1, 1, 1] (weight 2e9 > 2e9 - 1) feasible: every route that would
    drop the integers refuses in one line, and solving it as it is stays right."""
    import subsel
    from subsel.models import ProblemBatch

    p = SubsetSelectionProblem.from_knapsack([47, 22], [10 ** 9, 10 ** 9], 2 * 10 ** 9 - 1)
    assert p._integer_rule is not None and not p.evaluate(np.array([1, 1, 1])).feasible
    assert get_solver("exact").solve(p).x.tolist() == [1, 1, 0]
    refusals = [lambda: p.with_changes(alpha=p.alpha), lambda: p.with_changes(must_take=["item_0"]),
                lambda: ProblemBatch.from_problems([p]), lambda: subsel.alternatives(p, 2),
                lambda: subsel.frontier(p, [p.alpha], solver="highs"), lambda: subsel.payments(p)]
    for refuse in refusals:
        with pytest.raises(ValueError, match="beyond exact float64") as info:
            refuse()
        assert "\n" not in str(info.value)


def _offset_optimum(values: list[int], weights: list[int], capacity: int) -> int:
    """The exact optimum when every weight is ``B + o_j`` with small offsets ``o_j``: a dynamic
    program over (items taken, sum of offsets), in Python integers."""
    base = min(weights)
    off = [w - base for w in weights]
    total = sum(off)
    best = [[-1] * (total + 1) for _ in range(len(values) + 1)]
    best[0][0] = 0
    for j, (v, o) in enumerate(zip(values, off)):
        for count in range(j, -1, -1):
            row, nxt = best[count], best[count + 1]
            for s in range(total - o, -1, -1):
                if row[s] >= 0 and row[s] + v > nxt[s + o]:
                    nxt[s + o] = row[s] + v
    return max(best[k][s] for k in range(len(values) + 1) for s in range(total + 1)
               if best[k][s] >= 0 and base * k + s <= capacity)


#: Ratios that float64 orders wrongly: values and weights above 2^53 are rounded when converted,
#: so ``fl(v) / fl(w)`` can rank an item above one whose exact ratio is larger.
NEAR_EQUAL = ([135637824071392760, 135637824071392760, 135637824071392764, 135637824071392760,
               135637824071392761, 135637824071392761, 135637824071392765, 135637824071392766,
               135637824071392760, 135637824071392764, 135637824071392765, 135637824071392760,
               135637824071392760, 135637824071392761, 135637824071392764, 135637824071392765,
               135637824071392760, 135637824071392762, 135637824071392763, 135637824071392764,
               135637824071392761],
              [135637824071393751, 135637824071393755, 135637824071393755, 135637824071393752,
               135637824071393755, 135637824071393752, 135637824071393755, 135637824071393756,
               135637824071393755, 135637824071393755, 135637824071393756, 135637824071393751,
               135637824071393752, 135637824071393752, 135637824071393754, 135637824071393755,
               135637824071393754, 135637824071393752, 135637824071393754, 135637824071393755,
               135637824071393752],
              1763291712928118803)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(21, 34), spread=st.sampled_from([1, 2, 5]), vspread=st.sampled_from([0, 1, 3, 1000]),
       scale=st.sampled_from(["limit", "2^52", "2^40"]), seed=st.integers(0, 2 ** 32 - 1),
       correlated=st.booleans(), near=st.booleans())
def test_near_equal_ratios_beyond_float64_are_ordered_exactly(n, spread, vspread, scale, seed, correlated, near):
    """Weights ``B + o_j`` and values ``V - d_j`` with ``B`` up to ``2^62 / n``: efficiencies equal to
    a few ulps, ordered wrongly by floats above 2^53; the dynamic program (numpy loop and kernel)
    against an exact optimum, with the capacity next to a multiple of ``B``."""
    rng = np.random.default_rng(seed)
    base = {"limit": LIMIT // n - 10, "2^52": 2 ** 52 - 7, "2^40": 2 ** 40}[scale]
    off = rng.integers(0, spread + 1, n).tolist()
    weights = [base + o for o in off]
    top = LIMIT // n - 1000 if scale == "limit" else base - 1000
    values = [top - int(d) for d in rng.integers(0, vspread + 1, n)]
    if correlated:
        values = [v + o * int(rng.integers(0, 2)) for v, o in zip(values, off)]
    k = int(rng.integers(1, n))
    capacity = base * k + (int(rng.integers(0, spread * n + 2)) if near else int(rng.integers(0, base)))
    want = _offset_optimum(values, weights, capacity)
    sol = solve_knapsack(values, weights, capacity)
    assert sol.optimal and sol.value == want and sol.bound == want
    # The 64-bit integer path itself (the API takes it above 2^52 only).
    v64, w64 = np.array(values, dtype=np.int64), np.array(weights, dtype=np.int64)
    res = _knapsack.solve_knapsack(v64, w64, capacity)
    assert res.optimal and int(v64[res.take].sum()) == want and int(w64[res.take].sum()) <= capacity


def test_an_instance_floats_order_wrongly_is_solved_exactly():
    values, weights, capacity = NEAR_EQUAL
    want = _offset_optimum(values, weights, capacity)
    assert want == 1763291712928105925
    for lexicographic in (False, True):
        sol = solve_knapsack(values, weights, capacity, lexicographic=lexicographic)
        assert (sol.status.value, sol.value, sol.bound) == ("optimal", want, want)
        assert sum(x * w for x, w in zip(sol.x.tolist(), weights)) <= capacity
