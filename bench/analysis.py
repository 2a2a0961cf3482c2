"""Double-dummy solver speed: solves from the first lead of random deals.

Run by hand: ``uv run python bench/analysis.py [--deals N] [--seed S]``. Results are
recorded in ``bench/RESULTS.md``. Each deal is taken to its first lead with random
decisions (half of them with the trump suit that puts the most trumps in play, the
hardest hands), then solved by ``pitch_sdk.analysis.solve`` and by the plain memoized
``exhaustive_solve``; both give the same result, and the figures compare their work:
the solver's time (median, 99th percentile), its nodes, and the exhaustive search's
nodes divided by the solver's, deal by deal (a deal the solver settles from its bounds
alone, with no node, counts as one node there).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from pitch_sdk.analysis import exhaustive_solve, solve
from pitch_sdk.analysis.samples import first_lead


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(deals: int, seed: int, most_trumps: bool) -> dict[str, float]:
    """Solve ``deals`` first leads both ways; the solver's times and the node ratios."""
    rng = random.Random(seed)
    times, nodes, exhaustive_nodes, ratios = [], [], [], []
    for _ in range(deals):
        state = first_lead(rng, most_trumps)
        start = time.perf_counter()
        fast = solve(state)
        times.append(time.perf_counter() - start)
        exact = exhaustive_solve(state)
        if fast.taken != exact.taken:
            raise SystemExit(f"the solver and the exhaustive search disagree on {state!r}")
        nodes.append(fast.nodes)
        exhaustive_nodes.append(exact.nodes)
        ratios.append(exact.nodes / max(1, fast.nodes))
    return {
        "median ms": statistics.median(times) * 1e3,
        "p99 ms": percentile(times, 0.99) * 1e3,
        "median nodes": statistics.median(nodes),
        "p99 nodes": percentile(nodes, 0.99),
        "median exhaustive nodes": statistics.median(exhaustive_nodes),
        "median ratio": statistics.median(ratios),
        "worst ratio": min(ratios),
    }


def main() -> None:
    """Print one table row per kind of deal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="deals of each kind")
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    print(
        "| trumps | median ms | p99 ms | median nodes | p99 nodes | exhaustive median | "
        "ratio median | ratio worst |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, most in (("random suit", False), ("most trumps", True)):
        row = measure(args.deals, args.seed, most)
        print(
            f"| {label} | {row['median ms']:.1f} | {row['p99 ms']:.1f} | "
            f"{row['median nodes']:.0f} | {row['p99 nodes']:.0f} | "
            f"{row['median exhaustive nodes']:.0f} | {row['median ratio']:.0f}x | "
            f"{row['worst ratio']:.0f}x |"
        )


if __name__ == "__main__":
    main()
