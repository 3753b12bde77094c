"""``subsel emsco fit``: design a budgeted multi-stage classifier with EMSCO (Hamilton and Fulp, IEEE CEC 2022).

Input either a named data set (``--dataset``; the paper's settings for it) or three CSV files
(header of feature columns plus a label column) and feature costs, given as one comma-separated line
in feature order or as a CSV ``feature,cost`` (the reference tool's input format).  Prints the
chosen stages and the test objectives; ``--out DIR`` also gets ``front.csv``, ``front.png`` and
``summary.json`` (``evaluations``: chromosomes evaluated; ``cache_hit_rate``: share of
cumulative-feature-set lookups served by the classifier cache; ``test`` / ``validation``:
``{coverage, accuracy, cost}`` = g1, g2, g3*).  The ``--out``
folder is created and checked before the fit; every file is written whole or not at all.  One of
``--train``, ``--val``, ``--test``, ``--costs`` may be ``-`` (stdin).  Every input error names the
option, the file and, for CSV rows, the 1-based line of the file (line 1 is the header).
"""
from __future__ import annotations

import argparse
import io
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._extras import require
from .._files import CSVTable, InputError, atomic_write_text, read_csv, read_text
from . import counted, integer
from .guards import CreatedFiles, check_memory, check_paths

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd  # loaded where a table is made, not for 'subsel --help'

#: ``--select`` rules: the keys of ``subsel.evolution.selection.SELECT_RULES`` (spelled out here so
#: that building the parser does not import scikit-learn; a test keeps both lists equal).
SELECT_CHOICES = ("fitness", "accuracy", "coverage", "cost", "knee")


def _split_source(path: str, what: str, option: str) -> tuple[object, str]:
    """(source to read, name in messages) of the split CSV ``path`` given to ``option``."""
    if path == "-":
        return sys.stdin, f"{what} file <stdin> ({option})"
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"{what} file {path} ({option}) is a folder, not a CSV file")
    if not p.exists():  # pipes and /dev/fd/N (process substitution) read like files
        raise FileNotFoundError(f"{what} file {path} ({option}) not found")
    return path, f"{what} file {path} ({option})"


def _labels(cells: list[str]) -> np.ndarray:
    """Label cells as integers when all are integers, else floats when all are numbers, else
    strings (what a classifier sees as the classes)."""
    try:
        as_float = np.array(cells, dtype=float)
    except ValueError:
        return np.array(cells, dtype=object)
    if np.all(np.isfinite(as_float)) and np.all(as_float == np.round(as_float)) \
            and all("." not in c and "e" not in c.lower() for c in cells):
        return as_float.astype(np.int64)
    return as_float


def _read_split(path: str, label: str, what: str) -> tuple[pd.DataFrame, np.ndarray]:
    """Features and labels of one split CSV, read by :func:`subsel._files.read_csv`; every
    error names the option, the file, the physical line of the file and the column."""
    option = {"train": "--train", "validation": "--val", "test": "--test"}[what]
    source, where = _split_source(path, what, option)
    try:
        table = read_csv(source, name=where, what="CSV with a header of feature columns and a "
                                                  "label column")
    except InputError as exc:
        if exc.line is None and "empty" in exc.rule:
            raise InputError("is empty; expected a header of feature columns and a label column, "
                             "then one row per sample", file=where) from None
        raise
    if not table.has(label):
        raise InputError(f"has no label column {label!r} (columns: {', '.join(table.header[:8])}); "
                         "use --label-column", file=where)
    if len(table) == 0:
        raise InputError("has a header but no data rows", file=where, line=table.header_line)
    if len(table.header) < 2:
        raise InputError(f"has no feature columns besides the label column {label!r}", file=where)
    y_cells = table.column(label)
    for row, cell in enumerate(y_cells):
        if cell == "":
            raise table.error(row, label, "missing label")
    features = [c for c in table.header if c != label]
    X = np.empty((len(table), len(features)))
    by_column = dict(zip(table.header, zip(*table.rows)))  # one transpose, not one pass a column
    for j, c in enumerate(features):
        cells = list(by_column[c])
        try:
            X[:, j] = np.array(cells, dtype=float)
            continue
        except ValueError:
            pass
        for row, cell in enumerate(cells):
            if cell == "":
                raise table.error(row, c, "feature is missing; the default classifier does not "
                                  "impute: fill or drop such rows first")
            try:
                float(cell)
            except ValueError:
                raise table.error(row, c, "feature is not numeric; encode categorical features "
                                  "first", cell) from None
    bad = ~np.isfinite(X)
    if bad.any():
        r, j = np.argwhere(bad)[0]
        raise table.error(int(r), features[j], "feature is not finite", table.rows[r][
            table.header.index(features[j])])
    import pandas as pd

    return pd.DataFrame(X, columns=features), _labels(y_cells)


