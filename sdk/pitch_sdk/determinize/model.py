"""The data the stages pass along: the digest of a view and the hidden slots of a sample.

``_Facts`` is made once per view (``facts``) and read by every try; a ``_World`` is what
one try (``sampling``) hands to ``assemble``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from ..actions import StockChoice, StockMove
from ..cards import Card, CardMask, Seat
from ..views import PlayerView

LookEntry: TypeAlias = tuple[Seat, Card, StockChoice]
"""One turn of the look through the stock, as the engine logs it: who, the card, the choice."""

if TYPE_CHECKING:
    from .after_fill import _Layout  # it reads these facts: imported for the type only


class _Infeasible(Exception):
    """The strict constraints cannot be met for this view, whatever the random draws."""


class _Stage(enum.IntEnum):
    """How far the hand has come; each stage hides different cards."""

    UNDEALT = 0
    BIDDING = 1
    BEFORE_FILL = 2
    AFTER_FILL = 3


@dataclass(frozen=True, slots=True)
class _Entry:
    """One look-through event with the position of its card in the looked-through pile."""

    index: int
    seat: Seat
    move: StockMove
    card: Card | None
    give_up: Card | None
    pos: int


@dataclass(slots=True)
class _World:
    """The hidden slots of a sampled state (the public ones are copied from the view)."""

    hands: list[CardMask]
    stock: tuple[Card, ...] = ()
    look_cards: tuple[Card, ...] = ()
    gone: CardMask = 0
    fill: tuple[CardMask, CardMask, CardMask, CardMask] = (0, 0, 0, 0)
    look_log: tuple[LookEntry, ...] = ()
    deck: tuple[Card, ...] = ()


@dataclass(slots=True)
class _Facts:
    """What the view implies: computed once per view (cached) and only read by the tries."""

    view: PlayerView
    stage: _Stage
    me: Seat
    hidden: tuple[Seat, ...]
    dealer: Seat
    """The dealer of the hand the slots describe (a finished hand's, between hands)."""
    finished: bool
    trumps: CardMask
    played: tuple[CardMask, ...]
    kept: tuple[int, ...]
    """Trumps each seat kept from its deal after discarding down to six."""
    no_low_joker_in_kept: frozenset[Seat] = frozenset()
    # After the fill only:
    entries: tuple[_Entry, ...] = ()
    pile_size: int = 0
    pile_start: int = 0
    lookers: frozenset[Seat] = frozenset()
    takes: tuple[int, ...] = (0, 0, 0, 0)
    """Takes per seat in the look."""
    voids: frozenset[Seat] = frozenset()
    must_hold: frozenset[Seat] = frozenset()
    team_need: tuple[int, ...] = ()
    team_out: bool = False
    held_points: tuple[int, int] = (0, 0)
    no_low_joker_in_hand: frozenset[Seat] = frozenset()
    my_options: tuple[tuple[dict[int, Card], CardMask], ...] = ()
    """Legal joker codes of the seat's own give-ups, with its hand before the look."""
    my_fallback: tuple[dict[int, Card], CardMask] = field(default_factory=lambda: ({}, 0))
    layouts: dict[tuple[int, bool], _Layout] = field(default_factory=dict)
    """Memo of ``_Layout`` per (own joker-code choice, strictness)."""
