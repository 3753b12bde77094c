"""EMSCO's experiments: margins of error, non-dominance, claims, and tiny end-to-end runs."""
import math

import numpy as np
import pandas as pd
import pytest

from subsel.cli import main
from subsel.experiments import run_experiment
from subsel.experiments.emsco_claims import check_claims
from subsel.experiments.statistics import margin_of_error, nondominated_methods, summarize_methods


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
    rows += [{"dataset": "pima", "method": "gm", "g1": 1.0, "g2": 0.8, "g3*": 150.0},
             {"dataset": "heart", "method": "gm", "g1": 1.0, "g2": 0.55, "g3*": 20.0},
             {"dataset": "pima", "method": "cstc", "g1": 1.0, "g2": 0.88, "g3*": 90.0},
             {"dataset": "heart", "method": "cstc", "g1": 1.0, "g2": 0.5, "g3*": 60.0}]
    s = pd.DataFrame(rows)
    s["non_dominated"] = nondominated_methods(s)
    found = check_claims(s)
    claims = {key: next(c for c in found if c["claim"].startswith(key)) for key in (
        "EMSCO is non-dominated on every", "EMSCO is more accurate than Gree",
        "(ours) EMSCO has higher accuracy", "EMSCO has lower processing cost than GM",
        "(ours) EMSCO has lower processing", "GM has lower processing cost tha",
        "EMSCO surpasses every other met", "EMSCO is more accurate than CSTC",
        "EMSCO has lower processing cost than CSTC", "EMSCO Pareto dominates GM and CSTC")}
    assert claims["EMSCO is non-dominated on every"]["holds"] is False   # heart: all-features dominates
    assert "heart: dominated by all-features" in claims["EMSCO is non-dominated on every"]["detail"]
    assert claims["EMSCO is more accurate than Gree"]["holds"] is True   # 0.85 > 0.8, 0.6 > 0.55
    assert claims["(ours) EMSCO has higher accuracy"]["holds"] is False  # heart 0.6 < 0.8
    assert claims["EMSCO has lower processing cost than GM"]["holds"] is True   # pima 100 < 150
    assert claims["EMSCO has lower processing cost than GM"]["detail"] == "pima: 100 vs 150"
    assert claims["(ours) EMSCO has lower processing"]["holds"] is True   # pima 100 < 500
    assert claims["GM has lower processing cost tha"]["holds"] is True    # heart 20 < 900
    assert claims["GM has lower processing cost tha"]["detail"] == "heart: GM 20 vs EMSCO 900"
    assert claims["EMSCO surpasses every other met"]["holds"] is False   # 1 of 2 data sets
    assert claims["EMSCO is more accurate than CSTC"]["holds"] is False      # pima 0.85 < 0.88
    assert claims["EMSCO is more accurate than CSTC"]["detail"] == "pima: 0.850 vs 0.880; heart: 0.600 vs 0.500"
    assert claims["EMSCO has lower processing cost than CSTC"]["holds"] is False   # pima 100 > 90
    assert claims["EMSCO Pareto dominates GM and CSTC"]["holds"] is None    # no Synthetic50 here
    syn = s.copy()
    syn["dataset"] = syn["dataset"].replace({"pima": "synthetic50"})
    syn.loc[(syn["dataset"] == "synthetic50") & (syn["method"] == "cstc"), ["g2", "g3*"]] = [0.85, 120.0]
    dom = next(c for c in check_claims(syn) if c["claim"].startswith("EMSCO Pareto dominates"))
    assert dom["holds"] is False    # coverage 0.9 < 1: it dominates neither (the paper: "nearly")
    syn.loc[syn["method"] == "emsco", "g1"] = 1.0
    dom = next(c for c in check_claims(syn) if c["claim"].startswith("EMSCO Pareto dominates"))
    assert dom["holds"] is True and dom["detail"] == "vs gm (synthetic50: 2/3 better, 0/3 worse); " \
        "vs cstc (synthetic50: 1/3 better, 0/3 worse)"    # equal accuracy, cheaper
    # without GM rows the GM claims cannot be checked
    found = check_claims(s[s["method"] != "gm"].reset_index(drop=True))
    gm = [c for c in found if c["claim"].startswith(("EMSCO is more accurate than Gree", "GM has lower",
                                                     "EMSCO has lower processing cost than GM"))]
    assert len(gm) == 3 and all(c["holds"] is None for c in gm)


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
                                      "all-features-reject", "ilp-subset", "gm", "cstc"}
    ea = table[table["part"] == "ea"]
    assert (ea.groupby(["dataset", "method"]).size() == 2).all()           # 2 runs at tiny
    # NSGA-II got the paired EMSCO run's evaluation budget (pymoo may overshoot by < one population)
    pair = ea.pivot_table(index=["dataset", "run"], columns="method", values="evaluations")
    assert ((pair["nsga2"] >= pair["emsco"]) & (pair["nsga2"] < pair["emsco"] + 8)).all()
    assert table[["g1", "g2"]].apply(lambda c: c.between(0, 1)).all().all()
    base = table[table["method"] == "all-features"]
    assert (base["g1"] == 1.0).all()                                        # no rejection
    gm = table[table["method"] == "gm"]
    assert len(gm) == len(datasets) and (gm["g1"] == 1.0).all() and (gm["gm_tradeoff"] >= 0).all()
    cstc = table[table["method"] == "cstc"]
    assert len(cstc) == len(datasets) and (cstc["g1"] == 1.0).all()
    assert cstc["cstc_lambda"].isin([0.0, 0.03, 0.3]).all() and (cstc["cstc_depth"] == 2).all()
    assert (cstc["g3*"] <= 570.0).all() and (cstc["g3*"] >= 0).all()
    text = files[3].read_text()
    assert "CSTC (`cstc`): cost-sensitive tree of classifiers" in text
    assert "EMSCO is more accurate than CSTC on every data set" in text
    assert "Table II numbers are not in the text of the paper we have" in text
    assert "GreedyMiser (`gm`)" in text and "EMSCO is non-dominated on every data set" in text


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
    (["reproduce", "emsco-table2", "--dataset", "pima"], "experiment 'emsco-table2' takes no --dataset"),
    (["reproduce", "all", "--dataset", "pima"], "experiment 'all' takes no --dataset"),
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


