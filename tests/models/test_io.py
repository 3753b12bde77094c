"""CSV / DataFrame round trips and bad cells; the knapsack encoding against brute force."""
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from subsel.models import SubsetSelectionProblem
from subsel.solvers import get_solver
from tests.strategies import knapsack_brute_force, knapsacks, problems


@settings(max_examples=30)
@given(problems(n_max=6, cap_max=3))
def test_csv_round_trip(tmp_path_factory, problem):
    path = tmp_path_factory.mktemp("csv") / "agents.csv"
    problem.to_csv(path)
    back = SubsetSelectionProblem.from_csv(path, alpha=problem.alpha, R=problem.R)
    assert np.array_equal(back.quality, problem.quality)
    assert np.array_equal(back.cost, problem.cost)
    assert np.array_equal(back.capacity, problem.capacity)
    assert back.names == problem.names


def test_dataframe_round_trip_and_columns():
    p = SubsetSelectionProblem(quality=[0.9, 0.4], cost=[0.1, 0.3], capacity=[2, 1], alpha=0.6,
                               names=["x", "y"])
    df = p.to_dataframe()
    assert list(df.columns) == ["name", "quality", "cost", "capacity"]
    back = SubsetSelectionProblem.from_dataframe(df, alpha=0.6)
    assert back.names == ("x", "y")
    assert back.capacity.tolist() == [2, 1]
    assert back.quality.tolist() == [0.9, 0.4]


def test_csv_from_stream_names_the_stream():
    stream = io.StringIO("name,quality,cost\na,0.5,0.1\nb,0.7,oops\n")
    stream.name = "<stdin>"
    with pytest.raises(ValueError, match=r"^<stdin>: line 3, column 'cost': expected a number; got 'oops'"):
        SubsetSelectionProblem.from_csv(stream, alpha=0.5)


@pytest.mark.parametrize("text, line, column, got", [
    ("name,quality,cost\na,0.5,0.1\nb,,0.2\n", 3, "quality", "''"),
    ("name,quality,cost,capacity\na,0.5,0.1,two\n", 2, "capacity", "'two'"),
    ("name,quality,cost\na,0.5,0.1\nb,0.5,0.1\nc,1.5,0.1\n", 4, "quality", "1.5"),
    ("name,quality,cost\na,0.5,-3\n", 2, "cost", "-3.0"),
])
def test_csv_bad_cell_names_file_line_and_column(tmp_path, text, line, column, got):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=rf"bad.csv: line {line}, column '{column}': .*got {got}"):
        SubsetSelectionProblem.from_csv(path, alpha=0.5)


def test_csv_missing_column_and_duplicate_name(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("name,quality\na,0.5\n")
    with pytest.raises(ValueError, match=r"a.csv: column 'cost' is missing"):
        SubsetSelectionProblem.from_csv(path, alpha=0.5)
    path.write_text("name,quality,cost\na,0.5,0.1\na,0.6,0.1\n")
    with pytest.raises(ValueError, match=r"a.csv: line 3, column 'name': duplicates"):
        SubsetSelectionProblem.from_csv(path, alpha=0.5)


def test_dataframe_bad_cell_names_row_and_column():
    df = pd.DataFrame({"quality": ["0.5", "x"], "cost": ["0.1", "0.2"]})
    with pytest.raises(ValueError, match=r"^row 1, column 'quality': expected a number; got 'x'"):
        SubsetSelectionProblem.from_dataframe(df, alpha=0.5)


@settings(max_examples=60)
@given(knapsacks(m_max=7))
def test_from_knapsack_gives_the_knapsack_optimum(instance):
    values, weights, capacity = instance
    problem = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    sol = get_solver("dpss").solve(problem)
    assert sol.objective == pytest.approx(knapsack_brute_force(values, weights, capacity), abs=1e-9)
    # x[1:] is a knapsack solution of that value
    chosen = sol.x[1:]
    assert chosen @ np.array(weights) <= capacity + 1e-9
    assert chosen @ np.array(values) == pytest.approx(sol.objective, abs=1e-9)


@settings(max_examples=30)
@given(knapsacks(m_max=6, integer=False))
def test_from_knapsack_real_data(instance):
    values, weights, capacity = instance
    problem = SubsetSelectionProblem.from_knapsack(values, weights, capacity)
    sol = get_solver("dpss").solve(problem)
    assert sol.objective == pytest.approx(knapsack_brute_force(values, weights, capacity), abs=1e-6)


@pytest.mark.parametrize("content, match", [
    ("name,quality,cost\na,0.5,0.1\nb,0.6,0.2,9\n", r"agents.csv: line 3: 4 fields but the header has 3"),
    ("name,quality,cost\na,0.5\n", r"agents.csv: line 2: 2 fields but the header has 3"),
    ("name,quality,cost,quality\na,0.5,0.1,0.7\n",
     r"agents.csv: line 1: column 4 repeats the header 'quality' of column 2"),
    ("name,quality,cost\na,0.5,0.1\n,0.6,0.2\n", r"agents.csv: line 3, column 'name': must be a non-empty"),
])
def test_csv_shape_errors_name_the_line(tmp_path, content, match):
    path = tmp_path / "agents.csv"
    path.write_text(content)
    with pytest.raises(ValueError, match=match):
        SubsetSelectionProblem.from_csv(path, alpha=0.5)


def test_atomic_write_errors_name_the_users_path(tmp_path):
    """Errors name the destination, never the temporary file next to it; nothing is left behind."""
    from subsel._files import atomic_write_text

    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as exc:
        atomic_write_text(folder, "x")
    assert exc.value.filename == str(folder)
    with pytest.raises(IsADirectoryError, match="path separator") as exc:
        atomic_write_text(str(tmp_path / "new") + "/", "x")
    assert not (tmp_path / "new").exists()
    missing = tmp_path / "nope" / "x.csv"
    with pytest.raises(FileNotFoundError, match="does not exist") as exc:
        atomic_write_text(missing, "x")
    assert exc.value.filename == str(missing)

    def failing_writer(tmp):
        raise PermissionError(13, "Permission denied", tmp)

    from subsel._files import atomic_write_with
    target = tmp_path / "y.csv"
    with pytest.raises(PermissionError) as exc:
        atomic_write_with(target, failing_writer)
    assert exc.value.filename == str(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
