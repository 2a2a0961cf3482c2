"""The decisions a player makes, as small frozen values that round-trip through text.

Each action type answers one kind of decision (``Decision``). ``str(action)`` is the
text form used in records and on the command line; ``parse_action`` reads it back.
Card sets inside actions write a lone joker as ``JK`` (the jokers are identical).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from .cards import (
    SUIT_LETTERS,
    Card,
    CardMask,
    Suit,
    canonical_jokers,
    card_name,
    format_cards,
    parse_card,
    parse_cards,
    parse_suit,
)


class InvalidActionError(ValueError):
    """An action that is malformed, or of the wrong kind for the decision at hand."""


class IllegalActionError(ValueError):
    """A well-formed action that the rules do not allow now."""


class Decision(enum.IntEnum):
    """What kind of decision a seat faces."""

    BID = 1
    TRUMP = 2
    DISCARD = 3
    PICKUP = 4
    STOCK = 5
    PLAY = 6


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid of ``amount`` points (4-13), or a pass (``amount == 0``)."""

    amount: int
    decision: ClassVar[Decision] = Decision.BID

    @property
    def is_pass(self) -> bool:
        return self.amount == 0

    def __str__(self) -> str:
        return "pass" if self.amount == 0 else f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class NameTrump:
    """The bidder names the trump suit."""

    suit: Suit
    decision: ClassVar[Decision] = Decision.TRUMP

    def __str__(self) -> str:
        return f"trump {SUIT_LETTERS[self.suit]}"


@dataclass(frozen=True, slots=True)
class Discard:
    """The trumps a player with more than six discards face up (the whole set at once)."""

    cards: CardMask
    decision: ClassVar[Decision] = Decision.DISCARD

    def __str__(self) -> str:
        return f"discard {format_cards(self.cards)}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


@dataclass(frozen=True, slots=True)
class PickUp:
    """The discarded point cards a player takes from the centre; possibly none."""

    cards: CardMask
    decision: ClassVar[Decision] = Decision.PICKUP

    def __str__(self) -> str:
        return f"pickup {format_cards(self.cards)}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


class StockMove(enum.IntEnum):
    TAKE = 1
    LEAVE = 2
    STOP = 3


@dataclass(frozen=True, slots=True)
class StockChoice:
    """What to do with the stock card just turned: take it (giving up ``give_up``),
    leave it, or stop looking."""

    move: StockMove
    give_up: Card | None = None
    decision: ClassVar[Decision] = Decision.STOCK

    def __str__(self) -> str:
        if self.move is StockMove.TAKE:
            # Another seat's take is seen without the card it gave up.
            return "take" if self.give_up is None else f"take {card_name(self.give_up)}"
        return self.move.name.lower()


@dataclass(frozen=True, slots=True)
class Play:
    """Play a trump to the current trick."""

    card: Card
    decision: ClassVar[Decision] = Decision.PLAY

    def __str__(self) -> str:
        return f"play {card_name(self.card)}"


Action: TypeAlias = Bid | NameTrump | Discard | PickUp | StockChoice | Play

PASS = Bid(0)
LEAVE = StockChoice(StockMove.LEAVE)
STOP = StockChoice(StockMove.STOP)


def parse_action(text: str) -> Action:
    """Read an action from its text form.

    >>> parse_action("bid 7"), parse_action("pass"), parse_action("play JK")
    (Bid(amount=7), Bid(amount=0), Play(card=52))

    Raises:
        InvalidActionError: the text is not an action.
    """
    verb, _, rest = text.strip().partition(" ")
    verb = verb.lower()
    rest = rest.strip()
    try:
        if verb == "pass" and not rest:
            return PASS
        if verb == "bid":
            amount = int(rest)
            if not 1 <= amount <= 99:
                raise ValueError("a bid is a number of points")
            return Bid(amount)
        if verb == "trump":
            return NameTrump(parse_suit(rest))
        if verb == "discard":
            return Discard(canonical_jokers(parse_cards(rest)))
        if verb == "pickup":
            return PickUp(canonical_jokers(parse_cards(rest)))
        if verb == "take":
            return StockChoice(StockMove.TAKE, parse_card(rest))
        if verb in ("leave", "stop") and not rest:
            return LEAVE if verb == "leave" else STOP
        if verb == "play":
            return Play(parse_card(rest))
    except ValueError as error:
        raise InvalidActionError(f"cannot read action {text!r}: {error}") from None
    raise InvalidActionError(
        f"cannot read action {text!r}: expected one of 'pass', 'bid N', 'trump S', "
        "'discard CARDS', 'pickup CARDS', 'take CARD', 'leave', 'stop', 'play CARD'"
    )
