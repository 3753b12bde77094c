"""Experiment commands: ``reproduce`` (the paper's experiments) and ``compare`` (any solvers).

Both run their grid through :func:`subsel.experiments.run_grid`: serially, on ``--jobs N`` local
processes or on a Dask cluster (``--scheduler ADDRESS``), resumable into the same ``--out`` folder.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from . import CLIError, integer, number
from .guards import CreatedFiles, check_memory, check_paths


def _split(text: str, kind: type, option: str) -> list:
    parts = [p.strip() for p in str(text).split(",")]
    if not parts or any(not p for p in parts):
        raise CLIError(f"{option}: expected a comma-separated list; got {text!r}")
    out = []
    for p in parts:
        try:
            out.append(kind(p))
        except ValueError:
            raise CLIError(f"{option}: {p!r} is not a valid {kind.__name__}") from None
    return out


def _out_dir(path: str, created: CreatedFiles) -> Path:
    """The ``--out`` folder, created (with its parents) if needed; ``created`` remembers the
    folders that are new, so a run that does not finish removes them again when empty."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {path!r} exists and is not a folder")
    try:
        created.folder(out)
    except OSError as exc:
        created.remove()
        raise CLIError(f"--out {path}: cannot create the folder ({exc.strerror or exc})") from None
    return out


def _run_in(path: str, work):
    """Run ``work(out)`` in the ``--out`` folder; on any failure or interruption, remove the
    folders this run created if they are still empty.  A lost Dask worker is one line on stderr
    and exit code 1 (the work ran but failed), the checkpoint kept."""
    from ..experiments import WorkerLostError

    created = CreatedFiles()
    out = _out_dir(path, created)
    try:
        return work(out)
    except WorkerLostError as exc:
        created.remove()
        print(f"subsel: error: {exc}", file=sys.stderr)
        return 1
    except BaseException:
        created.remove()
        raise


#: Float64 arrays of length n alive at once in one comparison task: the instance (q, c), its
#: utilities and margins, the partition and sort orders of the greedy and exact solvers, and x.
_ARRAYS_PER_AGENT = 12


def _backend(args: argparse.Namespace) -> dict:
    if args.jobs < 1 and args.jobs != -1:
        raise CLIError(f"--jobs must be a positive integer or -1 (all cores); got {args.jobs}")
    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0; got {args.seed}")
    if args.scheduler is not None and not args.scheduler.strip():
        raise CLIError("--scheduler must be an address such as tcp://host:8786")
    # Say what the run does on stdout: tasks resumed, and, where no progress bar is seen (stdout or
    # stderr not a terminal: a log file, a batch job), one progress line every 30 s.
    quiet_bar = not (sys.stdout.isatty() and sys.stderr.isatty())
    return {"jobs": args.jobs, "scheduler": args.scheduler, "resume": not args.no_resume,
            "progress": True if args.progress else None, "log": _say,
            "log_every": PROGRESS_EVERY_S if quiet_bar else None, "keep_checkpoint": args.keep_checkpoint}


#: Seconds between progress lines when no progress bar is seen.
PROGRESS_EVERY_S = 30.0


def _say(line: str) -> None:
    print(line, flush=True)


def _datasets(args: argparse.Namespace, name: str) -> list[str] | None:
    """``--datasets`` / ``--dataset`` checked against the experiment (before touching ``--out``)."""
    from ..experiments import DATASET_EXPERIMENTS

    text = args.datasets if args.datasets is not None else args.dataset
    if text is None:
        return None
    option = "--datasets" if args.datasets is not None else "--dataset"
    if name != "all" and name not in DATASET_EXPERIMENTS:
        raise CLIError(f"experiment {name!r} takes no {option} (only "
                       f"{', '.join(sorted(DATASET_EXPERIMENTS))} do)")
    if option == "--dataset" and name != "emsco-sweep":  # the sweep's one data set
        raise CLIError(f"experiment {name!r} takes no --dataset (emsco-sweep's option); "
                       f"use --datasets NAMES")
    from ..experiments import check_datasets

    names = check_datasets(_split(text, str, option))
    if name == "emsco-sweep" and len(names) != 1:
        raise CLIError(f"emsco-sweep takes one data set; got {', '.join(names)}")
    return names


