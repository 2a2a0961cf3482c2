"""The PettingZoo environment's speed: steps per second with random legal actions, next to
the engine's decisions per second and the table's, measured in the same run.

Run by hand: ``uv run python bench/env.py [--seconds S] [--repeats N]``. Results are
recorded in ``bench/RESULTS.md`` under ``## env``. Time is this process's CPU time, and
each repeat runs the three loops one after the other, so that a machine busy with other
work shifts all three alike; the ratios are taken within each repeat. Three loops, each
choosing uniformly at random among the legal options:

- engine: ``GameState`` alone (``legal_actions`` and ``advance``), every decision
  counted, forced ones included (as ``bench/engine.py``);
- table: four in-process random bots at the ``Table`` (``selfplay.play_game``, what
  ``pitch simulate`` runs), counting the decisions the bots are asked;
- env: ``PitchEnv`` with four agents, ``last()`` then ``step()`` (the observation, the
  mask, a random legal id from the mask), counting steps (dead steps at the end excluded).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

import numpy as np

from pitch_sdk.actions import Action
from pitch_sdk.bot import Bot
from pitch_sdk.deck import deck_for
from pitch_sdk.env import PitchEnv
from pitch_sdk.rules import CHANCE, GameState
from pitch_sdk.selfplay import play_game
from pitch_sdk.views import PlayerView


def engine_decisions(seconds: float, seed: int) -> tuple[int, float]:
    """Random games on the bare engine: (decisions, elapsed seconds)."""
    rng = random.Random(seed)
    decisions, game = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state, game = GameState(), game + 1
        while not state.is_over():
            if state.current_seat() == CHANCE:
                state.deal(deck_for(f"{seed}-{game}", state.hand_number + 1))
                continue
            actions = state.legal_actions()
            state.advance(actions[int(rng.random() * len(actions))])
            decisions += 1
    return decisions, time.process_time() - start


class _CountingRandomBot(Bot):
    """Uniformly random, like ``RandomBot``, counting the decisions it is asked."""

    asked = 0

    def decide(self, view: PlayerView) -> Action:
        _CountingRandomBot.asked += 1
        legal = view.legal_actions
        return legal[int(self.rng.random() * len(legal))]


def table_decisions(seconds: float, seed: int) -> tuple[int, float]:
    """Random games at the table, four in-process bots: (decisions asked, elapsed)."""
    _CountingRandomBot.asked = 0
    game = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game += 1
        bots = [_CountingRandomBot(f"{seed}-{game}-{seat}") for seat in range(4)]
        play_game(bots, seed=f"{seed}-{game}")
    return _CountingRandomBot.asked, time.process_time() - start


def env_steps(seconds: float, seed: int) -> tuple[int, float]:
    """Random games in the environment, four agents: (steps, elapsed)."""
    rng = random.Random(seed)
    env = PitchEnv()
    steps, game = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game += 1
        env.reset(seed=seed * 1_000_003 + game)
        for _agent in env.agent_iter():
            observation, _reward, terminated, _truncated, _info = env.last()
            if terminated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    return steps, time.process_time() - start


LOOPS: dict[str, Callable[[float, int], tuple[int, float]]] = {
    "engine": engine_decisions,
    "table": table_decisions,
    "env": env_steps,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per loop")
    parser.add_argument("--repeats", type=int, default=5, help="the medians are shown")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rates: dict[str, list[float]] = {name: [] for name in LOOPS}
    ratios: dict[str, list[float]] = {"engine": [], "table": []}
    for seed in range(args.seed, args.seed + args.repeats):
        rate = {}
        for name, loop in LOOPS.items():
            count, elapsed = loop(args.seconds, seed)
            rate[name] = count / elapsed
            rates[name].append(rate[name])
        for name in ratios:
            ratios[name].append(rate[name] / rate["env"])
    engine, table, env = (median(rates[name]) for name in LOOPS)
    print(f"engine: {engine:9,.0f} decisions/s  ({1e6 / engine:6.1f} us each)")
    print(f"table : {table:9,.0f} decisions/s  ({1e6 / table:6.1f} us each)")
    print(f"env   : {env:9,.0f} steps/s      ({1e6 / env:6.1f} us each)")
    print(
        f"an env step costs {median(ratios['engine']):.1f}x an engine decision and "
        f"{median(ratios['table']):.2f}x a table decision (medians of the repeats' ratios)"
    )


def median(values: Sequence[float]) -> float:
    return sorted(values)[len(values) // 2]


if __name__ == "__main__":
    main()
