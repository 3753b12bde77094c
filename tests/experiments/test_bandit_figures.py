"""``subsel reproduce fig3`` / ``fig4`` end to end at the tiny scale (Deva et al., AAMAS 2021, Section 6.2)."""
import math

import numpy as np
import pandas as pd
import pytest

from subsel.cli import main
from subsel.experiments.bandit_figures import FAMILIES, SIZES, fit_log_curve, horizon

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("bandit_figures")


def _tau(T, eps):
    return math.ceil(3 * math.log(T) / (2 * eps ** 2))


@pytest.mark.parametrize("name", ["fig3", "fig4"])
def test_reproduce_end_to_end(out, capsys, name):
    assert main(["reproduce", name, "--scale", "tiny", "--out", str(out), "--seed", "1"]) == 0
    assert f"{name}: " in capsys.readouterr().out
    size = SIZES[name]["tiny"]
    table = pd.read_csv(out / f"{name}.csv")
    assert set(table["oracle"]) == {"dpss", "gss"}
    assert sorted(set(table["epsilon"])) == sorted(size["epsilon"])
    keys = ["family", "oracle", "epsilon"] if name == "fig3" else ["oracle", "epsilon"]
    if name == "fig3":
        assert set(table["family"]) == set(FAMILIES)
    for _, part in table.groupby(keys):
        eps = part["epsilon"].iloc[0]
        T = horizon(size, eps)
        tau = _tau(T, eps)
        assert (part["tau"] == tau).all()
        assert part["round"].max() == T
        # exploration plays every agent: before tau the fraction correct is constant
        before = part[part["round"] <= tau]["correct_fraction"]
        assert before.nunique() == 1
        last = part[part["round"] == T].iloc[0]
        assert last["regret_mean"] == pytest.approx(last["regret_at_T"])
    assert (out / f"{name}.png").read_bytes()[:8] == PNG
    summary = pd.read_csv(out / f"{name}_summary.csv")
    if name == "fig3":  # one row per (policy, family)
        assert sorted(zip(summary["policy"], summary["family"])) == sorted(
            (f"{o}-ucb", f) for o in ("dpss", "gss") for f in FAMILIES)
        regret_col = "regret_T"
    else:
        assert len(summary) == 2 * len(size["epsilon"])
        regret_col = "regret_at_T"
    for _, row in summary.iterrows():
        part = table[(table["oracle"] == row["oracle"]) & (table["epsilon"] == row["epsilon"])]
        if name == "fig3":
            part = part[part["family"] == row["family"]]
        T = horizon(size, row["epsilon"])
        assert row[regret_col] == pytest.approx(part.loc[part["round"] == T, "regret_mean"].iloc[0])
    md = (out / f"{name}.md").read_text()
    assert "172,694" in md and "ε = 0.01" in md  # why eps = 0.01 is not used
    for eps in size["epsilon"]:
        assert f"{_tau(horizon(size, eps), eps):,}" in md


def test_quick_horizons_leave_rounds_after_tau():
    for name in ("fig3", "fig4"):
        for scale in ("quick", "full"):
            size = SIZES[name][scale]
            for eps in size["epsilon"]:
                assert _tau(horizon(size, eps), eps) < horizon(size, eps)


def test_fig3_after_tau_regret_starts_at_zero(out):
    if not (out / "fig3.csv").exists():
        main(["reproduce", "fig3", "--scale", "tiny", "--out", str(out), "--seed", "1"])
    table = pd.read_csv(out / "fig3.csv")
    tau = int(table["tau"].iloc[0])
    assert (table.loc[table["round"] <= tau, "regret_after_tau_mean"] == 0).all()


def test_fit_log_curve_recovers_coefficients():
    t = np.geomspace(10, 1e5, 50)
    a, b, r2 = fit_log_curve(t, 3.0 + 2.5 * np.log(t))
    assert a == pytest.approx(3.0) and b == pytest.approx(2.5) and r2 == pytest.approx(1.0)


def test_epsilon_gap_is_non_negative_and_zero_without_tightening():
    from subsel.experiments.bandit_figures import epsilon_gap

    assert epsilon_gap(0, {"runs": 6}, 0.05) >= 0.0   # a stricter threshold never earns more
    assert epsilon_gap(0, {"runs": 6}, 0.0) == 0.0
    # on epsilon-separated instances the optimum at alpha is the optimum at alpha + eps
    assert epsilon_gap(0, {"runs": 6}, 0.05, family="separated") == pytest.approx(0.0, abs=1e-12)


def test_fig3_summary_columns_and_report(out):
    if not (out / "fig3_summary.csv").exists():
        main(["reproduce", "fig3", "--scale", "tiny", "--out", str(out), "--seed", "1"])
    summary = pd.read_csv(out / "fig3_summary.csv")
    for col in ("policy", "family", "regret_T", "log_fit_r2", "log_fit_a", "log_fit_b", "epsilon_gap",
                "regret_after_tau_T", "regret_per_round_last_10pct"):
        assert col in summary.columns, col
    assert (summary.loc[summary["family"] == "separated", "epsilon_gap"].abs() < 1e-12).all()
    md = (out / "fig3.md").read_text()
    assert "## Why the two families differ" in md and "ε-separated" in md


def test_fig3_log_fit_r2_is_the_fit_of_the_rounds_after_tau(out):
    from subsel.experiments.bandit_figures import fit_fig3

    t = np.arange(1, 201)
    rows = []
    for family in FAMILIES:
        for oracle in ("dpss", "gss"):
            y = np.where(t > 50, 2.0 + 3.0 * np.log(t) - (2.0 + 3.0 * np.log(50)), 0.0)
            rows += [{"family": family, "oracle": oracle, "epsilon": 0.3, "round": int(r), "tau": 50,
                      "regret_mean": 10.0 + v, "regret_after_tau_mean": v, "correct_fraction_after_tau": 1.0,
                      "feasible_fraction_after_tau": 1.0, "mean_L": 1.0, "wall_time_s": 0.1,
                      "run_rounds_per_s": 1.0} for r, v in zip(t, y)]
    fits = fit_fig3(pd.DataFrame(rows), {"T": 200, "runs": 3, "epsilon": (0.3,)}, seed=0)
    assert fits["log_fit_r2"].tolist() == pytest.approx([1.0] * 4)
    assert fits["log_fit_b"].tolist() == pytest.approx([3.0] * 4)
    assert fits["regret_T"].tolist() == pytest.approx([10.0 + y[-1]] * 4)


def test_fig3_tasks_identical_serially_and_with_joblib(tmp_path):
    from subsel.experiments.bandit_figures import bandit_curves
    from subsel.experiments.runner import grid, run_grid

    tasks = grid(5, {"family": list(FAMILIES), "epsilon": [0.5], "oracle": ["dpss", "gss"]},
                 fixed={"n": 6, "alpha": 0.7, "R": 1.0, "T": 60, "runs": 3})
    timing = ["wall_time_s", "run_rounds_per_s"]
    serial = run_grid(tasks, bandit_curves, tmp_path / "serial.csv").drop(columns=timing)
    joblib2 = run_grid(tasks, bandit_curves, tmp_path / "joblib.csv", jobs=2).drop(columns=timing)
    pd.testing.assert_frame_equal(serial, joblib2)
    assert serial["regret_mean"].iloc[-1] > 0  # a real simulation, not an empty table