def _check_data_files(names: list[str], scale: str, datasets: list[str] | None,
                      data_home: str | None = None) -> None:
    """Load the real data sets the chosen experiments need, before touching ``--out``."""
    from ..experiments import DATASET_EXPERIMENTS

    needed: list[str] = []
    for exp in names:
        if exp in DATASET_EXPERIMENTS:
            from ..experiments import experiment_datasets

            chosen = None if datasets is None else (datasets[:1] if exp == "emsco-sweep" else datasets)
            needed += [d for d in experiment_datasets(exp, scale, chosen) if d not in needed]
    if needed:
        from ..experiments import check_data_files

        check_data_files(needed, data_home=data_home)


SPLIT_OPTIONS = (("--train", "train"), ("--val", "val"), ("--test", "test"), ("--costs", "costs"))


def _user_data(args: argparse.Namespace, name: str):
    """The ``--train/--val/--test/--costs`` data set of ``emsco-sweep``, or None when not given.

    Read before ``--out`` is touched: every error names the option, the file and the line."""
    given = [o for o, a in SPLIT_OPTIONS if getattr(args, a) is not None]
    if not given:
        return None
    if name != "emsco-sweep":
        raise CLIError(f"{given[0]} is for emsco-sweep only (your own train / validation / test "
                       f"splits); got experiment {name}")
    if args.dataset is not None or args.datasets is not None:
        raise CLIError("give either --dataset or --train/--val/--test/--costs, not both")
    missing = [o for o, a in SPLIT_OPTIONS if getattr(args, a) is None]
    if missing:
        raise CLIError(f"emsco-sweep on your own data needs --train, --val, --test and --costs "
                       f"(missing: {', '.join(missing)})")
    stdin = [o for o, a in SPLIT_OPTIONS if getattr(args, a) == "-"]
    if len(stdin) > 1:
        raise CLIError(f"only one input can be read from stdin ('-'); got {' and '.join(stdin)}")
    from ..evolution import Dataset
    from .emsco import _read_split, check_split_labels, parse_costs

    splits = [_read_split(getattr(args, a), args.label_column, what)
              for a, what in (("train", "train"), ("val", "validation"), ("test", "test"))]
    check_split_labels(args, *(y for _, y in splits))
    names = [str(c) for c in splits[0][0].columns]
    costs = parse_costs(args.costs, names)
    label = "stdin" if args.train == "-" else Path(args.train).stem
    data = Dataset.from_splits(label, *splits, costs)
    data.extra["files"] = {a: getattr(args, a) for _, a in SPLIT_OPTIONS}
    if args.label_column != "label":
        data.extra["files"]["label-column"] = args.label_column
    return data


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from ..experiments import EXPERIMENTS, get_experiment

    name = args.name.strip().lower()
    if name != "all" and name not in EXPERIMENTS:
        raise CLIError(f"unknown experiment {args.name!r}; choose one of {', '.join(EXPERIMENTS)}, all")
    data = _user_data(args, name)
    datasets = _datasets(args, name)
    backend = _backend(args)
    names = list(EXPERIMENTS) if name == "all" else [name]
    if args.data_home is not None and not Path(args.data_home).expanduser().is_dir():
        raise CLIError(f"--data-home {args.data_home!r} is not a folder")
    if data is None:
        _check_data_files(names, args.scale, datasets, args.data_home)  # a missing file fails before any grid
    for exp in names:  # so does a missing library (the message names the pip install to run)
        get_experiment(exp)
    # the results are written among the data files: refused (a table could replace a data file)
    check_paths([("--data-home", args.data_home)], [("--out", args.out)])
    if data is not None:  # nor may the sweep's files replace the user's splits
        written = [("--out", str(Path(args.out) / f"emsco-sweep-{data.name}{suffix}"))
                   for suffix in (".csv", "_summary.csv", "_authors.csv", ".png", ".md")]
        check_paths([(o, getattr(args, a)) for o, a in SPLIT_OPTIONS if getattr(args, a) != "-"],
                    [("--out", args.out), *written])
    return _run_in(args.out, lambda out: _reproduce(args, names, datasets, backend, out, data))


