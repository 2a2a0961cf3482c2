"""The search: sampled deals, each solved double-dummy, inside a time budget.

One decision is searched like this:

1. sample a full state consistent with what the seat knows (``determinize``), as the
   Monte Carlo bot does;
2. on a ``copy()`` of that one sample, play each candidate action; if the hand is not yet
   in its play (a bid, a trump, a discard, a pick-up, a look through the stock), take it
   there with the Monte Carlo bot's rollout policy (``to_the_play``); then solve the rest
   of the hand with every card seen (``pitch_sdk.analysis.Solver``); a card decision
   values every legal card from one search (``Solver.card_outcomes``);
3. score each candidate by what the solved hand is worth to the seat's team (``value``,
   the Monte Carlo bot's measure: our score change minus theirs, plus or minus a bonus
   when the hand ends the game), and repeat with fresh samples until the time is spent.

The candidates share their samples (common random numbers), as in the Monte Carlo bot.
Within one sample, candidates that lead to the same first lead (several bids after which
the same seat names the same trumps, so the play is the same) are solved once: a solve
does not depend on the bid, only its scoring does.

Time. The spend is the Monte Carlo bot's (``deadline_of``: a quarter of the limit less a
margin), so that the two compare at the same time per decision; a card may also borrow
what earlier decisions left unspent (``bank.py``) to reach ``enough`` samples. A sample's
solves cost from microseconds (late in a hand) to tens of milliseconds (a first lead
with many trumps out), so the clock is read after every sample, and a search takes
``MIN_WORLDS`` samples whatever the clock says. A search whose first sample shows that
``ENOUGH_WORLDS`` samples would not fit gives up (``None``): the bot then searches with
the Monte Carlo bot's rollouts. A search stops early once its best candidate's lead over
every other is several standard errors of their paired difference (``Tally.settled``):
the time a clear choice does not need is saved for the ones that need it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic

from ...actions import Action, Play
from ...analysis import Solver
from ...cards import Card, team_of
from ...determinize import determinize
from ...progress import PLAYING
from ...rules import CHANCE, TERMINAL, GameState, hand_gains
from ...tally import Tally
from ...views import PlayerView
from ..montecarlo.rollout import choose
from ..montecarlo.search import WIN_BONUS, ChoiceT, hand_value

MIN_WORLDS = 2
"""Samples taken even when the clock says stop: with fewer, one deal decides."""
MAX_WORLDS = 200
"""Enough samples: the decision replays exactly when this cap, not the clock, ends it."""
ENOUGH_WORLDS = 32
"""The fewest samples a solved search must have time for, judged by its pace.
Fewer would let a handful of deals decide (solved bids on 2 to 16 samples overbid: half
of them set, docs/ddbot.md); the bot plays the hand out by rollouts instead."""
GIVE_UP_BEFORE = 0.5
"""A search short of ``enough`` samples whose pace says they would not fit gives up while
less than this share of its time is spent (the rest goes to the rollouts); past it, it
goes on with the samples it can get."""
ENOUGH_PLAY_WORLDS = 16
"""The same for a card: cards played on 16 solved samples beat cards played on 40
rolled-out ones by some +200 Elo (bench/ddbot.py, bench/RESULTS.md)."""


@dataclass
class SearchResult(Generic[ChoiceT]):
    """What a search found: the chosen action, and the figures behind it (for logs)."""

    action: ChoiceT
    """The action chosen: the best mean over the samples (ties: the first listed)."""
    means: dict[ChoiceT, float]
    """Average value of each candidate over the samples."""
    worlds: int
    """Samples taken."""
    solves: int
    """Hands solved double-dummy (fewer than samples times candidates when candidates
    shared a first lead, or a candidate ended the hand)."""


def to_the_play(state: GameState) -> None:
    """Take ``state`` (changed in place) to the next card play of its hand, or to the
    hand's end, with the rollout policy deciding for every seat."""
    while state.phase is not PLAYING and state.to_move not in (CHANCE, TERMINAL):
        state.advance(choose(state, state.to_move))


def value(state: GameState, taken: tuple[int, int], team: int) -> float:
    """What the hand of ``state`` is worth to ``team`` if the teams end it with ``taken``
    points: its score change minus the other team's, plus or minus ``WIN_BONUS`` when
    the hand ends the game (the rules' scoring and end of game, RULES.md).

    ``state`` is in the hand's play; the hand cap (a game stopped after 200 hands) is
    not counted.
    """
    bidding = team_of(state.bidder)
    gains, _ = hand_gains(bidding, state.bid, taken, state.options.scoring)
    result = float(gains[team] - gains[1 - team])
    scores = (state.scores[0] + gains[0], state.scores[1] + gains[1])
    winner = _winner(state, taken, scores, bidding)
    if winner is not None:
        result += WIN_BONUS if winner == team else -WIN_BONUS
    return result


