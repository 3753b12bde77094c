"""``subsel emsco fit``: design a budgeted multi-stage classifier with EMSCO (SPEC §3).

Input either a named data set (``--dataset``; the paper's settings for it) or three CSV files
(header of feature columns plus a label column) and feature costs, given as one comma-separated line
in feature order or as a CSV ``feature,cost`` (the reference tool's input format).  Prints the
chosen stages and the test objectives; ``--out DIR`` also gets ``front.csv``, ``front.png`` and
``summary.json`` (``evaluations``: chromosomes evaluated; ``cache_hit_rate``: share of
cumulative-feature-set lookups served by the classifier cache; ``test`` / ``validation``:
``{coverage, accuracy, cost}`` = g1, g2, g3*).  Every file is written whole or not at all.
"""
from __future__ import annotations

import argparse
import io
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..models._io import atomic_write_text


def _read_split(path: str, label: str, what: str) -> tuple[pd.DataFrame, np.ndarray]:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{what} file {path} not found")
    df = pd.read_csv(p)
    if label not in df.columns:
        raise ValueError(f"{what} file {path} has no label column {label!r} "
                         f"(columns: {', '.join(map(str, df.columns[:8]))}); use --label-column")
    X = df.drop(columns=[label])
    for c in X.columns:
        if not pd.api.types.is_numeric_dtype(X[c]):
            raise ValueError(f"{what} file {path}: feature column {c!r} is not numeric; encode "
                             "categorical features first")
    return X.astype(float), df[label].to_numpy()


def parse_costs(spec: str, features: list[str]) -> np.ndarray:
    """Feature costs from ``--costs``: a file or an inline list.

    Parameters
    ----------
    spec : str
        Path of a file holding one comma-separated line of costs in feature order, or a CSV with
        header ``feature,cost``; or the comma-separated costs themselves.
    features : list of str
        Feature names in column order.

    Returns
    -------
    ndarray of float, shape (len(features),)

    Raises
    ------
    ValueError
        Wrong count, unknown or missing feature names, negative or non-numeric costs.
    FileNotFoundError
        ``spec`` is neither a file nor a list of numbers.
    """
    p = Path(spec)
    if p.is_file():
        text = p.read_text(encoding="utf-8")
    elif all(part.strip() and _is_number(part) for part in spec.split(",")):
        text = spec
    else:
        raise FileNotFoundError(f"costs file {spec} not found (give a file or numbers like 1,2,3)")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise ValueError(f"costs {spec}: empty")
    head = [h.strip().lower() for h in lines[0].split(",")]
    if head[:2] == ["feature", "cost"]:
        table = pd.read_csv(io.StringIO(text))
        table.columns = [c.strip().lower() for c in table.columns]
        names = table["feature"].astype(str).str.strip().tolist()
        unknown = sorted(set(names) - set(features))
        if unknown:
            raise ValueError(f"costs {spec}: unknown feature {unknown[0]!r}")
        missing = [f for f in features if f not in names]
        if missing:
            raise ValueError(f"costs {spec}: no cost for feature {missing[0]!r}")
        raw = dict(zip(names, table["cost"].tolist()))
        values = [raw[f] for f in features]
    else:
        if len(lines) != 1:
            raise ValueError(f"costs {spec}: expected one comma-separated line or a CSV with "
                             f"header feature,cost; got {len(lines)} lines")
        values = [v.strip() for v in lines[0].split(",")]
        if len(values) != len(features):
            raise ValueError(f"costs {spec}: {len(values)} values for {len(features)} features")
    costs = np.empty(len(features))
    for i, v in enumerate(values):
        if not _is_number(v):
            raise ValueError(f"costs {spec}: cost of feature {features[i]!r} is not a number: {v!r}")
        costs[i] = float(v)
        if not np.isfinite(costs[i]) or costs[i] < 0:
            raise ValueError(f"costs {spec}: cost of feature {features[i]!r} must be >= 0; "
                             f"got {float(costs[i])!r}")
    return costs