def test_authors_layout_on_hand_made_numbers():
    from subsel.experiments.emsco import authors_layout

    t = pd.DataFrame({"confidence": [0.8, 0.7, 0.7, 0.7], "g1": [0.2, 0.5, 0.7, 0.6],
                      "g2": [0.9, 0.8, 0.9, 1.0], "g3*": [5.0, 10.0, 20.0, 30.0]})
    out = authors_layout(t)
    assert list(out.columns) == ["runs", "p_hat", "test_accuracy", "test_coverage", "test_cost",
                                 "acc_std", "cov_std", "cost_std"]
    assert out["p_hat"].tolist() == [0.7, 0.8] and out["runs"].tolist() == [3, 1]
    first = out.iloc[0]
    assert first["test_accuracy"] == pytest.approx(0.9) and first["test_coverage"] == pytest.approx(0.6)
    assert first["test_cost"] == pytest.approx(20.0)
    assert first["cost_std"] == pytest.approx(math.sqrt(200 / 3))        # ddof = 0, as numpy.std
    assert first["acc_std"] == pytest.approx(math.sqrt(0.02 / 3))
    assert out.iloc[1]["cov_std"] == 0.0                                 # one run


def _write_own_splits(folder):
    from subsel.evolution.datasets import synthetic15

    d = synthetic15()
    X_tr, X_va, X_te, y_tr, y_va, y_te = d.split()
    paths = []
    for name, X, y in (("train", X_tr, y_tr), ("val", X_va, y_va), ("test", X_te, y_te)):
        f = X.copy()
        f["label"] = np.where(y == 1, "yes", "no")           # any label type; coded in sorted order
        f.to_csv(folder / f"{name}.csv", index=False)
        paths.append(str(folder / f"{name}.csv"))
    (folder / "costs.txt").write_text(",".join(f"{c:g}" for c in d.costs) + "\n")
    return [*paths, str(folder / "costs.txt")]


