"""ProblemBatch: validated once by the problem's rules, and row j behaves exactly as a problem."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.models import ProblemBatch, SubsetSelectionProblem
from subsel.models._rules import rowdot, weighted_sum
from tests.strategies import problem_batches, problems

Q = [[0.9, 0.5, 0.3], [0.2, 0.8, 0.6]]
C = [0.1, 0.2, 0.3]


def make(**kw):
    args = dict(quality=Q, cost=C, alpha=0.6)
    args.update(kw)
    return ProblemBatch(**args)


def test_shared_and_per_row_arguments_broadcast_without_copies():
    b = make(alpha=[0.6, 0.7], R=2.0, capacity=[1, 2, 3])
    assert b.shape == (2, 3) and b.m == 2 and len(b) == 2
    assert b.cost.shape == (2, 3) and b.cost.strides[0] == 0  # one shared row, broadcast
    assert b.alpha.tolist() == [0.6, 0.7] and b.R.tolist() == [2.0, 2.0]
    assert b.capacity.tolist() == [[1, 2, 3], [1, 2, 3]]
    for arr in (b.quality, b.cost, b.alpha, b.R, b.capacity, b.utility, b.quality_margin):
        assert not arr.flags.writeable


def test_all_shared_arguments_make_one_row():
    b = ProblemBatch(quality=[0.9, 0.5], cost=[0.1, 0.2], alpha=0.6)
    assert b.shape == (1, 2)


def test_the_input_is_copied():
    q = np.array(Q)
    b = make(quality=q)
    q[0, 0] = 0.0
    assert b.quality[0, 0] == 0.9


@pytest.mark.parametrize("kw, error, match", [
    (dict(quality=[[0.9, math.nan, 0.3], [0.2, 0.8, 0.6]]), ValueError, r"^quality\[0, 1\] must be a finite number"),
    (dict(quality=[[0.9, 0.5, 0.3], [0.2, 1.5, 0.6]]), ValueError, r"^quality\[1, 1\] must be in \[0, 1\]; got 1.5"),
    (dict(cost=[0.1, -0.2, 0.3]), ValueError, r"^cost\[1\] must be >= 0; got -0.2"),
    (dict(cost=[[0.1, 0.2, 0.3], [0.1, 0.2, -1.0]]), ValueError, r"^cost\[1, 2\] must be >= 0"),
    (dict(cost=[0.1, 0.2]), ValueError, r"^cost has 2 entries per row but quality has 3"),
    (dict(cost=[[0.1, 0.2, 0.3]] * 3), ValueError, r"^cost has 3 rows but quality has 2"),
    (dict(quality=[[[0.5]]]), ValueError, r"^quality must have 1 or 2 dimensions; got shape \(1, 1, 1\)"),
    (dict(quality=[[], []], cost=[]), ValueError, r"^quality must hold at least one agent"),
    (dict(quality=np.zeros((0, 3))), ValueError, r"at least one problem; got 0 rows"),
    (dict(alpha=1.5), ValueError, r"^alpha must be in \[0, 1\]; got 1.5"),
    (dict(alpha=[0.5, -0.5]), ValueError, r"^alpha\[1\] must be in \[0, 1\]; got -0.5"),
    (dict(alpha=[0.5, 0.5, 0.5]), ValueError, r"^alpha has 3 rows but quality has 2"),
    (dict(alpha=math.nan), ValueError, r"^alpha must be a finite number; got nan"),
    (dict(alpha="0.5"), TypeError, r"^alpha must be a number; got '0.5'"),
    (dict(R=0.0), ValueError, r"^R must be > 0; got 0.0"),
    (dict(R=[1.0, -2.0]), ValueError, r"^R\[1\] must be > 0; got -2.0"),
    (dict(capacity=[1, 0, 2]), ValueError, r"^capacity\[1\] must be a positive integer; got 0$"),
    (dict(capacity=[[1, 1, 1], [1, 1.5, 1]]), ValueError, r"^capacity\[1, 1\] must be a positive integer; got 1.5"),
    (dict(objective_quality=[0.5, 0.5, 2.0]), ValueError, r"^objective_quality\[2\] must be in \[0, 1\]"),
    (dict(quality=[[True, False, True]] * 2), TypeError, r"^quality\[0, 0\] must be a number, not a boolean"),
    (dict(cost="abc"), TypeError, r"^cost must be an array of numbers"),
    (dict(names=["a", "b", "a"]), ValueError, r"^names\[2\] duplicates names\[0\]; got 'a'"),
    (dict(budget=-1.0), ValueError, r"^budget must be >= 0; got -1.0"),
    (dict(demand=1.5), ValueError, r"^demand must be a non-negative integer; got 1.5"),
    (dict(must_take=[5]), ValueError, r"^must_take\[0\] must be an agent index in \[0, 2\]; got 5"),
    (dict(must_take=[0], must_not_take=[0]), ValueError, r"agent 0 \('0'\) is in both"),
])
def test_every_rule_names_the_field_and_row(kw, error, match):
    with pytest.raises(error, match=match):
        make(**kw)


def test_frozen():
    b = make()
    with pytest.raises(AttributeError):
        b.alpha = 0.1
    with pytest.raises(ValueError):
        b.quality[0, 0] = 0.5


@settings(max_examples=60)
@given(batch=problem_batches(n_max=6, cap_max=2, grid=True, objective=True))
def test_rows_partition_and_evaluate_agree_with_the_problem(batch):
    S = batch.partition()
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, size=batch.shape)
    ev = batch.evaluate(x)
    for j in range(batch.m):
        p = batch.row(j)
        direct = SubsetSelectionProblem(quality=batch.quality[j], cost=batch.cost[j], alpha=batch.alpha[j],
                                        capacity=batch.capacity[j], R=batch.R[j],
                                        objective_quality=batch.objective_quality[j])
        assert p.utility.tolist() == direct.utility.tolist()
        for mask, idx in zip(S, direct.partition()):
            assert np.flatnonzero(mask[j]).tolist() == idx.tolist()
        one = direct.evaluate(x[j])
        assert bool(ev.feasible[j]) == one.feasible and ev.violations[j] == one.violations
        assert ev.utility[j] == one.utility and ev.units[j] == one.units
        assert ev.avg_quality[j] == one.avg_quality or (math.isnan(one.avg_quality) and math.isnan(ev.avg_quality[j]))


@settings(max_examples=40)
@given(p=problems(n_max=6, cap_max=2, extensions=True, grid=True), data=st.data())
def test_shared_extensions_are_checked_row_by_row(p, data):
    batch = ProblemBatch.from_problems([p, p.with_changes(alpha=data.draw(st.sampled_from([0.0, 0.5, 1.0])))])
    x = np.array(data.draw(st.lists(st.lists(st.integers(0, 2), min_size=p.n, max_size=p.n),
                                    min_size=2, max_size=2)))
    ev = batch.evaluate(x)
    for j in range(2):
        one = batch.row(j).evaluate(x[j])
        assert bool(ev.feasible[j]) == one.feasible and ev.violations[j] == one.violations


def test_evaluate_rejects_bad_selections():
    b = make()
    with pytest.raises(ValueError, match=r"x must have shape \(2, 3\); got \(3,\)"):
        b.evaluate([1, 1, 1])
    with pytest.raises(ValueError, match=r"x\[1, 2\] must be a finite number; got nan"):
        b.evaluate([[0, 0, 0], [0, 0, math.nan]])
    ev = b.evaluate([[0, 0, 0.5], [0, 0, 0]])
    assert ev.feasible.tolist() == [False, True]
    assert ev.violations[0][0].startswith("integrality: x[2] = 0.5")


def test_from_problems_requires_what_a_batch_shares():
    p = SubsetSelectionProblem(quality=[0.9, 0.5], cost=[0.1, 0.2], alpha=0.6)
    with pytest.raises(ValueError, match=r"problems\[1\] has 3 agents but problems\[0\] has 2"):
        ProblemBatch.from_problems([p, SubsetSelectionProblem(quality=[0.9, 0.5, 0.1], cost=[0, 0, 0], alpha=0.6)])
    with pytest.raises(ValueError, match=r"problems\[1\] differs from problems\[0\] in budget"):
        ProblemBatch.from_problems([p, p.with_changes(budget=1.0)])
    with pytest.raises(ValueError, match=r"problems\[1\] differs from problems\[0\] in must_take"):
        ProblemBatch.from_problems([p, p.with_changes(must_take=[0])])
    with pytest.raises(TypeError, match=r"problems\[0\] must be a SubsetSelectionProblem"):
        ProblemBatch.from_problems([1])
    with pytest.raises(ValueError, match="at least one problem"):
        ProblemBatch.from_problems([])
    b = ProblemBatch.from_problems([p, p.with_changes(alpha=0.3, R=2.0)])
    assert b.alpha.tolist() == [0.6, 0.3] and b.R.tolist() == [1.0, 2.0]


def test_row_index_errors():
    b = make()
    assert b.row(-1).quality.tolist() == Q[1]
    with pytest.raises(IndexError, match="row 2 is out of range for a batch of 2 problems"):
        b.row(2)


@pytest.mark.parametrize("n", [5, 8192, 8193, 20_000])
def test_rowdot_rounds_like_the_one_problem_inner_product(n):
    rng = np.random.default_rng(n)
    x, v = rng.random((3, n)), rng.random((3, n)) - 0.5
    assert rowdot(x, v).tolist() == [float(weighted_sum(x[j], v[j])) for j in range(3)]


@pytest.mark.parametrize("R, capacity", [(1.0, None), (2.5, [1, 3, 2])])
def test_with_changes_of_the_qualities_equals_a_fresh_batch(R, capacity):
    rng = np.random.default_rng(3)
    base = make(R=R, capacity=capacity)
    q = rng.random((2, 3))
    new = base.with_changes(quality=q, alpha=0.6)
    fresh = ProblemBatch(quality=q, cost=C, alpha=0.6, R=R, capacity=capacity)
    for key in ("quality", "cost", "alpha", "R", "capacity", "utility", "quality_margin"):
        assert np.array_equal(getattr(new, key), getattr(fresh, key)), key
        assert getattr(new, key).shape == getattr(fresh, key).shape
    assert all(np.array_equal(a, b) for a, b in zip(new.partition(), fresh.partition()))
    x = rng.integers(0, 3, size=(2, 3))
    assert new.evaluate(x).feasible.tolist() == fresh.evaluate(x).feasible.tolist()
    assert new.evaluate(x).violations == fresh.evaluate(x).violations
    assert new.extensions == fresh.extensions and new.names == fresh.names
    # the qualities are copied and read-only; the old batch is untouched
    q[0, 0] = 0.123
    assert new.quality[0, 0] != 0.123 and not new.quality.flags.writeable
    assert base.quality.tolist() == Q
    # the utility of R = 1 (one pass) is R q - c bit for bit
    assert np.array_equal(new.utility, R * new.quality - new.cost)


@pytest.mark.parametrize("q, error, match", [
    ([[0.5, math.nan, 0.5], [0.5, 0.5, 0.5]], ValueError, r"quality\[0, 1\] must be a finite number; got nan"),
    ([[0.5, 0.5, 0.5], [0.5, 0.5, 1.5]], ValueError, r"quality\[1, 2\] must be in \[0, 1\]; got 1.5"),
    ([[0.5, 0.5, 0.5], [-0.1, 0.5, 0.5]], ValueError, r"quality\[1, 0\] must be in \[0, 1\]; got -0.1"),
    ([[0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]], ValueError, r"has 3 entries( per row)? but quality has 4"),
    ([[True, False, True], [True, True, True]], TypeError, "not booleans"),
])
def test_with_changes_checks_new_qualities_like_the_constructor(q, error, match):
    with pytest.raises(error, match=match):
        make().with_changes(quality=np.array(q), alpha=0.6)


def test_with_changes_of_the_threshold_or_objective_takes_the_general_path():
    b = make()
    assert b.with_changes(quality=np.array(Q), alpha=0.7).alpha.tolist() == [0.7, 0.7]
    oq = b.with_changes(quality=np.array(Q), objective_quality=np.ones((2, 3)))
    assert np.array_equal(oq.utility, np.ones((2, 3)) - np.array([C, C]))
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]; got 1.5"):
        b.with_changes(quality=np.array(Q), alpha=1.5)


def test_evaluate_with_capacities_summing_past_2_63_still_checks_the_quality_rule():
    n = 1100  # n * 2^53 > 2^63: a sum of the capacities in int64 would wrap
    b = ProblemBatch(quality=np.zeros((2, n)), cost=np.zeros(n), alpha=0.5, capacity=np.full(n, 2 ** 53))
    x = np.zeros((2, n), dtype=np.int64)
    x[0, 0] = 1  # surplus -0.5: infeasible
    ev = b.evaluate(x)
    assert ev.feasible.tolist() == [False, True]
    assert ev.feasible.tolist() == [b.row(j).evaluate(x[j]).feasible for j in range(2)]


def test_with_changes_to_another_agent_count_names_the_field_left_behind():
    rng = np.random.default_rng(0)
    b = ProblemBatch(quality=rng.random((5, 4)), cost=np.full(4, 0.1), alpha=0.5)
    with pytest.raises(ValueError, match=r"^cost has 4 entries per row but quality has 3; .*\(change cost too\)"):
        b.with_changes(quality=np.full((5, 3), 0.9))
    with pytest.raises(ValueError, match=r"^names has 4 entries but quality has 3; .*\(change names too\)"):
        b.with_changes(quality=np.full((5, 3), 0.9), cost=np.full(3, 0.1))
    c = b.with_changes(quality=np.full((5, 3), 0.9), cost=np.full(3, 0.1), names=["a", "b", "c"])
    assert c.n == 3 and c.names == ("a", "b", "c")


def test_a_batch_takes_the_planners_fields_and_constraint_objects():
    """Every constraint a single problem takes, shared by the rows; row j of evaluate is the row's own."""
    from subsel import LinearConstraint, QualityFloor
    from subsel.solvers import get_solver

    cons = [LinearConstraint([1, 1, 1], upper=3, name="cases"), QualityFloor([0.9, 0.5, 0.99], 0.8, name="ontime"),
            LinearConstraint([1, 1, 0], upper=1, name="one", on="used")]
    b = ProblemBatch(quality=[[0.9, 0.6, 0.8], [0.5, 0.95, 0.7]], cost=[0.1, 0.1, 0.1], alpha=0.7,
                     capacity=[[2, 2, 2], [3, 1, 1]], min_units=[2, 1, 1], fixed_cost=[0.5, 0, 0], constraints=cons,
                     group=["g", "g", None], group_limits={"g": {"max_units": 2}})
    assert b.extensions == {"fixed_cost", "min_units", "group_limits", "linear", "linear_used", "quality_floor"}
    rng = np.random.default_rng(5)
    for _ in range(30):
        x = np.stack([rng.integers(0, k + 1) for k in b.capacity])
        ev = b.evaluate(x)
        for j in range(b.m):
            one = b.row(j).evaluate(x[j])
            assert ev.feasible[j] == one.feasible and ev.violations[j] == one.violations
            assert ev.utility[j] == one.utility
    answers = get_solver("highs").solve_batch(b)
    for j in range(b.m):
        assert answers[j].objective == pytest.approx(get_solver("highs").solve(b.row(j)).objective, abs=1e-9)
    with pytest.raises(ValueError, match="does not support the 'group_limits' constraint"):
        get_solver("gss").solve_batch(b)
    with pytest.raises(ValueError, match="does not support the constraint 'cases'"):
        get_solver("gss").solve_batch(b.with_changes(group=None, group_limits=None))
    same = ProblemBatch.from_problems(b.rows())
    assert same.extensions == b.extensions and same.constraints == b.constraints
    assert b.with_changes(alpha=0.5).constraints == b.constraints
    with pytest.raises(ValueError, match=r"min_units\[0\] must be at most the capacity 1; got 2 \(against "
                                         r"the capacities of row 1\)"):
        ProblemBatch(quality=[[0.9, 0.6], [0.5, 0.95]], cost=[0.1, 0.1], alpha=0.7, capacity=[[2, 2], [1, 1]],
                     min_units=[2, 1])
    other = b.row(0).with_changes(constraints=[LinearConstraint([1, 1, 1], upper=3, name="cases")])
    with pytest.raises(ValueError, match="differs from problems\\[0\\] in constraints"):
        ProblemBatch.from_problems([b.row(0), other])
