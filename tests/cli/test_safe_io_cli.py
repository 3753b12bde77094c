"""Adversarial files and paths across every command: one-line refusals (exit 2), inputs left byte
for byte unchanged, no file left behind, clean stops on SIGTERM."""
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from subsel.cli import guards, main

ROOT = Path(__file__).resolve().parents[2]
AGENTS = b"name,quality,cost\na,0.9,0.1\nb,0.6,0.2\nc,0.3,0.05\n"


def error_line(capsys, code: int) -> str:
    """The one stderr line of a refused command (exit code 2)."""
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("subsel: error: "), err
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones included) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class FakeStdin(io.TextIOWrapper):
    """``sys.stdin`` over given bytes: a text stream with a binary buffer, named ``<stdin>``."""

    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data), encoding="utf-8")

    @property
    def name(self):
        return "<stdin>"


def write_splits(folder: Path, n_features: int = 3) -> tuple[str, str, str]:
    rng = np.random.default_rng(0)
    paths = []
    for name, m in (("train", 60), ("val", 40), ("test", 40)):
        X = rng.normal(size=(m, n_features))
        y = (X[:, 0] > 0).astype(int)
        head = ",".join(f"f{j}" for j in range(n_features)) + ",label\n"
        body = "".join(",".join(f"{v:.4f}" for v in row) + f",{lab}\n" for row, lab in zip(X, y))
        path = folder / f"{name}.csv"
        path.write_text(head + body)
        paths.append(str(path))
    return tuple(paths)


# ------------------------------------------------------------------ 1. outputs never replace inputs
@pytest.fixture()
def files(tmp_path):
    (tmp_path / "a.csv").write_bytes(AGENTS)
    (tmp_path / "x.lp").write_bytes(AGENTS)  # an agents CSV under an LP name
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.csv").symlink_to(tmp_path / "a.csv")
    os.link(tmp_path / "a.csv", tmp_path / "hard.csv")
    return tmp_path


@pytest.mark.parametrize("argv, output, input_", [
    (["solve", "{d}/a.csv", "--alpha", "0.5", "-o", "{d}/a.csv"], "--output {d}/a.csv", "FILE {d}/a.csv"),
    (["solve", "{d}/link.csv", "--alpha", "0.5", "-o", "{d}/a.csv"], "--output {d}/a.csv",
     "FILE {d}/link.csv (the same file)"),
    (["solve", "{d}/a.csv", "--alpha", "0.5", "-o", "{d}/sub/../a.csv"], "--output {d}/sub/../a.csv",
     "FILE {d}/a.csv"),
    (["solve", "{d}/hard.csv", "--alpha", "0.5", "-o", "{d}/a.csv"], "--output {d}/a.csv",
     "FILE {d}/hard.csv (the same file)"),
    (["export", "{d}/x.lp", "--alpha", "0.5", "-o", "{d}/x.lp"], "--output {d}/x.lp", "FILE {d}/x.lp"),
    (["bandit", "init", "--agents", "{d}/a.csv", "--alpha", "0.5", "--epsilon", "0.1", "--horizon", "5",
      "--state", "{d}/link.csv", "--force"], "--state {d}/link.csv", "--agents {d}/a.csv"),
])
def test_an_output_never_replaces_an_input(files, capsys, argv, output, input_):
    d = str(files)
    before = snapshot(files)
    line = error_line(capsys, main([a.format(d=d) for a in argv]))
    assert f"{output.format(d=d)} would write over the input {input_.format(d=d)}" in line
    assert snapshot(files) == before


def test_bandit_next_and_feedback_refuse_the_state_file_as_the_other_file(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\na,0.1\nb,0.2\n")
    state = tmp_path / "s.json"
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.5", "--epsilon", "0.1",
                 "--horizon", "5", "--state", str(state)]) == 0
    capsys.readouterr()
    before = snapshot(tmp_path)
    line = error_line(capsys, main(["bandit", "next", "--state", str(state), "-o", str(state)]))
    assert f"--output {state} would write over the input --state {state}" in line
    line = error_line(capsys, main(["bandit", "feedback", "--state", str(state), "--observations",
                                    str(state)]))
    assert f"--state {state} would write over the input --observations {state}" in line
    assert snapshot(tmp_path) == before


