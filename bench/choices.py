"""Decision values' speed: the time to value one decision before the play on sampled deals.

Run by hand: ``uv run python bench/choices.py [--games N] [--samples S] [--seed S]``.
Results are recorded in ``bench/RESULTS.md`` (section "decision values"). Greedy
self-play games of a few hands are analysed with ``pitch_sdk.analysis.decision_values``
at the default sample count. Times are the process's CPU time, steadier than the clock on
a shared machine (the wall time per hand is printed too): per decision by kind (median
and 90th percentile), per hand, and the median decision's time over the median time of
one double-dummy solve from a first lead measured in the same run (the solver's speed
moves both, so the ratio says what the sampling itself costs).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict

from pitch_sdk.analysis import DEFAULT_SAMPLES, decision_values, solve
from pitch_sdk.analysis.samples import first_lead
from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game

HANDS = 3
"""Hands per game: enough decisions of every kind, short enough to run often."""


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def solve_ms(deals: int, seed: int) -> float:
    """The median CPU time of one solve from the first lead of a random deal, in ms."""
    rng = random.Random(seed)
    times = []
    for _ in range(deals):
        state = first_lead(rng)
        start = time.process_time()
        solve(state)
        times.append(time.process_time() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    """Print one table row per kind of decision, then the totals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help=f"greedy games of {HANDS} hands")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    by_kind: dict[str, list[float]] = defaultdict(list)
    hands = 0
    wall = time.perf_counter()
    cpu = 0.0
    for game in range(args.games):
        record = play_game(
            [GreedyBot() for _ in range(4)],
            seed=args.seed + game,
            options=RuleOptions(hand_cap=HANDS),
        )
        hands += len(record.hands)
        start = time.process_time()
        for decision in decision_values(record, samples=args.samples, seed=args.seed):
            now = time.process_time()
            by_kind[decision.kind].append(now - start)
            cpu += now - start
            start = now
    wall = time.perf_counter() - wall
    solve_median = solve_ms(100, args.seed)
    every = [seconds for times in by_kind.values() for seconds in times]
    print(f"{args.samples} samples a decision; one first-lead solve: {solve_median:.1f} ms median")
    print("| decisions | count | median CPU ms | p90 CPU ms | median / one solve |")
    print("|---|---|---|---|---|")
    for kind, times in [*sorted(by_kind.items()), ("all", every)]:
        median = statistics.median(times) * 1e3
        print(
            f"| {kind} | {len(times)} | {median:.0f} | {percentile(times, 0.9) * 1e3:.0f} | "
            f"{median / solve_median:.0f}x |"
        )
    print(f"per hand: {cpu / hands:.1f} s of CPU ({wall / hands:.1f} s wall), {hands} hands")


if __name__ == "__main__":
    main()
