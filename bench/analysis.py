"""Double-dummy solver speed: solves from the first lead of random deals.

Run by hand: ``uv run python bench/analysis.py [--deals N] [--seed S]``. Results are
recorded in ``bench/RESULTS.md``. Each deal is taken to its first lead with random
decisions (half of them with the trump suit that puts the most trumps in play, the
hardest hands), then solved by ``pitch_sdk.analysis.solve`` and by the plain memoized
``exhaustive_solve``; both give the same result, and the figures compare their work:
the solver's time (median, 99th percentile), its nodes, and the exhaustive search's
nodes divided by the solver's, deal by deal (a deal the solver settles from its bounds
alone, with no node, counts as one node there).

A second table times what ddbot does at a first lead: every legal card valued on
``--samples`` sampled deals of the leader's view, three ways interleaved deal by deal: a
fresh solve after each card (ddbot 1.3), ``Solver().card_outcomes`` on each sample (one
search for all the cards), and one ``Solver`` kept across the decision's samples.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from pitch_sdk.actions import Play
from pitch_sdk.analysis import HandOutcome, Solver, exhaustive_solve, solve
from pitch_sdk.analysis.samples import first_lead
from pitch_sdk.determinize import determinize
from pitch_sdk.rules import GameState


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


def each_card_solved(state: GameState) -> dict[int, HandOutcome]:
    """Every legal card's outcome by a fresh solve after it (ddbot 1.3's way)."""
    outcomes = {}
    for action in state.legal_actions():
        assert isinstance(action, Play)  # a first lead
        after = state.copy()
        after.advance(action)
        outcomes[action.card] = solve(after)
    return outcomes


def measure_samples(deals: int, samples: int, seed: int) -> dict[str, tuple[float, int]]:
    """Seconds and nodes to value every card on ``samples`` samples of a first lead,
    three ways."""
    rng = random.Random(seed)
    ways: dict[str, Callable[[], Callable[[GameState], dict[int, HandOutcome]]]] = {
        "a solve per card": lambda: each_card_solved,
        "one search a sample": lambda: lambda world: Solver().card_outcomes(world),
        "one Solver a decision": lambda: Solver().card_outcomes,
    }
    figures = dict.fromkeys(ways, (0.0, 0))
    for deal in range(deals):
        state = first_lead(rng, deal % 2 == 0)
        worlds = [determinize(state.view(state.to_move), rng) for _ in range(samples)]
        found = []
        for way, make in ways.items():
            start = time.perf_counter()
            value_cards = make()
            outcomes = [value_cards(world) for world in worlds]
            spent, nodes = figures[way]
            figures[way] = (
                spent + time.perf_counter() - start,
                nodes + sum(o.nodes for cards in outcomes for o in cards.values()),
            )
            found.append([{card: o.taken for card, o in cards.items()} for cards in outcomes])
        if any(taken != found[0] for taken in found):
            raise SystemExit(f"the card outcomes disagree with the solves on {state!r}")
    return figures


def main() -> None:
    """Print one table row per kind of deal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="deals of each kind")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--samples", type=int, default=16, help="samples of each first lead")
    parser.add_argument("--sampled-deals", type=int, default=30, help="first leads sampled")
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
    figures = measure_samples(args.sampled_deals, args.samples, args.seed)
    base_s, base_nodes = figures["a solve per card"]
    print(f"\nEvery card of a first lead on {args.samples} samples, {args.sampled_deals} deals:")
    print(
        "| way | ms a decision | speed-up | nodes a decision | fewer nodes |\n|---|---|---|---|---|"
    )
    for way, (spent, nodes) in figures.items():
        print(
            f"| {way} | {spent / args.sampled_deals * 1e3:.0f} | {base_s / spent:.2f}x | "
            f"{nodes / args.sampled_deals:.0f} | {base_nodes / nodes:.2f}x |"
        )


if __name__ == "__main__":
    main()
