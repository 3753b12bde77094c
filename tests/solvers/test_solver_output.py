"""What a solver library prints from C code is silenced and reported once, never a flood.

SoPlex inside SCIP printed "Cannot set optimality tolerance to small value 1e-12 without GMP" on
every LP solve (1,198 lines on one call); highspy prints a banner.
"""
import os
import warnings

import pytest

from subsel.solvers._milp import captured_output, report_printed

FLOOD = b"Cannot set optimality tolerance to small value 1e-12 without GMP\n"


@pytest.mark.parametrize("count", [1, 1198, 9147])
def test_a_flood_on_stderr_is_captured_and_reported_once(capfd, count):
    with captured_output(True, (1, 2)) as printed:
        for _ in range(count):
            os.write(2, FLOOD)
        os.write(1, b"banner\n")
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert len(printed) == count + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report_printed("ortools-scip", printed)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"printed {count + 1} lines" in message and f"{count} times" in message and "without GMP" in message


def test_nothing_printed_nothing_reported():
    with captured_output(True, (1, 2)) as printed:
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report_printed("ortools-scip", printed)
    assert printed == []


def test_verbose_runs_are_not_captured(capfd):
    with captured_output(False, (2,)) as printed:
        os.write(2, b"shown\n")
    assert capfd.readouterr().err == "shown\n" and printed == []


def test_scip_solve_prints_nothing():
    from subsel import SubsetSelectionProblem
    from subsel.solvers import available_solvers, get_solver

    if "ortools-scip" not in available_solvers():
        pytest.skip("no SCIP")
    problem = SubsetSelectionProblem(quality=[0.9, 0.5, 0.8], cost=[0.1, 0.2, 0.3], alpha=0.7,
                                     capacity=[2 ** 53] * 3, budget=1e15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = get_solver("ortools-scip").solve(problem)
    assert sol.is_feasible