def _is_number(v) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _plot_front(front: pd.DataFrame, chosen: dict, title: str, path: Path) -> None:
    from ..experiments.plots import new_figure, save_figure

    _, (fig, ax) = new_figure(figsize=(6, 4.2))
    lo, hi = float(front["g1"].min()), float(front["g1"].max())
    if hi - lo < 1e-9:
        lo, hi = lo - 0.005, hi + 0.005
    sc = ax.scatter(front["g3*"], front["g2"], c=front["g1"], cmap="viridis", s=36,
                    vmin=lo, vmax=hi, edgecolors="k", linewidths=0.3)
    ax.scatter([chosen["g3*"]], [chosen["g2"]], marker="*", s=220, facecolors="none",
               edgecolors="red", linewidths=1.4, label="chosen (highest fitness)")
    fig.colorbar(sc, ax=ax, label="coverage g1")
    ax.set_xlabel("mean acquisition cost per input g3*")
    ax.set_ylabel("accuracy on accepted inputs g2")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def _cmd_fit(args: argparse.Namespace) -> int:
    from ..evolution import EMSCOClassifier
    from ..evolution.datasets import load_dataset

    csv_args = [args.train, args.val, args.test]
    if args.dataset is not None and any(a is not None for a in csv_args + [args.costs]):
        raise ValueError("give either --dataset or --train/--val/--test/--costs, not both")
    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        raise NotADirectoryError(f"--out {args.out} exists and is not a folder")
    if args.dataset is not None:
        data = load_dataset(args.dataset, seed=args.seed, data_home=args.data_home)
        X_tr, X_va, X_te, y_tr, y_va, y_te = data.split()
        params = data.estimator_params()
        source = {"dataset": data.name}
    else:
        missing = [n for n, a in zip(("--train", "--val", "--test"), csv_args) if a is None]
        if missing or args.costs is None:
            raise ValueError("give --dataset NAME, or all of --train, --val, --test and --costs "
                             f"(missing: {', '.join(missing + ([] if args.costs else ['--costs']))})")
        if args.confidence is None:
            raise ValueError("--confidence is required with --train/--val/--test")
        X_tr, y_tr = _read_split(args.train, args.label_column, "train")
        X_va, y_va = _read_split(args.val, args.label_column, "validation")
        X_te, y_te = _read_split(args.test, args.label_column, "test")
        names = list(X_tr.columns)
        for what, X in (("validation", X_va), ("test", X_te)):
            if list(X.columns) != names:
                raise ValueError(f"{what} file has feature columns {list(X.columns)[:6]}, "
                                 f"train has {names[:6]}; they must match")
        params = {"feature_costs": parse_costs(args.costs, names)}
        source = {"train": args.train, "val": args.val, "test": args.test}
    if args.confidence is not None:
        params["confidence"] = args.confidence
    if args.population is not None:
        params["population_size"] = args.population
    params["max_iter"] = args.generations
    params["max_stages"] = args.max_stages
    params["random_state"] = args.seed
    params["n_jobs"] = args.n_jobs
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
        out.mkdir(parents=True, exist_ok=True)
        front = clf.pareto_front_.copy()
        front["stages"] = [json.dumps([[names[i] for i in s] for s in st]) for st in front["stages"]]
        front = front.rename(columns={"g1": "g1_val", "g2": "g2_val", "g3*": "g3*_val",
                                      "g3": "g3_val"})
        atomic_write_text(out / "front.csv", front.to_csv(index=False))
        title = f"EMSCO front (validation), p̂ = {clf.confidence:g}"
        _plot_front(clf.pareto_front_, val, title, out / "front.png")
        summary = {
            **source,
            "stages": stage_names,
            "test": {"coverage": test["g1"], "accuracy": test["g2"], "cost": test["g3*"]},
            "validation": {"coverage": val["g1"], "accuracy": val["g2"], "cost": val["g3*"]},
            "confidence": float(clf.confidence), "seed": args.seed,
            "wall_time_s": wall, "evaluations": int(clf.n_evaluations_),
            "cache_hit_rate": float(clf.cache_hit_rate_),
            "population_size": int(clf.population_size), "generations": int(clf.max_iter),
            "max_stages": int(clf.max_stages_),
            "feature_costs": dict(zip(names, map(float, clf.feature_costs_))),
        }
        atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
        print(f"wrote {out / 'front.csv'}, {out / 'front.png'}, {out / 'summary.json'}")
    return 0


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
    f.add_argument("--data-home", help="folder of the real data sets (else $SUBSEL_DATA, "
                                       "else ~/.subsel/data)")
    f.add_argument("--train", help="training CSV (feature columns and a label column)")
    f.add_argument("--val", help="validation CSV (the objectives are measured on it)")
    f.add_argument("--test", help="test CSV")
    f.add_argument("--costs", help="costs: a file with one comma-separated line in feature order "
                                   "or a CSV feature,cost; or the numbers inline")
    f.add_argument("--label-column", default="label", help="label column of the CSVs (label)")
    f.add_argument("--confidence", type=_probability, help="p̂, the confidence threshold "
                                                           "(default for --dataset: the paper's)")
    f.add_argument("--max-stages", type=int, help="maximum stage count k "
                                                  "(default min(round(n/2), 10))")
    f.add_argument("--population", type=int, help="population size (default: the data set's, "
                                                   "else 300)")
    f.add_argument("--generations", type=int, default=150, help="generations (150)")
    f.add_argument("--seed", type=int, default=0, help="seed of the split and the run (0)")
    f.add_argument("--n-jobs", type=int, help="joblib jobs for training classifiers")
    f.add_argument("--out", help="folder for front.csv, front.png and summary.json")
    f.set_defaults(func=_cmd_fit)
