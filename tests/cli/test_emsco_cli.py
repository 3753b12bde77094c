"""``subsel emsco fit``: outputs, exit codes and one-line errors (no half-written files)."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from subsel.cli import main
from subsel.cli.emsco import parse_costs

FAST = ["--population", "8", "--generations", "2"]


def write_splits(tmp_path, n=90, label="label", nan=False, single_class=False):
    rng = np.random.default_rng(0)
    paths = []
    for name in ("train", "val", "test"):
        y = rng.integers(0, 2, n)
        if single_class and name == "train":
            y[:] = 1
        df = pd.DataFrame({"cheap": (2 * y - 1) * (1 + rng.random(n)),
                           "noise1": rng.normal(size=n), "noise2": rng.normal(size=n),
                           label: y})
        if nan and name == "train":
            df.loc[4, "noise1"] = np.nan
        p = tmp_path / f"{name}.csv"
        df.to_csv(p, index=False)
        paths.append(str(p))
    return paths


def run_cli(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_fit_csv_writes_outputs(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path)
    costs = tmp_path / "costs.csv"
    costs.write_text("feature,cost\nnoise2,10\ncheap,1\nnoise1,10\n")
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                         "--costs", str(costs), "--confidence", "0.8",
                                         "--seed", "1", "--out", str(out), *FAST])
    assert code == 0, err
    assert "stage 0:" in stdout and "g1 (coverage)" in stdout
    summary = json.loads((out / "summary.json").read_text())
    for key in ("stages", "test", "validation", "confidence", "seed", "wall_time_s",
                "evaluations", "cache_hit_rate"):
        assert key in summary
    assert set(summary["test"]) == {"coverage", "accuracy", "cost"}
    assert sorted(f for s in summary["stages"] for f in s) == ["cheap", "noise1", "noise2"]
    assert summary["feature_costs"] == {"cheap": 1.0, "noise1": 10.0, "noise2": 10.0}
    front = pd.read_csv(out / "front.csv")
    assert {"stages", "g1_val", "g2_val", "g3*_val"} <= set(front.columns) and len(front) >= 1
    assert (out / "front.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fit_dataset_same_seed_same_output(tmp_path, capsys):
    args = ["emsco", "fit", "--dataset", "breast_cancer", "--seed", "2", *FAST]
    a = run_cli(capsys, args + ["--out", str(tmp_path / "a")])
    b = run_cli(capsys, args + ["--out", str(tmp_path / "b")])
    assert a[0] == b[0] == 0
    sa = json.loads((tmp_path / "a" / "summary.json").read_text())
    sb = json.loads((tmp_path / "b" / "summary.json").read_text())
    sa.pop("wall_time_s"), sb.pop("wall_time_s")
    assert sa == sb


def test_parse_costs_forms(tmp_path):
    names = ["a", "b", "c"]
    line = tmp_path / "c.txt"
    line.write_text("1, 2.5,3\n")
    assert parse_costs(str(line), names).tolist() == [1.0, 2.5, 3.0]
    assert parse_costs("4,5,6", names).tolist() == [4.0, 5.0, 6.0]


@pytest.mark.parametrize("costs,match", [
    ("1,2", r"2 values for 3 features"),
    ("1,-2,3", r"cost of feature 'noise1' must be >= 0; got -2\.0"),
    ("nofile.csv", r"costs file nofile\.csv not found"),
    ("1,2,3,4", r"--costs 1,2,3,4: 4 values for 3 features"),
])
def test_bad_costs_exit_2(tmp_path, capsys, costs, match):
    tr, va, te = write_splits(tmp_path)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                    "--costs", costs, "--confidence", "0.8", "--out", str(out),
                                    *FAST])
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("subsel: error:")
    assert re.search(match, err)
    assert not out.exists()


def test_costs_csv_with_unknown_feature(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path)
    c = tmp_path / "c.csv"
    c.write_text("feature,cost\ncheap,1\nnoise1,2\nother,3\n")
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                    "--costs", str(c), "--confidence", "0.8", *FAST])
    assert code == 2 and "column 'feature': unknown feature; got 'other'" in err


@pytest.mark.parametrize("confidence", ["0.5", "0.3", "1.01"])
def test_confidence_out_of_range_exit_2(tmp_path, capsys, confidence):
    tr, va, te = write_splits(tmp_path)
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                    "--costs", "1,1,1", "--confidence", confidence, *FAST])
    assert code == 2 and r"confidence (p̂) must be in (1/n_classes, 1] = (0.5, 1]" in err


def test_single_class_exit_2(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path, single_class=True)
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                    "--costs", "1,1,1", "--confidence", "0.8", *FAST])
    assert code == 2 and "only one class" in err and err.count("\n") == 1


def test_nan_features_exit_2(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path, nan=True)
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                    "--costs", "1,1,1", "--confidence", "0.8", *FAST])
    # data row 4 (0-based) is line 6 of the file: line 1 is the header
    assert code == 2 and err.count("\n") == 1
    assert f"train file {tr} (--train): line 6, column 'noise1': feature is missing" in err


def test_nan_line_counts_blank_lines_of_the_file(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path)
    lines = open(tr).read().splitlines()
    lines[3] = lines[3].split(",", 1)[0] + ",,," + lines[3].split(",")[-1]  # noise1, noise2 empty
    with open(tr, "w") as fh:
        fh.write("\n".join(lines[:2] + ["", "  "] + lines[2:]) + "\n")    # blank lines 3 and 4
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                    "--costs", "1,1,1", "--confidence", "0.8", *FAST])
    assert code == 2 and "line 6, column 'noise1': feature is missing" in err


def base_args(tmp_path, **kw):
    tr, va, te = write_splits(tmp_path, **kw)
    return ["emsco", "fit", "--train", tr, "--val", va, "--test", te, "--confidence", "0.8"]


def test_empty_train_file_is_named(tmp_path, capsys):
    args = base_args(tmp_path)
    (tmp_path / "empty.csv").write_text("")
    args[args.index("--train") + 1] = str(tmp_path / "empty.csv")
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", *FAST])
    assert code == 2 and err.count("\n") == 1
    assert f"train file {tmp_path / 'empty.csv'} (--train): is empty" in err


def test_header_only_file_is_named(tmp_path, capsys):
    args = base_args(tmp_path)
    (tmp_path / "head.csv").write_text("cheap,noise1,noise2,label\n")
    args[args.index("--test") + 1] = str(tmp_path / "head.csv")
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", *FAST])
    assert code == 2 and f"test file {tmp_path / 'head.csv'} (--test): line 1: has a header but no data rows" in err


def test_single_class_names_the_file_and_label_column(tmp_path, capsys):
    args = base_args(tmp_path, single_class=True)
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", *FAST])
    tr = args[args.index("--train") + 1]
    assert code == 2 and err.count("\n") == 1
    assert f"train file {tr} (--train): label column 'label' has only one class (1)" in err


def _own_data_commands(tmp_path):
    """``emsco fit`` and ``reproduce emsco-sweep``: both read --train/--val/--test the same way."""
    tr, va, te = write_splits(tmp_path)
    files = ["--train", tr, "--val", va, "--test", te, "--costs", "1,1,1"]
    return [["emsco", "fit", *files, "--confidence", "0.8", "--out", str(tmp_path / "o"), *FAST],
            ["reproduce", "emsco-sweep", "--scale", "tiny", *files, "--out", str(tmp_path / "r")]]


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("option, what", [("--val", "validation"), ("--test", "test")])
def test_labels_unseen_in_training_name_the_file_and_option(tmp_path, capsys, which, option, what):
    argv = _own_data_commands(tmp_path)[which]
    path = argv[argv.index(option) + 1]
    df = pd.read_csv(path)
    df.loc[3, "label"] = 7
    df.to_csv(path, index=False)
    code, _, err = run_cli(capsys, argv)
    tr = argv[argv.index("--train") + 1]
    assert code == 2 and err.count("\n") == 1, err
    assert (f"{what} file {path} ({option}): label column 'label' has labels not in the train file "
            f"(--train {tr}): [7]") in err


@pytest.mark.parametrize("which", [0, 1])
def test_a_continuous_label_column_names_the_option(tmp_path, capsys, which):
    argv = _own_data_commands(tmp_path)[which] + ["--label-column", "noise1"]
    code, _, err = run_cli(capsys, argv)
    tr = argv[argv.index("--train") + 1]
    assert code == 2 and err.count("\n") == 1, err
    assert f"train file {tr} (--train): label column 'noise1' holds continuous numbers" in err
    assert "--label-column" in err and "Unknown label type" not in err


@pytest.mark.parametrize("option, value, match", [
    ("--seed", "-1", r"--seed must be a non-negative integer; got -1"),
    ("--generations", "-1", r"--max-iter \(--generations\) must be an integer >= 0 .*; got -1"),
    ("--max-iter", "-1", r"--max-iter \(--generations\) must be an integer >= 0 .*; got -1"),
    ("--n-jobs", "0", r"--n-jobs must be a positive number of jobs, or negative .*; got 0"),
    ("--population", "1", r"--population-size \(--population\) must be an integer >= 2; got 1"),
    ("--population-size", "1", r"--population-size \(--population\) must be an integer >= 2; got 1"),
    ("--max-stages", "0", r"--max-stages must be an integer >= 1; got 0"),
])
def test_bad_numeric_options_are_named(tmp_path, capsys, option, value, match):
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, base_args(tmp_path) + ["--costs", "1,1,1", *FAST, option, value,
                                                          "--out", str(out)])
    assert code == 2 and err.count("\n") == 1 and re.search(match, err)
    assert not out.exists()


def test_dataset_seed_minus_one_is_named(capsys):
    code, _, err = run_cli(capsys, ["emsco", "fit", "--dataset", "breast_cancer", "--seed", "-1",
                                    *FAST])
    assert code == 2 and "--seed must be a non-negative integer; got -1" in err


def test_generations_zero_and_negative_n_jobs_run(tmp_path, capsys):
    args = base_args(tmp_path) + ["--costs", "1,1,1", "--population", "8", "--generations", "0",
                                  "--n-jobs", "-5", "--out", str(tmp_path / "o")]
    code, _, err = run_cli(capsys, args)
    assert code == 0, err
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["max_iter"] == 0


@pytest.mark.parametrize("costs, match", [
    ("1,abc,3", r"--costs 1,abc,3: value 2 of 3 is not a number: 'abc'"),
    ("1,nan,3", r"--costs 1,nan,3: cost of feature 'noise1' is not finite: 'nan'"),
    ("1,inf,3", r"cost of feature 'noise1' is not finite: 'inf'"),
])
def test_costs_not_a_number_or_not_finite(tmp_path, capsys, costs, match):
    code, _, err = run_cli(capsys, base_args(tmp_path) + ["--costs", costs, *FAST])
    assert code == 2 and err.count("\n") == 1 and re.search(match, err)


def test_costs_file_with_a_non_finite_cost(tmp_path, capsys):
    c = tmp_path / "c.csv"
    c.write_text("feature,cost\ncheap,1\nnoise1,nan\nnoise2,3\n")
    code, _, err = run_cli(capsys, base_args(tmp_path) + ["--costs", str(c), *FAST])
    assert code == 2 and f"costs file {c}: cost of feature 'noise1' is not finite" in err


@pytest.mark.parametrize("option", ["--train", "--test"])
def test_folder_given_as_csv_is_named(tmp_path, capsys, option):
    args = base_args(tmp_path)
    args[args.index(option) + 1] = str(tmp_path)
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", *FAST])
    assert code == 2 and f"({option}) is a folder, not a CSV file" in err


def test_costs_folder_is_named(tmp_path, capsys):
    code, _, err = run_cli(capsys, base_args(tmp_path) + ["--costs", str(tmp_path), *FAST])
    assert code == 2 and f"--costs {tmp_path} is a folder" in err


def test_unwritable_out_is_refused_before_the_fit(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = blocker / "sub"                       # a folder under a file: cannot be created
    code, stdout, err = run_cli(capsys, base_args(tmp_path) + ["--costs", "1,1,1", *FAST,
                                                               "--out", str(out)])
    assert code == 2 and err.count("\n") == 1
    assert f"--out {out}: cannot create or write to this folder" in err
    assert stdout == ""                          # no fit ran, nothing printed


def test_out_folder_created_for_a_failed_fit_is_removed(tmp_path, capsys):
    out = tmp_path / "new" / "deeper"
    code, _, _ = run_cli(capsys, base_args(tmp_path, single_class=True)
                         + ["--costs", "1,1,1", *FAST, "--out", str(out)])
    assert code == 2 and not (tmp_path / "new").exists()


def test_train_from_stdin(tmp_path, capsys, monkeypatch):
    import io
    args = base_args(tmp_path)
    tr = args[args.index("--train") + 1]
    args[args.index("--train") + 1] = "-"
    monkeypatch.setattr("sys.stdin", io.StringIO(open(tr).read()))
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", "--seed", "1", *FAST,
                                           "--out", str(tmp_path / "a")])
    assert code == 0, err
    args[args.index("--train") + 1] = tr
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", "--seed", "1", *FAST,
                                           "--out", str(tmp_path / "b")])
    a = json.loads((tmp_path / "a" / "summary.json").read_text())
    b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert a["stages"] == b["stages"] and a["test"] == b["test"] and a["inputs"]["train"] == "-"
    assert a["inputs"]["test"] == b["inputs"]["test"] != "-" and a["inputs"]["costs"] == "1,1,1"


def test_two_stdin_inputs_are_refused(tmp_path, capsys):
    args = base_args(tmp_path)
    args[args.index("--train") + 1] = "-"
    code, _, err = run_cli(capsys, args + ["--costs", "-", *FAST])
    assert code == 2 and "only one input can be read from stdin ('-'); got --train and --costs" in err


def test_nan_from_stdin_names_stdin(tmp_path, capsys, monkeypatch):
    import io
    args = base_args(tmp_path, nan=True)
    tr = args[args.index("--train") + 1]
    args[args.index("--train") + 1] = "-"
    monkeypatch.setattr("sys.stdin", io.StringIO(open(tr).read()))
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", *FAST])
    assert code == 2 and "train file <stdin> (--train): line 6, column 'noise1': feature is missing" in err


def test_missing_label_column_exit_2(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path, label="y")
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                    "--costs", "1,1,1", "--confidence", "0.8", *FAST])
    assert code == 2 and "has no label column 'label'" in err and "--label-column" in err
    code, _, _ = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                  "--costs", "1,1,1", "--confidence", "0.8",
                                  "--label-column", "y", *FAST])
    assert code == 0


def test_missing_inputs_exit_2(tmp_path, capsys):
    code, _, err = run_cli(capsys, ["emsco", "fit", "--train", "x.csv", *FAST])
    assert code == 2 and "missing: --val, --test, --costs" in err
    code, _, err = run_cli(capsys, ["emsco", "fit", "--dataset", "nope", *FAST])
    assert code == 2 and "unknown data set 'nope'" in err
    code, _, err = run_cli(capsys, ["emsco", "fit", "--dataset", "pima", "--data-home",
                                    str(tmp_path), *FAST])
    assert code == 2 and "pima_diabetes.csv not found" in err


def test_select_choices_are_the_library_s_rules():
    from subsel.cli.emsco import SELECT_CHOICES
    from subsel.evolution.selection import SELECT_RULES

    assert SELECT_CHOICES == tuple(SELECT_RULES)


@pytest.mark.parametrize("rule", ["fitness", "cost", "knee"])
def test_select_is_recorded_and_front_has_test_columns(tmp_path, capsys, rule):
    out = tmp_path / rule
    code, stdout, err = run_cli(capsys, ["emsco", "fit", "--dataset", "breast_cancer", "--seed", "2",
                                         "--select", rule, "--out", str(out), *FAST])
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["select"] == rule
    front = pd.read_csv(out / "front.csv")
    assert list(front.columns) == ["stages", "n_stages", "g1_val", "g2_val", "g3*_val", "g3_val",
                                   "g1_test", "g2_test", "g3*_test", "selected"]
    assert front["selected"].sum() == 1 and summary["front_size"] == len(front)
    row = front[front["selected"]].iloc[0]
    assert int(front.index[front["selected"]][0]) == summary["selected_front_row"]
    # the reported design is the selected row, on validation and on test
    assert json.loads(row["stages"]) == summary["stages"]
    assert summary["test"] == pytest.approx({"coverage": row["g1_test"], "accuracy": row["g2_test"],
                                             "cost": row["g3*_test"]})
    assert summary["validation"] == pytest.approx({"coverage": row["g1_val"],
                                                   "accuracy": row["g2_val"], "cost": row["g3*_val"]})
    assert front[["g1_test", "g2_test", "g3*_test"]].notna().all().all()
    assert front["g1_test"].between(0, 1).all() and front["g2_test"].between(0, 1).all()
    if rule == "cost":
        assert row["g3*_val"] == front["g3*_val"].min()
    if rule == "fitness":
        assert front["selected"].iloc[0]
    assert (out / "front.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_select_exit_2(capsys):
    code, _, err = run_cli(capsys, ["emsco", "fit", "--dataset", "breast_cancer", "--select", "best"])
    assert code == 2 and "--select" in err and "knee" in err


def test_population_size_and_max_iter_are_the_names_and_the_old_ones_aliases(tmp_path, capsys):
    args = ["emsco", "fit", "--dataset", "breast_cancer", "--seed", "2"]
    a = run_cli(capsys, args + ["--population", "8", "--generations", "2", "--out", str(tmp_path / "a")])
    b = run_cli(capsys, args + ["--population-size", "8", "--max-iter", "2", "--out", str(tmp_path / "b")])
    assert a[0] == b[0] == 0 and a[1].split("wrote")[0] == b[1].split("wrote")[0]
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["population_size"] == 8 and summary["max_iter"] == 2 and "generations" not in summary


@pytest.mark.parametrize("change, fragment", [
    (lambda cols: cols[:-1], "feature column 'noise2' of the train file is missing"),
    (lambda cols: cols + ["extra"], "feature column 'extra' is not in the train file"),
    (lambda cols: [cols[1], cols[0]] + cols[2:], "feature columns in another order: column 1 is 'noise1'"),
])
def test_a_split_whose_columns_differ_names_file_option_and_column(tmp_path, capsys, change, fragment):
    import pandas as pd

    args = base_args(tmp_path)
    val = args[args.index("--val") + 1]
    table = pd.read_csv(val)
    features = [c for c in table.columns if c != "label"]
    table = table.assign(extra=0.0)[change(features) + ["label"]]
    table.to_csv(val, index=False)
    code, _, err = run_cli(capsys, args + ["--costs", "1,1,1", *FAST])
    assert code == 2 and f"validation file {val} (--val): {fragment}" in err, err
