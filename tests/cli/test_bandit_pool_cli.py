"""``subsel bandit add / remove``, ``next --unavailable / --available-file``, ``feedback --round``."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from subsel.cli import main


@pytest.fixture
def state(tmp_path):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost,capacity\nfarm_a,0.1,2\nfarm_b,0.3,1\nfarm_c,0.2,1\n")
    path = tmp_path / "state.json"
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon", "0.4",
                 "--horizon", "20", "--state", str(path), "--max-open", "3"]) == 0
    return path


def _error(capsys, code):
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("subsel: error:") and len(err.strip().splitlines()) == 1, err
    return err


def _order(state, *extra):
    out = state.parent / "order.csv"
    assert main(["bandit", "next", "--state", str(state), "-o", str(out), *extra]) == 0
    return pd.read_csv(out)


def test_next_numbers_rounds_and_leaves_out_unavailable_agents(state, capsys):
    first = _order(state, "--unavailable", "farm_b")
    assert first["units"].tolist() == [2, 0, 1] and set(first["round"]) == {1}
    assert "round 1: 3 units from 2 agents" in capsys.readouterr().out
    avail = state.parent / "avail.csv"
    avail.write_text("name,available\nfarm_a,0\nfarm_b,yes\nfarm_c,1\n")
    second = _order(state, "--available-file", str(avail))
    assert second["units"].tolist() == [0, 1, 1] and set(second["round"]) == {2}
    saved = json.loads(state.read_text())
    assert [r["unavailable"] for r in saved["open"]] == [["farm_b"], ["farm_a"]]


@pytest.mark.parametrize("extra, match", [
    (["--unavailable", "farm_z"], "--unavailable: agent 'farm_z' is not in the pool"),
    (["--unavailable", "farm_a,,farm_b"], "an empty name"),
    (["--unavailable", " "], "--unavailable ' ': names no agent"),
    (["--unavailable", "farm_a,farm_b, farm_a"], "--unavailable 'farm_a,farm_b, farm_a': names agent 'farm_a' twice"),
    (["--unavailable", "farm_a", "--available-file", "x.csv"], "not allowed with argument"),
])
def test_next_availability_errors_leave_the_state_alone(state, capsys, extra, match):
    before = state.read_bytes()
    err = _error(capsys, main(["bandit", "next", "--state", str(state), "-o", "-", *extra]))
    assert match in err
    assert state.read_bytes() == before


def test_available_file_bad_flag_names_line_and_column(state, capsys):
    avail = state.parent / "avail.csv"
    avail.write_text("name,available\nfarm_a,maybe\n")
    before = state.read_bytes()
    err = _error(capsys, main(["bandit", "next", "--state", str(state), "-o", "-", "--available-file", str(avail)]))
    assert "line 2, column 'available'" in err and "got 'maybe'" in err
    assert state.read_bytes() == before


def test_available_file_repeated_agent_names_both_lines(state, capsys):
    avail = state.parent / "avail.csv"
    avail.write_text("name,available\nfarm_a,1\nfarm_b,1\nfarm_a,0\n")
    before = state.read_bytes()
    err = _error(capsys, main(["bandit", "next", "--state", str(state), "-o", "-", "--available-file", str(avail)]))
    assert "line 4, column 'name'" in err and "line 2" in err and "farm_a" in err
    assert state.read_bytes() == before


def test_feedback_by_round_in_parts_and_any_order(state, capsys):
    _order(state)
    _order(state)
    obs = state.parent / "obs.csv"
    obs.write_text("name,received,good\nfarm_a,1,1\n")
    assert main(["bandit", "feedback", "--state", str(state), "--round", "2", "--observations", str(obs)]) == 0
    assert "round 2 recorded, still open" in capsys.readouterr().out
    obs.write_text("name,received,good\nfarm_a,1,0\nfarm_b,1,1\nfarm_c,1,1\n")
    assert main(["bandit", "feedback", "--state", str(state), "--round", "2", "--observations", str(obs)]) == 0
    assert "round 2 recorded, complete; 1 round open" in capsys.readouterr().out
    before = state.read_bytes()
    for rnd, match in (("2", "round 2 is complete"), ("7", "round 7 does not exist: rounds 1..2 were ordered")):
        err = _error(capsys, main(["bandit", "feedback", "--state", str(state), "--round", rnd,
                                   "--observations", str(obs)]))
        assert match in err and "state left unchanged" in err
    obs.write_text("name,received,good\nfarm_a,3,0\n")
    err = _error(capsys, main(["bandit", "feedback", "--state", str(state), "--round", "1",
                               "--observations", str(obs)]))
    assert "line 2, column 'received': exceeds the 2 units of agent 'farm_a' still due for round 1; got 3" in err
    assert state.read_bytes() == before
    saved = json.loads(state.read_text())
    assert saved["policy"]["t"] == 2 and saved["policy"]["w"] == [2, 1, 1]


def test_add_and_remove(state, capsys):
    new = state.parent / "new.csv"
    new.write_text("name,cost,capacity\nfarm_d,0.05,3\n")
    assert main(["bandit", "add", "--state", str(state), "--agents", str(new)]) == 0
    assert "added 1 agent (farm_d); 4 agents in the pool" in capsys.readouterr().out
    before = state.read_bytes()
    add = ["bandit", "add", "--state", str(state), "--agents", str(new)]
    assert "already in the pool" in _error(capsys, main(add))
    new.write_text("name,cost\nfarm_e,-1\n")
    assert "line 2, column 'cost'" in _error(capsys, main(add))
    assert "not in the pool" in _error(capsys, main(["bandit", "remove", "--state", str(state), "--names", "zz"]))
    assert "name list is empty" in _error(capsys, main(["bandit", "remove", "--state", str(state), "--names", ""]))
    assert state.read_bytes() == before
    assert main(["bandit", "remove", "--state", str(state), "--names", "farm_b,farm_c"]) == 0
    order = _order(state)
    assert order["name"].tolist() == ["farm_a", "farm_d"]
    saved = json.loads(state.read_text())
    assert set(saved["policy"]["retired"]) == {"farm_b", "farm_c"}


@pytest.mark.parametrize("header, match", [
    ("name,cost,capcity", "unknown column 'capcity'"),
    ("name,cost,min_units", "column 'min_units' is not supported by the online planner"),
    ("name,cost,lot_size", "column 'lot_size' is not supported by the online planner"),
    ("name,cost,fixed_cost", "column 'fixed_cost' is not supported by the online planner"),
])
def test_init_and_add_refuse_columns_they_would_not_read(state, capsys, header, match):
    agents = state.parent / "more.csv"
    agents.write_text(f"{header}\nfarm_d,0.1,3\n")
    before = state.read_bytes()
    assert match in _error(capsys, main(["bandit", "add", "--state", str(state), "--agents", str(agents)]))
    assert state.read_bytes() == before
    fresh = state.parent / "fresh.json"
    assert match in _error(capsys, main(["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon",
                                         "0.4", "--horizon", "20", "--state", str(fresh)]))
    assert not fresh.exists()


def test_an_agent_back_with_a_smaller_capacity_keeps_its_statistics(state, capsys):
    for _ in range(3):  # three full rounds: farm_a (capacity 2) delivers 6 units
        order = _order(state)
        obs = state.parent / "obs.csv"
        order.assign(received=order["units"], good=order["units"])[["name", "received", "good"]].to_csv(
            obs, index=False)
        assert main(["bandit", "feedback", "--state", str(state), "--observations", str(obs)]) == 0
    assert main(["bandit", "remove", "--state", str(state), "--names", "farm_a"]) == 0
    back = state.parent / "back.csv"
    back.write_text("name,cost,capacity\nfarm_a,0.1,1\n")
    assert main(["bandit", "add", "--state", str(state), "--agents", str(back)]) == 0
    order = _order(state)
    assert order["name"].tolist() == ["farm_b", "farm_c", "farm_a"] and order["units"].max() <= 1
    saved = json.loads(state.read_text())
    assert saved["policy"]["w"][-1] == 6 and saved["policy"]["params"]["capacity"][-1] == 1
    assert main(["bandit", "remove", "--state", str(state), "--names", "farm_b"]) == 0


@pytest.mark.parametrize("command", [["next", "-o", "order.csv"], ["feedback", "--observations", "obs.csv"],
                                     ["add", "--agents", "obs.csv"], ["remove", "--names", "farm_a"]])
def test_a_state_that_is_a_folder_is_called_a_folder(tmp_path, capsys, command):
    (tmp_path / "obs.csv").write_text("name,received,good\nfarm_a,1,1\n")
    folder = tmp_path / "states"
    folder.mkdir()
    argv = ["bandit", command[0], "--state", str(folder), *command[1:2], str(tmp_path / command[2])] \
        if command[0] != "remove" else ["bandit", "remove", "--state", str(folder), "--names", "farm_a"]
    err = _error(capsys, main(argv))
    assert f"--state {folder} is a folder, not a state file" in err and "does not exist" not in err


def test_feedback_before_any_next_says_nothing_was_ordered(state, capsys):
    obs = state.parent / "obs.csv"
    obs.write_text("name,received,good\nfarm_a,1,1\n")
    before = state.read_bytes()
    err = _error(capsys, main(["bandit", "feedback", "--state", str(state), "--observations", str(obs)]))
    assert "nothing was ordered yet; run 'next' first" in err and "round 0" not in err
    assert state.read_bytes() == before


def test_old_state_file_still_works(tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text((Path(__file__).parents[1] / "bandits" / "data" / "online_state_v1_ssucb.json").read_text())
    obs = tmp_path / "obs.csv"
    obs.write_text("name,received,good\nfarm_a,2,1\nfarm_b,1,1\nfarm_c,1,0\n")
    assert main(["bandit", "feedback", "--state", str(path), "--observations", str(obs)]) == 0
    saved = json.loads(path.read_text())
    assert saved["version"] == 2 and saved["policy"]["t"] == 4 and saved["open"] == []


def test_two_concurrent_nexts_open_two_rounds_and_lose_none(state):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    outs = [state.parent / f"o{k}.csv" for k in range(2)]
    procs = [subprocess.Popen([sys.executable, "-m", "subsel", "bandit", "next", "--state", str(state),
                               "-o", str(o)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for o in outs]
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0, 0], results
    rounds = sorted(int(pd.read_csv(o)["round"].iloc[0]) for o in outs)
    assert rounds == [1, 2]
    saved = json.loads(state.read_text())
    assert saved["rounds"] == 2 and [r["round"] for r in saved["open"]] == [1, 2]


def test_simulate_known_quality_with_arrivals(tmp_path, capsys):
    """The known-quality benchmark is told the newcomers' qualities: with arrivals it plays the
    optimum of the agents present every round (it failed with an internal add_agents message)."""
    out = tmp_path / "sim"
    assert main(["bandit", "simulate", "--policy", "known-quality", "--n", "3", "--T", "100", "--runs", "2",
                 "--epsilon", "0.3", "--arrivals", "2", "--out", str(out)]) == 0
    capsys.readouterr()
    curves = pd.read_csv(out / "curves.csv")
    assert (curves["correct_fraction"] == 1.0).all()


def test_simulate_in_a_changing_world_writes_the_fixed_pool_beside(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["bandit", "simulate", "--policy", "dpss-ucb", "--n", "4", "--T", "60", "--runs", "3",
                 "--epsilon", "0.5", "--availability", "0.8", "--lead-time", "2", "--arrivals", "1",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "fixed pool (same instances and outcomes)" in text
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["availability"], summary["lead_time"], summary["arrivals"]) == (0.8, 2, 1)
    assert summary["fixed_pool"]["T"] == 60
    curves = pd.read_csv(out / "curves.csv")
    assert {"regret_mean", "fixed_pool_regret_mean", "fixed_pool_correct_fraction"} <= set(curves.columns)
    assert (out / "regret.png").stat().st_size > 0


@pytest.mark.parametrize("extra, match", [
    (["--availability", "0"], r"--availability must be in \(0, 1\]; got 0"),
    (["--availability", "1.5"], r"--availability must be in \(0, 1\]"),
    (["--lead-time", "-1"], "--lead-time must be >= 0; got -1"),
    (["--arrivals", "-2"], "--arrivals must be >= 0; got -2"),
])
def test_simulate_changing_world_option_errors(tmp_path, capsys, extra, match):
    import re
    err = _error(capsys, main(["bandit", "simulate", "--policy", "dpss-ucb", "--n", "4", "--T", "10",
                               "--runs", "2", "--out", str(tmp_path / "o"), *extra]))
    assert re.search(match, err), err
    assert not (tmp_path / "o").exists()


def test_final_feedback_closes_a_round_with_a_shortfall(state, capsys):
    _order(state)
    obs = state.parent / "obs.csv"
    obs.write_text("name,received,good\nfarm_a,1,1\n")
    assert main(["bandit", "feedback", "--state", str(state), "--round", "1", "--final",
                 "--observations", str(obs)]) == 0
    assert "round 1 recorded, complete; 0 rounds open" in capsys.readouterr().out
    saved = json.loads(state.read_text())
    assert saved["open"] == [] and saved["policy"]["w"] == [1, 0, 0]


def test_simulate_with_more_agents_than_dpss_enumerates_names_the_options(tmp_path, capsys):
    out = tmp_path / "o"
    err = _error(capsys, main(["bandit", "simulate", "--policy", "ss-ucb", "--n", "3", "--arrivals", "200",
                               "--T", "20", "--runs", "2", "--out", str(out)]))
    assert "--n 3 with --arrivals 200 (203 agents in all): too many agents for dpss" in err
    assert "--oracle exact" in err and "batch row" not in err
    assert not out.exists()
    err = _error(capsys, main(["bandit", "simulate", "--policy", "ss-ucb", "--n", "203", "--T", "20",
                               "--runs", "2", "--out", str(out)]))
    assert "--n 203: too many agents for dpss" in err and not out.exists()


def test_simulate_with_an_exact_oracle_that_scales_plays_a_large_pool(tmp_path, capsys):
    # the exact oracle also computes the regret references: no dpss enumeration anywhere
    out = tmp_path / "o"
    assert main(["bandit", "simulate", "--policy", "ss-ucb", "--oracle", "exact", "--n", "3",
                 "--arrivals", "200", "--T", "12", "--epsilon", "0.9", "--runs", "2", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["oracle"] == "exact" and summary["arrivals"] == 200 and summary["tau"] < 12
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["L"] >= 0).all() and (runs["optimum"] >= 0).all()


@pytest.mark.parametrize("how", ["unavailable", "file-flags", "file-empty"])
def test_next_with_every_agent_unavailable_opens_no_round(state, capsys, how):
    before = state.read_bytes()
    avail = state.parent / "avail.csv"
    if how == "unavailable":
        extra = ["--unavailable", "farm_a, farm_b,farm_c"]
    else:
        avail.write_text("name,available\nfarm_a,0\nfarm_b,no\nfarm_c,false\n" if how == "file-flags" else "name\n")
        extra = ["--available-file", str(avail)]
    out = state.parent / "order.csv"
    err = _error(capsys, main(["bandit", "next", "--state", str(state), "-o", str(out), *extra]))
    assert ("every agent is unavailable (farm_a, farm_b, farm_c): nothing can be ordered, so no round is "
            "opened; state left unchanged") in err
    assert state.read_bytes() == before and not out.exists()
    assert _order(state)["round"].tolist() == [1, 1, 1]  # the round number was not used up


def test_init_reads_agents_from_a_pipe(tmp_path):
    """A pipe (``--agents <(...)`` in a shell: ``/dev/fd/N``) is read like a file, not refused as missing."""
    if not Path("/dev/fd").is_dir():
        pytest.skip("no /dev/fd on this system")
    r, w = os.pipe()
    os.write(w, b"name,cost,capacity\nfarm_a,0.1,2\nfarm_b,0.3,1\n")
    os.close(w)
    path = tmp_path / "state.json"
    try:
        assert main(["bandit", "init", "--agents", f"/dev/fd/{r}", "--alpha", "0.6", "--epsilon", "0.4",
                     "--horizon", "50", "--state", str(path)]) == 0
    finally:
        os.close(r)
    assert json.loads(path.read_text())["names"] == ["farm_a", "farm_b"]


def test_available_file_with_an_unknown_agent_names_the_option_and_file(state, capsys):
    avail = state.parent / "avail.csv"
    avail.write_text("name\nfarm_a\nfarm_z\n")
    before = state.read_bytes()
    err = _error(capsys, main(["bandit", "next", "--state", str(state), "-o", "-", "--available-file", str(avail)]))
    assert f"--available-file {avail}: agent 'farm_z' is not in the pool" in err
    assert state.read_bytes() == before