def _reproduce(args: argparse.Namespace, names: list[str], datasets: list[str] | None, backend: dict,
               out: Path, data=None) -> int:
    from ..experiments import DATASET_EXPERIMENTS, run_experiment

    total = time.perf_counter()
    for exp in names:
        start = time.perf_counter()
        extra = {}
        if datasets is not None and exp in DATASET_EXPERIMENTS:
            extra["datasets"] = datasets[:1] if exp == "emsco-sweep" else datasets
        if data is not None:
            extra["data"] = data
        if args.data_home is not None and exp in DATASET_EXPERIMENTS:
            extra["data_home"] = args.data_home
        files = run_experiment(exp, out, scale=args.scale, seed=args.seed, **backend, **extra)
        print(f"{exp}: {time.perf_counter() - start:.1f} s in all (task grid, tables, figure, markdown) -> "
              + ", ".join(str(f) for f in files), flush=True)
    if len(names) > 1:
        print(f"all: {time.perf_counter() - total:.1f} s in all", flush=True)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from ..experiments import check_comparison

    solvers = _split(args.solvers, str, "--solvers")
    n = _split(args.n, int, "--n")
    alpha = _split(args.alpha, float, "--alpha")
    _, reference = check_comparison(solvers, n, alpha, args.instances, args.reference)  # before --out
    if reference not in [s.strip().lower() for s in solvers]:
        why = "from --reference" if args.reference is not None else "none of the listed solvers is exact"
        print(f"compare: reference {reference} added to the solvers ({why}); ratios are z / z_{reference}",
              flush=True)
    if args.time_limit is not None and not args.time_limit > 0:
        raise CLIError(f"--time-limit must be a positive number of seconds; got {args.time_limit}")
    backend = _backend(args)
    parallel = 1 if args.scheduler is not None else (os.cpu_count() or 1) if args.jobs == -1 else args.jobs
    parallel = min(parallel, len(alpha) * len(n) * args.instances)
    check_memory(_ARRAYS_PER_AGENT * 8.0 * max(n) * parallel,
                 f"--n {max(n)}" + (f" with {parallel} jobs at once" if parallel > 1 else ""))
    return _run_in(args.out, lambda out: _compare(args, solvers, n, alpha, backend, out))


def _compare(args: argparse.Namespace, solvers: list[str], n: list[int], alpha: list[float],
             backend: dict, out: Path) -> int:
    from ..experiments import compare

    start = time.perf_counter()
    files = compare(solvers, n, alpha, args.instances, out_dir=out, reference=args.reference,
                    seed=args.seed, time_limit_s=args.time_limit, table_format=args.format, **backend)
    print(f"compare: {time.perf_counter() - start:.1f} s in all (task grid, ratios, figure, markdown) -> "
          + ", ".join(str(f) for f in files))
    return _report_failed_solves(files)


def _report_failed_solves(files: list[Path]) -> int:
    """One stderr line per solver with failed solves (rows whose ``error`` is set); 1 when any."""
    import pandas as pd

    table = next((f for f in files if Path(f).stem == "compare"), None)
    if table is None:
        return 0
    df = pd.read_parquet(table) if Path(table).suffix in (".parquet", ".pq") else pd.read_csv(table)
    if "error" not in df:
        return 0
    # No fill value: a column without any error reads as float64 NaN, which "" cannot fill.
    failed = df[df["error"].notna() & (df["error"].astype(str) != "")]
    for name, rows in failed.groupby("solver", sort=True):
        total = int((df["solver"] == name).sum())
        first = str(rows["error"].iloc[0]).splitlines()[0][:200]
        print(f"subsel: error: compare: {name} failed on {rows.shape[0]} of {total} solves (first: {first}); "
              f"see the error column of {table}", file=sys.stderr)
    return 1 if len(failed) else 0


def _add_backend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=integer, default=0, help="root seed of the instance grid (default 0)")
    p.add_argument("--jobs", type=integer, default=1, metavar="N",
                   help="local worker processes through joblib (default 1 = serial; -1 = all cores)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster, e.g. tcp://host:8786 (workers need subsel installed)")
    p.add_argument("--no-resume", action="store_true",
                   help="recompute every task instead of reusing those finished by an earlier run "
                        "into the same --out folder")
    p.add_argument("--progress", action="store_true",
                   help="always show the progress bar (default: only on a terminal; elsewhere a "
                        "progress line every 30 s)")
    p.add_argument("--keep-checkpoint", action="store_true",
                   help="keep the checkpoint of a finished run (NAME.csv.checkpoint.jsonl), so a later "
                        "run into the same --out reuses its tasks (default: removed once the table "
                        "is written; an interrupted run always keeps it)")


