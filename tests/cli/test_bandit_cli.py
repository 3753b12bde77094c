"""``subsel bandit``: simulate writes its outputs; the online cycle rejects bad feedback with exit
code 2 and leaves the state file byte-identical."""
import json
import math
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from subsel.cli import main


def test_simulate_writes_summary_curves_and_figure(tmp_path, capsys):
    out = tmp_path / "sim"
    code = main(["bandit", "simulate", "--policy", "gss-ucb", "--n", "5", "--alpha", "0.6",
                 "--epsilon", "0.3", "--T", "120", "--runs", "6", "--seed", "3", "--out", str(out)])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    for key in ("policy", "oracle", "n", "alpha", "epsilon", "T", "runs", "seed", "tau", "regret_at_T",
                "correct_fraction_after_tau", "feasible_fraction_after_tau", "wall_time_s",
                "run_rounds_per_s"):
        assert key in summary, key
    assert summary["policy"] == "gss-ucb" and summary["oracle"] == "gss"
    tau = math.ceil(3 * math.log(120) / (2 * 0.3 ** 2))
    assert summary["tau"] == tau and summary["T"] == 120 and summary["runs"] == 6
    curves = pd.read_csv(out / "curves.csv")
    assert curves["round"].iloc[-1] == 120
    assert curves["regret_mean"].iloc[-1] == pytest.approx(summary["regret_at_T"])
    assert (out / "regret.png").stat().st_size > 0
    assert len(pd.read_csv(out / "runs.csv")) == 6
    assert f"tau={tau}" in capsys.readouterr().out


def test_simulate_same_seed_same_numbers(tmp_path):
    args = ["bandit", "simulate", "--policy", "cts", "--n", "4", "--T", "30", "--runs", "3",
            "--seed", "9", "--epsilon", "0.3"]
    main(args + ["--out", str(tmp_path / "a")])
    main(args + ["--out", str(tmp_path / "b")])
    assert (tmp_path / "a" / "curves.csv").read_text() == (tmp_path / "b" / "curves.csv").read_text()


@pytest.mark.parametrize("extra, match", [
    (["--policy", "nope"], "unknown policy 'nope'"),
    (["--policy", "ss-ucb", "--oracle", "nosuch"], "unknown solver 'nosuch'"),
    (["--policy", "ss-ucb", "--epsilon", "0"], "epsilon must be a number in (0, 1]"),
    (["--policy", "ss-ucb", "--epsilon", "1e-160"], "epsilon = 1e-160 is too small"),
    (["--policy", "ss-ucb", "--epsilon", "nan"], "epsilon must be a number in (0, 1]; got nan"),
    (["--policy", "ss-ucb", "--seed", "-1"], "--seed must be >= 0; got -1"),
    (["--policy", "ss-ucb", "--T", str(10 ** 20)], "horizon must be an integer in [1, 9007199254740992]"),
    (["--policy", "ss-ucb", "--runs", "0"], "--runs must be >= 1"),
])
def test_simulate_errors(tmp_path, capsys, extra, match):
    code = main(["bandit", "simulate", "--T", "5", "--out", str(tmp_path / "o")] + extra)
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("subsel: error:") and match in err and len(err.strip().splitlines()) == 1


@pytest.fixture
def online(tmp_path):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost,capacity\nfarm_a,0.1,2\nfarm_b,0.3,1\nfarm_c,0.2,1\n")
    state = tmp_path / "state.json"
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon", "0.4",
                 "--horizon", "20", "--policy", "gss-ucb", "--state", str(state)]) == 0
    return tmp_path, state


def _next(tmp_path, state):
    order = tmp_path / "order.csv"
    assert main(["bandit", "next", "--state", str(state), "-o", str(order)]) == 0
    return pd.read_csv(order)


