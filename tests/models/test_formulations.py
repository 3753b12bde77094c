"""Declarative formulations: structure of the PuLP / OR-Tools models; LP and MPS export read back by
HiGHS give the brute-force optimum."""
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
    # Our feasibility tolerance is 1e-9; HiGHS's default 1e-6 would accept more.
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


def _cbc_binary():
    import pulp

    path = getattr(pulp.PULP_CBC_CMD(), "path", None)
    return path if path and pulp.PULP_CBC_CMD().available() else None


def _read_mps_with_every_reader(path):
    """The optimum (minimised negated utility) of an MPS file as each installed reader finds it:
    {reader: objective or None (infeasible)}."""
    import subprocess

    import pulp

    out = {}
    h = _highs_read(path)
    st = h.getModelStatus()
    out["highs"] = h.getInfo().objective_function_value if st == highspy.HighsModelStatus.kOptimal else None
    cbc = _cbc_binary()
    if cbc is not None:  # the CBC binary PuLP ships, reading the file itself
        log = subprocess.run([cbc, str(path), "primalT", "1e-9", "ratio", "0", "allow", "0", "solve", "quit"],
                             capture_output=True, text=True, timeout=60).stdout
        assert "read with 0 errors" in log, log
        if "Optimal solution found" in log:
            line = [ln for ln in log.splitlines() if ln.startswith("Objective value:")][0]
            out["cbc"] = float(line.split(":")[1])
        else:
            out["cbc"] = None
    variables, prob = pulp.LpProblem.fromMPS(str(path))  # PuLP's own reader
    assert prob.sense == pulp.LpMinimize
    if cbc is not None:
        prob.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0, gapAbs=0, options=["primalTolerance 1e-9"]))
        ok = pulp.LpStatus[prob.status] == "Optimal"
        out["pulp-fromMPS"] = pulp.value(prob.objective) if ok else None
    try:
        from ortools.linear_solver.python import model_builder as mb
    except ImportError:  # pragma: no cover - OR-Tools is a core dependency
        mb = None
    if mb is not None:
        m = mb.Model()
        assert m.import_from_mps_file(str(path))
        solver = mb.Solver("SCIP")
        solver.set_solver_specific_parameters("numerics/feastol = 1e-9\nlimits/gap = 0\n")
        status = solver.solve(m)
        out["ortools"] = solver.objective_value if status == mb.SolveStatus.OPTIMAL else None
    return out


@settings(max_examples=15)
@given(problems(n_max=6, cap_max=2, extensions=True))
def test_mps_is_read_to_the_same_optimum_by_every_installed_reader(tmp_path_factory, problem):
    path = tmp_path_factory.mktemp("export") / "m.mps"
    write_mps(problem, path)
    best = brute_force(problem)
    found = _read_mps_with_every_reader(path)
    assert {"highs", "pulp-fromMPS", "ortools"} <= set(found) or "cbc" not in found
    for reader, value in found.items():
        if best is None:
            assert value is None, reader
        else:  # a minimisation of the negated utility: the optimum is minus the best utility
            assert value == pytest.approx(-best[0], abs=1e-6), reader


@settings(max_examples=15)
@given(problems(n_max=6, cap_max=2, extensions=True))
def test_lp_round_trip_gives_the_optimum(tmp_path_factory, problem):
    path = tmp_path_factory.mktemp("export") / "m.lp"
    write_lp(problem, path)
    best = brute_force(problem)
    h = _highs_read(path)
    status = h.getModelStatus()
    if best is None:
        assert status == highspy.HighsModelStatus.kInfeasible
    else:
        assert status == highspy.HighsModelStatus.kOptimal
        assert h.getInfo().objective_function_value == pytest.approx(best[0], abs=1e-6)


def test_mps_never_states_objsense_and_says_it_minimises_the_negated_utility(tmp_path):
    # PuLP's CBC binary rejected OBJSENSE before NAME; PuLP's fromMPS ignored it and minimised.
    p = SubsetSelectionProblem(quality=[0.9, 0.6], cost=[0.2, 0.1], alpha=0.7)
    write_mps(p, tmp_path / "m.mps")
    text = (tmp_path / "m.mps").read_text()
    assert not [ln for ln in text.splitlines() if ln.startswith("OBJSENSE")] and "MINIMISED" in text
    found = _read_mps_with_every_reader(tmp_path / "m.mps")
    assert all(v == pytest.approx(-1.2) for v in found.values()), found  # x = (1, 1), utility 1.2


def test_files_name_the_variables_after_the_agents(tmp_path):
    from subsel.models import variable_names

    p = SubsetSelectionProblem(quality=[0.9, 0.6, 0.5, 0.8], cost=[0.1] * 4, alpha=0.7,
                               names=["acme ltd", "b-2", "acme/ltd", "3e5"])
    names = variable_names(p)
    assert names == ["x_acme_ltd", "x_b_2", "x_acme_ltd_2", "x_3e5"]
    write_mps(p, tmp_path / "m.mps")
    write_lp(p, tmp_path / "m.lp")
    for f in ("m.mps", "m.lp"):
        h = _highs_read(tmp_path / f)
        assert list(h.getLp().col_names_) == names
    import pulp

    variables, _ = pulp.LpProblem.fromMPS(str(tmp_path / "m.mps"))
    assert sorted(variables) == sorted(names)


def test_numbers_keep_every_digit(tmp_path):
    # 0.7999999995317982 - 0.8 is feasible by 5.3e-10 under the rule; 12 digits would lose it.
    p = SubsetSelectionProblem(quality=[0.7999999995317982], cost=[0.4712365041114803], alpha=0.8)
    write_mps(p, tmp_path / "m.mps")
    import pulp

    variables, prob = pulp.LpProblem.fromMPS(str(tmp_path / "m.mps"))
    assert prob.constraints["quality"][variables["x_0"]] == float(p.quality_margin[0])
    assert prob.constraints["quality"].constant == 1e-9  # sum >= -1e-9, i.e. sum + 1e-9 >= 0
    assert prob.objective[variables["x_0"]] == -float(p.utility[0])


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
