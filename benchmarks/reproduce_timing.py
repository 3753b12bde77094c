"""Wall time of ``subsel reproduce`` per experiment, and Table 1's time ratios, measured in one run.

Usage (from the repository root)::

    python benchmarks/reproduce_timing.py [--scale quick|full] [--only fig1a,table1] [--jobs N]

Runs the experiments into a fresh temporary folder (nothing is resumed), prints the wall time of each
and, when table1 ran, its median time ratios t_dpss : t_gss and t_ilp : t_gss per n.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

from subsel.experiments import EXPERIMENTS, run_experiment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="quick", choices=("tiny", "quick", "full"))
    parser.add_argument("--only", default=",".join(EXPERIMENTS))
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    names = [s.strip() for s in args.only.split(",") if s.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        total = time.perf_counter()
        for name in names:
            start = time.perf_counter()
            run_experiment(name, tmp, scale=args.scale, jobs=args.jobs, resume=False)
            print(f"{name:8s} --{args.scale}: {time.perf_counter() - start:7.1f} s")
        print(f"{'total':8s} --{args.scale}: {time.perf_counter() - total:7.1f} s")
        summary = Path(tmp) / "table1_summary.csv"
        if summary.exists():
            print(pd.read_csv(summary)[["n", "t_dpss:t_gss", "t_ilp:t_gss", "instances"]]
                  .to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
