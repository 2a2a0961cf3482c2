"""The search: perfect-information Monte Carlo over sampled deals, inside a time budget.

One decision is searched like this:

1. sample a full state consistent with what the seat knows (``determinize``);
2. on a ``copy()`` of that one sample, play each candidate action, then play the hand
   out with the rollout policy (``rollout.play_out_hand``), and score the result for
   the seat's team (``hand_value``);
3. repeat with fresh samples until the time is spent, and pick the action with the best
   average.

Every candidate is tried on the same samples ("common random numbers"): the difference
between two actions then comes from the actions, not from one of them being luckier with
its deals, so fewer samples tell them apart.

Time. The referee keeps the clock from the moment it sends the request, so the search
stops well before the decision's limit (``SPEND`` of it, less ``MARGIN_MS`` for the
process, gRPC and the final answer) and never counts on the reserve: a bot that never
overruns keeps its reserve for the unexpected (a slow machine, a garbage collection).
The clock is read after every sample, whose playouts (one per candidate) take a few
milliseconds at most.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ...actions import Action
from ...cards import team_of
from ...determinize import determinize
from ...rules import GameState
from ...table import TimeBudget
from ...tally import Tally
from ...views import PlayerView
from .rollout import play_out_hand

SPEND = 0.25
"""Fraction of the per-decision limit a search may use. A game asks each seat about 50
questions; at the default 1 s limit a quarter keeps a game of two search bots to seconds
of CPU (7.5 s measured, many searches end on ``MAX_WORLDS``), so that a 200-game match
takes minutes, not hours, and leaves most of the limit as a safety margin."""
MARGIN_MS = 30
"""Kept back from the spend for starting up, sending the answer and a slow clock tick."""
MIN_WORLDS = 4
"""Samples taken even when the clock says stop: an answer from fewer is a guess (a few
samples cost a few milliseconds, inside the margin)."""
MAX_WORLDS = 400
"""Enough samples: past this the averages move less than the sampling noise between
close actions, so the rest of the time is not worth spending."""
WIN_BONUS = 20.0
"""What ending the game as the winner (or loser) is worth, in hand points: near the
target, a hand that wins the game matters more than its points."""


ChoiceT = TypeVar("ChoiceT", bound=Action)
"""The kind of action searched (``Bid``, ``Play``...): the result is one of the candidates."""


@dataclass
class SearchResult(Generic[ChoiceT]):
    """What a search found: the chosen action, and the figures behind it (for logs)."""

    action: ChoiceT
    """The action chosen: the best mean over the samples."""
    means: dict[ChoiceT, float]
    """Average value of each candidate over the samples."""
    worlds: int
    """Samples taken."""
    playouts: int
    """Hands played out: ``worlds`` times the number of candidates."""


def deadline_of(budget: TimeBudget, started: float) -> float:
    """The ``perf_counter`` time at which the search must stop."""
    spend_ms = max(0.0, budget.limit_ms * SPEND - MARGIN_MS)
    return started + spend_ms / 1000


def hand_value(before: GameState, after: GameState, team: int) -> float:
    """How good the hand that led from ``before`` to ``after`` was for ``team``: its
    score gain minus the other team's (a set bid counts as its loss), plus the game."""
    gain = after.scores[team] - before.scores[team]
    lost = after.scores[1 - team] - before.scores[1 - team]
    value = float(gain - lost)
    outcome = after.outcome
    if outcome is not None and outcome.winner is not None:
        value += WIN_BONUS if outcome.winner == team else -WIN_BONUS
    return value


def search(
    view: PlayerView,
    candidates: Sequence[ChoiceT],
    rng: random.Random,
    deadline: float,
    *,
    max_worlds: int = MAX_WORLDS,
    settle: bool = False,
) -> SearchResult[ChoiceT]:
    """Pick the candidate with the best average hand value over sampled deals.

    Args:
        view: what the seat knows now; it is the seat's turn.
        candidates: the actions to compare (legal ones, at least one).
        rng: the bot's seeded generator: samples come from it, so a game replays.
        deadline: the ``time.perf_counter()`` value to stop at.
        max_worlds: the most samples to take.
        settle: stop as soon as the best candidate's lead is settled
            (``Tally.settled``: sequential sampling), not only at the deadline.

    Returns:
        The best candidate (ties: the first listed) and the figures behind it.
    """
    team = team_of(view.seat)
    tally = Tally(len(candidates), paired=settle)
    while tally.samples < max_worlds:
        if tally.samples >= MIN_WORLDS and time.perf_counter() >= deadline:
            break
        if settle and tally.settled():
            break
        world = determinize(view, rng)
        values = []
        for action in candidates:
            state = world.copy()
            state.advance(action)
            play_out_hand(state)
            values.append(hand_value(world, state, team))
        tally.add(values)
    means = dict(zip(candidates, tally.means(), strict=True))
    worlds = tally.samples
    return SearchResult(candidates[tally.best()], means, worlds, worlds * len(candidates))
