"""to_csv / to_dataframe write the columns of constraint objects so the command line reads them back."""
import itertools

import numpy as np
import pytest

from subsel import LinearConstraint, QualityFloor, SubsetSelectionProblem
from subsel.models import read_agents


def make(constraints):
    return SubsetSelectionProblem([0.9, 0.8, 0.7], [0.1, 0.2, 0.1], alpha=0.75, capacity=[2, 2, 2],
                                  names=["a", "b", "c"], constraints=constraints)


def test_constraint_columns_round_trip_bit_for_bit(tmp_path):
    co2 = [0.1 + 0.2, 2.0, 1e-17]
    p = make([LinearConstraint(co2, upper=3.0, name="co2"), LinearConstraint(co2, lower=0.3, name="co2.2"),
              LinearConstraint([1, 0, 1], upper=1, name="pref.used", on="used"),
              QualityFloor([0.99, 0.9, 0.97], 0.95, name="ontime")])
    path = tmp_path / "agents.csv"
    p.to_csv(path)
    header = path.read_text().splitlines()[0]
    assert header == "name,quality,cost,capacity,co2,pref,ontime"

    def objects(table):
        return [LinearConstraint(table.numbers("co2"), upper=3.0, name="co2"),
                LinearConstraint(table.numbers("co2"), lower=0.3, name="co2.2"),
                LinearConstraint(table.numbers("pref"), upper=1, name="pref.used", on="used"),
                QualityFloor(table.numbers("ontime"), 0.95, name="ontime")]

    q = read_agents(path, alpha=0.75, columns={"co2": "test", "pref": "test", "ontime": "test"},
                    constraints_from=objects)
    for a, b in zip(p.added_constraints, q.added_constraints):
        assert a.name == b.name
        assert np.array_equal(getattr(a, "coef", getattr(a, "values", None)),
                              getattr(b, "coef", getattr(b, "values", None)))
    for x in itertools.product(range(3), repeat=3):
        a, b = p.evaluate(np.array(x)), q.evaluate(np.array(x))
        assert (a.feasible, a.violations, a.utility) == (b.feasible, b.violations, b.utility)


@pytest.mark.parametrize("constraints, match", [
    ([LinearConstraint([1, 2, 3], upper=3, name="co2"), LinearConstraint([1, 3, 3], lower=1, name="co2.2")],
     "the constraints 'co2' and 'co2.2' would write different numbers to the column 'co2'"),
    ([LinearConstraint([1, 2, 3], upper=3, name="cost")],
     "'cost' would write its coefficients to the agents file's column 'cost', which holds other numbers"),
    ([LinearConstraint([1, 1, 1], upper=3, name="name")], "column 'name'"),
])
def test_constraints_that_no_column_holds_are_refused_and_nothing_is_written(tmp_path, constraints, match):
    path = tmp_path / "agents.csv"
    with pytest.raises(ValueError, match=match):
        make(constraints).to_csv(path)
    assert not path.exists()


def test_a_constraint_on_an_agents_column_is_that_column():
    p = make([LinearConstraint([0.1, 0.2, 0.1], upper=0.3, name="cost")])
    assert list(p.to_dataframe().columns) == ["name", "quality", "cost", "capacity"]



@pytest.mark.parametrize("column", ["good", "inspected", "group"])
def test_a_constraint_named_like_an_agents_column_is_refused_and_nothing_written(tmp_path, column):
    path = tmp_path / "agents.csv"
    path.write_text("old\n")
    with pytest.raises(ValueError, match=f"column named '{column}'.*rename the constraint"):
        make([LinearConstraint([1, 2, 3], upper=4, name=column)]).to_csv(path)
    assert path.read_text() == "old\n"


def test_estimates_of_the_objective_are_refused_not_dropped(tmp_path):
    p = SubsetSelectionProblem.from_counts([48, 95, 30], [50, 100, 40], [0.1, 0.2, 0.1], 0.85,
                                           capacity=[20, 30, 10], names=["a", "b", "c"])
    path = tmp_path / "agents.csv"
    with pytest.raises(ValueError, match="objective_quality.*good,inspected"):
        p.to_csv(path)
    assert not path.exists()