def check_split_labels(args: argparse.Namespace, y_tr: np.ndarray, y_va: np.ndarray,
                       y_te: np.ndarray) -> None:
    """The labels of ``--train/--val/--test`` as classes: refused in one line naming the file and
    the option when they are continuous numbers (a wrong ``--label-column``), of one class only,
    or when the validation or test file has labels the training file lacks."""
    def file(path: str) -> str:
        return "<stdin>" if path == "-" else path

    label = args.label_column
    for what, option, path, y in (("train", "--train", args.train, y_tr), ("validation", "--val", args.val, y_va),
                                  ("test", "--test", args.test, y_te)):
        if y.dtype.kind == "f":
            fractional = y[y != np.round(y)]
            if fractional.size:
                raise ValueError(f"{what} file {file(path)} ({option}): label column {label!r} holds "
                                 f"continuous numbers (e.g. {float(fractional[0])!r}), not class labels; "
                                 "choose the class column with --label-column")
    classes = np.unique(y_tr)
    if classes.size < 2:
        only = classes[0].item() if hasattr(classes[0], "item") else classes[0]
        raise ValueError(f"train file {file(args.train)} (--train): label column {label!r} has only "
                         f"one class ({only!r}); EMSCO needs at least 2 classes")
    for what, option, path, y in (("validation", "--val", args.val, y_va), ("test", "--test", args.test, y_te)):
        unseen = np.setdiff1d(np.unique(y), classes)
        if unseen.size:
            shown = [v.item() if hasattr(v, "item") else v for v in unseen[:5]]
            raise ValueError(f"{what} file {file(path)} ({option}): label column {label!r} has labels "
                             f"not in the train file (--train {file(args.train)}): {shown}")


