"""The PettingZoo environment's speed: steps per second with random legal actions, next to
the engine's decisions per second, the table's, and the floor of any PettingZoo AEC
environment, all measured in the same run; and where a step's time goes.

Run by hand: ``uv run python bench/env.py [--seconds S] [--repeats N]``. Results are
recorded in ``bench/RESULTS.md`` under ``## env``. Time is this process's CPU time, and
each repeat runs every loop one after the other, so that a machine busy with other work
shifts them alike; the ratios are taken within each repeat. Each loop chooses uniformly
at random among the legal options:

- engine: ``GameState`` alone (``legal_actions`` and ``advance``), every decision
  counted, forced ones included (as ``bench/engine.py``);
- table: four in-process random bots at the ``Table`` (``selfplay.play_game``, what
  ``pitch simulate`` runs), counting the decisions the bots are asked;
- floor: ``MinimalAEC``, a PettingZoo AEC environment with the same spaces and a game
  that costs nothing, so only what every AEC environment pays per step: the iterator,
  ``last()``, the bookkeeping dictionaries, a fresh observation and mask;
- env: ``PitchEnv`` with four agents.

The floor and the env run the same loop: ``last()`` then ``step()`` with a random legal
id from the mask (``np.flatnonzero``), counting steps (dead steps at the end excluded).

Where the time goes: the env loop again, with one more part of the step taken out each
time (``STRIPPED``), the same games (the same random choices from the same legal ids),
so that each difference is what that part costs in place, caches and all: the
observation (the caller picks from the legal ids), then the seat's ``PlayerView`` (the
table hands over the seat and its legal actions only), then the checked apply with its
undo snapshot and the record entry (``advance`` only), then the events told to the
seats. What is left is the floor, the engine's own decisions, and the rest of the
table's loop and of the environment. The parts are taken out by patching this process
only, for the loop's duration: those games are not games anyone should play.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar
from unittest import mock

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from pitch_sdk.actions import Action
from pitch_sdk.bot import Bot
from pitch_sdk.cards import Seat
from pitch_sdk.deck import deck_for
from pitch_sdk.env import ACTION_COUNT, OBSERVATION_SIZE, PitchEnv
from pitch_sdk.record import GameRecorder
from pitch_sdk.rules import CHANCE, GameState
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import Table
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


class MinimalAEC(AECEnv):
    """The floor: a PettingZoo AEC environment that does nothing but what the API asks.

    Four agents in turn, the spaces of ``PitchEnv`` (an observation of
    ``OBSERVATION_SIZE`` floats and a mask of ``ACTION_COUNT`` ids), a game whose rule is
    a counter: 2 to 6 legal ids a turn, ``GAME_STEPS`` steps, then +1 for seats 0 and 2
    and -1 for the others. Each observation is a fresh pair of arrays, as an environment
    must give (a caller may keep them); nothing else is computed. It passes PettingZoo's
    ``api_test`` (``sdk/tests/test_env.py``), so it is an environment, not a stub.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "minimal_v0",
        "render_modes": [],
        "is_parallelizable": False,
    }
    GAME_STEPS = 1500
    """About a random game of ``PitchEnv``'s steps, so resets weigh the same."""

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = [f"seat_{seat}" for seat in range(4)]
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(ACTION_COUNT)
        self._turn = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self._turn = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        if agent == self.agent_selection and not self.terminations[agent]:
            first = self._turn % 7
            mask[first : first + 2 + self._turn % 5] = 1
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._turn += 1
        if self._turn == self.GAME_STEPS:
            self._finish()
        self.agent_selection = self.possible_agents[self._turn & 3]

    def _finish(self) -> None:
        for agent in self.agents:
            self.terminations[agent] = True
            self.rewards[agent] = 1.0 if agent in ("seat_0", "seat_2") else -1.0
        self._accumulate_rewards()


def aec_steps(make: Callable[[], AECEnv], seconds: float, seed: int) -> tuple[int, float]:
    """Random games in an AEC environment, the caller's loop: (steps, elapsed)."""
    rng = random.Random(seed)
    env = make()
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


def floor_steps(seconds: float, seed: int) -> tuple[int, float]:
    """The floor: ``MinimalAEC``'s steps."""
    return aec_steps(MinimalAEC, seconds, seed)


def env_steps(seconds: float, seed: int) -> tuple[int, float]:
    """``PitchEnv``'s steps, four agents."""
    return aec_steps(PitchEnv, seconds, seed)


def decisions_per_step(games: int, seed: int) -> float:
    """Engine decisions (forced ones included) per ``PitchEnv`` step, random ids: the
    engine work a step cannot avoid, whatever the wrapper."""
    rng = random.Random(seed)
    env = PitchEnv()
    steps = decisions = 0
    for game in range(games):
        env.reset(seed=seed * 1_000_003 + game)
        for _agent in env.agent_iter():
            observation, _reward, terminated, _truncated, _info = env.last()
            if terminated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        decisions += sum(len(hand.decisions) for hand in env.record().hands)
    return decisions / steps


def _floor_observation(env: PitchEnv, agent: str) -> dict[str, np.ndarray]:
    """What the floor observes: fresh arrays, nothing in them but the legal ids."""
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    steps = env._steps  # a benchmark's look inside
    if steps is not None and agent == env.agent_selection:
        mask[steps.legal_ids] = 1
    return {"observation": np.zeros(OBSERVATION_SIZE, dtype=np.float32), "action_mask": mask}


class _SeatOnly:
    """A stand-in for a ``PlayerView``: the seat and its legal actions, all the
    environment reads from a view when it does not observe."""

    __slots__ = ("legal_actions", "seat")

    def __init__(self, seat: Seat, legal_actions: tuple[Action, ...]) -> None:
        self.seat = seat
        self.legal_actions = legal_actions


