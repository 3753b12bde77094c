"""``subsel bandit``: simulate SS-UCB and baselines, or run a real planner one round at a time.

- ``subsel bandit simulate --policy NAME [--oracle NAME] --n --alpha --epsilon --T --runs --seed
  [--availability P] [--lead-time L] [--arrivals K] --out DIR`` — the paper's random instances
  (q, c ~ U[0, 1]); writes ``curves.csv``, ``runs.csv``, ``regret.png`` and ``summary.json`` into
  DIR (in a changing world, with the fixed-pool run on the same instances beside it);
- ``subsel bandit init --agents agents.csv --alpha A --epsilon E --horizon T --policy NAME
  [--oracle NAME] --state state.json`` — a fresh planner (agents.csv: name, cost, capacity);
- ``subsel bandit next --state state.json -o order.csv [--unavailable a,b | --available-file F]``
  — the next round's order (name, units, round), with the agents that cannot deliver this round
  left out;
- ``subsel bandit feedback --state state.json --observations obs.csv [--round K]`` — what arrived
  (name, received, good): for the oldest open round in full, or for round ``K`` in part and in any
  order.  Rejected feedback leaves the state file byte-identical (exit code 2);
- ``subsel bandit add --state state.json --agents new.csv`` and ``subsel bandit remove --state
  state.json --names a,b`` — agents that join or leave the pool.

One writer per state: ``init``, ``next``, ``feedback``, ``add`` and ``remove`` hold an exclusive
lock (the file ``.STATE.lock`` beside the file the state path resolves to, via ``filelock``) for
the whole read-check-write, so two commands on one state, whatever symbolic link or relative path
names it, never both record a round; the second waits up to :data:`LOCK_TIMEOUT_S` seconds and is
then refused (exit code 2).  A state with several hard links is refused (two names, two locks).
Temporary files a killed write left beside the state are removed by the next command that holds
the lock.  A refused command removes the lock file if it
created it (e.g. ``init`` with a bad option, ``next`` on a missing state), so nothing is left
behind; it does so while still holding the lock, and filelock (4.3 and later) re-checks after
locking that the file it locked is still in place, so a command waiting meanwhile locks afresh.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Iterator

import numpy as np

from .._extras import require
from .._files import CSVTable, InputError, atomic_write_text, read_csv, stale_temporaries
from ..bandits import (
    BernoulliEnvironment,
    OnlinePlanner,
    arrival_schedule,
    exploration_rounds,
    fitting_epsilon,
    make_policy,
    paper_instances,
    policy_names,
    simulate,
)
from ..models._rules import exact_total
from ..solvers import EnumerationTooLargeError, get_solver
from . import CLIError, counted, integer, number
from .guards import check_memory, check_paths

#: Seconds a command waits for another command's lock on the same state before refusing.
LOCK_TIMEOUT_S = 30.0


# ---------------------------------------------------------------------------------------- simulate
def _check_writable_dir(path: Path, option: str) -> None:
    """Fail before any work when ``path`` cannot become a writable folder."""
    if path.exists() and not path.is_dir():
        raise CLIError(f"{option} {path} exists and is not a folder")
    parent = path
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise CLIError(f"{option} {path}: cannot write into {parent}")


def _check_writable_file(path: Path, option: str) -> None:
    """Fail before any work when the file ``path`` cannot be written (missing or read-only folder)."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise CLIError(f"{option} {path} is a folder, not a file")
    if not parent.is_dir():
        raise CLIError(f"{option} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CLIError(f"{option} {path}: cannot write into folder {parent}")


def _check_memory(n: int, runs: int) -> None:
    """Refuse before any work a simulation whose arrays cannot fit in the memory available.

    About 16 float64 arrays of shape (runs, n) live at once (instances, statistics, selections,
    outcomes), plus about 1 kB per run for its seed sequence and per-run constants.
    """
    need = runs * (16 * 8 * n + 1024)
    check_memory(need, f"--runs {runs} with --n {n}")


def _cmd_simulate(args: argparse.Namespace) -> int:
    out = Path(args.out)
    for name, value, low in (("--n", args.n, 1), ("--T", args.T, 1), ("--runs", args.runs, 1),
                             ("--seed", args.seed, 0), ("--lead-time", args.lead_time, 0),
                             ("--arrivals", args.arrivals, 0)):
        if value < low:
            raise CLIError(f"{name} must be >= {low}; got {value}")
    if args.availability is not None and not 0.0 < args.availability <= 1.0:
        raise CLIError(f"--availability must be in (0, 1]; got {args.availability:g}")
    _check_memory(args.n, args.runs)
    _check_writable_dir(out, "--out")
    require("matplotlib", *(["tqdm"] if args.progress else []), extra="bandits",
            feature="subsel bandit simulate (the regret figure and --progress)")
    try:
        return _simulate(args, out)
    except MemoryError:
        raise CLIError(f"out of memory for --n {args.n} --runs {args.runs} --T {args.T}; "
                       "use fewer runs or agents") from None
    except EnumerationTooLargeError as exc:  # before any round is played and any file is written
        agents = (f"--n {args.n} with --arrivals {args.arrivals} ({args.n + args.arrivals} agents in all)"
                  if args.arrivals else f"--n {args.n}")
        raise CLIError(f"{agents}: too many agents for dpss, which would enumerate about "
                       f"2^{exc.log2_size:.0f} selections over {exc.free_agents} free agents (at most "
                       "2^32); use fewer agents, or --oracle exact (an exact oracle also computes the "
                       "regret references)") from None


def _changing(args: argparse.Namespace) -> bool:
    return args.availability is not None or args.lead_time != 0 or args.arrivals != 0


def _simulate(args: argparse.Namespace, out: Path) -> int:
    seq = np.random.SeedSequence(args.seed)
    inst_seq, env_seq, pol_seq = seq.spawn(3)
    n_all = args.n + args.arrivals
    quality, cost = paper_instances(n_all, args.runs, args.alpha, inst_seq, R=args.R)
    oracle = args.oracle
    # The regret references: dpss, or the oracle itself when it is exact (one that scales, such as
    # 'exact', then serves pools too large for dpss's enumeration).
    reference = get_solver(oracle) if oracle is not None else "dpss"
    if not isinstance(reference, str) and not reference.exact:
        reference = "dpss"

    def play(world: bool):
        policy = make_policy(args.policy, oracle, cost=cost, alpha=args.alpha, epsilon=args.epsilon,
                             horizon=args.T, R=args.R, runs=args.runs, seed=pol_seq, quality=quality)
        env = BernoulliEnvironment(quality, cost, R=args.R, seed=env_seq)
        kw = {}
        if world:
            kw = dict(availability=args.availability, lead_time=args.lead_time,
                      pool=arrival_schedule(n_all, args.arrivals, args.T) if args.arrivals else None,
                      seed=np.random.SeedSequence(args.seed, spawn_key=(3,)))
        return policy, simulate(policy, env, args.T, args.epsilon, tau=getattr(policy, "tau", 0),
                                exact=reference, progress=args.progress, **kw)

    policy, result = play(_changing(args))
    fixed = play(False)[1] if _changing(args) else None
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"--out {out}: cannot create the folder ({exc.strerror})") from None
    curves = result.curves()
    atomic_write_text(out / "curves.csv", curves.to_csv(index=False, float_format="%.10g"))
    import pandas as pd  # here, not at load: 'subsel --help' does without

    runs = pd.DataFrame({"run": np.arange(args.runs), "optimum": result.optimum, "L": result.L})
    atomic_write_text(out / "runs.csv", runs.to_csv(index=False, float_format="%.10g"))
    _plot_run(result, args, out / "regret.png", policy.oracle.name, fixed)
    summary = {"policy": policy.name if args.policy not in ("dpss-ucb", "gss-ucb") else args.policy,
               "oracle": policy.oracle.name, "n": args.n, "alpha": args.alpha,
               "epsilon": args.epsilon, "R": args.R, "T": args.T, "runs": args.runs, "seed": args.seed,
               "availability": args.availability, "lead_time": args.lead_time, "arrivals": args.arrivals}
    summary.update(result.summary())
    if fixed is not None:  # the same instances and outcome streams in the papers' world
        summary["fixed_pool"] = fixed.summary()
        curves = curves.merge(fixed.curves().add_prefix("fixed_pool_").rename(
            columns={"fixed_pool_round": "round"}), on="round", how="left")
        atomic_write_text(out / "curves.csv", curves.to_csv(index=False, float_format="%.10g"))
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    print(f"{summary['policy']} (oracle {summary['oracle']}): n={args.n}, alpha={args.alpha:g}, "
          f"epsilon={args.epsilon:g}, T={args.T}, runs={args.runs}, tau={result.tau}"
          + (" (tau >= T: every round explores)" if result.tau >= args.T else ""))
    print(f"{'round':>8} {'regret mean':>12} {'regret std':>11} {'correct':>8} {'feasible':>9} {'utility':>8}")
    show = np.unique(np.concatenate([np.geomspace(1, len(curves), 8).astype(int) - 1, [len(curves) - 1]]))
    for i in show:
        row = curves.iloc[i]
        print(f"{int(row['round']):>8} {row['regret_mean']:>12.2f} {row['regret_std']:>11.2f} "
              f"{row['correct_fraction']:>8.3f} {row['feasible_fraction']:>9.3f} {row['utility_mean']:>8.3f}")
    def fmt(v):
        return "n/a" if v is None else f"{v:.4f}"
    print(f"regret at T: {summary['regret_at_T']:.2f}; "
          f"after tau: correct {fmt(summary['correct_fraction_after_tau'])}, "
          f"feasible {fmt(summary['feasible_fraction_after_tau'])}; {summary['run_rounds_per_s']:.0f} run-rounds/s; "
          f"wrote {out}")
    if fixed is not None:
        f = summary["fixed_pool"]
        print(f"fixed pool (same instances and outcomes): regret at T {f['regret_at_T']:.2f}; after tau: "
              f"correct {fmt(f['correct_fraction_after_tau'])}, feasible {fmt(f['feasible_fraction_after_tau'])}")
    return 0