def test_emsco_fit_refuses_an_out_folder_holding_its_training_file(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path)
    folder = tmp_path / "X"
    folder.mkdir()
    train = folder / "front.csv"
    train.write_bytes(Path(tr).read_bytes())
    before = snapshot(tmp_path)
    line = error_line(capsys, main(["emsco", "fit", "--train", str(train), "--val", va, "--test", te,
                                    "--costs", "1,1,1", "--confidence", "0.8", "--out", str(folder)]))
    assert f"--out {folder}/front.csv would write over the input --train {train}" in line
    assert snapshot(tmp_path) == before


def test_check_paths_resolves_folders_links_and_dots(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "alias").symlink_to(data)
    with pytest.raises(guards.CLIError, match=rf"^--out {tmp_path}/alias/ would write over the input "
                                              rf"--data-home {data} \(the same folder\)"):
        guards.check_paths([("--data-home", str(data))], [("--out", f"{tmp_path}/alias/")])
    with pytest.raises(guards.CLIError, match=r"holds the input --train"):
        guards.check_paths([("--train", str(data / "t.csv"))], folders=[("--out", str(tmp_path))])
    with pytest.raises(guards.CLIError, match=r"^-o a and --json-out ./a are the same file"):
        guards.check_paths([], [("-o", "a"), ("--json-out", "./a")])
    guards.check_paths([("FILE", "-"), ("--optimum", None)], [("--output", "-")])  # stdio: no file
    guards.check_paths([("--data-home", str(data))], [("--out", str(tmp_path / "results"))])


def test_reproduce_refuses_the_data_folder_as_out(tmp_path, capsys):
    from subsel.cli import build_parser

    probe = build_parser().parse_args(["reproduce", "fig1a"])
    if not hasattr(probe, "data_home"):
        pytest.skip("reproduce has no --data-home here")
    before = snapshot(tmp_path)
    line = error_line(capsys, main(["reproduce", "fig1a", "--data-home", str(tmp_path), "--out",
                                    str(tmp_path)]))
    assert f"--out {tmp_path} would write over the input --data-home {tmp_path}" in line
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------ 2./3. stdin is a file; true lines
@pytest.mark.parametrize("data, message", [
    (b"name,quality,cost\na\rb,0.9,0.1", "<stdin>: line 2: 1 field but the header has 3"),
    (b"name,quality,cost\na,0.9,0.1\n\xff\xfe,0.1,0.1\n", "<stdin>: line 3: not UTF-8 text (byte 0xff"),
    (b"name,quality,cost\na,0.5,0.1\n\nb,oops,0.1\n", "<stdin>: line 4, column 'quality': expected a number"),
    (b"\xef\xbb\xbfname,quality,cost\r\na,0.5,0.1\r\n\"b\r\nc\",0.2,x\r\n",
     "<stdin>: line 3, column 'cost': expected a number; got 'x'"),
])
def test_stdin_gives_the_same_clean_errors_as_a_file(tmp_path, capsys, monkeypatch, data, message):
    monkeypatch.setattr(sys, "stdin", FakeStdin(data))
    line = error_line(capsys, main(["solve", "-", "--alpha", "0.5"]))
    assert message in line
    path = tmp_path / "agents.csv"
    path.write_bytes(data)
    line_file = error_line(capsys, main(["solve", str(path), "--alpha", "0.5"]))
    assert line_file.replace(str(path), "<stdin>") == line
    assert path.read_bytes() == data


