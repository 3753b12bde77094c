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
    assert code == 2 and "unknown feature 'other'" in err


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
    assert code == 2 and "NaN (row 4, feature 'noise1')" in err and err.count("\n") == 1


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
