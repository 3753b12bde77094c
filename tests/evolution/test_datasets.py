"""Data set loaders: shapes, labels, costs (Hamilton and Fulp 2022, Section V) and the data-home lookup."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from subsel.evolution import datasets as ds


def test_synthetic50():
    d = ds.synthetic50(seed=1)
    assert d.X.shape == (4000, 50) and d.y.shape == (4000,)
    assert abs(d.y.mean() - 0.5) < 0.02
    assert np.all(d.costs == 10) and d.settings["confidence"] == 0.55
    assert d.settings["population_size"] == 300 and d.settings["beta"] == 2.5


def test_synthetic15():
    d = ds.synthetic15(seed=1)
    assert d.X.shape == (8000, 15)
    assert d.costs.tolist() == [6, 8, 4, 8, 8, 1, 9, 10, 6, 1, 9, 9, 4, 1, 7]
    assert d.settings["confidence"] == 0.85 and d.settings["population_size"] == 250


def test_synthetic_same_seed_same_data():
    assert np.array_equal(ds.synthetic15(3).X.to_numpy(), ds.synthetic15(3).X.to_numpy())
    assert not np.array_equal(ds.synthetic15(3).X.to_numpy(), ds.synthetic15(4).X.to_numpy())


def test_breast_cancer_and_split():
    d = ds.breast_cancer()
    assert d.X.shape == (569, 30) and np.all(d.costs == 1)
    X_tr, X_va, X_te, y_tr, y_va, y_te = d.split()
    assert (len(y_tr), len(y_va), len(y_te)) == (341, 114, 114)
    for part in (y_tr, y_va, y_te):                       # stratified
        assert abs(part.mean() - d.y.mean()) < 0.01
    assert set(X_tr.index).isdisjoint(X_te.index) and set(X_va.index).isdisjoint(X_te.index)


def test_missing_file_names_it_and_its_source(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"pima_diabetes\.csv not found.*SUBSEL_DATA.*Pima.*UCI"):
        ds.pima(data_home=tmp_path)


def test_data_home_order(tmp_path, monkeypatch):
    monkeypatch.setenv("SUBSEL_DATA", str(tmp_path))
    assert ds.data_home() == tmp_path
    assert ds.data_home("elsewhere") == Path("elsewhere")
    monkeypatch.setenv("SUBSEL_DATA", "")               # empty: not set
    assert ds.data_home() == ds.DATA_DIR
    monkeypatch.delenv("SUBSEL_DATA")
    assert ds.data_home() == ds.DATA_DIR


def test_the_shipped_files_are_the_default(monkeypatch):
    monkeypatch.delenv("SUBSEL_DATA", raising=False)
    assert sorted(p.name for p in ds.DATA_DIR.glob("*.csv")) == [
        "credit_approval.csv", "heart_failure.csv", "pima_diabetes.csv"]
    readme = (ds.DATA_DIR / "README.md").read_text(encoding="utf-8")
    for name in ("pima_diabetes.csv", "credit_approval.csv", "heart_failure.csv"):
        assert f"## {name}" in readme
    assert readme.count("- Licence:") == 3 and readme.count("- Citation:") == 3
    assert ds.pima().X.shape == (768, 8) and ds.credit().X.shape == (690, 15) and ds.heart().X.shape == (299, 12)


def test_a_data_home_overrides_the_shipped_copy(tmp_path, monkeypatch):
    monkeypatch.delenv("SUBSEL_DATA", raising=False)
    rows = (ds.DATA_DIR / "pima_diabetes.csv").read_text(encoding="utf-8").splitlines()
    (tmp_path / "pima_diabetes.csv").write_text("\n".join(rows[:101]) + "\n", encoding="utf-8")
    assert ds.pima(data_home=tmp_path).X.shape == (100, 8)
    monkeypatch.setenv("SUBSEL_DATA", str(tmp_path))
    assert ds.pima().X.shape == (100, 8)


@pytest.mark.parametrize("seed, error, match", [
    (-1, ValueError, r"seed must be an integer >= 0; got -1"),
    ("1", TypeError, r"seed must be an integer >= 0; got '1'"),
])
def test_bad_seed_is_named(seed, error, match):
    with pytest.raises(error, match=match):
        ds.load_dataset("breast_cancer", seed=seed)
    data = ds.breast_cancer()
    with pytest.raises(error, match=match):
        data.split(seed=seed)


def test_unknown_name():
    with pytest.raises(ValueError, match="unknown data set 'iris'"):
        ds.load_dataset("iris")


def test_pima():
    d = ds.pima()
    assert d.X.shape == (768, 8) and int(d.y.sum()) == 268
    assert d.costs.tolist() == [100, 300, 100, 200, 300, 100, 200, 100]
    assert d.cost_classes[d.feature_names.index("age")] == 1
    assert d.cost_classes[d.feature_names.index("glucose")] == 3


def test_heart_has_spec_features_and_can_drop_time():
    full = ds.heart()
    assert full.X.shape == (299, 12) and "time" in full.X.columns
    assert full.costs[full.feature_names.index("time")] == 10
    d = ds.heart(include_time=False)
    assert d.X.shape == (299, 11) and "time" not in d.X.columns and int(d.y.sum()) == 96
    assert set(d.costs.tolist()) == {10.0, 100.0}
    assert d.costs[d.feature_names.index("serum_creatinine")] == 100
    assert d.costs[d.feature_names.index("age")] == 10


def test_credit_terciles_and_pipeline():
    d = ds.credit(seed=0)
    assert d.X.shape == (690, 15) and int(d.y.sum()) == 307
    assert int(d.X.isna().sum().sum()) == 67
    assert sorted(np.bincount(d.cost_classes)[1:].tolist()) == [5, 5, 5]
    imp = d.extra["gini_importance"]
    # more important attributes never cost less
    order = np.argsort(imp)
    assert np.all(np.diff(d.costs[order]) >= 0)
    X_tr, X_va, _, y_tr, y_va, _ = d.split()
    model = d.base_estimator.fit(X_tr[["a1", "a9"]], y_tr)   # imputes and one-hot encodes
    assert model.score(X_va[["a1", "a9"]], y_va) > 0.7