def _plot_run(result, args: argparse.Namespace, path: Path, oracle: str, fixed=None) -> None:
    from ..experiments import new_figure, save_figure

    _, (fig, (ax1, ax2)) = new_figure(1, 2, figsize=(10, 3.8))
    t = result.rounds
    ax1.plot(t, result.regret_mean, label="mean")
    ax1.fill_between(t, result.regret_p05, result.regret_p95, alpha=0.25, label="5-95 %")
    if fixed is not None:
        ax1.plot(fixed.rounds, fixed.regret_mean, ls="--", color="grey", label="fixed pool")
        ax2.plot(fixed.rounds, fixed.correct_fraction, ls="--", color="grey", label="correct, fixed pool")
    ax1.set_xlabel("round t")
    ax1.set_ylabel("cumulative regret")
    # "correct" is a broad line under a thin dashed "feasible": both show where they coincide
    ax2.plot(t, result.correct_fraction, lw=3.5, alpha=0.6, zorder=2, label="correct (q_av >= alpha - eps)")
    ax2.plot(t, result.feasible_fraction, lw=1.2, ls="--", zorder=3, label="feasible (q_av >= alpha)")
    ax2.set_xlabel("round t")
    ax2.set_ylabel("fraction of runs")
    ax2.set_ylim(-0.02, 1.02)
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    for ax in (ax1, ax2):
        if 0 < result.tau <= result.horizon:
            ax.axvline(result.tau, ls=":", color="k", label=f"tau = {result.tau}")
        ax.legend(fontsize=8, loc="center right" if ax is ax2 else "best")  # fractions sit at 0 and 1
        # at most 6 round labels, with thousands separators, so long horizons do not run together
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    world = "".join([f", availability {args.availability:g}" if args.availability is not None else "",
                     f", lead time {args.lead_time}" if args.lead_time else "",
                     f", {args.arrivals} arrivals" if args.arrivals else ""])
    fig.suptitle(f"{args.policy} (oracle {oracle}), n={args.n}, alpha={args.alpha:g}, "
                 f"eps={args.epsilon:g}, runs={args.runs}{world}")
    fig.tight_layout()
    save_figure(fig, path)


