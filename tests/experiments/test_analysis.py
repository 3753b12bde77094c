"""Ratio bookkeeping on hand-made numbers: zero optima and failures are counted, never called 1.0."""
import math

import numpy as np
import pandas as pd
import pytest

from subsel.experiments.analysis import add_ratios, summarize, to_markdown

NAN = float("nan")


def hand_table():
    #            instance, solver, status, objective, wall_time_s
    rows = [(0, "ref", "optimal", 2.0, 1.0), (0, "g", "feasible", 1.0, 0.25),     # ratio 0.5
            (1, "ref", "optimal", 4.0, 2.0), (1, "g", "feasible", 4.0, 0.5),      # ratio 1
            (2, "ref", "optimal", 0.0, 1.0), (2, "g", "feasible", 0.0, 0.5),      # zero optimum
            (3, "ref", "optimal", 0.0, 1.0), (3, "g", "feasible", -0.3, 0.5),     # zero optimum
            (4, "ref", "error", NAN, NAN), (4, "g", "feasible", 1.0, 0.5),        # reference failed
            (5, "ref", "optimal", 1.0, 1.0), (5, "g", "error", NAN, NAN),         # solver failed
            (6, "ref", "optimal", 2.0, 4.0), (6, "g", "feasible", -1.0, 1.0),     # negative ratio
            (7, "ref", "time_limit", 3.0, 3.0), (7, "g", "feasible", 3.0, 1.0)]   # ratio 1, not proven
    return pd.DataFrame(rows, columns=["instance", "solver", "status", "objective", "wall_time_s"])


def test_ratio_status_and_values_by_hand():
    r = add_ratios(hand_table(), "ref", keys=["instance"]).set_index("instance")
    assert r["ratio_status"].tolist() == ["ok", "ok", "zero_reference", "zero_reference",
                                          "reference_failed", "solver_failed", "ok", "ok"]
    assert r.loc[0, "ratio"] == 0.5 and r.loc[1, "ratio"] == 1.0 and r.loc[6, "ratio"] == -0.5
    assert r.loc[[2, 3, 4, 5], "ratio"].isna().all()  # undefined, not 1.0
    assert r.loc[0, "time_ratio"] == 0.25 and r.loc[6, "time_ratio"] == 0.25
    assert math.isnan(r.loc[4, "time_ratio"]) and math.isnan(r.loc[5, "time_ratio"])


def test_summary_counts_every_undefined_ratio_and_averages_only_defined_ones():
    s = summarize(add_ratios(hand_table(), "ref", keys=["instance"]), by=["solver"]).iloc[0]
    assert s["instances"] == 8 and s["defined"] == 4
    assert s["zero_reference"] == 2 and s["reference_failed"] == 1 and s["solver_failed"] == 1
    assert s["reference_not_optimal"] == 1 and s["negative_ratio"] == 1
    assert s["mean_ratio"] == pytest.approx((0.5 + 1.0 - 0.5 + 1.0) / 4)
    assert s["median_ratio"] == pytest.approx(0.75)
    assert s["min_ratio"] == -0.5 and s["share_at_1"] == 0.5
    assert s["median_time_ratio"] == pytest.approx(np.median([0.25, 0.25, 0.5, 0.5, 0.25, 1 / 3]))


def test_all_zero_optima_give_nan_means_not_one():
    t = pd.DataFrame({"instance": [0, 0], "solver": ["ref", "g"], "status": ["optimal", "feasible"],
                      "objective": [0.0, 0.0], "wall_time_s": [1.0, 1.0]})
    s = summarize(add_ratios(t, "ref", keys=["instance"]), by=["solver"]).iloc[0]
    assert s["zero_reference"] == 1 and s["defined"] == 0
    assert math.isnan(s["mean_ratio"]) and math.isnan(s["share_at_1"])


def test_negative_reference_is_its_own_case():
    t = pd.DataFrame({"instance": [0, 0], "solver": ["ref", "g"], "status": ["feasible"] * 2,
                      "objective": [-1.0, 0.5], "wall_time_s": [1.0, 1.0]})
    assert add_ratios(t, "ref", keys=["instance"])["ratio_status"].tolist() == ["negative_reference"]


def test_add_ratios_rejects_bad_tables():
    t = hand_table()
    with pytest.raises(ValueError, match="lacks column\\(s\\) n, alpha, seed"):
        add_ratios(t, "ref")
    with pytest.raises(ValueError, match="reference solver 'cbc' has no rows; solvers in the table: ref, g"):
        add_ratios(t, "cbc", keys=["instance"])
    with pytest.raises(ValueError, match=r"row 16: instance \{'instance': 0\} has two rows of solver 'g'"):
        add_ratios(pd.concat([t, t.iloc[[1]]], ignore_index=True), "ref", keys=["instance"])


def test_markdown_table_shows_nan_as_dash():
    md = to_markdown(pd.DataFrame({"n": [4], "mean_ratio": [NAN], "x": [0.123456]}))
    assert md.splitlines() == ["| n | mean_ratio | x |", "|---|---|---|", "| 4 | — | 0.1235 |"]
