"""The duplicate comparison's work per request: what ``/compare/{match}/{pair}`` computes.

Run by hand: ``uv run python bench/compare.py [--pairs N] [--seed S]``. Results are
recorded in ``bench/RESULTS.md``. Each pair is two full games (the default rules) on
the same deals, the seats swapped, between the greedy bot and a copy of it that plays
another card once, at its first card asked for in a hand chosen at random: so each pair
has a card divergence to analyse. Timed: both games' timelines (made once per game and
kept by the server), walking them side by side (``compare_hands``), and the analysis of
the divergent card (``analyse``: the walk to it and one solve per legal card), against
one solve of that position (``solve``), the unit the analysis is counted in.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from pitch_sdk.analysis import solve
from pitch_sdk.bots import GreedyBot
from pitch_sdk.replay import Step, replay
from pitch_sdk.selfplay import play_game
from pitch_testkit.duplicate import Contrary
from pitch_web.compare import analyse, compare_hands
from pitch_web.timeline import timeline


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(pairs: int, seed: int) -> dict[str, float]:
    """Time the comparison of ``pairs`` pairs; milliseconds, and the analysis in solves."""
    rng = random.Random(seed)
    timelines, walks, analyses, solves, ratios, hands = [], [], [], [], [], []
    while len(analyses) < pairs:
        deal, hand = rng.randrange(10**9), rng.randint(1, 8)
        tables = [
            play_game([Contrary(hand), GreedyBot(), Contrary(hand), GreedyBot()], deal),
            play_game([GreedyBot(), Contrary(hand), GreedyBot(), Contrary(hand)], deal),
        ]
        start = time.perf_counter()
        steps = [timeline(record)["steps"] for record in tables]
        made = time.perf_counter()
        compared = compare_hands(*steps)
        walked = time.perf_counter()
        line = next((line for line in compared if line.divergence), None)
        if line is None or line.divergence is None or line.divergence.kind != "play":
            continue  # the game ended before that hand
        before = time.perf_counter()
        analysis = analyse(tables[0], line.hand, line.divergence)
        analysed = time.perf_counter()
        assert analysis is not None
        position = next(
            event.before
            for event in replay(tables[0])
            if isinstance(event, Step)
            and (event.hand, event.index) == (line.hand, line.divergence.index)
        )
        solve_start = time.perf_counter()
        solve(position)
        one = time.perf_counter() - solve_start
        timelines.append((made - start) / 2)
        walks.append(walked - made)
        analyses.append(analysed - before)
        solves.append(one)
        ratios.append((analysed - before) / one)
        hands.append(len(compared))
    return {
        "median hands": statistics.median(hands),
        "timeline ms (median)": statistics.median(timelines) * 1e3,
        "compare_hands ms (median)": statistics.median(walks) * 1e3,
        "analyse ms (median)": statistics.median(analyses) * 1e3,
        "analyse ms (p99)": percentile(analyses, 0.99) * 1e3,
        "one solve ms (median)": statistics.median(solves) * 1e3,
        "analyse / one solve (median)": statistics.median(ratios),
    }


def main() -> None:
    """Print the figures, one a line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=40, help="pairs with a card divergence")
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    for name, value in measure(args.pairs, args.seed).items():
        print(f"{name:32} {value:10.2f}")


if __name__ == "__main__":
    main()