def test_real_stdin_bad_bytes_are_one_line_without_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for data, message in [(b"name,quality,cost\na\rb,0.9,0.1", "<stdin>: line 2: 1 field"),
                          (b"name,quality,cost\n\xe9t\xe9,0.9,0.1\n", "<stdin>: line 2: not UTF-8 text")]:
        proc = subprocess.run([sys.executable, "-m", "subsel", "solve", "-", "--alpha", "0.5"],
                              input=data, capture_output=True, env=env, cwd=tmp_path, timeout=120)
        assert proc.returncode == 2
        assert proc.stderr.decode().count("\n") == 1 and message in proc.stderr.decode()


def test_bandit_feedback_errors_name_the_file_line_after_blank_lines(tmp_path, capsys):
    agents = tmp_path / "agents.csv"
    agents.write_text("name,cost\r\na,0.1\r\nb,0.2\r\n")
    state = tmp_path / "s.json"
    assert main(["bandit", "init", "--agents", str(agents), "--alpha", "0.5", "--epsilon", "0.1",
                 "--horizon", "5", "--state", str(state)]) == 0
    assert main(["bandit", "next", "--state", str(state), "-o", str(tmp_path / "o.csv")]) == 0
    capsys.readouterr()
    obs = tmp_path / "obs.csv"
    obs.write_text("name,received,good\n\na,1,1\n\nzz,1,1\n")
    before = state.read_bytes()
    line = error_line(capsys, main(["bandit", "feedback", "--state", str(state), "--observations",
                                    str(obs)]))
    assert f"{obs}: line 5, column 'name': unknown agent; got 'zz'; state left unchanged" in line
    assert state.read_bytes() == before


def test_emsco_split_errors_name_the_physical_line(tmp_path, capsys):
    tr, va, te = write_splits(tmp_path)
    text = Path(tr).read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.csv"
    # a blank line and a quoted multi-line label before the bad cell on line 6
    bad.write_text(text[0] + text[1] + "\n" + text[2] + "1.0,2.0,3.0,\"1\"\n" + "1.0,abc,3.0,0\n")
    line = error_line(capsys, main(["emsco", "fit", "--train", str(bad), "--val", va, "--test", te,
                                    "--costs", "1,1,1", "--confidence", "0.8"]))
    assert f"train file {bad} (--train): line 6, column 'f1': feature is not numeric" in line
    assert "got 'abc'" in line


# ------------------------------------------------------------------ 4. names
def test_a_nul_or_control_character_in_a_name_is_refused(tmp_path, capsys, monkeypatch):
    path = tmp_path / "a.csv"
    path.write_bytes(b"name,quality,cost\na,0.9,0.1\n\"b\tc\",0.3,0.1\n")
    line = error_line(capsys, main(["solve", str(path), "--alpha", "0.5", "-o", str(tmp_path / "o.csv")]))
    assert f"{path}: line 3, column 'name': must not hold control characters" in line
    path.write_bytes(b"name,quality,cost\na\x00b,0.9,0.1\n")
    line = error_line(capsys, main(["solve", str(path), "--alpha", "0.5", "-o", str(tmp_path / "o.csv")]))
    assert f"{path}: line 2: holds a NUL byte" in line
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("command", [
    ["solve", "{f}", "--alpha", "0.5"],
    ["bandit", "init", "--agents", "{f}", "--alpha", "0.5", "--epsilon", "0.1", "--horizon", "5",
     "--state", "{d}/s.json"],
])
def test_a_repeated_header_is_refused_by_every_reader(tmp_path, capsys, command):
    f = tmp_path / "a.csv"
    f.write_text("name,cost,cost,quality\na,0.1,0.2,0.5\n" if command[0] == "solve"
                 else "name,cost,cost\na,0.1,0.2\n")
    line = error_line(capsys, main([a.format(f=f, d=tmp_path) for a in command]))
    assert f"{f}: line 1: column 3 repeats the header 'cost' of column 2" in line
    # nothing written (the bandit commands' lock file next to the state aside)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["a.csv"]


