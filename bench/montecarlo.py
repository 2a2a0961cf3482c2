"""The montecarlo reference bot's search speed: samples, playouts and samples per decision.

Run by hand: ``uv run python bench/montecarlo.py [--views N] [--decisions N]``. Results
are recorded in ``bench/RESULTS.md`` (``## montecarlo``). Positions are taken from
seeded greedy self-play, every kind of decision with more than one legal action, so
the figures mix decisions in the proportions a game has.

* samples/s: ``determinize(view, rng)`` alone, in CPU time;
* playouts/s: from a sample, one legal action then the hand played to its end, with the
  bot's rollout policy and, for comparison, with uniformly random legal actions;
* samples per decision: what ``MonteCarloBot`` reaches in the default 1000 ms limit
  (a quarter of it, less the margin), per kind of decision, in wall time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict

from pitch_sdk.bot import ask
from pitch_sdk.bots import GreedyBot
from pitch_sdk.bots.montecarlo import MonteCarloBot
from pitch_sdk.bots.montecarlo.rollout import play_out_hand
from pitch_sdk.determinize import determinize
from pitch_sdk.rules import CHANCE, TERMINAL, GameState
from pitch_sdk.table import TimeBudget
from pitch_sdk.views import PlayerView


def game_views(count: int, seed: int) -> list[PlayerView]:
    """``count`` decision views from greedy self-play."""
    rng = random.Random(seed)
    views: list[PlayerView] = []
    game = 0
    while len(views) < count:
        state, bots = GameState(first_dealer=game % 4), [GreedyBot(s) for s in range(4)]
        while not state.is_over():
            if state.current_seat() == CHANCE:
                deck = list(range(54))
                rng.shuffle(deck)
                state.deal(deck)
                continue
            view = state.view(state.current_seat())
            if len(view.legal_actions) > 1:
                views.append(view)
            state.apply(bots[state.current_seat()].decide(view))
        game += 1
    return views[:count]


def random_playout(state: GameState, rng: random.Random) -> None:
    while state.to_move not in (CHANCE, TERMINAL):
        state.advance(rng.choice(state.legal_actions()))


def rates(views: list[PlayerView], seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    start = time.process_time()
    worlds = [determinize(view, rng) for view in views]
    sampling = time.process_time() - start
    result = {"samples/s": len(views) / sampling}
    for name, playout in (
        ("playouts/s (rollout policy)", play_out_hand),
        ("playouts/s (random)", lambda state: random_playout(state, rng)),
    ):
        start = time.process_time()
        for view, world in zip(views, worlds, strict=True):
            state = world.copy()
            state.advance(view.legal_actions[0])
            playout(state)
        result[name] = len(views) / (time.process_time() - start)
    return result


def samples_per_decision(views: list[PlayerView]) -> dict[str, list[int]]:
    bot = MonteCarloBot(seed=1)
    found: dict[str, list[int]] = defaultdict(list)
    for view in views:
        ask(bot, view, TimeBudget(limit_ms=1000, reserve_ms=10_000))
        found[view.decision.name.lower()].append(bot.last.worlds)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=3000, help="positions for the rates")
    parser.add_argument("--decisions", type=int, default=40, help="positions searched in full")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    views = game_views(args.views, seed=14)
    runs = [rates(views, seed) for seed in range(args.repeats)]
    for name in runs[0]:
        print(f"{name:30} {statistics.median(run[name] for run in runs):10,.0f}")
    searched = game_views(args.decisions * 7, seed=15)[::7]
    for kind, worlds in sorted(samples_per_decision(searched).items()):
        print(
            f"samples per decision, {kind:6} {statistics.median(worlds):6.0f} median, "
            f"{min(worlds)}-{max(worlds)} ({len(worlds)} decisions)"
        )


if __name__ == "__main__":
    main()
