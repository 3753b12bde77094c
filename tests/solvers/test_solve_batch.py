"""``Solver.solve_batch``: one checked Solution per row of a ProblemBatch, equal to ``solve`` row by row."""
import numpy as np
import pytest
from hypothesis import given, settings

from subsel import SubsetSelectionProblem
from subsel.models import ProblemBatch
from subsel.solvers import RawResult, SolutionBatch, Solver, SolverError, Status, get_solver
from tests.strategies import must_list_problems, problem_batches


def per_problem(solver: Solver, batch: ProblemBatch) -> np.ndarray:
    return np.array([solver.solve(batch.row(j)).x for j in range(batch.m)])


def assert_same_answers(solver: Solver, batch: ProblemBatch) -> None:
    answers = solver.solve_batch(batch)
    assert isinstance(answers, SolutionBatch) and len(answers) == batch.m
    for j in range(batch.m):
        one = solver.solve(batch.row(j))
        assert answers[j].x.tolist() == one.x.tolist()
        assert answers[j].status is one.status
        assert answers[j].objective == one.objective
        assert answers.objective[j] == one.objective
        assert answers[j].avg_quality == one.avg_quality or np.isnan(one.avg_quality)
    assert answers.x.tolist() == per_problem(solver, batch).tolist()


@pytest.mark.parametrize("name", ["dpss", "gss"])
@settings(max_examples=60)
@given(batch=problem_batches(n_max=9, grid=True, objective=True))
def test_batched_equals_per_problem_on_grid(name, batch):
    assert_same_answers(get_solver(name), batch)


@pytest.mark.parametrize("name", ["dpss", "gss"])
@settings(max_examples=60)
@given(batch=problem_batches(n_max=10, m_max=10))
def test_batched_equals_per_problem_continuous(name, batch):
    assert_same_answers(get_solver(name), batch)


@pytest.mark.parametrize("name", ["dpss", "gss"])
@settings(max_examples=40)
@given(batch=problem_batches(n_max=6, cap_max=3, grid=True))
def test_batched_equals_per_problem_with_capacities(name, batch):
    assert_same_answers(get_solver(name), batch)


@pytest.mark.parametrize("name", ["dpss", "gss"])
@settings(max_examples=40)
@given(problem=must_list_problems(n_max=6))
def test_batches_with_must_lists_equal_per_problem(name, problem):
    """Must lists are shared by the rows; infeasible rows keep their status and a zero x."""
    other = problem.with_changes(quality=problem.quality[::-1].copy())
    batch = ProblemBatch.from_problems([problem, other])
    solver = get_solver(name)
    answers = solver.solve_batch(batch)
    for j, p in enumerate((problem, other)):
        one = solver.solve(p)
        assert answers[j].status is one.status
        assert answers[j].x.tolist() == one.x.tolist()
        assert bool(answers.is_feasible[j]) == one.is_feasible


@pytest.mark.parametrize("name", ["dpss", "gss"])
def test_batched_equals_per_problem_with_extreme_ratios(name):
    """Tiny |q - alpha| makes GSS's sort keys overflow to inf; the order must still match."""
    batch = ProblemBatch(quality=np.array([[5e-324, 0.5, 1e-300, 0.0], [1.0, 1.0 - 1e-16, 0.3, 1.0]]),
                         cost=np.array([[0.9, 0.1, 0.5, 0.0], [0.0, 1.0, 0.2, 1.0]]),
                         alpha=np.array([0.0, 1.0 - 1e-16]))
    solver = get_solver(name)
    with np.errstate(over="ignore"):
        expected = per_problem(solver, batch)
    assert solver.solve_batch(batch).x.tolist() == expected.tolist()


def test_base_default_solves_row_by_row():
    """A backend without a vectorised kernel answers through the default loop (here DPSS's parent)."""
    batch = ProblemBatch(quality=np.array([[0.9, 0.6, 0.2], [0.5, 0.95, 0.8]]), cost=np.full(3, 0.1),
                         alpha=0.7)
    dpss = get_solver("dpss")
    raw = Solver._solve_batch(dpss, batch)
    assert raw.x.tolist() == dpss.solve_batch(batch).x.tolist()
    assert list(raw.status) == [Status.OPTIMAL, Status.OPTIMAL]


def test_batched_dpss_falls_back_for_many_free_agents():
    """Rows with more than 20 free agents (|S2 ∪ S3| > 20) are enumerated one by one, mixed with fast rows."""
    rng = np.random.default_rng(5)
    n = 21
    q = np.vstack([rng.uniform(0.1, 0.6, n), rng.random(n)])  # row 0: every agent in S3
    c = np.vstack([np.zeros(n), rng.random(n)])
    batch = ProblemBatch(quality=q, cost=c, alpha=np.array([0.65, 0.7]))
    assert_same_answers(get_solver("dpss"), batch)


