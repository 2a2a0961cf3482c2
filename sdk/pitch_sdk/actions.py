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
    """Pass or bid (``Bid``)."""
    TRUMP = 2
    """The bidder names trumps (``NameTrump``)."""
    DISCARD = 3
    """A seat holding more than six trumps discards down to six (``Discard``)."""
    PICKUP = 4
    """A seat short of six takes discarded point cards from the centre (``PickUp``)."""
    STOCK = 5
    """A looker decides on the stock card just turned (``StockChoice``)."""
    PLAY = 6
    """A trump to the trick (``Play``)."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid of ``amount`` points (4-13), or a pass (``amount == 0``)."""

    amount: int
    """The points bid, 4-13; 0 for a pass."""
    decision: ClassVar[Decision] = Decision.BID
    """The kind of decision this action answers (the same on every action type)."""

    @property
    def is_pass(self) -> bool:
        """Whether this is a pass."""
        return self.amount == 0

    def __str__(self) -> str:
        return "pass" if self.amount == 0 else f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class NameTrump:
    """The bidder names the trump suit."""

    suit: Suit
    """The trump suit (``pitch_sdk.cards.CLUBS`` ... ``SPADES``)."""
    decision: ClassVar[Decision] = Decision.TRUMP
    """The kind of decision this action answers."""

    def __str__(self) -> str:
        return f"trump {SUIT_LETTERS[self.suit]}"


@dataclass(frozen=True, slots=True)
class Discard:
    """The trumps a player with more than six discards face up (the whole set at once)."""

    cards: CardMask
    """The trumps discarded, as a mask (``pitch_sdk.cards.cards_in`` lists them)."""
    decision: ClassVar[Decision] = Decision.DISCARD
    """The kind of decision this action answers."""

    def __str__(self) -> str:
        return f"discard {format_cards(self.cards)}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


@dataclass(frozen=True, slots=True)
class PickUp:
    """The discarded point cards a player takes from the centre; possibly none."""

    cards: CardMask
    """The point cards taken, as a mask; 0 takes none."""
    decision: ClassVar[Decision] = Decision.PICKUP
    """The kind of decision this action answers."""

    def __str__(self) -> str:
        return f"pickup {format_cards(self.cards)}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


class StockMove(enum.IntEnum):
    """What a looker does with the stock card it has just turned."""

    TAKE = 1
    """Take the card (a point card) into the hand, giving up a card of the hand, which
    leaves play face down."""
    LEAVE = 2
    """The card leaves play face down; turn the next one."""
    STOP = 3
    """Stop looking: the bidder hands this card and the rest of the pile to the partner,
    who goes on from it; the partner's stop ends the look (the rest leaves play)."""


@dataclass(frozen=True, slots=True)
class StockChoice:
    """What to do with the stock card just turned: take it (giving up ``give_up``),
    leave it, or stop looking."""

    move: StockMove
    """Take, leave or stop."""
    give_up: Card | None = None
    """The card given up for a take; ``None`` for leave and stop, and in another seat's
    take as this seat sees it (the card given up is hidden)."""
    decision: ClassVar[Decision] = Decision.STOCK
    """The kind of decision this action answers."""

    def __str__(self) -> str:
        if self.move is StockMove.TAKE:
            # Another seat's take is seen without the card it gave up.
            return "take" if self.give_up is None else f"take {card_name(self.give_up)}"
        return self.move.name.lower()


@dataclass(frozen=True, slots=True)
class Play:
    """Play a trump to the current trick."""

    card: Card
    """The trump played; a joker is always ``JOKER`` (the jokers are identical)."""
    decision: ClassVar[Decision] = Decision.PLAY
    """The kind of decision this action answers."""

    def __str__(self) -> str:
        return f"play {card_name(self.card)}"


Action: TypeAlias = Bid | NameTrump | Discard | PickUp | StockChoice | Play
"""Any action: its ``decision`` says which kind."""

PASS = Bid(0)
"""The pass."""
LEAVE = StockChoice(StockMove.LEAVE)
"""Leave the turned stock card."""
STOP = StockChoice(StockMove.STOP)
"""Stop looking through the stock."""


def parse_action(text: str) -> Action:
    """Read an action from its text form.

    Examples:
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
