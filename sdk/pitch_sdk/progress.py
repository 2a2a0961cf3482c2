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

from .cards import Card, Seat, Suit, Team


class Phase(enum.IntEnum):
    """Where a hand is: waiting for a deal, or which kind of decision is due."""

    DEAL = 0
    BID = 1
    TRUMP = 2
    DISCARD = 3
    PICKUP = 4
    STOCK = 5
    PLAY = 6
    OVER = 7


# Module-level names for the phases: a global lookup is five times cheaper than Phase.X.
DEAL, BIDDING, TRUMP_NAMING, DISCARDING, PICKING_UP, LOOKING, PLAYING, OVER = Phase


class Trick(NamedTuple):
    """A completed trick (a named tuple: tricks are made on the hot path)."""

    leader: Seat
    plays: tuple[tuple[Seat, Card], ...]
    """(seat, card) in the order played."""
    winner: Seat


class HandResult(NamedTuple):
    """The public summary of a finished hand (a named tuple: one is made every hand)."""

    number: int
    dealer: Seat
    bidder: Seat
    bid: int
    trump: Suit
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
    MOON = "moon"
    HAND_CAP = "hand_cap"
    FORFEIT = "forfeit"


@dataclass(frozen=True, slots=True)
class Outcome:
    termination: Termination
    winner: Team | None
    """The winning team; ``None`` for a draw (only at the hand cap)."""
    forfeited_by: Seat | None = None
