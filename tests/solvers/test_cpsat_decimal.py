"""ortools-cpsat on a planner's decimal data: what `subsel solvers` says it certifies is what it does."""
import pytest

from subsel import SubsetSelectionProblem, get_solver
from subsel.cli import main
from subsel.solvers import available_solvers

pytestmark = pytest.mark.skipif("ortools-cpsat" not in available_solvers(), reason="ortools is not installed")

DECIMAL = dict(quality=[0.576, 0.871, 0.958], cost=[4.74, 8.65, 10.93], alpha=0.85, R=14.0,
               capacity=[40, 15, 72], lot_size=[4, 1, 4], budget=900.0)
#: The same co-op on a binary grid (multiples of 1/1024 and 1/64): the integer scaling is exact.
DYADIC = dict(quality=[590 / 1024, 892 / 1024, 981 / 1024], cost=[303 / 64, 554 / 64, 700 / 64], alpha=870 / 1024,
              R=14.0, capacity=[40, 15, 72], lot_size=[4, 1, 4], budget=900.0)


def test_decimal_data_with_a_budget_is_feasible_not_optimal_and_the_table_says_so(capsys):
    p = SubsetSelectionProblem(**DECIMAL)
    cpsat, highs = get_solver("ortools-cpsat").solve(p), get_solver("highs").solve(p)
    assert highs.status.value == "optimal"
    assert cpsat.status.value == "feasible" and cpsat.objective == pytest.approx(highs.objective, rel=1e-9)
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    assert "\nortools-cpsat: does not certify decimal data: 'optimal' only where exact proves" in out


def test_data_on_a_binary_grid_is_certified():
    p = SubsetSelectionProblem(**DYADIC)
    cpsat, highs = get_solver("ortools-cpsat").solve(p), get_solver("highs").solve(p)
    assert cpsat.status.value == "optimal" and cpsat.objective == pytest.approx(highs.objective, rel=1e-9)