# ---------------------------------------------------------------------------------------- online
def _read_csv(path: str, option: str) -> CSVTable:
    """The CSV given to ``option`` (``-``: stdin), read with line numbers for every row."""
    if path == "-":
        return read_csv(sys.stdin)
    p = Path(path)
    if p.is_dir():
        raise CLIError(f"{option} {path} is a folder, not a CSV file")
    if not p.exists():  # pipes and /dev/fd/N (process substitution) are not regular files but read
        raise CLIError(f"{option} {path}: no such file")
    return read_csv(path)


def _lock_path(state: Path) -> Path:
    return state.with_name(f".{state.name}.lock")


@contextlib.contextmanager
def _state_lock(path: str) -> Iterator[None]:
    """Hold the state's exclusive lock for a read-check-write; clean a killed write's leftovers.

    Raises
    ------
    CLIError
        Another command holds the lock for longer than :data:`LOCK_TIMEOUT_S`, or the lock file
        cannot be created.
    ImportError
        filelock is not installed (the message names ``pip install "subsel[bandits]"``).
    """
    require("filelock", extra="bandits", feature="subsel bandit init / next / feedback (the state file lock)")
    from filelock import FileLock, Timeout

    given = Path(path)
    # Lock the file the path resolves to: through a symbolic link (B/other.json -> ../A/state.json)
    # or a relative path, every command on one state takes the same lock (A/.state.json.lock).
    state = Path(os.path.realpath(given))
    lock_file = _lock_path(state)
    shown = lock_file if given.is_symlink() else _lock_path(given)  # as the user named the state
    if not state.parent.is_dir():
        yield  # nothing to lock: the command reports the missing folder or state itself
        return
    with contextlib.suppress(OSError):
        if state.is_file() and state.stat().st_nlink > 1:
            # A hard link has no name to resolve to: two names would take two locks, and the
            # atomic replacement would split them into two states.
            raise CLIError(f"{given}: the state file has {state.stat().st_nlink} hard links; a state "
                           "needs one name (copy it, or use a symbolic link) so that one lock guards it")
    created = not lock_file.exists()  # a refused command removes a lock file it created
    lock = FileLock(str(lock_file), timeout=LOCK_TIMEOUT_S)
    try:
        lock.acquire()
    except Timeout:
        raise CLIError(f"{given}: in use by another subsel command (lock {shown} held for more "
                       f"than {LOCK_TIMEOUT_S:g} s); nothing was changed, try again") from None
    except OSError as exc:
        raise CLIError(f"{given}: cannot create the lock file {shown} ({exc.strerror})") from None
    try:
        for tmp in stale_temporaries(state):
            with contextlib.suppress(OSError):
                tmp.unlink()
        yield
    except BaseException:
        if created:  # unlinked while held: a waiting command sees the inode gone and locks afresh
            with contextlib.suppress(OSError):
                lock_file.unlink()
        raise
    finally:
        lock.release()


