"""Time of CSTC's rows in ``subsel reproduce emsco-table2``, beside GreedyMiser's, in one run.

Per data set: wall and process-CPU seconds of CSTC's whole λ sweep at a scale's settings (default
``full``: depth 3, 10 cyclic passes, the 8-value λ grid; what ``emsco-table2 --full`` runs per
data set, once, since CSTC is deterministic), the same for GreedyMiser's trade-off sweep (when
LightGBM is installed), their CPU ratio, and CSTC's test accuracy and mean cost.  CPU seconds are
the figure to trust on a shared machine (the load average is printed).

    python benchmarks/bench_cstc.py                          # all five data sets, full settings
    python benchmarks/bench_cstc.py --datasets pima --scale quick
"""
from __future__ import annotations

import argparse
import os
import time

from subsel.experiments.emsco import TABLE2_DATASETS, _greedy_miser, _setup
from subsel.experiments.emsco_cstc import CSTC_SCALES, cstc_row


def _timed(fn):
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(TABLE2_DATASETS))
    parser.add_argument("--scale", default="full", choices=tuple(CSTC_SCALES))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; CSTC settings {CSTC_SCALES[args.scale]}")
    print(f"{'data set':12} {'cstc wall s':>11} {'cstc cpu s':>10} {'gm cpu s':>8} {'cpu cstc/gm':>11} "
          f"{'test acc':>8} {'test cost':>9} {'lambda':>6}")
    total_wall = total_cpu = 0.0
    for name in [s.strip() for s in args.datasets.split(",") if s.strip()]:
        ds, problem, test = _setup(name, args.seed)
        row, wall, cpu = _timed(lambda: cstc_row(ds, problem, test, args.scale, args.seed))
        gm, _, gm_cpu = _timed(lambda: _greedy_miser(ds, problem, test, args.seed))
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        ratio = f"{cpu / gm_cpu:11.1f}" if gm is not None and gm_cpu > 0 else f"{'—':>11}"
        print(f"{name:12} {wall:11.1f} {cpu:10.1f} {gm_cpu if gm is not None else float('nan'):8.1f} {ratio} "
              f"{row['g2']:8.3f} {row['g3*']:9.4g} {row['cstc_lambda']:6g}")
    print(f"{'all':12} {total_wall:11.1f} {total_cpu:10.1f}")


if __name__ == "__main__":
    main()