def test_online_cycle(online):
    tmp_path, state = online
    for rnd in range(1, 4):
        order = _next(tmp_path, state)
        assert order.columns.tolist() == ["name", "units", "round"]
        assert order["units"].tolist() == [2, 1, 1]  # exploration: every unit
        obs = tmp_path / "obs.csv"
        obs.write_text("name,received,good\n" + "".join(
            f"{n},{u},{max(u - 1, 0)}\n" for n, u in zip(order["name"], order["units"])))
        assert main(["bandit", "feedback", "--state", str(state), "--observations", str(obs)]) == 0
        saved = json.loads(state.read_text())
        assert saved["policy"]["t"] == rnd and saved["open"] == []
    assert saved["policy"]["w"] == [6, 3, 3] and saved["policy"]["good"] == [3, 0, 0]


@pytest.mark.parametrize("obs_text, match", [
    ("name,received,good\nfarm_a,1,1\nfarm_b,1,1\nfarm_c,1,1\n", "does not match the order of round 1"),
    ("name,received,good\nfarm_a,2,3\nfarm_b,1,1\nfarm_c,1,1\n",
     "obs.csv: line 2, column 'good': exceeds received = 2 for agent 'farm_a'; got 3"),
    ("name,received,good\nfarm_a,2,2\nfarm_b,1,1\nfarm_x,1,1\n",
     "obs.csv: line 4, column 'name': unknown agent; got 'farm_x'"),
    ("name,received\nfarm_a,2\n", "column 'good' is missing"),
    ("name,received,good\nfarm_a,2,2\nfarm_b,1,1\nfarm_c,1,1\n", "repeated"),
])
def test_online_rejects_bad_feedback_and_keeps_state_bytes(online, capsys, obs_text, match):
    tmp_path, state = online
    _next(tmp_path, state)
    obs = tmp_path / "obs.csv"
    if match == "repeated":  # a correct feedback first, then the same round again
        obs.write_text(obs_text)
        assert main(["bandit", "feedback", "--state", str(state), "--observations", str(obs)]) == 0
        match = "no order is pending"
    obs.write_text(obs_text)
    before = state.read_bytes()
    capsys.readouterr()
    code = main(["bandit", "feedback", "--state", str(state), "--observations", str(obs)])
    err = capsys.readouterr().err
    assert code == 2
    assert match in err and "state left unchanged" in err and len(err.strip().splitlines()) == 1
    assert state.read_bytes() == before
    # no temporary file left behind; the lock file (empty, reused by every command) stays
    assert [p.name for p in tmp_path.glob(".state*")] == [".state.json.lock"]


def test_online_missing_state_and_existing_state(online, capsys):
    tmp_path, state = online
    code = main(["bandit", "next", "--state", str(tmp_path / "none.json"), "-o", str(tmp_path / "o.csv")])
    assert code == 2 and "does not exist" in capsys.readouterr().err
    before = state.read_bytes()
    code = main(["bandit", "init", "--agents", str(tmp_path / "agents.csv"), "--alpha", "0.6",
                 "--epsilon", "0.4", "--horizon", "20", "--state", str(state)])
    assert code == 2 and "exists; use --force" in capsys.readouterr().err
    assert state.read_bytes() == before


def test_online_damaged_state(tmp_path, capsys):
    state = tmp_path / "state.json"
    state.write_text("{not json")
    code = main(["bandit", "next", "--state", str(state), "-o", str(tmp_path / "o.csv")])
    assert code == 2 and "not a JSON state file" in capsys.readouterr().err
    assert state.read_text() == "{not json"


def _one_line_error(capsys, code):
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("subsel: error:") and len(err.strip().splitlines()) == 1
    return err


@pytest.mark.parametrize("text", ["name,cost\nfarm_a,1,2\n", "name,cost\nfarm_a,1,2,3\n"])
def test_init_rejects_rows_longer_than_the_header(tmp_path, capsys, text):
    # pandas would silently read "farm_a,1,2" as name "1", cost 2 (first field as the index)
    agents = tmp_path / "agents.csv"
    agents.write_text(text)
    state = tmp_path / "state.json"
    code = main(["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon", "0.4",
                 "--horizon", "20", "--state", str(state)])
    err = _one_line_error(capsys, code)
    assert str(agents) in err and ": line 2: " in err and "fields but the header has 2 (name,cost)" in err
    assert not state.exists()


