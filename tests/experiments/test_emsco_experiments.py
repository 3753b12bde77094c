"""EMSCO's experiments: margins of error, non-dominance, claims, and tiny end-to-end runs (SPEC §3)."""
import math

import numpy as np
import pandas as pd
import pytest

from subsel.cli import main
from subsel.experiments import run_experiment
from subsel.experiments.emsco import check_claims, margin_of_error, nondominated_methods, summarize_methods


def test_margin_of_error_on_hand_made_numbers():
    # mean 2, s = 1, n = 3: t_{0.975, 2} = 4.302652729749464
    assert margin_of_error([1.0, 2.0, 3.0]) == pytest.approx(4.302652729749464 / math.sqrt(3))
    # n = 4, s = sqrt(20/3) (values 0, 2, 4, 6), t_{0.95, 3} = 2.3533634348018264 at 90 %
    assert margin_of_error([0, 2, 4, 6], 0.90) == pytest.approx(
        2.3533634348018264 * math.sqrt(20 / 3) / 2)
    assert margin_of_error([5.0, 5.0]) == 0.0
    assert math.isnan(margin_of_error([7.0]))
    assert math.isnan(margin_of_error([np.nan, 1.0]))


def test_margin_of_error_rejects_a_bad_confidence():
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\); got 1.0"):
        margin_of_error([1, 2], 1.0)


def test_nondominated_methods_on_hand_made_numbers():
    s = pd.DataFrame({
        "dataset": ["a"] * 4 + ["b"] * 2,
        "method": ["m1", "m2", "m3", "m4", "m1", "m2"],
        "g1": [0.9, 0.9, 0.8, 0.9, 0.5, 0.5],
        "g2": [0.8, 0.8, 0.9, 0.7, 0.5, 0.5],
        "g3*": [10.0, 12.0, 50.0, 5.0, 3.0, 3.0],   # lower is better
    })
    nd = nondominated_methods(s)
    # m2 is dominated by m1 (same g1, g2, dearer); m3 (best accuracy) and m4 (cheapest) trade off.
    assert nd.tolist() == [True, False, True, True, True, True]


def test_summarize_methods_means_margins_and_non_dominance():
    t = pd.DataFrame({"dataset": ["d"] * 5, "method": ["e", "e", "e", "b", "c"],
                      "g1": [1.0, 0.8, 0.9, 1.0, 0.5], "g2": [0.7, 0.9, 0.8, 0.6, 0.6],
                      "g3*": [10, 20, 30, 40, 50], "wall_time_s": [1, 2, 3, 4, 5]})
    s = summarize_methods(t).set_index("method")
    assert s.loc["e", "runs"] == 3 and s.loc["e", "g3*"] == pytest.approx(20.0)
    assert s.loc["e", "moe_g3*"] == pytest.approx(4.302652729749464 * 10 / math.sqrt(3))
    assert math.isnan(s.loc["b", "moe_g1"])
    assert s["non_dominated"].to_dict() == {"e": True, "b": True, "c": False}


def test_check_claims_on_hand_made_numbers():
    rows = []
    for d, (eg1, eg2, eg3) in {"pima": (0.9, 0.85, 100.0), "heart": (0.7, 0.6, 900.0)}.items():
        rows += [{"dataset": d, "method": "emsco", "g1": eg1, "g2": eg2, "g3*": eg3},
                 {"dataset": d, "method": "all-features", "g1": 1.0, "g2": 0.8, "g3*": 500.0},
                 {"dataset": d, "method": "ilp-subset", "g1": 1.0, "g2": 0.7, "g3*": 50.0},
                 {"dataset": d, "method": "nsga2", "g1": 0.8, "g2": 0.8, "g3*": 300.0}]
    s = pd.DataFrame(rows)
    s["non_dominated"] = nondominated_methods(s)
    found = check_claims(s)
    claims = {key: next(c for c in found if c["claim"].startswith(key)) for key in (
        "EMSCO is non-dominated on every", "EMSCO has higher accuracy than t",
        "EMSCO has lower processing cost ", "EMSCO surpasses every other met",
        "GreedyMiser (GM) and CSTC rows")}
    assert claims["EMSCO is non-dominated on every"]["holds"] is False   # heart: all-features dominates
    assert "heart: dominated by all-features" in claims["EMSCO is non-dominated on every"]["detail"]
    assert claims["EMSCO has higher accuracy than t"]["holds"] is False  # heart 0.6 < 0.8
    assert claims["EMSCO has lower processing cost "]["holds"] is True   # pima 100 < 500
    assert claims["EMSCO surpasses every other met"]["holds"] is False   # 1 of 2 data sets
    assert claims["GreedyMiser (GM) and CSTC rows"]["detail"] == "not reproduced"


