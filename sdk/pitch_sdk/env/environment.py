"""``PitchEnv``: 13-point partner pitch as a PettingZoo AEC environment.

The game is played at the SDK's own ``Table``, the driver of every match: it deals from
the seed, applies forced decisions without asking, and keeps the record. The
environment's seats are players whose ``decide`` waits for ``step()``: ``Table.play()``
is a coroutine, so the environment runs it until a seat waits, and resumes it with the
seat's action. Seats given to ``bots`` are SDK bots that the table asks itself.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Generator, Mapping
from typing import Any, ClassVar, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..bot import Bot
from ..cards import SEATS, Seat, team_of
from ..gamerecord import GameRecord
from ..options import RuleOptions
from ..selfplay import BotPlayer
from ..table import Answer, GameStart, Player, SeatEvent, Table, Turn
from ..views import PlayerView
from .actions import ACTION_COUNT, DecisionSteps
from .observation import HIGH, LOW, OBSERVATION_SIZE, encode

Reward = Literal["hand", "game"]
"""When rewards are given: as each hand is scored, or once at the game's end."""


def agent_name(seat: Seat) -> str:
    """The agent that plays ``seat``: ``seat_0`` ... ``seat_3``."""
    return f"seat_{seat}"


def seat_of(agent: str) -> Seat:
    """The seat an agent plays."""
    return int(agent.removeprefix("seat_"))


_AGENTS = tuple(agent_name(seat) for seat in SEATS)
_SEAT_OF = {agent: seat for seat, agent in enumerate(_AGENTS)}
"""The two above as look-ups, for every step."""


class _StepWait:
    """What the table awaits from an environment seat: its coroutine hands ``turn`` out to
    the environment and gets back the answer with the action ``step()`` finished."""

    __slots__ = ("turn",)

    def __init__(self, turn: Turn) -> None:
        self.turn = turn

    def __await__(self) -> Generator[Turn, Any, Answer]:
        return Answer((yield self.turn), None)


class _AgentSeat:
    """A seat played by the environment's agent."""

    def __init__(self, seat: Seat) -> None:
        self.name = agent_name(seat)
        self.version = "env"

    def start(self, game: GameStart) -> None:
        """Nothing to do: the agent reads everything from its observations."""

    def decide(self, turn: Turn) -> Awaitable[Answer]:
        """The awaitable itself rather than a coroutine awaiting it: one frame fewer
        for every step to pass through."""
        return _StepWait(turn)

    def observe(self, event: SeatEvent) -> None:
        """Nothing to do: the observation is built from the view when asked."""

    def end(self, view: PlayerView) -> None:
        """Nothing to do: the end is the agents' termination."""


