"""Throughput of the bandit simulation: batched DPSS-UCB and GSS-UCB vs a per-run loop.

Deva, Abhishek, Gujar, "A Multi-Arm Bandit Approach To Subset Selection Under Constraints" (AAMAS
2021), Section 6.2.  Measures run-rounds per second (runs x rounds / seconds) at the paper's setting
(n = 10, q, c ~ U[0, 1], alpha = 0.7, eps = 0.05, T = 10^5, so tau = 6908):

- the exploration phase (no oracle calls), batched over all runs;
- the oracle phase (t > tau) batched over all runs, for DPSS-UCB and GSS-UCB (one ``solve_batch``
  call per round), with every run on its own random stream (as ``simulate`` always does), per wall
  second and per CPU second (one core: the target is 10^6 run-rounds per CPU second);
- the same oracle phase with all runs drawing from one shared stream (the layout before per-run
  streams), for the cost of per-run streams as a ratio (the two are played in alternating chunks of
  rounds, so that the machine's load weighs on both alike; the CPU time of each chunk includes
  ``simulate``'s exact regret constants, which makes the rates slightly conservative);
- the same policies as a per-run loop (one ``Solver.solve`` call per run and round) on a small
  slice of runs;

then prints the ratios and the extrapolated time of the full experiment (1000 runs x 10^5 rounds)
per policy, from the measured rates.  All numbers come from this one run.

Usage::

    python benchmarks/bench_bandits.py [--runs 1000] [--rounds 1500] [--chunks 6] [--slice-runs 10]
                                       [--slice-rounds 100]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from subsel.bandits import BernoulliEnvironment, make_policy, paper_instances, simulate

N, ALPHA, EPS, T = 10, 0.7, 0.05, 100_000


class SharedStream(BernoulliEnvironment):
    """All runs draw from one generator, one (runs, n) block per round (the layout before per-run
    streams: run j's outcomes then depend on the number of runs)."""

    def _uniforms(self):
        shape = self.quality.shape + ((self._kmax,) if self._kmax > 1 else ())
        return self.rng.random(shape)


def explored(policy_name, oracle, quality, cost, runs, seed, env_class=BernoulliEnvironment):
    """A policy (batched when ``runs``) whose exploration phase was just played, and its environment."""
    env = env_class(quality, cost, seed=seed)
    pol = make_policy(policy_name, oracle, cost=cost, alpha=ALPHA, epsilon=EPS, horizon=T, runs=runs)
    start = time.perf_counter()
    x = np.broadcast_to(pol.capacity, quality.shape).astype(np.int64)
    for _ in range(pol.tau):
        pol._tell(x, env._good(x))
    return pol, env, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=1500, help="oracle rounds measured after tau")
    ap.add_argument("--slice-runs", type=int, default=10)
    ap.add_argument("--slice-rounds", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunks", type=int, default=6,
                    help="alternating chunks of the oracle rounds (per-run streams / one shared stream)")
    args = ap.parse_args()
    quality, cost = paper_instances(N, args.runs, ALPHA, args.seed)
    print(f"n={N}, alpha={ALPHA}, eps={EPS}, T={T}, runs={args.runs}; measuring {args.rounds} oracle rounds "
          f"batched and {args.slice_rounds} rounds x {args.slice_runs} runs per-run")
    rates = {}
    for oracle in ("dpss", "gss"):
        # The two layouts are played in alternating chunks of rounds, so that a change of the
        # machine's load during the run weighs on both alike.
        played = {}
        for env_class in (SharedStream, BernoulliEnvironment):
            pol, env, explore_s = explored("ss-ucb", oracle, quality, cost, args.runs, args.seed + 1, env_class)
            played[env_class] = (pol, env)
            if env_class is BernoulliEnvironment:
                tau = pol.tau
                explore_rate = args.runs * tau / explore_s
        cpu_s = dict.fromkeys(played, 0.0)
        wall_s = dict.fromkeys(played, 0.0)
        chunks = max(1, min(args.chunks, args.rounds))
        sizes = [args.rounds // chunks + (k < args.rounds % chunks) for k in range(chunks)]
        for k, rounds in enumerate(sizes):
            for env_class in (list(played) if k % 2 == 0 else list(played)[::-1]):
                pol, env = played[env_class]
                cpu = time.process_time()
                res = simulate(pol, env, rounds, EPS, tau=0, checkpoints=[rounds])
                cpu_s[env_class] += time.process_time() - cpu
                wall_s[env_class] += res.wall_time_s
        work = args.runs * args.rounds
        batched_cpu = work / cpu_s[BernoulliEnvironment]
        stream_ratio = batched_cpu / (work / cpu_s[SharedStream])
        batched = work / wall_s[BernoulliEnvironment]
        # per-run loop on a slice: single-run policies, each asking Solver.solve every round
        k = args.slice_runs
        singles = []
        for j in range(k):
            p1, _, _ = explored("ss-ucb", oracle, quality[j], cost[j], None, args.seed + 2 + j)
            singles.append(p1)
        env_k = BernoulliEnvironment(quality[:k], cost[:k], seed=args.seed + 1)
        cpu = time.process_time()
        res_k = simulate(singles, env_k, args.slice_rounds, EPS, tau=0, checkpoints=[args.slice_rounds])
        per_run_cpu = k * args.slice_rounds / (time.process_time() - cpu)
        per_run = res_k.run_rounds_per_s
        full_s = args.runs * tau / explore_rate + args.runs * (T - tau) / batched_cpu
        rates[oracle] = batched_cpu
        print(f"{oracle.upper()}-UCB: explore phase {explore_rate:,.0f} run-rounds/s; oracle phase batched "
              f"{batched:,.0f} run-rounds/s wall, {batched_cpu:,.0f} per CPU second; per-run loop "
              f"{per_run:,.0f} run-rounds/s wall, {per_run_cpu:,.0f} per CPU second; ratio batched/per-run "
              f"{batched / per_run:,.1f}x (wall), {batched_cpu / per_run_cpu:,.1f}x (CPU)")
        print(f"    per-run streams / one shared stream (CPU-second rates): {stream_ratio:.3f} "
              f"({100 * (1 - stream_ratio):.1f}% slower; the bar is 15%)")
        print(f"    extrapolated full experiment ({args.runs} runs x {T} rounds, tau={tau}): "
              f"{full_s:,.0f} CPU s = {full_s / 60:.1f} min on one core "
              f"({'meets' if batched_cpu >= 1e6 else 'misses'} the 1e6 run-rounds per CPU second target)")
    print(f"ratio GSS-UCB / DPSS-UCB batched throughput: {rates['gss'] / rates['dpss']:.2f}")
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
          "(wall rates drop when other processes share the cores; CPU-second rates much less)")


if __name__ == "__main__":
    main()
