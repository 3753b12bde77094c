"""Figures a reader can read: tick labels that do not run together, legends that do not cover data."""
import matplotlib
import pandas as pd
import pytest

from subsel.cli import main

matplotlib.use("Agg")


@pytest.fixture
def figures(monkeypatch):
    """Capture the figures passed to ``save_figure`` (they are still written)."""
    import subsel.experiments as experiments
    from subsel.experiments import plots

    captured = []
    real = plots.save_figure

    def keep(fig, path):
        captured.append(fig)
        return real(fig, path)

    monkeypatch.setattr(plots, "save_figure", keep)
    monkeypatch.setattr(experiments, "save_figure", keep)  # the face, where the command line takes it
    return captured


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _xtick_boxes(fig, ax):
    renderer = _renderer(fig)
    lo, hi = sorted(ax.get_xlim())
    return [label.get_window_extent(renderer) for tick, label in zip(ax.get_xticks(), ax.get_xticklabels())
            if lo <= tick <= hi and label.get_text() and label.get_visible()]


def test_regret_figure_round_labels_do_not_run_together(tmp_path, figures):
    code = main(["bandit", "simulate", "--policy", "gss-ucb", "--n", "4", "--alpha", "0.6", "--epsilon", "0.3",
                 "--T", "20000", "--runs", "2", "--seed", "0", "--out", str(tmp_path)])
    assert code == 0 and (tmp_path / "regret.png").is_file()
    fig = figures[-1]
    for ax in fig.axes:
        boxes = _xtick_boxes(fig, ax)
        assert 2 <= len(boxes) <= 7
        for left, right in zip(boxes, boxes[1:]):
            assert left.x1 < right.x0, [t.get_text() for t in ax.get_xticklabels()]


def test_compare_figure_legend_sits_beside_the_panels(tmp_path, figures):
    from subsel.experiments.plots import plot_comparison

    rows = [{"n": n, "alpha": a, "solver": s, "mean_ratio": 1.0 - 0.01 * i, "median_wall_time_s": 1e-3 * (i + 1)}
            for n in (10, 50) for a in (0.6, 0.7) for i, s in enumerate(["gss", "cbc", "highs"])]
    table = pd.DataFrame(rows)
    plot_comparison(table[table["solver"] != "dpss"], table, tmp_path / "compare.png", reference="dpss")
    fig = figures[-1]
    assert all(ax.get_legend() is None for ax in fig.axes)           # no legend inside a panel
    assert len(fig.legends) == 1
    renderer = _renderer(fig)
    legend = fig.legends[0].get_window_extent(renderer)
    assert all(legend.x0 >= ax.get_window_extent(renderer).x1 for ax in fig.axes)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["gss", "cbc", "highs", "α = 0.6", "α = 0.7"]   # colour per solver, style per α
