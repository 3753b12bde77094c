"""The changing-world measurements: one row and one figure per setting, the fixed pool beside."""
import pandas as pd

from subsel.experiments.changing_world import SETTINGS, run


def test_run_writes_a_row_and_a_figure_per_setting(tmp_path):
    table = run(tmp_path, runs=2, T=3000, seed=1)
    assert table["setting"].tolist() == list(SETTINGS)
    assert (table["fixed_correct_after_tau"] > 0).all()
    assert ((table["correct_after_tau"] >= 0) & (table["correct_after_tau"] <= 1)).all()
    assert (table["correct_ratio"] == table["correct_after_tau"] / table["fixed_correct_after_tau"]).all()
    assert len(list(tmp_path.glob("changing-world-*.png"))) == len(SETTINGS)
    back = pd.read_csv(tmp_path / "changing-world.csv")
    assert back.shape == table.shape
    assert "| setting |" in (tmp_path / "changing-world.md").read_text()