def test_table2_tiny_end_to_end_writes_every_file(tmp_path):
    datasets = ("synthetic15", "heart")
    files = run_experiment("emsco-table2", tmp_path, scale="tiny", datasets=datasets)
    assert [f.name for f in files] == ["emsco-table2.csv", "emsco-table2_summary.csv",
                                       "emsco-table2.png", "emsco-table2.md"]
    assert all(f.is_file() and f.stat().st_size > 0 for f in files)
    table = pd.read_csv(files[0])
    summary = pd.read_csv(files[1])
    assert set(table["dataset"]) == set(datasets)
    assert set(summary["method"]) == {"emsco", "emsco+ilp", "nsga2", "all-features",
                                      "all-features-reject", "ilp-subset"}
    ea = table[table["part"] == "ea"]
    assert (ea.groupby(["dataset", "method"]).size() == 2).all()           # 2 runs at tiny
    # NSGA-II got the paired EMSCO run's evaluation budget (pymoo may overshoot by < one population)
    pair = ea.pivot_table(index=["dataset", "run"], columns="method", values="evaluations")
    assert ((pair["nsga2"] >= pair["emsco"]) & (pair["nsga2"] < pair["emsco"] + 8)).all()
    assert table[["g1", "g2"]].apply(lambda c: c.between(0, 1)).all().all()
    base = table[table["method"] == "all-features"]
    assert (base["g1"] == 1.0).all()                                        # no rejection
    text = files[3].read_text()
    assert "not reproduced" in text and "EMSCO is non-dominated on every data set" in text


def test_sweep_tiny_end_to_end(tmp_path):
    files = run_experiment("emsco-sweep", tmp_path, scale="tiny", datasets=["synthetic15"])
    summary = pd.read_csv(files[1])
    assert summary["confidence"].tolist() == [0.6, 0.8, 0.95]
    assert (summary["runs"] == 2).all()
    assert files[2].suffix == ".png" and files[2].stat().st_size > 0
    table = pd.read_csv(files[0])
    assert len(table) == 6 and table["g1"].between(0, 1).all()


def run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "fig1a", "--datasets", "pima"], "experiment 'fig1a' takes no --datasets"),
    (["reproduce", "emsco-table2", "--datasets", "pima,iris"], "unknown data set 'iris'"),
    (["reproduce", "emsco-table2", "--datasets", "pima,pima"], "data set 'pima' is listed twice"),
    (["reproduce", "emsco-sweep", "--dataset", "pima,heart"], "emsco-sweep takes one data set"),
])
def test_cli_bad_data_sets_exit_2_and_write_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    code, _, err = run(capsys, *argv, "--out", str(out))
    assert code == 2 and err.count("\n") == 1 and message in err
    assert not out.exists()


def test_cli_sweep_writes_its_files(tmp_path, capsys):
    code, out, err = run(capsys, "reproduce", "emsco-sweep", "--scale", "tiny", "--dataset",
                         "synthetic15", "--out", str(tmp_path))
    assert code == 0, err
    assert "emsco-sweep: " in out
    for suffix in (".csv", "_summary.csv", ".png", ".md"):
        assert (tmp_path / f"emsco-sweep-synthetic15{suffix}").is_file()   # named after the data set
