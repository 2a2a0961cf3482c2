"""How far a game has got, in the public terms that the engine, the views and the wire share:
the phase of the hand, finished tricks, finished hands, and how the game ended.

The engine (``rules.py``) produces these and a seat's view (``views.py``) passes them
on; both import them from here, so the view needs nothing from the engine. Everything
here is public: no hidden card is in any of these records.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from .cards import DEUCE, POINTS, TEAM_OF, Card, Seat, Suit, Team


class Phase(enum.IntEnum):
    """Where a hand is: waiting for a deal, or which kind of decision is due."""

    DEAL = 0
    """A deal is due (before each hand)."""
    BID = 1
    """The seats bid in turn."""
    TRUMP = 2
    """The bidder names trumps."""
    DISCARD = 3
    """Seats with more than six trumps discard down to six."""
    PICKUP = 4
    """Seats short of six pick up discarded point cards."""
    STOCK = 5
    """The looker goes through the stock."""
    PLAY = 6
    """Tricks are played."""
    OVER = 7
    """The game is over."""


# Module-level names for the phases: a global lookup is five times cheaper than Phase.X.
DEAL, BIDDING, TRUMP_NAMING, DISCARDING, PICKING_UP, LOOKING, PLAYING, OVER = Phase


class Trick(NamedTuple):
    """A completed trick (a named tuple: tricks are made on the hot path)."""

    leader: Seat
    """The seat that led."""
    plays: tuple[tuple[Seat, Card], ...]
    """(seat, card) in the order played; a seat out of trumps is skipped."""
    winner: Seat
    """The seat that played the strongest trump."""

    def points_by_team(self, trump: Suit) -> tuple[int, int]:
        """The points each team takes from this trick (team 0's first), with ``trump``
        named: the deuce's to the team that played it, every other point to the winner's.

        A viewer or a bot reads who took what from a finished trick without scoring it
        again itself.
        """
        points, deuce = POINTS[trump], DEUCE[trump]
        taken = [0, 0]
        for seat, card in self.plays:
            taken[TEAM_OF[seat if card == deuce else self.winner]] += points[card]
        return taken[0], taken[1]


class HandResult(NamedTuple):
    """The public summary of a finished hand (a named tuple: one is made every hand)."""

    number: int
    """The hand's number, from 1."""
    dealer: Seat
    """The hand's dealer."""
    bidder: Seat
    """The seat that won the bidding."""
    bid: int
    """The winning bid."""
    trump: Suit
    """The trump suit named."""
    points: tuple[int, int]
    """Points each team took in this hand."""
    dead: int
    """Points that nobody scored (discarded to the centre or left the stock face down)."""
    scores: tuple[int, int]
    """The game score after this hand."""
    made: bool
    """Whether the bidding team took at least its bid."""


class Termination(enum.Enum):
    """Why a game ended."""

    TARGET = "target"
    """A team reached the target score (``RuleOptions.target``)."""
    MOON = "moon"
    """A bid of 13 took all 13 points: the bidding team wins at once."""
    HAND_CAP = "hand_cap"
    """The hand cap was reached; the higher score wins, equal scores draw."""
    FORFEIT = "forfeit"
    """A seat faulted and its team forfeited the game."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended, and who won."""

    termination: Termination
    """Why it ended."""
    winner: Team | None
    """The winning team; ``None`` for a draw (only at the hand cap)."""
    forfeited_by: Seat | None = None
    """The seat whose fault forfeited the game, for a forfeit."""