def _winner(
    state: GameState, taken: tuple[int, int], scores: tuple[int, int], bidding: int
) -> int | None:
    """The team that wins the game at the hand's end, if the hand ends it."""
    if state.bid == 13 and taken[bidding] == 13:
        return bidding  # shooting the moon
    over = [score >= state.options.target for score in scores]
    if over[0] and over[1]:
        return bidding  # the bidder goes out first
    if over[0] or over[1]:
        return 0 if over[0] else 1
    return None


class _Sample:
    """One sampled deal: each candidate's value, solving each first lead once."""

    def __init__(self, world: GameState, team: int, solver: Solver) -> None:
        self.world = world
        self.team = team
        self.solver = solver
        self.solved: dict[tuple[object, ...], tuple[int, int]] = {}
        """Each team's points from a position of the play, by the position's cards."""
        self.card_taken: dict[Card, tuple[int, int]] | None = None
        """When the decision is a card: each team's points after each legal card."""

    def value_of(self, action: Action) -> float:
        """The candidate played on this sample, the hand taken to its play and solved."""
        if isinstance(action, Play):  # every card at once, from one search
            if self.card_taken is None:
                outcomes = self.solver.card_outcomes(self.world)
                self.card_taken = {card: outcome.taken for card, outcome in outcomes.items()}
            return value(self.world, self.card_taken[action.card], self.team)
        state = self.world.copy()
        state.advance(action)
        to_the_play(state)
        if state.phase is not PLAYING:  # the hand is over (or a team had no trump)
            return hand_value(self.world, state, self.team)
        key = (
            tuple(state.hands), state.trump, state.to_move, state.queue,
            state.trick, state.taken, state.jokers_played,
        )  # fmt: skip
        taken = self.solved.get(key)
        if taken is None:
            taken = self.solved[key] = self.solver.solve(state).taken
        return value(state, taken, self.team)

    @property
    def solves(self) -> int:
        """Searches run on this sample: one for all the cards, one per first lead else."""
        return len(self.solved) + (self.card_taken is not None)


def search(
    view: PlayerView,
    candidates: Sequence[ChoiceT],
    rng: random.Random,
    deadline: float,
    *,
    extended: float | None = None,
    max_worlds: int = MAX_WORLDS,
    enough: int = ENOUGH_WORLDS,
) -> SearchResult[ChoiceT] | None:
    """Pick the candidate with the best average double-dummy value over sampled deals,
    or ``None`` as soon as the pace shows that ``enough`` samples (or ``max_worlds``, if
    fewer) would not fit before the last deadline: the first sample is given its share
    of the time, checked after each candidate's solve, and each later one short of
    ``enough`` is checked the same way while less than ``GIVE_UP_BEFORE`` of the time is
    spent (solved bids on a handful of samples are noise: docs/ddbot.md).

    Sampling stops at ``deadline``, or, with fewer than ``enough`` samples by then, at
    ``extended`` (time lent by the bot's bank) or on reaching ``enough``; and as soon as
    the best candidate's lead is settled (``Tally.settled``: sequential sampling).

    Args:
        view: what the seat knows now; it is the seat's turn.
        candidates: the actions to compare (legal ones, at least one).
        rng: the bot's seeded generator: samples come from it, so a game replays.
        deadline: the ``time.perf_counter()`` value to stop at.
        extended: the latest value to go on to while fewer than ``enough`` samples are
            taken (``None``: ``deadline``).
        max_worlds: the most samples to take.
        enough: the fewest samples worth averaging.

    Returns:
        The best candidate (ties: the first listed) and the figures behind it; ``None``
        if too few samples fit.
    """
    started = time.perf_counter()
    last = deadline if extended is None else max(deadline, extended)
    window = last - started
    needed = min(enough, max_worlds)
    first_by = started + window / needed
    team = team_of(view.seat)
    tally = Tally(len(candidates))
    solves = 0
    while tally.samples < max_worlds:
        worlds = tally.samples
        if worlds >= MIN_WORLDS:
            now = time.perf_counter()
            if now >= last or (now >= deadline and worlds >= enough) or tally.settled():
                break
        # one solver a sample: its candidates share its tables; another sample's deal
        # would hardly ever meet the same four hands (bench/RESULTS.md, "ddbot")
        sample = _Sample(determinize(view, rng), team, Solver())
        values = []
        for action in candidates:
            values.append(sample.value_of(action))
            if not worlds and time.perf_counter() > first_by:
                return None
        tally.add(values)
        solves += sample.solves
        if tally.samples < needed:
            elapsed = time.perf_counter() - started
            if elapsed * needed > window * tally.samples and elapsed < window * GIVE_UP_BEFORE:
                return None  # at this pace the samples needed would not fit
    means = dict(zip(candidates, tally.means(), strict=True))
    return SearchResult(candidates[tally.best()], means, tally.samples, solves)