def _load_state(path: str) -> OnlinePlanner:
    p = Path(path)
    if p.is_dir():
        raise CLIError(f"--state {p} is a folder, not a state file (the file 'subsel bandit init --state' wrote)")
    if not p.is_file():
        raise FileNotFoundError(f"state file {p} does not exist (run 'subsel bandit init' first)")
    try:
        state = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CLIError(f"{p}: not a JSON state file ({exc})") from None
    except RecursionError:  # e.g. 100,000 nested brackets: no state is nested like that
        raise CLIError(f"{p}: not a state file (JSON nested too deeply)") from None
    try:
        return OnlinePlanner.from_state(state)
    except ValueError as exc:
        raise CLIError(f"{p}: {exc}") from None
    except (KeyError, TypeError, OverflowError) as exc:
        raise CLIError(f"{p}: damaged state file ({type(exc).__name__}: {exc})".splitlines()[0]) from None


def _save_state(planner: OnlinePlanner, path: str) -> None:
    atomic_write_text(path, json.dumps(planner.to_state(), indent=1) + "\n")


def _cmd_init(args: argparse.Namespace) -> int:
    check_paths([("--agents", args.agents)], [("--state", args.state)])
    with _state_lock(args.state):
        return _init(args)


def _init(args: argparse.Namespace) -> int:
    state = Path(args.state)
    if args.seed is not None and args.seed < 0:
        raise CLIError(f"--seed must be >= 0; got {args.seed}")
    if state.is_dir():  # before --force: no --force makes a folder a state file
        raise CLIError(f"--state {state} is a folder; give a file name (e.g. {state / 'state.json'})")
    if args.max_open < 1:
        raise CLIError(f"--max-open must be >= 1; got {args.max_open}")
    if state.exists() and not args.force:
        raise CLIError(f"state file {state} exists; use --force to replace it")
    _check_writable_file(state, "--state")
    try:  # the settings first, on a placeholder agent, so their errors do not blame the CSV
        OnlinePlanner.create(CSVTable(None, ("name", "cost"), (("x", "0"),), None), alpha=args.alpha,
                             epsilon=args.epsilon, horizon=args.horizon, policy=args.policy,
                             oracle=args.oracle, R=args.R, seed=args.seed)
    except TypeError as exc:  # e.g. a --seed the policy rejects
        raise CLIError(str(exc)) from None
    agents = _read_csv(args.agents, "--agents")
    planner = OnlinePlanner.create(agents, alpha=args.alpha, epsilon=args.epsilon,
                                   horizon=args.horizon, policy=args.policy, oracle=args.oracle,
                                   R=args.R, seed=args.seed, max_open=args.max_open)
    _save_state(planner, args.state)
    pol = planner.policy
    extra = f", tau={pol.tau}" if hasattr(pol, "tau") else ""
    print(f"{pol.name} (oracle {pol.oracle.name}) for {counted(pol.n, 'agent')}{extra}; state in {args.state}")
    if getattr(pol, "tau", 0) >= args.horizon > 1:
        eps = fitting_epsilon(args.horizon)
        fit = (f"epsilon >= {eps:g} gives tau = {exploration_rounds(args.horizon, eps)} < {args.horizon}"
               if eps is not None else "no epsilon <= 1 leaves a round after tau")
        print(f"subsel: warning: tau = {pol.tau} >= horizon {args.horizon}: every round explores (plays "
              f"every unit) and nothing learned is used; {fit}", file=sys.stderr)
    return 0


