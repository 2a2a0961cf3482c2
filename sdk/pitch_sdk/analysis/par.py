"""Each hand's par: what the hand as dealt is worth once the contract is set.

The par is the double-dummy result from the hand's first lead (after the bidding, trumps,
discards and the stock), the yardstick against which the points a table actually took in
the hand are read. A hand that ends before any card is played has no par.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..cards import Team
from ..gamerecord import GameRecord
from ..progress import PLAYING
from ..replay import Replayed, Step, replayed
from .solver import solve


@dataclass(frozen=True)
class HandPar:
    """One hand's double-dummy result from its first lead.

    Attributes:
        hand: the hand's number, from 1.
        bid: the contract.
        bidding_team: the team of the bidder.
        taken: each team's points in the hand with every seat at its best.
        made: whether the bidding team makes its bid with best play.
        points: each team's points in the hand as it was played.
    """

    hand: int
    bid: int
    bidding_team: Team
    taken: tuple[int, int]
    made: bool
    points: tuple[int, int]

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values."""
        return {**self.__dict__, "taken": list(self.taken), "points": list(self.points)}


def hand_pars(game: GameRecord | Replayed, hand: int | None = None) -> Iterator[HandPar]:
    """The par of each hand of ``game`` that reached the play (only ``hand`` when given).

    The record must replay cleanly (``pitch_sdk.replay.check`` says whether it does); one
    already ``replayed`` is not replayed again.
    """
    game = replayed(game)
    record = game.record
    solved = 0
    for event in game.steps:
        if not isinstance(event, Step) or event.before.phase is not PLAYING:
            continue
        if event.hand == solved or (hand is not None and event.hand != hand):
            continue
        solved = event.hand
        outcome = solve(event.before)
        score = record.hands[event.hand - 1].score
        played = score.points if score is not None else (0, 0)
        yield HandPar(
            event.hand,
            outcome.bid,
            outcome.bidding_team,
            outcome.taken,
            outcome.made,
            (played[0], played[1]),
        )