def test_must_lists_take_csv_quoting_and_repetition(tmp_path, capsys):
    path = tmp_path / "a.csv"
    path.write_text('name,quality,cost\n"Smith, Inc.",0.9,0.1\nb,0.6,0.2\nC,0.95,0.1\nd,0.8,0.1\n')
    out = tmp_path / "o.csv"
    assert main(["solve", str(path), "--alpha", "0.5", "--must-not-take", '"Smith, Inc.",C',
                 "--must-not-take", "d", "-o", str(out)]) == 0
    rows = dict(line.rsplit(",", 1) for line in out.read_text().splitlines()[1:])
    assert rows == {'"Smith, Inc."': "0", "b": "1", "C": "0", "d": "0"}
    help_text = subprocess.run([sys.executable, "-m", "subsel", "solve", "--help"], capture_output=True,
                               text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120).stdout
    assert '"Smith, Inc."' in help_text and "repeat" in help_text


@pytest.mark.parametrize("argv, message", [
    (["--must-take", "zz"], "--must-take: name 1 ('zz') names no agent"),
    (["--must-take", "a", "--must-take", "b,zz"], "--must-take: name 3 ('zz') names no agent"),
    (["--must-not-take", "a,,b"], "--must-not-take: name 2 of 'a,,b' is empty"),
    (["--must-take", '"a'], "--must-take '\"a': not a comma-separated list of names"),
    (["--must-take", "a", "--must-not-take", "a"], "agent 'a' is in both --must-take and --must-not-take"),
    (["--solver", ""], "--solver must name a backend"),
    (["--solver", "  "], "--solver must name a backend"),
])
def test_option_errors_name_the_option(tmp_path, capsys, argv, message):
    path = tmp_path / "a.csv"
    path.write_bytes(AGENTS)
    line = error_line(capsys, main(["solve", str(path), "--alpha", "0.5", *argv]))
    assert message in line
    assert "must_take[" not in line