def _cmd_next(args: argparse.Namespace) -> int:
    check_paths([("--state", args.state)], [("--output", args.output)])
    with _state_lock(args.state):
        return _next(args)


def _names_option(text: str, option: str) -> list[str]:
    """The agent names of a comma-separated option (``--unavailable a,b``); spaces around are dropped."""
    names = [s.strip() for s in text.split(",")] if text.strip() else []
    if any(not s for s in names):
        raise CLIError(f"{option} {text!r}: an empty name (two commas in a row?)")
    twice = next((s for j, s in enumerate(names) if s in names[:j]), None)
    if twice is not None:
        raise CLIError(f"{option} {text!r}: names agent {twice!r} twice")
    return names


def _available_file(path: str) -> list[str]:
    """The available agents of ``--available-file``: column ``name``, and optionally ``available``
    (1/0, true/false, yes/no) to list every agent with its availability."""
    table = _read_csv(path, "--available-file")
    table.require("name")
    names = table.column("name")
    seen: dict[str, int] = {}
    for row, name in enumerate(names):
        if name in seen:   # two rows for one agent (perhaps of opposite availability): ambiguous
            raise table.error(row, "name", "repeats the agent of {other}", name, other=seen[name])
        seen[name] = row
    if not table.has("available"):
        return list(names)
    words = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
    out = []
    for row, (name, flag) in enumerate(zip(names, table.column("available"))):
        if flag.strip().lower() not in words:
            raise table.error(row, "available", "expected 1/0, true/false or yes/no", flag)
        if words[flag.strip().lower()]:
            out.append(name)
    return out


def _next(args: argparse.Namespace) -> int:
    planner = _load_state(args.state)
    if args.output != "-":
        _check_writable_file(Path(args.output), "--output")
    unavailable = None if args.unavailable is None else _names_option(args.unavailable, "--unavailable")
    if unavailable == []:
        raise CLIError(f"--unavailable {args.unavailable!r}: names no agent (leave the option out when every "
                       "agent is available)")
    available = None if args.available_file is None else _available_file(args.available_file)
    opened = planner.rounds
    try:
        order = planner.next_order(unavailable=unavailable, available=available)
    except ValueError as exc:
        option = "" if "is not in the pool" not in str(exc) else (
            "--unavailable: " if unavailable is not None else f"--available-file {args.available_file}: ")
        raise CLIError(f"{option}{exc}; state left unchanged") from None
    if planner.rounds == opened and (unavailable is not None or available is not None):
        raise CLIError(f"{counted(len(planner.open), 'round')} open already (--max-open {planner.max_open}): "
                       "record feedback before ordering again with new availability; state left unchanged")
    text = order.to_csv(index=False)
    if args.output == "-":
        print(text, end="")
    else:
        atomic_write_text(args.output, text)
    _save_state(planner, args.state)
    if args.output != "-":
        again = " (open already: the same order again)" if planner.rounds == opened else ""
        units = exact_total(order["units"].to_numpy())
        print(f"round {int(order['round'].iloc[0])}{again}: {counted(units, 'unit')} from "
              f"{counted(int((order['units'] > 0).sum()), 'agent')}; order in {args.output}")
    return 0