def _experiment_list() -> str:
    from ..experiments import DESCRIPTIONS, EXPERIMENTS

    width = max(map(len, EXPERIMENTS)) + 2
    lines = [f"  {name:<{width}}{DESCRIPTIONS.get(name, '')}" for name in EXPERIMENTS]
    lines.append(f"  {'all':<{width}}all of the above, in this order")
    return "experiments:\n" + "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``reproduce`` and ``compare`` to the ``subsel`` parser."""
    from ..experiments import EXPERIMENTS

    p = sub.add_parser(
        "reproduce", help=f"reproduce the papers' experiments ({', '.join(EXPERIMENTS)}, all)",
        description="Run one of the papers' experiments (or all) and write its table (CSV), figure\n"
                    "(PNG) and a markdown summary (the paper's numbers beside ours) to --out.",
        epilog=_experiment_list(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", metavar="NAME", help="experiment name (listed below), or 'all'")
    scale = p.add_mutually_exclusive_group()
    scale.add_argument("--quick", dest="scale", action="store_const", const="quick",
                       help="fewer instances, under a minute per experiment on 2 cores (default)")
    scale.add_argument("--full", dest="scale", action="store_const", const="full",
                       help="the paper's scale (1000 instances per cell; EMSCO: 50 runs, 150 "
                            "generations)")
    scale.add_argument("--scale", dest="scale", choices=("tiny", "quick", "full"), help=argparse.SUPPRESS)
    p.set_defaults(scale="quick")
    p.add_argument("--out", default="results", metavar="DIR", help="output folder (default results)")
    ds = p.add_mutually_exclusive_group()
    ds.add_argument("--datasets", metavar="NAMES",
                    help="emsco-table2 only: comma-separated data sets (default synthetic50, "
                         "synthetic15, pima, credit, heart)")
    ds.add_argument("--dataset", metavar="NAME",
                    help="emsco-sweep only: the data set of the sweep (default synthetic15); with "
                         "'all', the sweep uses the first of --datasets")
    own = p.add_argument_group(
        "emsco-sweep on your own data",
        "train / validation / test CSVs (feature columns and a label column) and feature costs in "
        "the formats of 'subsel emsco fit' (the EMSCO authors' formats); the sweep then uses "
        "EMSCO's default settings (population 300, mutation rate 0.075, crossover rate 0.8, "
        "elite fraction 0.2, beta 2.0) and names its files after the training file; every sweep also "
        "writes emsco-sweep-DATASET_authors.csv in the authors' layout")
    own.add_argument("--train", help="training CSV (- reads stdin)")
    own.add_argument("--val", help="validation CSV (the search's objectives are measured on it)")
    own.add_argument("--test", help="test CSV (the reported objectives)")
    own.add_argument("--costs", help="costs: one comma-separated line in feature order, a CSV "
                                     "feature,cost, or the numbers inline")
    own.add_argument("--label-column", default="label", help="label column of the CSVs (label)")
    p.add_argument("--data-home", metavar="DIR",
                   help="folder with other copies of the real data sets (pima_diabetes.csv, "
                        "credit_approval.csv, heart_failure.csv); default: $SUBSEL_DATA, else the "
                        "copies shipped with subsel")
    _add_backend_options(p)
    p.set_defaults(func=_cmd_reproduce)

    c = sub.add_parser(
        "compare", help="compare any registered solvers on random instances",
        description="Solve random instances (q, c ~ U[0,1]) with every listed solver; write the tidy "
                    "table, ratios to a reference solver, time ratios, a figure and a summary.")
    c.add_argument("--solvers", required=True, help="comma-separated registry names, e.g. gss,dpss,cbc")
    c.add_argument("--n", default="10,100", help="comma-separated numbers of agents (default 10,100)")
    c.add_argument("--alpha", default="0.7", help="comma-separated quality thresholds (default 0.7)")
    c.add_argument("--instances", type=integer, default=10, metavar="K",
                   help="instances per (n, alpha) (default 10)")
    c.add_argument("--reference", metavar="NAME",
                   help="solver in the ratios' denominator (default: the first exact solver listed, else "
                        "'exact', added automatically)")
    c.add_argument("--time-limit", type=number, metavar="SECONDS", help="per-solve time limit")
    c.add_argument("--format", choices=("csv", "parquet"), default="csv", help="table format")
    c.add_argument("--out", default="results/compare", metavar="DIR",
                   help="output folder (default results/compare)")
    _add_backend_options(c)
    c.set_defaults(func=_cmd_compare)