def _seat_only(state: GameState, seat: Seat) -> _SeatOnly:
    return _SeatOnly(seat, state.legal_actions() if state.to_move == seat else ())


def _advance_only(recorder: GameRecorder, action: Action, *, ms: float | None = None) -> None:
    recorder.state.advance(action)


def _tell_nobody(table: Table, event: object, ms: float | None = None) -> None:
    pass


STRIPPED: tuple[tuple[str, tuple[type, str, Callable]], ...] = (
    ("the observation and mask", (PitchEnv, "observe", _floor_observation)),
    ("the seat's PlayerView", (GameState, "view", _seat_only)),
    (
        "the checked apply, its undo snapshot, the record entry",
        (GameRecorder, "decide", _advance_only),
    ),
    ("the events told to the four seats", (Table, "_tell_everyone", _tell_nobody)),
)
"""The parts of a step taken out one after the other: (what it is, the patch)."""


@contextlib.contextmanager
def _without(parts: int) -> Iterator[None]:
    """The first ``parts`` of ``STRIPPED`` taken out of this process, for the block."""
    with contextlib.ExitStack() as stack:
        for _part, patch in STRIPPED[:parts]:
            stack.enter_context(mock.patch.object(*patch))
        yield


def stripped_steps(parts: int) -> Callable[[float, int], tuple[int, float]]:
    """The env loop with the first ``parts`` of ``STRIPPED`` taken out."""

    def loop(seconds: float, seed: int) -> tuple[int, float]:
        with _without(parts):
            return aec_steps(PitchEnv, seconds, seed)

    return loop


LOOPS: dict[str, Callable[[float, int], tuple[int, float]]] = {
    "engine": engine_decisions,
    "table": table_decisions,
    "floor": floor_steps,
    "env": env_steps,
}
LOOPS.update({f"stripped {parts}": stripped_steps(parts) for parts in range(1, len(STRIPPED) + 1)})
RATIOS = (("env", "engine"), ("env", "table"), ("env", "floor"), ("floor", "engine"))
"""(a, b): the cost of a step or decision of loop a, in decisions or steps of loop b."""


def measure(seconds: float, seeds: range) -> dict[str, list[float]]:
    """Each loop's rate in each repeat."""
    rates: dict[str, list[float]] = {name: [] for name in LOOPS}
    for seed in seeds:
        for name, loop in LOOPS.items():
            count, elapsed = loop(seconds, seed)
            rates[name].append(count / elapsed)
    return rates


def in_engine_decisions(rates: dict[str, list[float]]) -> dict[str, list[float]]:
    """Each loop's step (or decision) in bare engine decisions, repeat by repeat: ratios
    taken within each repeat, so that a busy machine slows both sides alike."""
    return {
        name: [engine / rate for engine, rate in zip(rates["engine"], loop, strict=True)]
        for name, loop in rates.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per loop")
    parser.add_argument("--repeats", type=int, default=5, help="the medians are shown")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rates = measure(args.seconds, range(args.seed, args.seed + args.repeats))
    units = {"engine": "decisions/s", "table": "decisions/s", "floor": "steps/s", "env": "steps/s"}
    for name, unit in units.items():
        rate = median(rates[name])
        print(f"{name:6}: {rate:9,.0f} {unit:12} ({1e6 / rate:6.1f} us each)")
    print("ratios within each repeat (median, then each repeat):")
    for slow, fast in RATIOS:
        ratios = [a / b for a, b in zip(rates[fast], rates[slow], strict=True)]
        each = " ".join(f"{ratio:.2f}" for ratio in ratios)
        print(f"  {slow} / {fast}: {median(ratios):5.2f}x  ({each})")
    cost = in_engine_decisions(rates)
    decisions = decisions_per_step(20, args.seed)
    print(
        f"a step plays {decisions:.2f} engine decisions (forced ones included): no AEC "
        f"environment on this engine can cost under {decisions + median(cost['floor']):.2f}x "
        "an engine decision (those decisions plus the floor)"
    )
    show_parts(cost, decisions, 1e6 / median(rates["engine"]))


def show_parts(cost: dict[str, list[float]], decisions: float, engine_us: float) -> None:
    """Where a step's time goes: each part costs the difference it makes taken out,
    within each repeat (the medians of the repeats, in engine decisions and in us)."""
    chain = ["env", *(f"stripped {parts}" for parts in range(1, len(STRIPPED) + 1))]
    rows: dict[str, list[float]] = {}
    for at, (part, _patch) in enumerate(STRIPPED):
        rows[part] = [a - b for a, b in zip(cost[chain[at]], cost[chain[at + 1]], strict=True)]
    rows["the floor (MinimalAEC's step)"] = cost["floor"]
    rows[f"the engine: {decisions:.2f} decisions at the bare engine's cost"] = [decisions]
    rows["the rest: the table's loop and deals, Turn, coroutine, DecisionSteps"] = [
        stripped - floor - decisions
        for stripped, floor in zip(cost[chain[-1]], cost["floor"], strict=True)
    ]
    rows["total: an env step"] = cost["env"]
    print("where an env step's time goes (in engine decisions, median of the repeats; in us):")
    for part, costs in rows.items():
        print(f"  {part:68} {median(costs):5.2f}  {median(costs) * engine_us:6.1f}")


def median(values: Sequence[float]) -> float:
    """The middle value (the upper one of an even count)."""
    return sorted(values)[len(values) // 2]


if __name__ == "__main__":
    main()