def _cmd_feedback(args: argparse.Namespace) -> int:
    check_paths([("--observations", args.observations)], [("--state", args.state)])
    with _state_lock(args.state):
        return _feedback(args)


def _feedback(args: argparse.Namespace) -> int:
    planner = _load_state(args.state)
    obs = _read_csv(args.observations, "--observations")
    rnd = args.round if args.round is not None else (min(planner.open) if planner.open else None)
    try:
        planner.feedback(obs, round=args.round, final=args.final)
    except InputError as exc:
        raise CLIError(f"{exc}; state left unchanged") from None
    except ValueError as exc:
        raise CLIError(f"{obs.source}: {exc}; state left unchanged") from None
    _save_state(planner, args.state)
    status = "still open (units due)" if rnd in planner.open else "complete"
    print(f"round {rnd} recorded, {status}; {counted(len(planner.open), 'round')} open, "
          f"{counted(planner.rounds, 'round')} ordered")
    return 0


def _cmd_add(args: argparse.Namespace) -> int:
    check_paths([("--agents", args.agents)], [("--state", args.state)])
    with _state_lock(args.state):
        planner = _load_state(args.state)
        agents = _read_csv(args.agents, "--agents")
        try:
            added = planner.add_agents(agents)
        except InputError:
            raise
        except ValueError as exc:
            raise CLIError(f"{agents.source}: {exc}; state left unchanged") from None
        _save_state(planner, args.state)
    print(f"added {counted(len(added), 'agent')} ({', '.join(added)}); "
          f"{counted(planner.policy.n, 'agent')} in the pool")
    return 0


