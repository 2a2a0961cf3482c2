"""The expected points of each legal choice of a decision made without seeing the other
hands: the bids, the trumps, the discards, the pick-ups and the look through the stock.

A seat decides these with its own cards seen and the others' hidden, so no single deal
says what a choice was worth. Each choice is valued on sampled deals instead:

1. **Sample.** ``determinize`` deals the cards the seat cannot see, consistently with
   everything its view holds, ``samples`` times (the sampler the Monte Carlo bot uses).
2. **Choose.** Every legal choice is applied to a copy of every sample: all the choices
   see the same samples (common random numbers), so their differences have a small error.
3. **Decide the rest.** The decisions still to come before the first lead (the later
   bids, the trumps, discards, pick-ups and the look, the mover's own included) are the
   greedy reference bot's (``pitch_sdk.bots.GreedyBot``), a fixed, documented policy;
   a decision with one legal option is taken as the table takes it.
4. **Solve.** The play is solved double-dummy (``solve``): every seat plays its best with
   every card seen.

**The value** of a choice on a sample is the mover's team's *hand score*, what the hand
adds to its game score: the points it takes, except that a bidding team that is set
loses its bid instead (``HandOutcome.bidding_score``), and a made bid counts only the bid
under ``scoring: bid``. A hand that ends before its first lead (a team holds no trump)
is scored as the engine scores it. The choice's value is the mean over the samples; its
``error`` is the standard error of the difference between the best choice and it, paired
sample by sample (0 for the best itself).

What the estimate leaves out, so read it with care: the play is double-dummy, better
informed than any real play; the bids that were made are not used to weigh the samples
(``determinize`` does not); the later decisions are the greedy bot's, not the table's
bots'. The best choice is picked on the same samples it is measured on, so when choices
are close a cost is slightly more often above 0 than it should be.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..actions import Decision
from ..bots import GreedyBot
from ..cards import TRUMPS, Seat, Team, team_of
from ..determinize import determinize
from ..gamerecord import GameRecord
from ..progress import PLAYING
from ..replay import Dealt, Replayed, Step, replayed
from ..rules import GameState
from ..tally import Tally
from ..views import PlayerView
from .outcome import HandOutcome
from .solver import solve

Position = tuple[object, ...]
"""A first lead's position (``GameState.key``), as the key of the solves of one sample."""

DEFAULT_SAMPLES = 32
"""Sampled deals per decision: about half a second of CPU for a decision (bench/RESULTS.md,
"decision values"), and a standard error of a point or two on the differences between
choices."""


@dataclass(frozen=True)
class ChoiceValue:
    """One legal choice and the points it is expected to bring the mover's team.

    Attributes:
        action: the action as records write it (``bid 5``, ``trump H``, ``take 3H``...).
        value: the mean of the mover's team's hand score over the samples.
        error: the standard error of the best choice's value minus this one's, paired
            over the same samples (0 for the best).
    """

    action: str
    value: float
    error: float

    def to_json(self) -> dict[str, Any]:
        """The fields as plain JSON values."""
        return {"action": self.action, "value": self.value, "error": self.error}


@dataclass(frozen=True)
class DecisionValue:
    """A decision of a recorded game, each of its legal choices valued on sampled deals.

    Attributes:
        hand: the hand's number, from 1.
        index: the decision's 0-based position in the hand's record.
        step: the viewer's 0-based step of the decision (deals and faults are steps too).
        seat: the seat that decided.
        kind: ``bid``, ``trump``, ``discard``, ``pickup`` or ``stock``.
        chosen: the action taken.
        best: the choice with the highest value (the one taken when it ties).
        value: the mover's team's expected hand score with the best choice.
        cost: the points the chosen action loses against the best, ``>= 0``.
        error: the standard error of ``cost``.
        samples: the sampled deals every choice was valued on.
        choices: every legal choice, in the engine's order.
    """

    hand: int
    index: int
    step: int
    seat: Seat
    kind: str
    chosen: str
    best: str
    value: float
    cost: float
    error: float
    samples: int
    choices: tuple[ChoiceValue, ...]

    def to_json(self) -> dict[str, Any]:
        """The analysed decision as the viewer and ``pitch analyze --json`` carry it."""
        return {
            "hand": self.hand,
            "index": self.index,
            "step": self.step,
            "seat": self.seat,
            "kind": self.kind,
            "chosen": self.chosen,
            "best": self.best,
            "value": self.value,
            "cost": self.cost,
            "error": self.error,
            "samples": self.samples,
            "choices": [choice.to_json() for choice in self.choices],
        }