def parse_costs(spec: str, features: list[str]) -> np.ndarray:
    """Feature costs from ``--costs``: a file or an inline list.

    Parameters
    ----------
    spec : str
        Path of a file holding one comma-separated line of costs in feature order, or a CSV with
        header ``feature,cost`` (``-``: read it from stdin); or the comma-separated costs
        themselves.
    features : list of str
        Feature names in column order.

    Returns
    -------
    ndarray of float, shape (len(features),)

    Raises
    ------
    ValueError
        Wrong count, unknown or missing feature names, negative, non-finite or non-numeric costs.
    FileNotFoundError
        ``spec`` is neither a file nor a comma-separated list.
    IsADirectoryError
        ``spec`` is a folder.
    """
    p = Path(spec)
    if spec == "-":
        shown, text = read_text(sys.stdin, name="costs <stdin>")
    elif p.is_dir():
        raise IsADirectoryError(f"--costs {spec} is a folder, not a costs file")
    elif p.is_file():
        shown, text = read_text(spec, name=f"costs file {spec}")
    elif "," in spec or _is_number(spec):
        text, shown = spec, f"--costs {spec}"
    else:
        raise FileNotFoundError(f"costs file {spec} not found (give a file or numbers like 1,2,3)")
    lines = [ln for ln in io.StringIO(text, newline="") if ln.strip()]
    if not lines:
        raise ValueError(f"{shown}: empty")
    head = [h.strip().lower() for h in lines[0].split(",")]
    if head[:2] == ["feature", "cost"]:
        table = read_csv(io.StringIO(text), name=shown)
        table = CSVTable(table.source, tuple(h.lower() for h in table.header), table.rows,
                         table.lines, table.header_line)
        names = table.column("feature")
        seen: dict[str, int] = {}
        for row, name in enumerate(names):
            if name not in features:
                raise table.error(row, "feature", "unknown feature", name)
            if name in seen:
                raise table.error(row, "feature", "repeats the feature of {other}", name,
                                  other=seen[name])
            seen[name] = row
        missing = [f for f in features if f not in seen]
        if missing:
            raise ValueError(f"{shown}: no cost for feature {missing[0]!r}")
        cells = table.column("cost")
        for row, v in enumerate(cells):
            if not _is_number(v):
                raise table.error(row, "cost", "expected a number", v)
        values = [cells[seen[f]] for f in features]
    else:
        if len(lines) != 1:
            raise ValueError(f"{shown}: expected one comma-separated line or a CSV with "
                             f"header feature,cost; got {len(lines)} lines")
        values = [v.strip() for v in lines[0].split(",")]
        for j, v in enumerate(values):
            if not _is_number(v):
                raise ValueError(f"{shown}: value {j + 1} of {len(values)} is not a number: {v!r}")
        if len(values) != len(features):
            raise ValueError(f"{shown}: {counted(len(values), 'value')} for {counted(len(features), 'feature')}")
    costs = np.empty(len(features))
    for i, v in enumerate(values):
        if not _is_number(v):
            raise ValueError(f"{shown}: cost of feature {features[i]!r} is not a number: {v!r}")
        costs[i] = float(v)
        if not np.isfinite(costs[i]):
            raise ValueError(f"{shown}: cost of feature {features[i]!r} is not finite: {v!r}")
        if costs[i] < 0:
            raise ValueError(f"{shown}: cost of feature {features[i]!r} must be >= 0; "
                             f"got {float(costs[i])!r}")
    from ..evolution import check_cost_total

    check_cost_total(costs, shown)
    return costs


def _is_number(v) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _plot_front(front: pd.DataFrame, test: pd.DataFrame, select: str, title: str, path: Path) -> None:
    """Validation and test objectives of every front member; the selected design starred."""
    import pandas as pd

    from ..experiments import new_figure, save_figure

    _, (fig, ax) = new_figure(figsize=(6.4, 4.4))
    both = pd.concat([front["g1"], test["g1"]])
    lo, hi = float(both.min()), float(both.max())
    if hi - lo < 1e-9:
        lo, hi = lo - 0.005, hi + 0.005
    # Costs near the float maximum (a feature cost of 1e308) leave matplotlib no room for its
    # ticks: plot them in units of a power of ten, said in the label.
    top = float(max(front["g3*"].max(), test["g3*"].max()))
    unit = 10.0 ** math.floor(math.log10(top)) if math.isfinite(top) and top > 1e100 else 1.0
    cost_f, cost_t = front["g3*"] / unit, test["g3*"] / unit
    for x, y in zip(zip(cost_f, cost_t), zip(front["g2"], test["g2"])):
        ax.plot(x, y, color="0.8", lw=0.6, zorder=1)   # a design on validation -> on test
    sc = ax.scatter(cost_f, front["g2"], c=front["g1"], cmap="viridis", s=36, vmin=lo,
                    vmax=hi, edgecolors="k", linewidths=0.3, marker="o", zorder=2,
                    label="validation (the search's objectives)")
    ax.scatter(cost_t, test["g2"], c=test["g1"], cmap="viridis", s=40, vmin=lo, vmax=hi,
               edgecolors="k", linewidths=0.3, marker="^", zorder=2, label="test (same models)")
    j = int(np.flatnonzero(front["selected"].to_numpy())[0])
    ax.scatter([cost_f.iloc[j], cost_t.iloc[j]], [front["g2"].iloc[j], test["g2"].iloc[j]],
               marker="*", s=220, facecolors="none", edgecolors="red", linewidths=1.4, zorder=3,
               label=f"selected (--select {select})")
    fig.colorbar(sc, ax=ax, label="coverage g1")
    ax.set_xlabel("mean acquisition cost per input g3*" + (f" (units of {unit:.0e})" if unit != 1.0 else ""))
    ax.set_ylabel("accuracy on accepted inputs g2")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def _check_options(args: argparse.Namespace) -> None:
    """Range checks of the numeric options, each error naming the option and its value."""
    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer; got {args.seed}")
    if args.max_iter < 0:
        raise ValueError(f"--max-iter (--generations) must be an integer >= 0 (0: only the random "
                         f"initial population is evaluated); got {args.max_iter}")
    if args.population_size is not None and args.population_size < 2:
        raise ValueError(f"--population-size (--population) must be an integer >= 2; "
                         f"got {args.population_size}")
    if args.max_stages is not None and args.max_stages < 1:
        raise ValueError(f"--max-stages must be an integer >= 1; got {args.max_stages}")
    if args.n_jobs == 0:
        raise ValueError("--n-jobs must be a positive number of jobs, or negative to count back "
                         "from the number of cores (-1: all cores); got 0")
    stdin = [o for o, v in (("--train", args.train), ("--val", args.val), ("--test", args.test),
                            ("--costs", args.costs)) if v == "-"]
    if len(stdin) > 1:
        raise ValueError(f"only one input can be read from stdin ('-'); got {' and '.join(stdin)}")


