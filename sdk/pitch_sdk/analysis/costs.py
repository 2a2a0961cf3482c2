"""What each card played in a recorded game cost its team, double-dummy.

For every play decision of the record, every legal card is solved with all cards seen
(``solve``); the card played is compared with the best of them. The cost is in the
player's team's points for the whole hand: 0 for a best card, and a forced card is
always best.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..actions import Action
from ..cards import TEAM_OF, Seat, card_name
from ..gamerecord import GameRecord
from ..progress import PLAYING
from ..replay import Replayed, Step, replayed
from ..rules import GameState
from .outcome import require_play
from .solver import solve


@dataclass(frozen=True)
class PlayCost:
    """One card played, and how far from the best it was.

    Attributes:
        hand: the hand's number, from 1.
        index: the decision's 0-based position in the hand's record.
        seat: the seat that played.
        played: the card played.
        best: the cards that would have done best (the played one among them when free).
        value: the points the player's team takes in the hand after the card played.
        cost: the points the team lost against the best card.
    """

    hand: int
    index: int
    seat: Seat
    played: str
    best: tuple[str, ...]
    value: int
    cost: int

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values."""
        return {**self.__dict__, "best": list(self.best)}


def play_costs(game: GameRecord | Replayed, hand: int | None = None) -> Iterator[PlayCost]:
    """The cost of each card played in ``game`` (only in ``hand`` when one is given).

    The record must replay cleanly (``pitch_sdk.replay.check`` says whether it does); one
    already ``replayed`` is not replayed again.
    """
    for event in replayed(game).steps:
        if not isinstance(event, Step) or event.before.phase is not PLAYING:
            continue
        if hand is None or event.hand == hand:
            yield _cost(event)


def play_values(state: GameState) -> dict[Action, int]:
    """Each legal card of ``state`` (in the play of a hand) with what the mover's team
    takes in the hand after it, double-dummy: the values a card's cost is measured by.

    Raises:
        ValueError: no card is to be played in ``state``.
    """
    require_play(state)
    team = TEAM_OF[state.current_seat()]
    values: dict[Action, int] = {}
    for action in state.legal_actions():
        after = state.copy()
        after.advance(action)
        values[action] = _team_points(after, team)
    return values


def _cost(step: Step) -> PlayCost:
    """Solve every legal card of the step and compare the one played."""
    values = play_values(step.before)
    top = max(values.values())
    value = values[step.action]
    best = tuple(_name(action) for action, points in values.items() if points == top)
    return PlayCost(step.hand, step.index, step.seat, _name(step.action), best, value, top - value)


def _team_points(state: GameState, team: int) -> int:
    """The team's points in the hand from ``state``: solved, or scored if the hand is over."""
    if state.phase is PLAYING:
        return solve(state).taken[team]
    return state.hand_results[-1].points[team]


def _name(action: Action) -> str:
    """A play's card name."""
    return card_name(action.card)  # type: ignore[union-attr]  # a step in the play
