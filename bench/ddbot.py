"""The ddbot's card play against the Monte Carlo bot's, without the clock.

Run by hand: ``uv run python bench/ddbot.py [--pairs N] [--first N] [--solved N]
[--rolled N]``.
Results are recorded in ``bench/RESULTS.md`` (``## ddbot``).

A match at the same time per decision (``pitch match @ddbot @montecarlo``) measures the
two bots as they are on this machine, where a solve is costly and few samples fit. This
asks the other question: is a solved sample worth more than a rolled-out one? Both teams
search every decision but the play with the rollouts on the same cap (``--rolled``); the
solving team plays its cards on ``--solved`` samples, each solved double-dummy, the
other on ``--rolled`` rolled-out samples. Each deal is played twice, the teams swapped;
caps, never the clock, end the searches, so a run replays exactly.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from pitch_sdk.actions import Action, Decision
from pitch_sdk.bots.ddbot import DoubleDummyBot
from pitch_sdk.bots.ddbot.search import search as solved_search
from pitch_sdk.bots.montecarlo import MonteCarloBot
from pitch_sdk.bots.montecarlo.search import search as rollout_search
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import TimeControl
from pitch_sdk.views import PlayerView

NO_CLOCK = TimeControl(limit_ms=10**8, reserve_ms=0)
FAR = 10**6
"""Seconds to a deadline that never comes: the caps end every search."""


class SolvedPlay(DoubleDummyBot):
    """Cards on solved samples, every other decision on rolled-out ones."""

    def __init__(self, seed: int, solved: int, rolled: int) -> None:
        super().__init__(seed, max_worlds=solved)
        self.rolled = rolled

    def _search(self, view: PlayerView, candidates: Sequence[Action]) -> Action:
        deadline = time.perf_counter() + FAR
        if view.decision is Decision.PLAY:
            result = solved_search(view, candidates, self.rng, deadline, max_worlds=self.max_worlds)
            assert result is not None  # the deadline is far: the first sample always fits
            return result.action
        return rollout_search(view, candidates, self.rng, deadline, max_worlds=self.rolled).action


def solving_game(
    pair: int, swapped: bool, solved: int, rolled: int, options: RuleOptions | None = None
) -> tuple[bool, int, int]:
    """Game a (b if ``swapped``) of deal pair ``pair``: the solving team in seats 0 and 2
    (1 and 3) against the rolling one; whether it won, its score and the other team's."""
    solving = [SolvedPlay(seat, solved, rolled) for seat in range(4)]
    rolling = [MonteCarloBot(seat, max_worlds=rolled) for seat in range(4)]
    team = 1 if swapped else 0
    seats = [solving[s] if s % 2 == team else rolling[s] for s in range(4)]
    record = play_game(seats, seed=f"ddbot-bench-{pair}", options=options, time_control=NO_CLOCK)
    result = record.result
    assert result is not None  # a game played to its end
    return result.winner == team, result.scores[team], result.scores[1 - team]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=6, help="deal pairs (two games each)")
    parser.add_argument("--first", type=int, default=0, help="the first deal pair's number")
    parser.add_argument("--solved", type=int, default=16, help="solved samples per card")
    parser.add_argument("--rolled", type=int, default=40, help="rolled-out samples a decision")
    args = parser.parse_args()
    won = games = margin = 0
    for pair in range(args.first, args.first + args.pairs):
        for swapped in (False, True):
            started = time.perf_counter()
            solving_won, ours, theirs = solving_game(pair, swapped, args.solved, args.rolled)
            won += solving_won
            margin += ours - theirs
            games += 1
            print(
                f"pair {pair} {'b' if swapped else 'a'}: solving team "
                f"{'won' if solving_won else 'lost'} {ours}-{theirs} "
                f"({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    print(f"solving team won {won} of {games}, score margin {margin:+d} in all")


if __name__ == "__main__":
    main()
