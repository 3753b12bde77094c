"""``subsel generate`` writes each float as the shortest text that reads back bit for bit (``repr``):
``0.84``, not ``0.83999999999999997``; files stay readable and lose nothing."""
import csv

import numpy as np
import pytest

from subsel import SubsetSelectionProblem
from subsel.cli import main
from subsel.models import problem_to_csv_text, read_agents, read_group_limits

FLOATS = ("quality", "cost", "fixed_cost")


@pytest.mark.parametrize("extra", [["--capacity-max", "3"], ["--planner", "--group-limits-out", "{tmp}/l.csv"]])
def test_generated_floats_are_the_shortest_text_that_reads_back(tmp_path, extra):
    agents = tmp_path / "a.csv"
    assert main(["generate", "--n", "60", "--seed", "7", "-o", str(agents),
                 *[e.format(tmp=tmp_path) for e in extra]]) == 0
    rows = list(csv.DictReader(agents.open(newline="")))
    cells = [row[c] for row in rows for c in FLOATS if c in row]
    assert cells and all(cell == repr(float(cell)) for cell in cells)
    assert max(len(cell) for cell in cells) <= (8 if "--planner" in extra else 24)
    limits = read_group_limits(tmp_path / "l.csv") if "--planner" in extra else None
    problem = read_agents(agents, alpha=0.8, group_limits=limits)
    again = tmp_path / "b.csv"
    again.write_text(problem_to_csv_text(problem))
    assert again.read_text() == agents.read_text()  # written back, the same text


def test_any_double_reads_back_bit_for_bit(tmp_path):
    rng = np.random.default_rng(3)
    q = np.concatenate([rng.random(200), [0.1 + 0.2, 5e-324, 1 - 2 ** -53, 0.84]])
    c = np.concatenate([rng.random(200) * 1e6, [1e-300, 1e29, 0.3, 9.97]])
    p = SubsetSelectionProblem(quality=q, cost=c, alpha=0.5)
    path = tmp_path / "a.csv"
    path.write_text(problem_to_csv_text(p))
    back = SubsetSelectionProblem.from_csv(path, alpha=0.5)
    assert np.array_equal(back.quality, p.quality) and np.array_equal(back.cost, p.cost)
    assert path.read_text().splitlines()[-1] == "203,0.84,9.97,1"
