"""Match throughput over gRPC, and how much duplicate deals cut the games a verdict needs.

Run by hand: ``uv run python bench/match.py``. Results go in ``bench/RESULTS.md``.

1. Greedy against random through the real referee (``run_match``): games per second at
   concurrency 1 and 2, and their ratio (target >= 1.6 on a 2-core machine); also
   concurrency 2 without pinning workers to cores. The three alternate, twice, so that a
   change in the machine's load shows instead of skewing one of them.
2. Variance reduction, in-process on the same seeds: the duplicate format (pairs of games
   with teams swapped) against independent games. For each format: the first game count
   at which the 95% Elo interval excludes 0, and the variance of the per-game score
   (which sets the interval's width for a given number of games).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_referee.stats import Pentanomial, Trinomial
from pitch_sdk import reference
from pitch_sdk.bot import Bot
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game


def throughput(games: int, concurrency: int, rules: dict, affinity: bool = True) -> float:
    a = Entrant.from_argument(str(reference.folder("greedy")))
    b = Entrant.from_argument(str(reference.folder("random")))
    settings = MatchSettings(
        games=games, seed=1, concurrency=concurrency, rules=rules, affinity=affinity
    )
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        summary = run_match(a, b, settings, Path(folder) / "m", announce=lambda _: None)
        elapsed = time.perf_counter() - started
    return summary.games_played / elapsed


class GreedyBiddingRandomPlay(GreedyBot):
    """A closer opponent for greedy: bids and names trumps like it, then plays at random."""

    name = "greedy-bids-random-play"

    def play(self, view, legal):
        return self.rng.choice(legal)


def a_scores(
    make_a: Callable[[str], Bot], make_b: Callable[[str], Bot], seed: int, rules: RuleOptions
) -> tuple[float, float]:
    """Bot A's score in game a (A is team 0) and game b (A is team 1) of one deal."""
    scores = []
    for a_team in (0, 1):
        bots = [(make_a if seat % 2 == a_team else make_b)(f"{seed}:{seat}") for seat in range(4)]
        result = play_game(bots, seed, rules).result
        assert result is not None  # a game played to its end
        winner = result.winner
        scores.append(0.5 if winner is None else float(winner == a_team))
    return scores[0], scores[1]


def first_separation(scores: list[float], duplicate: bool) -> int | None:
    """Games played when the 95% interval first excludes 0 (None: never in this sample)."""
    for end in range(2, len(scores) + 1, 2 if duplicate else 1):
        part = scores[:end]
        tally = (
            Pentanomial.from_pair_scores(part[i] + part[i + 1] for i in range(0, end, 2))
            if duplicate
            else Trinomial.from_scores(part)
        )
        interval = tally.elo_interval
        if interval and (interval[0] > 0 or interval[1] < 0):
            return end
    return None


def variance_reduction(name: str, make_a, make_b, deals: int, rules: RuleOptions) -> None:
    paired = [a_scores(make_a, make_b, seed, rules) for seed in range(deals)]
    duplicate = [score for pair in paired for score in pair]
    # Independent games on the same seeds: game i is deal i with A on the side i % 2.
    independent = [paired[i][i % 2] for i in range(deals)]
    pair_means = [(a + b) / 2 for a, b in paired]
    game_var = statistics.pvariance(independent)
    pair_var = statistics.pvariance(pair_means) * 2  # per game, as a pair is two games
    print(
        f"{name}: score {statistics.fmean(duplicate):.3f}; first separation: "
        f"duplicate {first_separation(duplicate, True)} games, independent "
        f"{first_separation(independent, False)} games (of {deals}); per-game score "
        f"variance: independent {game_var:.4f}, duplicate {pair_var:.4f} "
        f"(ratio {game_var / pair_var if pair_var else float('inf'):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="per match (as `pitch match`)")
    parser.add_argument("--deals", type=int, default=300)
    args = parser.parse_args()
    rules = {"hand_cap": 60}
    setups = {"concurrency 1": (1, True), "concurrency 2": (2, True), "2, unpinned": (2, False)}
    rates: dict[str, list[float]] = {name: [] for name in setups}
    for _ in range(2):
        for name, (concurrency, affinity) in setups.items():
            rates[name].append(throughput(args.games, concurrency, rules, affinity))
    print(f"greedy vs random over gRPC ({args.games} games a match, hand_cap 60), games/s:")
    for name, runs in rates.items():
        each = "  ".join(f"{rate:6.2f}" for rate in runs)
        print(f"  {name:14} {each}   mean {statistics.fmean(runs):6.2f}")
    one = statistics.fmean(rates["concurrency 1"])
    print(
        f"  ratio 2/1: {statistics.fmean(rates['concurrency 2']) / one:.2f} pinned, "
        f"{statistics.fmean(rates['2, unpinned']) / one:.2f} unpinned"
    )
    if not args.deals:
        return
    options = RuleOptions()
    variance_reduction("greedy vs random", GreedyBot, RandomBot, args.deals, options)
    variance_reduction(
        "greedy vs greedy-bids-random-play", GreedyBot, GreedyBiddingRandomPlay, args.deals, options
    )


if __name__ == "__main__":
    main()
