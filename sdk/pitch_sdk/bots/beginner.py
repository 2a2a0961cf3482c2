"""BeginnerBot: the plain first heuristic that a newcomer's bot should learn to beat.

It is the bot most people write first, on purpose, so that it is the first rung of the
reference ladder (random, beginner, greedy, montecarlo-fast, montecarlo). Each decision
is one rule that reads well and is half right:

* **bid** the minimum on a suit of four trumps or more, else pass;
* **name** the suit it holds most trumps of;
* **discard** and give up its weakest trumps, **pick up** as many cards as it may;
* **play** its highest trump when that beats the trick (unless the partner is winning
  it), its lowest otherwise.

What it gets wrong is what the greedy bot (``pitch_sdk.bots.greedy``) gets right, and
what the tutorial (docs/first-bot.md) fixes step by step: "weakest" and "lowest" go by
strength alone, so it throws away its threes (three points each, the weakest trumps but
the deuce) and hands them to whoever wins the trick; it never gives its partner's
winning trick a point card; it counts trumps when it bids but never what they are worth,
and it never bids more than the minimum, so it lets the other team buy the hand cheaply."""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Bid, Discard, NameTrump, PickUp, Play, StockChoice, StockMove
from ..bot import Bot
from ..cards import POINTS, STRENGTH, TRUMPS, CardMask, Suit, cards_in, partner
from ..views import PlayerView

LONG_SUIT = 4
"""Trumps in the nine dealt cards that make a suit worth bidding on."""


def trumps_held(hand: CardMask, suit: Suit) -> int:
    """How many of ``hand``'s cards would be trumps with ``suit`` named."""
    return (hand & TRUMPS[suit]).bit_count()


def longest_suit(hand: CardMask) -> Suit:
    """The suit with the most trumps in ``hand``; ties go to the strongest cards."""
    return max(
        range(4),
        key=lambda suit: (
            trumps_held(hand, suit),
            sum(STRENGTH[suit][card] for card in cards_in(hand & TRUMPS[suit])),
        ),
    )


class BeginnerBot(Bot):
    """Bids the minimum on a long suit, plays high to win and low otherwise."""

    name = "beginner"
    """The name it plays under."""
    version = "1.0"
    """Its version: raised when its play changes."""

    def bid(self, view: PlayerView, legal: Sequence[Bid]) -> Bid:
        """The lowest legal bid with four trumps in the longest suit (or when forced)."""
        amounts = [action.amount for action in legal if action.amount]
        long = trumps_held(view.hand, longest_suit(view.hand)) >= LONG_SUIT
        if amounts and (long or Bid(0) not in legal):
            return Bid(min(amounts))
        return Bid(0)

    def name_trump(self, view: PlayerView, legal: Sequence[NameTrump]) -> NameTrump:
        """The suit it holds most trumps of."""
        return NameTrump(longest_suit(view.hand))

    def discard(self, view: PlayerView, legal: Sequence[Discard]) -> Discard:
        """Throw the weakest trumps (the threes among them: their points are ignored)."""
        return min(legal, key=lambda action: self._strength(view, action.cards))

    def pick_up(self, view: PlayerView, legal: Sequence[PickUp]) -> PickUp:
        """Take as many cards as there is room for."""
        return max(legal, key=lambda action: action.cards.bit_count())

    def look(self, view: PlayerView, legal: Sequence[StockChoice]) -> StockChoice:
        """Take a point card for the weakest card held when it is stronger than that card."""
        card, strength = view.look_card, STRENGTH[view.trump]
        weakest = min(cards_in(view.hand), key=lambda held: strength[held])
        take = StockChoice(StockMove.TAKE, weakest)
        worth_it = (
            card is not None and POINTS[view.trump][card] and strength[card] > strength[weakest]
        )
        if worth_it and take in legal:
            return take
        return StockChoice(StockMove.LEAVE)

    def play(self, view: PlayerView, legal: Sequence[Play]) -> Play:
        """The highest trump if it beats every card in the trick and the partner is not
        winning it already, else the lowest."""
        strength = STRENGTH[view.trump]
        highest = max(legal, key=lambda action: strength[action.card])
        lowest = min(legal, key=lambda action: strength[action.card])
        if not view.trick:
            return highest
        best_seat, best_card = max(view.trick, key=lambda play: strength[play[1]])
        if best_seat == partner(view.seat) or strength[highest.card] <= strength[best_card]:
            return lowest
        return highest

    @staticmethod
    def _strength(view: PlayerView, cards: CardMask) -> int:
        return sum(STRENGTH[view.trump][card] for card in cards_in(cards))


__all__ = ["BeginnerBot", "longest_suit", "trumps_held"]