def choice_values(
    view: PlayerView, samples: int = DEFAULT_SAMPLES, rng: random.Random | None = None
) -> tuple[ChoiceValue, ...]:
    """Each legal action of ``view.seat`` now, valued on ``samples`` deals sampled from
    ``view`` alone (the module's docstring says how).

    Only the view is read, so nothing the seat could not know enters the estimate. A
    card to play is valued the same way (the rest of the play solved on each sample), as
    a search bot would.

    Args:
        view: the deciding seat's view (``state.view(seat)`` or what a bot was sent).
        samples: the sampled deals, at least 2 (an error needs two).
        rng: the source of the samples; a fresh unseeded one when not given.

    Raises:
        ValueError: it is not the seat's turn, or fewer than 2 samples are asked for.
    """
    if view.decision is None or not view.legal_actions:
        raise ValueError(f"seat {view.seat} has no decision to make now")
    if samples < 2:
        raise ValueError(f"at least 2 samples are needed to state an error, not {samples}")
    rng = rng or random.Random()
    team = team_of(view.seat)
    policy = GreedyBot()
    tally = Tally(len(view.legal_actions))
    for _ in range(samples):
        sample = determinize(view, rng)
        solved: dict[Position, tuple[int, int]] = {}
        values = []
        for action in view.legal_actions:
            state = sample.copy()
            state.advance(action)
            values.append(_hand_score(_play_out(state, policy, solved), team, view))
        tally.add(values)
    top = tally.best()
    return tuple(
        ChoiceValue(str(action), mean, tally.paired_error(top, index))
        for index, (action, mean) in enumerate(zip(view.legal_actions, tally.means(), strict=True))
    )


def decision_values(
    game: GameRecord | Replayed,
    hand: int | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> Iterator[DecisionValue]:
    """Each decision of ``record`` before the play that had a choice (only in ``hand``
    when one is given), its choices valued by ``choice_values``.

    Every decision draws its samples from its own generator, seeded by ``seed``, the
    hand and the decision's index, so a decision gets the same values whether the whole
    game or only its hand is analysed. The record must replay cleanly
    (``pitch_sdk.replay.check`` says whether it does); one already ``replayed`` is not
    replayed again.

    Raises:
        ValueError: fewer than 2 samples are asked for.
    """
    if samples < 2:
        raise ValueError(f"at least 2 samples are needed to state an error, not {samples}")
    game = replayed(game)
    steps = _ViewerSteps(game.record)
    for event in game.steps:
        step = steps.number(event)
        if not isinstance(event, Step) or (hand is not None and event.hand != hand):
            continue
        kind = event.before.decision()
        if kind is None or kind is Decision.PLAY or event.forced:
            continue
        rng = random.Random(f"{seed}/{event.hand}/{event.index}")
        choices = choice_values(event.before.view(event.seat), samples, rng)
        yield _decision(event, step, kind, choices, samples)


def _decision(
    event: Step, step: int, kind: Decision, choices: tuple[ChoiceValue, ...], samples: int
) -> DecisionValue:
    """The decision's record: the chosen action against the best of ``choices``."""
    chosen = next(choice for choice in choices if choice.action == str(event.action))
    best = max(choices, key=lambda choice: choice.value)
    if chosen.value == best.value:
        best = chosen
    return DecisionValue(
        event.hand, event.index, step, event.seat, kind.name.lower(), chosen.action,
        best.action, best.value, best.value - chosen.value, chosen.error, samples, choices,
    )  # fmt: skip


def _play_out(
    state: GameState, policy: GreedyBot, solved: dict[Position, tuple[int, int]]
) -> HandOutcome:
    """The hand's outcome from ``state``: the greedy bot's decisions up to the first lead,
    then the play solved double-dummy (one solve per distinct position in ``solved``)."""
    while (kind := state.decision()) is not None and kind is not Decision.PLAY:
        legal = state.legal_actions()
        if len(legal) == 1:
            state.advance(legal[0])
        else:
            state.advance(policy.decide(state.view(state.to_move)))
    if state.phase is not PLAYING:  # the hand ended before its first lead
        result = state.hand_results[-1]
        return HandOutcome(result.points, result.bid, team_of(result.bidder), 0)
    trumps = TRUMPS[state.trump]
    hands = tuple(hand & trumps for hand in state.hands)
    key = (hands, state.trump, state.to_move, state.trick, state.jokers_played, state.taken)
    taken = solved.get(key)
    if taken is None:
        taken = solved[key] = solve(state).taken
    return HandOutcome(taken, state.bid, team_of(state.bidder), 0)


def _hand_score(outcome: HandOutcome, team: Team, view: PlayerView) -> int:
    """What the hand adds to ``team``'s game score."""
    if team != outcome.bidding_team:
        return outcome.taken[team]
    if outcome.made and view.options.scoring == "bid":
        return outcome.bid
    return outcome.bidding_score


class _ViewerSteps:
    """The viewer's step numbers (``pitch_web.timeline``): one step per deal and per
    decision, with each recorded fault a step of its own just before the decision it
    concerns (after the hand's last decision for one past it)."""

    def __init__(self, record: GameRecord) -> None:
        self.faults = sorted((fault.hand, fault.decision) for fault in record.faults)
        self.next = 0

    def number(self, event: Dealt | Step) -> int:
        """The step of ``event``, the events taken in the walk's order."""
        due = (event.hand, event.index) if isinstance(event, Step) else (event.hand - 1, math.inf)
        while self.faults and self.faults[0] <= due:
            self.faults.pop(0)
            self.next += 1
        self.next += 1
        return self.next - 1


__all__ = ["DEFAULT_SAMPLES", "ChoiceValue", "DecisionValue", "choice_values", "decision_values"]