def test_init_setting_errors_do_not_blame_the_agents_file(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\nfarm_a,0.1\n")
    code = main(["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon", "0",
                 "--horizon", "20", "--state", str(tmp_path / "s.json")])
    err = _one_line_error(capsys, code)
    assert "epsilon must be a number in (0, 1]; got 0" in err and str(agents) not in err


@pytest.mark.parametrize("command", ["init", "next"])
def test_missing_output_folder_is_named_before_any_work(online, capsys, command):
    tmp_path, state = online
    target = tmp_path / "nodir" / "file"
    if command == "init":
        args = ["bandit", "init", "--agents", str(tmp_path / "agents.csv"), "--alpha", "0.6",
                "--epsilon", "0.4", "--horizon", "20", "--state", str(target)]
    else:
        args = ["bandit", "next", "--state", str(state), "-o", str(target)]
    before = state.read_bytes()
    err = _one_line_error(capsys, main(args))
    assert f"{target}: folder {tmp_path / 'nodir'} does not exist" in err
    assert state.read_bytes() == before


def _v1(s, pending):
    """Turn a state into a version-1 one (one pending order), as older subsel wrote it."""
    s.update(version=1, pending=pending)
    for key in ("open", "rounds", "max_open"):
        s.pop(key)


def _damage(state, change):
    s = json.loads(state.read_text())
    change(s)
    state.write_text(json.dumps(s))


@pytest.mark.parametrize("change, match", [
    (lambda s: _v1(s, {"round": 1, "units": [5, 5, 5]}),
     r"pending units\[0\] = 5 is outside 0..capacity 2"),
    (lambda s: _v1(s, {"round": 1, "units": [1]}), "pending 'units' must be 3 integers"),
    (lambda s: _v1(s, {"round": 7, "units": [1, 1, 1]}),
     "pending round 7 is not the next round 1"),
    (lambda s: s["policy"].pop("params"), "policy state: key 'params' is missing"),
    (lambda s: s["policy"].update(w=[-1, 0, 0]), r"policy state: w\[0\] must be a non-negative integer; got -1"),
    (lambda s: s["policy"].update(w=["a", "b", "c"]), "policy state: 'w' must be an array of numbers"),
    (lambda s: s.update(names=5), "'names' must be a list of strings"),
    (lambda s: s.update(open=[{"round": 1, "units": {"farm_a": 5}, "received": {"farm_a": 0}, "unavailable": []}],
                        rounds=1), r"open round 1: units of 'farm_a' = 5 \(received 0\) is outside 0..capacity 2"),
    (lambda s: s.update(open=[{"round": 4, "units": {}, "received": {}, "unavailable": []}], rounds=2),
     "open round 4 is not a distinct round in 1..2"),
    (lambda s: s.update(rounds=-1), "'rounds' must be an integer in t..2\\^53"),
    (lambda s: s.update(max_open=0), "max_open must be an integer >= 1; got 0"),
    (lambda s: s.pop("open"), "key 'open' is missing"),
    (lambda s: s.update(version=7), "unsupported online state version 7"),
])
def test_damaged_state_is_named_and_left_alone(online, capsys, change, match):
    tmp_path, state = online
    _damage(state, change)
    before = state.read_bytes()
    order = tmp_path / "order.csv"
    err = _one_line_error(capsys, main(["bandit", "next", "--state", str(state), "-o", str(order)]))
    assert err.startswith(f"subsel: error: {state}: ")
    assert re.search(match, err), err
    assert state.read_bytes() == before and not order.exists()


def test_feedback_with_a_huge_count_is_one_short_line(online, capsys):
    tmp_path, state = online
    _next(tmp_path, state)
    obs = tmp_path / "obs.csv"
    obs.write_text("name,received,good\nfarm_a,2,1e300\nfarm_b,1,1\nfarm_c,1,1\n")
    before = state.read_bytes()
    err = _one_line_error(capsys, main(["bandit", "feedback", "--state", str(state),
                                        "--observations", str(obs)]))
    assert "obs.csv: line 2, column 'good': expected a non-negative integer up to 2^53; got '1e300'" in err
    assert len(err) < 300 and state.read_bytes() == before


def test_simulate_checks_the_output_folder_first(tmp_path, capsys, monkeypatch):
    import subsel.cli.bandit as cli_bandit

    def boom(*a, **k):  # the simulation must not start
        raise AssertionError("simulated before checking --out")

    monkeypatch.setattr(cli_bandit, "paper_instances", boom)
    afile = tmp_path / "afile"
    afile.write_text("x")
    err = _one_line_error(capsys, main(["bandit", "simulate", "--policy", "ss-ucb", "--T", "5",
                                        "--out", str(afile / "sub")]))
    assert f"--out {afile / 'sub'}: cannot write into {afile}" in err


def test_simulate_out_of_memory_is_one_line(tmp_path, capsys, monkeypatch):
    import subsel.cli.bandit as cli_bandit

    def no_memory(*a, **k):
        raise MemoryError()

    monkeypatch.setattr(cli_bandit, "paper_instances", no_memory)
    err = _one_line_error(capsys, main(["bandit", "simulate", "--policy", "ss-ucb", "--T", "5",
                                        "--runs", "7", "--out", str(tmp_path / "o")]))
    assert "out of memory for --n 10 --runs 7 --T 5" in err
    assert not (tmp_path / "o").exists()


def test_simulate_refuses_runs_that_cannot_fit_in_memory(tmp_path, capsys, monkeypatch):
    from subsel.cli import guards

    monkeypatch.setattr(guards, "available_memory", lambda: 2 ** 30)  # 1 GiB free
    err = _one_line_error(capsys, main(["bandit", "simulate", "--policy", "ss-ucb", "--n", "10",
                                        "--T", "5", "--runs", "10000000", "--out", str(tmp_path / "o")]))
    need = 10_000_000 * (16 * 8 * 10 + 1024) / 2 ** 30  # 16 float64 (runs, n) arrays + 1 kB a run
    assert f"--runs 10000000 with --n 10 needs about {need:.1f} GiB of memory; 1.0 GiB are available" in err
    assert not (tmp_path / "o").exists()
    # a run that fits still goes through with the same (patched) memory
    assert main(["bandit", "simulate", "--policy", "ss-ucb", "--n", "3", "--T", "5", "--runs", "2",
                 "--out", str(tmp_path / "ok")]) == 0


# ---------------------------------------------------------------- round one
def test_horizon_one_init_then_next(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\na,0.3\nb,0.2\nc,0.01\n")
    state = tmp_path / "state.json"
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.7", "--epsilon", "0.1",
                 "--horizon", "1", "--state", str(state)]) == 0
    assert "warning" not in capsys.readouterr().err  # tau = 0 < 1
    order = _next(tmp_path, state)
    assert order["units"].tolist() == [1, 1, 1]  # never observed: q̂⁺ = 1 for every agent


