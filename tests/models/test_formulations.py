"""Declarative formulations: structure of the PuLP / OR-Tools models; LP and MPS export read back by
HiGHS give the brute-force optimum (issue #2 item 5)."""
import highspy
import numpy as np
import pytest
from hypothesis import given, settings

from subsel.models import SubsetSelectionProblem, linear_form, to_ortools, to_pulp, write_lp, write_mps
from tests.strategies import brute_force, problems


def _highs_read(path):
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    # Our feasibility tolerance is 1e-9 (SPEC §1); HiGHS's default 1e-6 would accept more.
    h.setOptionValue("mip_feasibility_tolerance", 1e-10)
    h.setOptionValue("primal_feasibility_tolerance", 1e-10)
    # kWarning: HiGHS drops coefficients below 1e-9 in magnitude while reading.
    assert h.readModel(str(path)) in (highspy.HighsStatus.kOk, highspy.HighsStatus.kWarning)
    h.run()
    return h


def _full():
    return SubsetSelectionProblem(quality=[0.9, 0.6, 0.3, 0.95], cost=[0.5, 0.1, 0.05, 0.9],
                                  capacity=[2, 1, 3, 1], alpha=0.7, budget=2.0, demand=3,
                                  must_take=[1], must_not_take=[3])


def test_pulp_model_has_every_extension():
    prob = to_pulp(_full())
    assert prob.numConstraints() == 3
    v = prob.variablesDict()
    assert [v[f"x_{i}"].upBound for i in range(4)] == [2, 1, 3, 0]  # must_not_take: x_3 = 0
    assert [v[f"x_{i}"].lowBound for i in range(4)] == [0, 1, 0, 0]  # must_take: x_1 >= 1
    rows = {name: prob.get_constraint_by_name(name) for name in ("quality", "budget", "demand")}
    assert rows["budget"].constant == pytest.approx(-2.0)
    assert rows["demand"].constant == pytest.approx(-3.0)
    assert v["x_2"].cat == "Integer"


def test_ortools_model_has_every_extension():
    solver = to_ortools(_full())
    names = [c.name() for c in solver.constraints()]
    assert names == ["quality", "budget", "demand"]
    xs = solver.variables()
    assert [x.name() for x in xs] == ["x_0", "x_1", "x_2", "x_3"]
    assert [x.ub() for x in xs] == [2, 1, 3, 0]
    assert [x.lb() for x in xs] == [0, 1, 0, 0]
    q = solver.constraints()[0]
    assert q.GetCoefficient(xs[2]) == pytest.approx(0.3 - 0.7)
    assert solver.Objective().maximization()


def test_linear_form_csc_matches_dense_rows():
    form = linear_form(_full())
    start, index, value = form.csc()
    dense = np.zeros((len(form.rows), form.n))
    for j in range(form.n):
        dense[index[start[j]:start[j + 1]], j] = value[start[j]:start[j + 1]]
    assert np.allclose(dense, np.vstack([r.coef for r in form.rows]))


def test_linear_form_rejects_bad_scale():
    with pytest.raises(ValueError, match="scale must be a positive finite number"):
        linear_form(_full(), scale=0.0)


@settings(max_examples=25)
@given(problems(n_max=6, cap_max=2, extensions=True))
def test_lp_and_mps_round_trip_give_the_optimum(tmp_path_factory, problem):
    folder = tmp_path_factory.mktemp("export")
    best = brute_force(problem)
    for path, writer in ((folder / "m.lp", write_lp), (folder / "m.mps", write_mps)):
        writer(problem, path)
        h = _highs_read(path)
        status = h.getModelStatus()
        if best is None:
            assert status == highspy.HighsModelStatus.kInfeasible
        else:
            # The files hold 12 significant digits: compare with a matching tolerance.
            assert status == highspy.HighsModelStatus.kOptimal, path
            assert h.getInfo().objective_function_value == pytest.approx(best[0], abs=1e-6), path


def test_export_is_atomic_when_the_folder_is_missing(tmp_path):
    target = tmp_path / "missing" / "m.lp"
    with pytest.raises(OSError):
        write_lp(_full(), target)
    assert not target.exists()
    write_mps(_full(), tmp_path / "m.mps")
    assert [p.name for p in tmp_path.iterdir()] == ["m.mps"]  # no temporary left behind


def test_written_files_get_ordinary_permissions(tmp_path):
    import os

    umask = os.umask(0)
    os.umask(umask)
    write_lp(_full(), tmp_path / "m.lp")
    assert (os.stat(tmp_path / "m.lp").st_mode & 0o777) == 0o666 & ~umask