def _cmd_remove(args: argparse.Namespace) -> int:
    check_paths([], [("--state", args.state)])
    names = _names_option(args.names, "--names")
    if not names:
        raise CLIError("--names: the name list is empty")
    with _state_lock(args.state):
        planner = _load_state(args.state)
        try:
            planner.remove_agents(names)
        except ValueError as exc:
            raise CLIError(f"{exc}; state left unchanged") from None
        _save_state(planner, args.state)
    print(f"removed {', '.join(names)}; {counted(planner.policy.n, 'agent')} in the pool")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``subsel bandit simulate | init | next | feedback | add | remove``."""
    p = sub.add_parser("bandit", help="unknown qualities: simulate SS-UCB, or plan real rounds")
    bsub = p.add_subparsers(dest="bandit_command", metavar="ACTION", required=True)
    names = ", ".join(policy_names())

    s = bsub.add_parser("simulate", help="regret and constraint satisfaction on random instances")
    s.add_argument("--policy", required=True, help=f"one of: {names}")
    s.add_argument("--oracle", default=None,
                   help="solver name for the oracle (default dpss); an exact oracle also computes the "
                        "regret references (else dpss does), so 'exact' serves pools too large for dpss")
    s.add_argument("--n", type=integer, default=10, help="agents (default 10)")
    s.add_argument("--alpha", type=number, default=0.7,
                   help="quality threshold alpha: the average quality bought must stay at least alpha "
                        "(default 0.7)")
    s.add_argument("--epsilon", type=number, default=0.05,
                   help="tolerance eps: a round is correct when its true average quality is at least "
                        "alpha - eps; exploration lasts tau = ceil(3 ln T / (2 eps^2)) rounds "
                        "(default 0.05)")
    s.add_argument("--T", type=integer, default=10_000, help="rounds (default 10000)")
    s.add_argument("--runs", type=integer, default=100, help="independent runs (default 100)")
    s.add_argument("--R", type=number, default=1.0, help="revenue per good unit (default 1)")
    s.add_argument("--seed", type=integer, default=0, help="seed of instances, outcomes, policy draws")
    s.add_argument("--out", required=True, help="output folder")
    s.add_argument("--progress", action="store_true", help="show a progress bar")
    s.add_argument("--availability", type=number, default=None, metavar="P",
                   help="sleeping agents: each agent is available in a round with probability P (the "
                        "fixed-pool run on the same instances is simulated and plotted beside it)")
    s.add_argument("--lead-time", type=integer, default=0, metavar="L",
                   help="rounds between an order and its feedback (default 0)")
    s.add_argument("--arrivals", type=integer, default=0, metavar="K",
                   help="K more agents join at evenly spaced rounds in the first half of the run")
    s.set_defaults(func=_cmd_simulate)

    i = bsub.add_parser(
        "init", help="start a planner state for real rounds",
        description="Start a planner that learns the agents' unknown qualities from semi-bandit "
                    "feedback (SS-UCB: Deva, Abhishek, Gujar, 'A Multi-Arm Bandit Approach To Subset "
                    "Selection Under Constraints', AAMAS 2021, Algorithm 2). For the first "
                    "tau = ceil(3 ln T / (2 eps^2)) rounds it orders every unit of every agent; then "
                    "each round the oracle picks the best selection under optimistic quality "
                    "estimates at the threshold alpha + eps. Then: 'subsel bandit next' and "
                    "'subsel bandit feedback', once per round.")
    i.add_argument("--agents", required=True, metavar="CSV",
                   help="CSV with columns name, cost[, capacity] (no quality: it is what is learnt)")
    i.add_argument("--alpha", type=number, required=True, metavar="A",
                   help="quality threshold alpha in [0, 1]: the average quality of the units bought "
                        "must stay at least alpha")
    i.add_argument("--epsilon", type=number, required=True, metavar="EPS",
                   help="tolerance eps > 0: a round is correct when its true average quality is at "
                        "least alpha - eps; a smaller eps means a longer exploration tau")
    i.add_argument("--horizon", type=integer, required=True, metavar="T",
                   help="planned number of rounds T (sets tau; keep tau well below T)")
    i.add_argument("--policy", default="ss-ucb", help=f"one of: {names} (default ss-ucb)")
    i.add_argument("--oracle", default=None, metavar="SOLVER",
                   help="solver that picks each round's selection (default dpss; see 'subsel solvers')")
    i.add_argument("--R", type=number, default=1.0,
                   help="revenue R per good unit (default 1): a unit of agent i is worth R*q_i - c_i")
    i.add_argument("--seed", type=integer, default=None, help="seed of a randomised policy (cts)")
    i.add_argument("--state", required=True, help="state file to create (JSON)")
    i.add_argument("--force", action="store_true", help="replace an existing state file")
    i.add_argument("--max-open", type=integer, default=1, metavar="K",
                   help="rounds that may be open (ordered, not all received) at once: the lead time "
                        "in rounds plus one (default 1: 'next' repeats the order until its feedback)")
    i.set_defaults(func=_cmd_init)

    n = bsub.add_parser("next", help="this round's order (asking again repeats it)")
    n.add_argument("--state", required=True, help="state file made by 'subsel bandit init'")
    n.add_argument("-o", "--output", required=True, help="order CSV (name, units, round), or - for stdout")
    avail = n.add_mutually_exclusive_group()
    avail.add_argument("--unavailable", metavar="A,B", default=None,
                       help="comma-separated agents that cannot deliver this round (never ordered)")
    avail.add_argument("--available-file", metavar="CSV", default=None,
                       help="CSV with column name (the available agents; agents not listed are unavailable "
                            "this round), or name and available (1/0) for every agent")
    n.set_defaults(func=_cmd_next)

    f = bsub.add_parser("feedback", help="record the round's received and good units")
    f.add_argument("--state", required=True, help="state file made by 'subsel bandit init'")
    f.add_argument("--observations", required=True, help="CSV with columns name, received, good")
    f.add_argument("--round", type=integer, default=None, metavar="K",
                   help="the round the units were ordered in: feedback may then be partial and come "
                        "in any order (default: the oldest open round, in full)")
    f.add_argument("--final", action="store_true",
                   help="nothing more will arrive for this round: close it even if units are missing")
    f.set_defaults(func=_cmd_feedback)

    a = bsub.add_parser("add", help="agents that join the pool (explored before they are relied on)")
    a.add_argument("--state", required=True, help="state file made by 'subsel bandit init'")
    a.add_argument("--agents", required=True, metavar="CSV", help="CSV with columns name, cost[, capacity]")
    a.set_defaults(func=_cmd_add)

    r = bsub.add_parser("remove", help="agents that leave the pool (never ordered again)")
    r.add_argument("--state", required=True, help="state file made by 'subsel bandit init'")
    r.add_argument("--names", required=True, metavar="A,B", help="comma-separated agent names")
    r.set_defaults(func=_cmd_remove)