#: Files ``emsco fit --out DIR`` writes into DIR.
OUT_FILES = ("front.csv", "front.png", "summary.json")


def _prepare_out(path: str, created: CreatedFiles) -> Path:
    """Create the ``--out`` folder before the fit and check that files can be written in it;
    ``created`` remembers the folders and files this run makes (removed if it does not finish)."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {path} exists and is not a folder")
    try:
        created.folder(out)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        created.remove()
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"--out {path}: cannot create or write to this folder ({reason})") from None
    created.files([out / f for f in OUT_FILES])
    return out


def _inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """The input files of the command (``--costs`` only when it names a file)."""
    costs = args.costs if args.costs is not None and Path(args.costs).exists() else None
    return [("--train", args.train), ("--val", args.val), ("--test", args.test), ("--costs", costs)]


#: Bytes per member of the population, plus per feature: the chromosome (twice: parents and
#: children), its cache key and memo entry, objectives and fitness (an estimate of the peak).
_BYTES_PER_MEMBER = 2048
_BYTES_PER_MEMBER_FEATURE = 32


def _check_population_memory(population: int, n_features: int | None) -> None:
    """Refuse a population whose members cannot fit in the memory available (one line); with
    ``n_features`` None (data not read yet) a lower bound for one feature."""
    need = population * (_BYTES_PER_MEMBER + _BYTES_PER_MEMBER_FEATURE * (n_features or 1))
    check_memory(need, f"--population-size {population}"
                 + (f" with {n_features} features" if n_features is not None else ""))


def _cmd_fit(args: argparse.Namespace) -> int:
    csv_args = [args.train, args.val, args.test]
    if args.dataset is not None and any(a is not None for a in csv_args + [args.costs]):
        raise ValueError("give either --dataset or --train/--val/--test/--costs, not both")
    _check_options(args)
    if args.dataset is None:
        missing = [n for n, a in zip(("--train", "--val", "--test"), csv_args) if a is None]
        if missing or args.costs is None:
            raise ValueError("give --dataset NAME, or all of --train, --val, --test and --costs "
                             f"(missing: {', '.join(missing + ([] if args.costs else ['--costs']))})")
        if args.confidence is None:
            raise ValueError("--confidence is required with --train/--val/--test")
    require("sklearn", "scipy", "threadpoolctl", "joblib", *(["matplotlib"] if args.out else []),
            extra="evolution", feature="subsel emsco fit")
    if args.population_size is not None:  # a first bound before reading any data (1 feature)
        _check_population_memory(args.population_size, None)
    created = CreatedFiles()
    if args.out is not None:
        check_paths(_inputs(args), [("--out", str(Path(args.out) / f)) for f in OUT_FILES])
        _prepare_out(args.out, created)
    try:
        return _fit(args)
    except BaseException:  # an error, Ctrl-C or SIGTERM: remove what this run created
        created.remove()
        raise


def _fit(args: argparse.Namespace) -> int:
    from ..evolution import EMSCOClassifier, load_dataset

    if args.dataset is not None:
        data = load_dataset(args.dataset, seed=args.seed, data_home=args.data_home)
        X_tr, X_va, X_te, y_tr, y_va, y_te = data.split()
        params = data.estimator_params()
        source = {"dataset": data.name}
    else:
        X_tr, y_tr = _read_split(args.train, args.label_column, "train")
        X_va, y_va = _read_split(args.val, args.label_column, "validation")
        X_te, y_te = _read_split(args.test, args.label_column, "test")
        check_split_labels(args, y_tr, y_va, y_te)
        names = list(X_tr.columns)
        for what, option, path, X in (("validation", "--val", args.val, X_va), ("test", "--test", args.test, X_te)):
            if list(X.columns) != names:
                raise ValueError(f"{what} file {'<stdin>' if path == '-' else path} ({option}): "
                                 + _column_mismatch(list(X.columns), names))
        params = {"feature_costs": parse_costs(args.costs, names)}
        source = {"inputs": {"train": args.train, "val": args.val, "test": args.test, "costs": args.costs}}
    if args.confidence is not None:
        params["confidence"] = args.confidence
    if args.population_size is not None:
        params["population_size"] = args.population_size
        _check_population_memory(args.population_size, X_tr.shape[1])
    params["max_iter"] = args.max_iter
    params["max_stages"] = args.max_stages
    params["random_state"] = args.seed
    params["n_jobs"] = args.n_jobs
    params["select"] = args.select
    names = [str(c) for c in X_tr.columns]
    clf = EMSCOClassifier(**params)
    start = time.perf_counter()
    clf.fit(X_tr, y_tr, X_va, y_va)
    wall = time.perf_counter() - start
    test = clf.evaluate(X_te, y_te)
    val = clf.validation_scores_
    stage_names = [[names[i] for i in s] for s in clf.stages_]
    for m, s in enumerate(stage_names):
        cost = float(np.sum(clf.feature_costs_[clf.stages_[m]]))
        print(f"stage {m}: {', '.join(s)}  (cost {cost:g})")
    print(f"test: g1 (coverage) = {test['g1']:.4f}  g2 (accuracy) = {test['g2']:.4f}  "
          f"g3* (mean cost) = {test['g3*']:.4g}")
    if args.out is not None:
        out = Path(args.out)
        front = clf.pareto_front_.copy()
        front["stages"] = [json.dumps([[names[i] for i in s] for s in st]) for st in front["stages"]]
        front = front.rename(columns={"g1": "g1_val", "g2": "g2_val", "g3*": "g3*_val",
                                      "g3": "g3_val"})
        on_test = clf.evaluate_front(X_te, y_te)   # the same stage models, no refit
        for c in ("g1", "g2", "g3*"):
            front[f"{c}_test"] = on_test[c].to_numpy()
        front = front[["stages", "n_stages", "g1_val", "g2_val", "g3*_val", "g3_val", "g1_test",
                       "g2_test", "g3*_test", "selected"]]
        atomic_write_text(out / "front.csv", front.to_csv(index=False))
        title = f"EMSCO front on validation and test, p̂ = {clf.confidence:g}"
        _plot_front(clf.pareto_front_, on_test, clf.select, title, out / "front.png")
        summary = {
            **source,
            "stages": stage_names,
            "test": {"coverage": test["g1"], "accuracy": test["g2"], "cost": test["g3*"]},
            "validation": {"coverage": val["g1"], "accuracy": val["g2"], "cost": val["g3*"]},
            "confidence": float(clf.confidence), "seed": args.seed,
            "select": clf.select, "front_size": int(len(clf.pareto_front_)),
            "selected_front_row": int(clf.selected_index_),
            "wall_time_s": wall, "evaluations": int(clf.n_evaluations_),
            "cache_hit_rate": float(clf.cache_hit_rate_),
            "population_size": int(clf.population_size), "max_iter": int(clf.max_iter),
            "max_stages": int(clf.max_stages_),
            "feature_costs": dict(zip(names, map(float, clf.feature_costs_))),
        }
        atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
        print(f"wrote {out / 'front.csv'}, {out / 'front.png'}, {out / 'summary.json'}")
    return 0


def _column_mismatch(got: list, want: list) -> str:
    """What differs between a split's feature columns and the training file's, in a few words."""
    missing = [c for c in want if c not in got]
    extra = [c for c in got if c not in want]
    if missing:
        return f"feature column {missing[0]!r} of the train file is missing" + (
            f" ({len(missing)} missing)" if len(missing) > 1 else "")
    if extra:
        return f"feature column {extra[0]!r} is not in the train file" + (
            f" ({len(extra)} such columns)" if len(extra) > 1 else "")
    i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), None)
    if i is None:
        return f"{len(got)} feature columns, the train file has {len(want)}; the columns must match"
    return (f"feature columns in another order: column {i + 1} is {got[i]!r}, the train file's is "
            f"{want[i]!r}; the columns must match the train file's in order")


def _probability(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``emsco fit`` to the ``subsel`` parser."""
    p = sub.add_parser("emsco", help="design budgeted multi-stage classifiers with a reject option")
    esub = p.add_subparsers(dest="emsco_command", metavar="COMMAND", required=True)
    f = esub.add_parser(
        "fit", help="run EMSCO on a data set or CSV files",
        description="Run EMSCO (Hamilton & Fulp 2022) and report the chosen stages and the test "
                    "coverage g1, accuracy g2 and mean cost g3*.  p̂ must lie in "
                    "(1/n_classes, 1] ((0.5, 1] for binary labels).")
    f.add_argument("--dataset", help="breast_cancer, synthetic50, synthetic15, pima, credit, heart")
    f.add_argument("--data-home", metavar="DIR",
                   help="folder with other copies of the real data sets (default: $SUBSEL_DATA, else "
                        "the copies shipped with subsel)")
    f.add_argument("--train", help="training CSV (feature columns and a label column; - reads "
                                   "stdin)")
    f.add_argument("--val", help="validation CSV (the objectives are measured on it; - reads stdin)")
    f.add_argument("--test", help="test CSV (- reads stdin)")
    f.add_argument("--costs", help="costs: a file with one comma-separated line in feature order "
                                   "or a CSV feature,cost (- reads stdin); or the numbers inline. "
                                   "At most one input can be -")
    f.add_argument("--label-column", default="label", help="label column of the CSVs (label)")
    f.add_argument("--confidence", type=_probability, help="p̂, the confidence threshold "
                                                           "(required with --train/--val/--test; "
                                                           "default for --dataset: the paper's)")
    f.add_argument("--max-stages", type=integer, help="maximum stage count k >= 1 "
                                                  "(default min(round(n/2), 10))")
    f.add_argument("--population-size", "--population", dest="population_size", type=integer,
                   help="population size >= 2 (default: the data set's, else 300; --population is "
                        "an alias)")
    f.add_argument("--max-iter", "--generations", dest="max_iter", type=integer, default=150,
                   help="generations >= 0 (150); 0 evaluates only the random initial population "
                        "(--generations is an alias)")
    f.add_argument("--seed", type=integer, default=0, help="seed >= 0 of the split and the run (0)")
    f.add_argument("--n-jobs", type=integer,
                   help="joblib jobs for training classifiers: J > 0 jobs, or J < 0 for all "
                        "cores but |J| - 1 (joblib's rule: -1 all cores, at least 1 job); "
                        "0 is refused")
    f.add_argument("--select", default="fitness", choices=SELECT_CHOICES,
                   help="which design of the final Pareto front is reported (judged on the "
                        "validation split): fitness = highest fitness, the paper's choice "
                        "(default); accuracy = highest g2; coverage = highest g1; cost = lowest "
                        "g3*; knee = closest to the ideal point with each objective scaled to "
                        "[0, 1] over the front. front.csv marks it in column selected")
    f.add_argument("--out", help="folder for front.csv, front.png and summary.json (created and "
                                 "checked for writing before the fit)")
    f.set_defaults(func=_cmd_fit)
