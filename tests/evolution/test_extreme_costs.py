"""Feature costs at the edges of the float range: no overflow warning, no NaN, no parser crash.

An input's cost is a sum of feature costs (Hamilton and Fulp 2022, Section III): costs near 1e308
overflowed the mean over inputs (RuntimeWarning, then objectives ``nan``); a subnormal cost reached
LightGBM's parameter parser as a penalty it cannot read back (``LightGBMError: stod``).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subsel.evolution.staged import check_cost_total, scaled_mean
from tests.cli.test_emsco_cli import FAST, run_cli, write_splits

finite = st.floats(min_value=0.0, max_value=1.7e308, allow_nan=False, allow_infinity=False)


@settings(max_examples=200)
@given(st.lists(finite, min_size=1, max_size=300))
def test_scaled_mean_is_finite_and_exact_to_rounding(values):
    a = np.array(values)
    got = scaled_mean(a)
    want = math.fsum(v / len(values) for v in values)
    assert math.isfinite(got)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-300)


@given(st.lists(st.floats(0.0, 1e6, allow_nan=False), min_size=1, max_size=100))
def test_scaled_mean_is_numpy_mean_on_ordinary_costs(values):
    a = np.array(values)
    assert scaled_mean(a) == float(np.mean(a))


@pytest.mark.parametrize("costs, ok", [([1e308, 1.0, 1.0], True), ([1e308, 1e308, 1.0], False),
                                       ([1.7e308, 1.7e308], False), ([5e-324, 1.0], True)])
def test_cost_total_beyond_the_float_range_is_refused(costs, ok):
    if ok:
        check_cost_total(np.array(costs), "feature_costs")
    else:
        with pytest.raises(ValueError, match="feature_costs: the costs sum to more than the largest float"):
            check_cost_total(np.array(costs), "feature_costs")


@pytest.mark.parametrize("costs", ["1e308,1,1", "5e-324,1,1", "1e-320,5e-324,1e-310", "1.7e308,0,0"])
def test_emsco_fit_with_extreme_costs_is_clean(tmp_path, capsys, costs):
    tr, va, te = write_splits(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                          "--costs", costs, "--confidence", "0.8", "--seed", "1",
                                          "--out", str(tmp_path / "out"), *FAST])
    assert code == 0, err
    assert "nan" not in out.lower() and "warning" not in err.lower()
    assert (tmp_path / "out" / "front.png").is_file()


@pytest.mark.parametrize("costs", ["1e308,1e308,1", "1.7e308,1.7e308,1.7e308"])
def test_emsco_fit_refuses_costs_whose_sum_overflows_naming_costs(tmp_path, capsys, costs):
    tr, va, te = write_splits(tmp_path)
    code, out, err = run_cli(capsys, ["emsco", "fit", "--train", tr, "--val", va, "--test", te,
                                      "--costs", costs, "--confidence", "0.8", "--out", str(tmp_path / "out"), *FAST])
    assert code == 2
    assert err.strip().splitlines() == [f"subsel: error: --costs {costs}: the costs sum to more than the largest "
                                        "float (1.8e308), so an input's cost would overflow; scale them down "
                                        "(the objectives only compare costs)"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("costs", [[1.0, 5e-324, 1.0], [5e-324, 1e-320, 1.0], [1e308, 1e-10, 1e-300],
                                   [1.0, 2.0 ** -1030, 0.0]])
def test_greedymiser_takes_subnormal_and_huge_costs(costs):
    pytest.importorskip("lightgbm")
    from subsel.evolution.greedymiser import GreedyMiserClassifier

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = rng.normal(size=(200, 3)) + (2 * y - 1)[:, None]
    gm = GreedyMiserClassifier(costs, tradeoffs=(0.0, 1.0), n_estimators=5).fit(X[:120], y[:120], X[120:], y[120:])
    assert math.isfinite(gm.cost_) and len(gm.predict(X[:5])) == 5