def test_cli_sweep_on_own_splits_equals_the_named_data_set(tmp_path, capsys):
    train, val, test, costs = _write_own_splits(tmp_path)
    code, _, err = run(capsys, "reproduce", "emsco-sweep", "--scale", "tiny", "--train", train,
                       "--val", val, "--test", test, "--costs", costs, "--out", str(tmp_path / "own"))
    assert code == 0, err
    code, _, err = run(capsys, "reproduce", "emsco-sweep", "--scale", "tiny", "--dataset",
                       "synthetic15", "--out", str(tmp_path / "named"))
    assert code == 0, err
    cols = ["confidence", "run", "g1", "g2", "g3*", "val_g1", "val_g2", "val_g3*"]
    own = pd.read_csv(tmp_path / "own" / "emsco-sweep-train.csv")       # named after the train file
    named = pd.read_csv(tmp_path / "named" / "emsco-sweep-synthetic15.csv")
    pd.testing.assert_frame_equal(own[cols], named[cols])   # same data, settings and seeds
    authors = pd.read_csv(tmp_path / "own" / "emsco-sweep-train_authors.csv")
    assert authors["p_hat"].tolist() == [0.6, 0.8, 0.95] and (authors["runs"] == 2).all()
    assert authors["test_cost"].tolist() == pytest.approx(own.groupby("confidence")["g3*"].mean().tolist())
    text = (tmp_path / "own" / "emsco-sweep-train.md").read_text()
    assert f"--train {train}" in text and "## In the authors' layout" in text


@pytest.mark.parametrize("extra, message", [
    (["--costs", None], "missing: --costs"),
    (["--dataset", "synthetic15"], "either --dataset or --train"),
])
def test_cli_sweep_own_splits_errors(tmp_path, capsys, extra, message):
    train, val, test, costs = _write_own_splits(tmp_path)
    argv = ["reproduce", "emsco-sweep", "--train", train, "--val", val, "--test", test]
    if extra[1] is not None:
        argv += ["--costs", costs, *extra]
    out = tmp_path / "out"
    code, _, err = run(capsys, *argv, "--out", str(out))
    assert code == 2 and err.count("\n") == 1 and message in err
    assert not out.exists()


def test_cli_own_splits_are_for_the_sweep_only(tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = run(capsys, "reproduce", "emsco-table2", "--train", "a.csv", "--out", str(out))
    assert code == 2 and "--train is for emsco-sweep only" in err and not out.exists()


def test_cli_own_splits_bad_costs_name_the_file(tmp_path, capsys):
    train, val, test, _ = _write_own_splits(tmp_path)
    code, _, err = run(capsys, "reproduce", "emsco-sweep", "--train", train, "--val", val, "--test",
                       test, "--costs", "1,2,3", "--out", str(tmp_path / "out"))
    assert code == 2 and "3 values for 15 features" in err


def test_cli_sweep_files_may_not_replace_the_user_s_splits(tmp_path, capsys):
    train, val, test, costs = _write_own_splits(tmp_path)
    clash = tmp_path / "emsco-sweep-train_summary.csv"
    clash.write_text((tmp_path / "val.csv").read_text())
    code, _, err = run(capsys, "reproduce", "emsco-sweep", "--scale", "tiny", "--train", train,
                       "--val", str(clash), "--test", test, "--costs", costs, "--out", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "--val" in err


def test_cstc_row_at_the_quick_settings_on_mixed_columns():
    """CSTC's Table II row at the quick settings (depth 3, the whole λ grid) on a small table with a
    gap and a text column (Credit's encoding path): one feature per column, each charged once."""
    from types import SimpleNamespace

    from subsel.evolution.cstc_sweep import DEFAULT_LAMBDAS
    from subsel.experiments.emsco_cstc import cstc_row

    rng = np.random.default_rng(3)
    n = 240
    a, b = rng.normal(size=n), rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": b, "c": rng.choice(["u", "v", "w"], size=n), "d": rng.normal(size=n)})
    X.loc[::17, "b"] = np.nan                                   # gaps: filled with the median
    y = np.where(np.abs(a) > 0.5, a > 0, b > 0).astype(int)
    costs = np.array([1.0, 20.0, 5.0, 5.0])
    ds = SimpleNamespace(costs=costs, feature_names=list(X.columns))
    tr, va, te = slice(0, 120), slice(120, 180), slice(180, n)
    problem = SimpleNamespace(X_train=X.iloc[tr], y_train=y[tr], X_val=X.iloc[va], y_val=y[va])
    row = cstc_row(ds, problem, (X.iloc[te], y[te]), "quick", seed=0)
    assert row["method"] == "cstc" and row["g1"] == 1.0
    assert row["cstc_depth"] == 3 and row["n_stages"] == 3 and row["cstc_lambda"] in DEFAULT_LAMBDAS
    used = row["cstc_features"].split()
    assert set(used) <= set(X.columns) and row["n_features"] == len(used)
    assert 0.0 <= row["g3*"] <= costs.sum() and 0.0 <= row["cstc_val_cost"] <= costs.sum()
    assert row["g2"] >= 0.75 and row["cstc_val_accuracy"] >= 0.75   # chance is 0.5; a and b decide
    assert row["wall_time_s"] >= 0
