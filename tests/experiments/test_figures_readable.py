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


def test_regret_figure_shows_correct_under_feasible(tmp_path, figures):
    code = main(["bandit", "simulate", "--policy", "gss-ucb", "--n", "4", "--alpha", "0.6", "--epsilon", "0.3",
                 "--T", "2000", "--runs", "2", "--seed", "0", "--out", str(tmp_path)])
    assert code == 0
    lines = {line.get_label().split()[0]: line for line in figures[-1].axes[1].get_lines()}
    correct, feasible = lines["correct"], lines["feasible"]
    # where the two fractions coincide (often: both 1), a broad line under a thin dashed one shows both
    assert correct.get_linewidth() >= 2 * feasible.get_linewidth()
    assert feasible.get_zorder() > correct.get_zorder() and feasible.get_linestyle() == "--"


def test_compare_figure_shows_every_solver_at_ratio_one(tmp_path, figures):
    from subsel.experiments.plots import plot_comparison

    solvers = ["exact", "cbc", "highs", "dpss"]
    table = pd.DataFrame([{"n": n, "alpha": 0.7, "solver": s, "mean_ratio": 1.0, "median_wall_time_s": 1e-3}
                          for n in (10, 50) for s in solvers])
    plot_comparison(table[table["solver"] != "exact"], table, tmp_path / "compare.png", reference="exact")
    lines = [line for line in figures[-1].axes[0].get_lines() if not line.get_label().startswith("_")]
    assert len(lines) == 3
    assert len({line.get_marker() for line in lines}) == 3                       # one marker per solver
    for i in range(2):                                                           # spread along n
        assert len({float(line.get_xdata()[i]) for line in lines}) == 3
    by_z = sorted(lines, key=lambda line: line.get_zorder())                     # smaller ones on top
    assert [line.get_markersize() for line in by_z] == sorted((line.get_markersize() for line in by_z),
                                                              reverse=True)


def test_fig4_title_clear_of_panel_titles_and_tau_lines_over_curves(tmp_path, figures):
    assert main(["reproduce", "fig4", "--scale", "tiny", "--out", str(tmp_path)]) == 0
    fig = figures[-1]
    renderer = _renderer(fig)
    top = fig._suptitle.get_window_extent(renderer)
    for ax in fig.axes:
        assert ax.title.get_window_extent(renderer).y1 <= top.y0
        curves = [line for line in ax.get_lines() if line.get_label().startswith("ε")]
        taus = [line for line in ax.get_lines() if line.get_label().startswith("τ")]
        assert curves and taus
        assert min(t.get_zorder() for t in taus) > max(c.get_zorder() for c in curves)
        # the curves jump at τ: the τ line itself is dark (not the curve's colour) and drawn over them
        dashed = [line for line in ax.get_lines() if line.get_label().startswith("_") and line.get_linestyle() == "--"]
        assert len(dashed) == len(taus)
        assert all(line.get_color() == "0.15" and line.get_zorder() > max(c.get_zorder() for c in curves)
                   for line in dashed)