# ------------------------------------------------------------------ 5. work that cannot finish
def test_emsco_population_beyond_memory_is_refused_up_front(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(guards, "available_memory", lambda: 2 ** 30)
    tr, va, te = write_splits(tmp_path)
    out = tmp_path / "new" / "out"
    start = time.perf_counter()
    line = error_line(capsys, main(["emsco", "fit", "--train", tr, "--val", va, "--test", te, "--costs",
                                    "1,1,1", "--confidence", "0.8", "--population", "100000000",
                                    "--out", str(out)]))
    assert time.perf_counter() - start < 30
    assert "--population-size 100000000 needs about 193.7 GiB of memory; 1.0 GiB are available" in line
    assert not (tmp_path / "new").exists()


def test_generate_beyond_memory_is_refused_without_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(guards, "available_memory", lambda: 2 ** 30)
    out = tmp_path / "a.csv"
    line = error_line(capsys, main(["generate", "--n", "5000000000", "-o", str(out)]))
    assert "--n 5000000000 needs about 931.3 GiB of memory; 1.0 GiB are available" in line
    assert list(tmp_path.iterdir()) == []


def test_compare_beyond_memory_is_refused_without_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(guards, "available_memory", lambda: 2 ** 30)
    out = tmp_path / "cmp"
    line = error_line(capsys, main(["compare", "--solvers", "gss,exact", "--n", "10,5000000000",
                                    "--out", str(out)]))
    assert "--n 5000000000 needs about 447.0 GiB of memory; 1.0 GiB are available" in line
    assert not out.exists()


# ------------------------------------------------------------------ 6. killed runs clean up
def test_emsco_fit_interrupted_during_its_writes_leaves_nothing(tmp_path, capsys, monkeypatch):
    from subsel.cli import emsco as cli_emsco

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_emsco, "_plot_front", interrupted)  # after front.csv was written
    tr, va, te = write_splits(tmp_path)
    out = tmp_path / "deep" / "out"
    code = main(["emsco", "fit", "--train", tr, "--val", va, "--test", te, "--costs", "1,1,1",
                 "--confidence", "0.8", "--population", "6", "--generations", "1", "--out", str(out)])
    assert code == 130 and "subsel: interrupted" in capsys.readouterr().err
    assert not (tmp_path / "deep").exists()
    # an existing --out folder is kept, with only what was there before
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")
    code = main(["emsco", "fit", "--train", tr, "--val", va, "--test", te, "--costs", "1,1,1",
                 "--confidence", "0.8", "--population", "6", "--generations", "1",
                 "--out", str(tmp_path / "kept")])
    assert code == 130
    assert snapshot(tmp_path / "kept") == {"notes.txt": b"mine"}


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_sigterm_stops_emsco_fit_like_ctrl_c_and_removes_its_folders(tmp_path):
    tr, va, te = write_splits(tmp_path)
    out = tmp_path / "new" / "out"
    proc = subprocess.Popen([sys.executable, "-m", "subsel", "emsco", "fit", "--train", tr, "--val", va,
                             "--test", te, "--costs", "1,1,1", "--confidence", "0.8",
                             "--generations", "100000", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    deadline = time.monotonic() + 120
    while not out.exists() and time.monotonic() < deadline:  # the fit has started
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and err.decode().strip() == "subsel: terminated"
    assert not (tmp_path / "new").exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_jobs_2_run_leaves_no_worker_processes(tmp_path, capsys):
    assert main(["compare", "--solvers", "gss", "--n", "10", "--instances", "4", "--jobs", "2",
                 "--out", str(tmp_path / "cmp")]) == 0
    workers = [p for p in _children(os.getpid())  # the pool's workers (not its resource tracker)
               if "popen_loky" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")]
    assert workers == []


def test_summary_of_a_finished_fit_is_complete(tmp_path, capsys):
    """The clean-up path does not touch a run that finished: all three files are there."""
    tr, va, te = write_splits(tmp_path)
    out = tmp_path / "out"
    assert main(["emsco", "fit", "--train", tr, "--val", va, "--test", te, "--costs", "1,1,1",
                 "--confidence", "0.8", "--population", "6", "--generations", "1", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["front.csv", "front.png", "summary.json"]
    assert json.loads((out / "summary.json").read_text())["population_size"] == 6


@pytest.mark.parametrize("text, message", [
    ("name,cost\r\na,0.1\r\n\r\nb,-2\r\n", "line 4, column 'cost': must be >= 0; got -2.0"),
    ("name,cost\na,0.1\n\na,0.2\n", "line 4, column 'name': duplicates line 2; got 'a'"),
    ("name,cost,quality\na,0.1,0.5\n", "a 'quality' column is not expected (qualities are learned)"),
    ("name,cost\na,0.1,7\n", "line 2: 3 fields but the header has 2 (name,cost)"),
])
def test_bandit_agents_errors_name_the_file_line(tmp_path, capsys, text, message):
    agents = tmp_path / "agents.csv"
    agents.write_text(text, newline="")
    state = tmp_path / "s.json"
    line = error_line(capsys, main(["bandit", "init", "--agents", str(agents), "--alpha", "0.5",
                                    "--epsilon", "0.1", "--horizon", "5", "--state", str(state)]))
    assert f"{agents}: {message}" in line
    assert not state.exists()


def test_ctrl_c_while_the_command_line_loads_is_one_line_and_exit_130(capsys, monkeypatch):
    """A Ctrl-C before the command runs (the parser and the commands' modules loading) ends like one
    during the command: ``subsel: interrupted`` and exit code 130, no traceback."""
    import subsel.cli as cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["knapsack", "--help"]) == 130
    err = capsys.readouterr().err
    assert err == "subsel: interrupted\n"


def test_an_empty_file_name_or_a_closed_stdin_is_one_line_and_exit_2(capsys, monkeypatch):
    """``subsel knapsack ''`` names the empty file name (it read as the folder '.'), and ``-`` with
    standard input closed says so (it was a message about None)."""
    assert main(["knapsack", ""]) == 2
    assert capsys.readouterr().err == "subsel: error: FILE: an empty file name\n"
    monkeypatch.setattr(sys, "stdin", None)
    assert main(["knapsack", "-"]) == 2
    assert capsys.readouterr().err == "subsel: error: FILE '-': the standard input is closed\n"


def test_a_part_of_subsel_not_built_is_one_line_and_exit_2(capsys, monkeypatch):
    """Sources that were not installed (a clone's folder ahead of the installed package) lack the
    compiled kernel: the command line says so in one line, exit code 2; a missing library that is
    not subsel's still raises."""
    import subsel.cli as cli

    def missing(*args, **kwargs):
        raise ModuleNotFoundError("subsel's compiled knapsack kernel is not built in here",
                                  name="subsel.knapsack._knapsack_core")

    monkeypatch.setattr(cli, "build_parser", missing)
    assert cli.main(["knapsack", "--help"]) == 2
    assert capsys.readouterr().err == "subsel: error: subsel's compiled knapsack kernel is not built in here\n"

    def other(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")

    monkeypatch.setattr(cli, "build_parser", other)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["knapsack", "--help"])


def test_the_knapsack_package_without_its_kernel_says_how_to_build_it():
    """Importing subsel.knapsack where its compiled kernel is missing names the folder and the way
    out, instead of the bare module name."""
    code = ("import sys; sys.modules['subsel.knapsack._knapsack_core'] = None\n"
            "try:\n    import subsel.knapsack\n"
            "except ModuleNotFoundError as exc:\n    print(exc.name); print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    name, message = out.splitlines()[:2]
    assert name == "subsel.knapsack._knapsack_core"
    assert message.startswith("subsel's compiled knapsack kernel is not built in ")
    assert "pip install -e ." in message


def test_an_infinite_limit_is_said_to_be_not_finite(tmp_path, capsys):
    """``--time-limit inf`` read as "must be a number > 0", which it is; the message says what is
    wrong with it, keeping the option and the value (NaN keeps the shared message)."""
    f = tmp_path / "kp.txt"
    f.write_bytes(b"2 5\n1 2\n3 4\n")
    agents = tmp_path / "a.csv"
    agents.write_bytes(AGENTS)
    for argv in (["knapsack", str(f)], ["solve", str(agents), "--alpha", "0.5"]):
        assert main([*argv, "--time-limit", "inf"]) == 2
        assert capsys.readouterr().err == "subsel: error: --time-limit must be a finite number > 0 (seconds); got inf\n"
    assert main(["knapsack", str(f), "--time-limit", "nan"]) == 2
    assert capsys.readouterr().err == "subsel: error: --time-limit must be a number > 0 (seconds); got nan\n"


class _FullStream(io.StringIO):
    """A standard output on a full disk: every write fails as on ``/dev/full``."""

    def write(self, text):
        raise OSError(28, "No space left on device")


READERS = [["knapsack"], ["solve", "--alpha", "0.5"], ["frontier", "--alpha-min", "0", "--alpha-max", "1"],
           ["payments", "--alpha", "0.5"]]


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc/self/mem")
@pytest.mark.parametrize("command", READERS)
def test_a_file_that_cannot_be_read_is_named(capsys, command):
    """``/proc/self/mem`` opens but fails to read (EIO): the message names it ("[Errno 5]" alone
    did not), for every command that reads a file."""
    assert main([command[0], "/proc/self/mem", *command[1:]]) == 2
    assert capsys.readouterr().err == "subsel: error: /proc/self/mem: Input/output error\n"


@pytest.mark.parametrize("argv", [["knapsack", "{kp}"], ["knapsack", "{kp}", "-o", "-"], ["knapsack", "{kp}", "--json"],
                                  ["solve", "{agents}", "--alpha", "0.5"], ["generate", "--n", "3"]])
def test_a_full_standard_output_is_named(tmp_path, capsys, monkeypatch, argv):
    """A write to a full standard output names it, one line, exit code 2 (it read "[Errno 28] No
    space left on device")."""
    kp, agents = tmp_path / "kp.txt", tmp_path / "a.csv"
    kp.write_bytes(b"2 5\n1 2\n3 4\n")
    agents.write_bytes(AGENTS)
    before = snapshot(tmp_path)
    full = _FullStream()
    monkeypatch.setattr(sys, "stdout", full)
    assert main([a.format(kp=kp, agents=agents) for a in argv]) == 2
    assert capsys.readouterr().err == "subsel: error: <stdout>: No space left on device\n"
    assert sys.stdout is full  # the command's stream handed back
    assert snapshot(tmp_path) == before


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["knapsack", "{kp}"], ["solve", "{agents}", "--alpha", "0.5"],
                                     ["generate", "--n", "3"], ["frontier", "{agents}", "--alpha-min", "0",
                                                                "--alpha-max", "1", "--points", "2"]])
def test_an_output_file_on_a_full_disk_is_named(tmp_path, capsys, command):
    kp, agents = tmp_path / "kp.txt", tmp_path / "a.csv"
    kp.write_bytes(b"2 5\n1 2\n3 4\n")
    agents.write_bytes(AGENTS)
    before = snapshot(tmp_path)
    assert main([a.format(kp=kp, agents=agents) for a in command] + ["-o", "/dev/full"]) == 2
    assert error_line(capsys, 2) == "subsel: error: /dev/full: No space left on device"
    assert snapshot(tmp_path) == before


def test_a_closed_standard_output_is_an_error_not_lost_output(tmp_path, capsys, monkeypatch):
    """Started with stdout closed (``>&-``), a command whose answer goes to stdout said nothing and
    exited 0: the answer was lost.  Now one line, exit code 2; ``-o -`` is refused up front."""
    agents = tmp_path / "a.csv"
    agents.write_bytes(AGENTS)
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["solve", str(agents), "--alpha", "0.5"]) == 2
    assert error_line(capsys, 2) == "subsel: error: the standard output is closed; nothing can be written to it"
    assert sys.stdout is None
    assert main(["solve", str(agents), "--alpha", "0.5", "-o", "-"]) == 2
    assert error_line(capsys, 2) == "subsel: error: --output '-': the standard output is closed"


@pytest.mark.parametrize("command, option", [
    (["generate", "--n", "3", "-o", ""], "-o"),
    (["export", "{agents}", "--alpha", "0.5", "-o", ""], "--output"),
    (["solve", "{agents}", "--alpha", "0.5", "-o", ""], "--output"),
    (["frontier", "", "--alpha-min", "0", "--alpha-max", "1"], "FILE"),
    (["payments", "", "--alpha", "0.5"], "FILE"),
])
def test_an_empty_output_or_input_name_is_refused_by_name(tmp_path, capsys, command, option):
    """An empty output name read as the folder '.' (generate: ": is a folder") or as a name without
    an extension (export); every command refuses it by its option."""
    agents = tmp_path / "a.csv"
    agents.write_bytes(AGENTS)
    before = snapshot(tmp_path)
    assert main([a.format(agents=agents) for a in command]) == 2
    assert error_line(capsys, 2) == f"subsel: error: {option}: an empty file name"
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", [["solve", "--alpha", "0.5"], ["frontier", "--alpha-min", "0", "--alpha-max", "1"],
                                     ["payments", "--alpha", "0.5"], ["solve", "--knapsack"]])
def test_a_closed_standard_input_is_named(capsys, monkeypatch, command):
    monkeypatch.setattr(sys, "stdin", None)
    assert main([command[0], "-", *command[1:]]) == 2
    assert error_line(capsys, 2) == "subsel: error: FILE '-': the standard input is closed"