class PitchEnv(AECEnv):
    """Four seats, partners opposite; each agent is a seat (``seat_0`` ... ``seat_3``).

    Args:
        bots: seats played by SDK bots in this process (say ``{1: GreedyBot(), 3:
            GreedyBot()}``); the other seats are the agents.
        reward: ``"hand"`` (default): when a hand is scored, each seat gets its team's
            score change minus the other team's, in points. ``"game"``: at the end, +1
            for the winning team's seats, -1 for the losers, 0 for a draw.
        rules: the rule options (the standard rules by default).
        render_mode: ``"ansi"`` for ``render()`` to return the position as text.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pitch_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }
    """PettingZoo's description of the environment: its name and render modes."""

    def __init__(
        self,
        *,
        bots: Mapping[Seat, Bot] | None = None,
        reward: Reward = "hand",
        rules: RuleOptions | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in ("hand", "game"):
            raise ValueError(f"reward={reward!r}: expected 'hand' or 'game'")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: expected None or 'ansi'")
        self.bots = dict(bots or {})
        """The seats played by SDK bots, by seat."""
        if set(self.bots) - set(SEATS):
            raise ValueError(f"bots in seats {sorted(self.bots)}: the seats are 0-3")
        self.reward = reward
        """When rewards are given."""
        self.rules = rules or RuleOptions()
        """The rules of every game."""
        self.render_mode = render_mode
        """``"ansi"`` or ``None``."""
        self.possible_agents = [agent_name(seat) for seat in SEATS if seat not in self.bots]
        """The agents: the seats not given to bots."""
        if not self.possible_agents:
            raise ValueError("every seat is a bot: leave at least one seat to an agent")
        observation = spaces.Dict(
            {
                "observation": spaces.Box(LOW, HIGH, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        action = spaces.Discrete(ACTION_COUNT)
        self._observation_spaces = {agent: observation for agent in self.possible_agents}
        self._action_spaces = {agent: action for agent in self.possible_agents}
        self._seeds = random.Random()
        self._table: Table | None = None
        self._game: Any = None
        self._turn: Turn | None = None
        self._steps: DecisionSteps | None = None
        self._scored = 0
        self._rewarded = False
        """Whether ``rewards`` may hold anything but zeros (most steps score nothing, and
        then PettingZoo's clearing and accumulating would add zeros)."""
        self._observations: dict[str, dict[str, np.ndarray]] = {}
        """Each agent's observation since the last step, built when first asked."""
        self.game_seed: int | None = None
        """The seed of the game being played: the table's seed, as ``pitch simulate``'s."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """A dict of ``observation`` (``OBSERVATION_SIZE`` floats) and ``action_mask``."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(ACTION_COUNT)``: every decision's ids (``pitch_sdk.env.describe``)."""
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game. ``reset(seed=s)`` plays the game of seed ``s`` (the deals of
        ``pitch simulate --seed s``); later resets without a seed follow on from it.
        ``options`` is part of PettingZoo's signature; the environment has none."""
        if seed is not None:
            self._seeds = random.Random(seed)
            self.game_seed = seed
        else:
            self.game_seed = self._seeds.getrandbits(63)
        self.close()
        players: list[Player] = [
            BotPlayer(self.bots[seat]) if seat in self.bots else _AgentSeat(seat) for seat in SEATS
        ]
        self._table = Table(
            players,
            seed=self.game_seed,
            options=self.rules,
            game_id=f"env-{self.game_seed}",
            bot_seeds=[f"{self.game_seed}:{seat}" for seat in SEATS],
        )
        self._game = self._table.play()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._scored = 0
        self._rewarded = False
        self._observations.clear()
        self._resume(None)

    def step(self, action: int | None) -> None:
        """Take ``action`` (an id the mask allows) for ``agent_selection``; ``None`` for
        an agent whose game is over.

        Raises:
            IllegalIdError: the mask does not allow ``action`` now.
        """
        agent = self.agent_selection
        self._observations.clear()
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            self._rewarded = False
            return
        assert self._steps is not None, "step() before reset()"
        finished = self._steps.take(int(action))  # type: ignore[arg-type]
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        if finished is not None:
            self._resume(finished)
        if self._rewarded:
            self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The seat's view as numbers, and the ids it may take now (none if not its turn).

        Built when first asked after a step, then the same arrays until the next step:
        ``last()`` and ``observe()`` in one turn cost one observation."""
        observation = self._observations.get(agent)
        if observation is None:
            observation = self._observations[agent] = self._observation(_SEAT_OF[agent])
        return observation

    def _observation(self, seat: Seat) -> dict[str, np.ndarray]:
        turn, steps = self._turn, self._steps
        if turn is not None and steps is not None and turn.view.seat == seat:
            return {"observation": encode(turn.view, steps.chosen), "action_mask": steps.mask()}
        assert self._table is not None, "observe() before reset()"
        return {
            "observation": encode(self._table.state.view(seat)),
            "action_mask": np.zeros(ACTION_COUNT, dtype=np.int8),
        }

    def render(self) -> str | None:
        """The whole position as text (``render_mode="ansi"``): for people, not agents."""
        if self.render_mode != "ansi" or self._table is None:
            return None
        return repr(self._table.state)

    def close(self) -> None:
        """Stop a game in progress (its coroutine is closed, nothing is left waiting)."""
        if self._game is not None:
            self._game.close()
            self._game = None

    def record(self) -> GameRecord:
        """The game's record so far: replay it, view it, write it (``pitch_sdk.record``)."""
        assert self._table is not None, "record() before reset()"
        return self._table.recorder.record()

    def _resume(self, action: Any) -> None:
        """Run the table until an agent must decide, or the game ends; score the hands
        finished on the way."""
        try:
            turn = self._game.send(action)
        except StopIteration:
            self._game = self._turn = self._steps = None
            self._score()
            self._finish()
            return
        steps = DecisionSteps(turn.view.legal_actions)
        assert steps.action is None, "the table asks only decisions with two answers or more"
        self._turn, self._steps = turn, steps
        self.agent_selection = _AGENTS[turn.view.seat]
        self._score()

    def _score(self) -> None:
        assert self._table is not None
        results = self._table.state.hand_results
        if self.reward != "hand" or len(results) == self._scored:
            return
        before = results[self._scored - 1].scores if self._scored else (0, 0)
        after = results[-1].scores
        self._scored = len(results)
        gain = (after[0] - before[0]) - (after[1] - before[1])
        for agent in self.agents:
            self.rewards[agent] += gain if team_of(_SEAT_OF[agent]) == 0 else -gain
        self._rewarded = True

    def _finish(self) -> None:
        assert self._table is not None
        outcome = self._table.state.outcome
        assert outcome is not None
        for agent in self.agents:
            self.terminations[agent] = True
            if self.reward == "game" and outcome.winner is not None:
                self.rewards[agent] += 1.0 if team_of(_SEAT_OF[agent]) == outcome.winner else -1.0
                self._rewarded = True
        if self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]