def test_simulate_one_round(tmp_path):
    out = tmp_path / "sim"
    assert main(["bandit", "simulate", "--policy", "ss-ucb", "--n", "4", "--T", "1", "--runs", "3",
                 "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["tau"] == 0


def test_init_warns_when_tau_covers_the_horizon(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\na,0.3\nb,0.2\n")
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.7", "--epsilon", "0.1",
                 "--horizon", "1000", "--state", str(tmp_path / "s.json")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("subsel: warning: tau = 1037 >= horizon 1000")
    assert "epsilon >= 0.1019 gives tau = 998 < 1000" in err[0]


def test_simulate_title_names_the_oracle_of_an_alias(tmp_path, monkeypatch):
    import subsel.experiments as experiments  # the command imports the figure helpers from the face

    titles = []
    real = experiments.save_figure
    monkeypatch.setattr(experiments, "save_figure", lambda fig, path: (titles.append(fig._suptitle.get_text()),
                                                                 real(fig, path))[1])
    assert main(["bandit", "simulate", "--policy", "gss-ucb", "--n", "3", "--T", "5", "--runs", "2",
                 "--epsilon", "0.5", "--out", str(tmp_path / "o")]) == 0
    assert titles and titles[0].startswith("gss-ucb (oracle gss)")


# ---------------------------------------------------------------- damaged states
def _cts_online(tmp_path):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost,capacity\nfarm_a,0.1,2\nfarm_b,0.3,1\nfarm_c,0.2,1\n")
    state = tmp_path / "state.json"
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--policy", "cts",
                 "--epsilon", "0.1", "--horizon", "20", "--seed", "3", "--state", str(state)]) == 0
    return state


@pytest.mark.parametrize("change, match", [
    (lambda s: s["policy"]["rng"].update(bit_generator="seed"), "rng.bit_generator 'seed' is not one of"),
    (lambda s: s["policy"]["rng"].update(bit_generator="random"), "rng.bit_generator 'random' is not one of"),
    (lambda s: s["policy"]["rng"].update(bit_generator="Nope"), "rng.bit_generator 'Nope' is not one of"),
    (lambda s: s["policy"]["params"].update(epsilon=2), r"'params': epsilon must be a number in \[0, 1\]; got 2"),
    (lambda s: _v1(s, {"round": 1, "units": [10 ** 30, 0, 0]}),
     r"pending units\[0\] = 10{30} is outside"),
    (lambda s: s["policy"].update(w=[1e19, 0, 0]), r"w\[0\] = 1e\+19 exceeds 2\^53"),
    (lambda s: s["policy"].update(t=-1), "'t' must be an integer in 0..2\\^53"),
])
def test_damaged_cts_state_is_refused_and_left_alone(tmp_path, capsys, change, match):
    state = _cts_online(tmp_path)
    _damage(state, change)
    before = state.read_bytes()
    order = tmp_path / "order.csv"
    err = _one_line_error(capsys, main(["bandit", "next", "--state", str(state), "-o", str(order)]))
    assert err.startswith(f"subsel: error: {state}: ")
    assert re.search(match, err), err
    assert state.read_bytes() == before and not order.exists()


def test_ssucb_state_with_tiny_epsilon_is_refused(online, capsys):
    tmp_path, state = online
    _damage(state, lambda s: s["policy"]["params"].update(epsilon=1e-300))
    before = state.read_bytes()
    err = _one_line_error(capsys, main(["bandit", "next", "--state", str(state), "-o", str(tmp_path / "o.csv")]))
    assert f"{state}: policy state 'params': epsilon = 1e-300 is too small" in err
    assert state.read_bytes() == before


# ---------------------------------------------------------------- one writer per state
def test_locked_state_is_refused_with_exit_2(online, capsys, monkeypatch):
    from filelock import FileLock

    import subsel.cli.bandit as cli_bandit

    tmp_path, state = online
    _next(tmp_path, state)
    monkeypatch.setattr(cli_bandit, "LOCK_TIMEOUT_S", 0.2)
    obs = tmp_path / "obs.csv"
    obs.write_text("name,received,good\nfarm_a,2,1\nfarm_b,1,1\nfarm_c,1,0\n")
    before = state.read_bytes()
    with FileLock(str(tmp_path / ".state.json.lock")):  # another command holds the state
        err = _one_line_error(capsys, main(["bandit", "feedback", "--state", str(state),
                                            "--observations", str(obs)]))
    assert f"{state}: in use by another subsel command" in err and "nothing was changed" in err
    assert state.read_bytes() == before
    assert main(["bandit", "feedback", "--state", str(state), "--observations", str(obs)]) == 0


@pytest.mark.parametrize("how", ["symlink", "symlinked-folder", "relative", "dot-dot"])
def test_lock_is_taken_on_the_file_the_path_resolves_to(online, capsys, monkeypatch, how):
    """A state reached through a link or another spelling of its path waits for the same lock."""
    from filelock import FileLock

    import subsel.cli.bandit as cli_bandit

    tmp_path, state = online
    other = tmp_path / "B"
    other.mkdir()
    if how == "symlink":
        alias = other / "other.json"
        alias.symlink_to(Path("..") / state.name)
    elif how == "symlinked-folder":
        (other / "A").symlink_to(tmp_path, target_is_directory=True)
        alias = other / "A" / state.name
    elif how == "relative":
        monkeypatch.chdir(other)
        alias = Path("..") / state.name
    else:
        alias = other / ".." / state.name
    monkeypatch.setattr(cli_bandit, "LOCK_TIMEOUT_S", 0.2)
    before = state.read_bytes()
    with FileLock(str(tmp_path / ".state.json.lock")):  # another command holds the state
        err = _one_line_error(capsys, main(["bandit", "next", "--state", str(alias), "-o", str(tmp_path / "o.csv")]))
    assert "in use by another subsel command" in err
    assert state.read_bytes() == before
    assert not list(other.glob(".*.lock"))  # no lock of its own beside the alias
    assert main(["bandit", "next", "--state", str(alias), "-o", str(tmp_path / "o.csv")]) == 0
    assert state.is_file() and not state.is_symlink()


def test_hard_linked_state_is_refused(online, capsys):
    tmp_path, state = online
    (tmp_path / "B").mkdir()
    alias = tmp_path / "B" / "other.json"
    os.link(state, alias)
    before = state.read_bytes()
    for path in (state, alias):
        err = _one_line_error(capsys, main(["bandit", "next", "--state", str(path), "-o", str(tmp_path / "o.csv")]))
        assert "2 hard links" in err
    assert state.read_bytes() == before == alias.read_bytes()


def test_two_concurrent_feedbacks_record_one_round(online):
    import os
    import subprocess
    import sys
    from pathlib import Path

    tmp_path, state = online
    _next(tmp_path, state)
    obs = tmp_path / "obs.csv"
    obs.write_text("name,received,good\nfarm_a,2,1\nfarm_b,1,1\nfarm_c,1,0\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    cmd = [sys.executable, "-m", "subsel", "bandit", "feedback", "--state", str(state), "--observations", str(obs)]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    codes = sorted(o[2] for o in outs)
    assert codes == [0, 2], outs
    loser = next(o for o in outs if o[2] == 2)
    assert "no order is pending" in loser[1]
    saved = json.loads(state.read_text())
    assert saved["policy"]["t"] == 1 and saved["policy"]["w"] == [2, 1, 1]


def test_next_removes_a_killed_write_leftover(online):
    tmp_path, state = online
    leftover = tmp_path / ".state.k1ll3d_x.json"  # what a write killed before its rename leaves
    leftover.write_text("{half")
    unrelated = tmp_path / ".state.json.bak"
    unrelated.write_text("keep")
    _next(tmp_path, state)
    assert not leftover.exists() and unrelated.exists()


@pytest.mark.parametrize("extra, match", [
    (["--seed", "-5", "--policy", "cts"], "--seed must be >= 0; got -5"),
    (["--horizon", str(10 ** 20)], r"horizon must be an integer in \[1, 9007199254740992\]"),
    (["--epsilon", "2"], r"epsilon must be a number in \(0, 1\]; got 2.0"),
])
def test_init_option_ranges(tmp_path, capsys, extra, match):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\nfarm_a,0.1\n")
    args = ["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon", "0.3",
            "--horizon", "20", "--state", str(tmp_path / "s.json")]
    err = _one_line_error(capsys, main(args + extra))
    assert re.search(match, err), err
    assert not (tmp_path / "s.json").exists()


def test_refused_commands_leave_no_lock_file_they_created(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\nfarm_a,0.1\n")
    state = tmp_path / "s.json"
    init = ["bandit", "init", "--agents", str(agents), "--alpha", "0.6", "--epsilon", "0.3",
            "--horizon", "20", "--state", str(state)]
    _one_line_error(capsys, main(init[:-2] + ["--alpha", "7", "--state", str(state)]))  # refused init
    _one_line_error(capsys, main(["bandit", "next", "--state", str(state), "-o", str(tmp_path / "o.csv")]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agents.csv"]
    # a state without its lock file (copied in): a refused command removes the lock it created
    assert main(init) == 0
    capsys.readouterr()  # its warning: tau covers the horizon
    (tmp_path / ".s.json.lock").unlink()
    _one_line_error(capsys, main(init))  # the state exists: refused
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agents.csv", "s.json"]
    # a lock file that was already there (another command's) is left alone
    assert main(["bandit", "next", "--state", str(state), "-o", str(tmp_path / "o.csv")]) == 0
    capsys.readouterr()
    _one_line_error(capsys, main(init))
    assert (tmp_path / ".s.json.lock").exists()