def test_solution_batch_is_a_sequence_of_solutions():
    batch = ProblemBatch(quality=[[0.9, 0.6, 0.2], [0.5, 0.95, 0.8], [0.1, 0.2, 0.3]], cost=0.1 * np.ones(3),
                         alpha=0.7)
    answers = get_solver("gss").solve_batch(batch)
    assert len(answers) == 3 and answers.x.shape == (3, 3) and not answers.x.flags.writeable
    assert [s.x.tolist() for s in answers] == answers.x.tolist()
    assert answers[-1] is answers[2]
    assert [s.status for s in answers[0:2]] == [Status.FEASIBLE, Status.FEASIBLE]
    assert answers.status == (Status.FEASIBLE,) * 3 and answers.bound == (None,) * 3
    assert answers[2].x.tolist() == [0, 0, 0] and np.isnan(answers[2].avg_quality)
    assert answers[0].objective == pytest.approx(0.8 + 0.5)
    with pytest.raises(IndexError, match="row 3 is out of range for a batch of 3"):
        answers[3]
    with pytest.raises(TypeError, match="indexed by row number"):
        answers["0"]


def test_solve_batch_rejects_a_problem():
    p = SubsetSelectionProblem(quality=[0.9], cost=[0.1], alpha=0.5)
    with pytest.raises(TypeError, match="batch must be a ProblemBatch; got SubsetSelectionProblem"):
        get_solver("gss").solve_batch(p)


def test_unsupported_extension_is_refused_for_a_batch():
    batch = ProblemBatch(quality=[[0.9, 0.6]], cost=[0.1, 0.1], alpha=0.7, budget=1.0)
    with pytest.raises(ValueError, match="does not support the 'budget' constraint"):
        get_solver("gss").solve_batch(batch)


class _Liar(Solver):
    """Answers every row with every unit: infeasible whenever an agent is below alpha."""

    name = "liar"

    def _solve(self, problem):
        return RawResult(np.asarray(problem.capacity), Status.OPTIMAL)


class _Silent(Solver):
    name = "silent"

    def _solve(self, problem):
        return RawResult(None, Status.OPTIMAL)


def test_batch_answers_are_checked_row_by_row():
    batch = ProblemBatch(quality=[[0.9, 0.8], [0.9, 0.1]], cost=[0.1, 0.1], alpha=0.7)
    with pytest.raises(SolverError, match=r"liar: returned an infeasible selection for batch row 1 \(quality"):
        _Liar().solve_batch(batch)
    with pytest.raises(SolverError, match="silent: batch row 0 has status optimal but no selection"):
        _Silent().solve_batch(batch)


class _Fixed(Solver):
    """Returns the same answer for a problem and for every row of a batch."""

    name = "fixed"

    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def _solve(self, problem):
        return RawResult(np.asarray(self.answer), Status.FEASIBLE)


@pytest.mark.parametrize("answer, single, batch", [
    ([0.0, 0.25], r"^fixed: returned a fractional value x\[1\] = 0\.25$",
     r"^fixed: returned a fractional value x\[0, 1\] = 0\.25 \(batch row 0\)$"),
    ([1, 0, 0], r"^fixed: returned x of shape \(3,\), expected \(2,\)$",
     r"^fixed: returned x of shape \(3,\) for batch row 0, expected \(2,\)$"),
])
def test_single_and_batch_answers_pass_one_check(answer, single, batch):
    """solve and solve_batch check an answer by the same rule and say the same thing about it."""
    problem = SubsetSelectionProblem(quality=[0.9, 0.8], cost=[0.1, 0.1], alpha=0.7)
    with pytest.raises(SolverError, match=single):
        _Fixed(answer).solve(problem)
    with pytest.raises(SolverError, match=batch):
        _Fixed(answer).solve_batch(ProblemBatch(quality=[[0.9, 0.8], [0.9, 0.8]], cost=[0.1, 0.1], alpha=0.7))


def test_an_answer_a_hair_from_integral_is_rounded_alike():
    problem = SubsetSelectionProblem(quality=[0.9, 0.8], cost=[0.1, 0.1], alpha=0.7)
    one = _Fixed([1 - 1e-9, 1e-9]).solve(problem)
    many = _Fixed([1 - 1e-9, 1e-9]).solve_batch(ProblemBatch(quality=[[0.9, 0.8]] * 3, cost=[0.1, 0.1], alpha=0.7))
    assert one.x.tolist() == [1, 0] and many.x.tolist() == [[1, 0]] * 3
