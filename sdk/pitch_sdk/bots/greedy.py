"""GreedyBot: a rule-of-thumb player that grabs points and protects its threes.

No search and no opponent model: every decision is a few look-ups in the engine's trump
tables (``STRENGTH``, ``POINTS``) and two small tables of this module, so a decision
costs tens of microseconds. It is the third rung of the reference bots, about 540 Elo
above ``beginner`` (bench/RESULTS.md, ``## reference scale``). Its ideas:

* **Bid what the hand can expect to take.** ``BID_WEIGHT`` says what each trump in the
  nine dealt cards is worth to a bidder (fitted on self-play): high cards most, since
  what wins tricks decides where the points go, and the deuce nearly a sure point.
  Partner and stock are worth ``BID_BASE``; each trump past three adds length (the side
  that holds trumps longest keeps its point cards), each past six is discarded. A made
  bid scores everything taken, so it bids a little under its expectation: a higher bid
  only buys protection from later bidders.
* **Keep what is worth holding.** ``KEEP_VALUE`` ranks cards for discards, pick-ups and
  the look through the stock: sure or likely points first, then capturing power, low
  non-point trumps little, dead cards nothing. A bidder with nothing dead to give up
  stops the look and hands the rest of the stock to its partner, who likely holds dead
  cards from the fill.
* **Know which trumps can still beat you** (``TrickView``): every trump played, face up
  in the centre, in the hand, known to be in the partner's, or put out of play in its own
  look is no threat; a seat missing from the last trick holds no trump; a joker still to
  come is the low one.
* **Play**: lead trumps nobody can beat; capture points with sure winners; dump point
  cards on a trick the partner surely wins; otherwise throw the cheapest card (no points
  at risk, the deuce first: its point stays with whoever plays it).

The beginner bot (``pitch_sdk.bots.beginner``) does none of this: it is what these ideas
are measured against."""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Bid, Discard, NameTrump, PickUp, Play, StockChoice, StockMove
from ..bot import Bot
from ..cards import (
    ACE,
    DEUCE,
    JACK,
    JOKER,
    KING,
    POINTS,
    QUEEN,
    SECOND_JOKER,
    STRENGTH,
    TEN,
    THREE,
    TRUMPS,
    TWO,
    Card,
    CardMask,
    Suit,
    cards_in,
    make_card,
    off_suit,
    partner,
    seats_from,
    team_of,
)
from ..views import PlayerView

UNSEEN_JOKER = 9.5
"""Strength to assume for a joker still to come: below any joker already played (it will
be played later, so it is the low one), above the ten, below the Jick."""

KEEP_VALUE = {
    **{"A": 1.6, "K": 1.0, "Q": 0.8, "J": 1.3, "jick": 1.2, "JK": 1.1, "T": 0.9},
    **{"3": 1.8, "o3": 1.6, "2": 1.0, "low": 0.3, "dead": 0.0},
}
"""How much holding a card is worth when choosing what to keep: sure or likely points
first, then capturing power; a low non-point trump is only length."""

BID_WEIGHT = {
    **{"A": 2.0, "K": 1.65, "Q": 1.4, "J": 1.2, "jick": 0.7, "JK": 0.45, "T": 0.3},
    **{"3": 0.3, "o3": 0.3, "2": 0.85, "low": 0.5, "dead": 0.0},
}
"""Points a bidder's team gains from each trump in the bidder's nine cards, fitted by
least squares on greedy self-play hands. High cards count most: the bidding team takes
most points whoever holds them, and what wins tricks decides where they go."""
BID_BASE, BID_LENGTH, BID_OVERLONG = 4.8, 0.2, -0.35
"""The constant (partner, stock) and the extra per trump beyond three and beyond six."""


def role(card: Card, trump: Suit) -> str:
    """What the card is for ``trump`` (a key of ``KEEP_VALUE`` and ``BID_WEIGHT``): a
    point card or high trump by name, ``low`` for nine down to four, ``dead`` if no trump."""
    if card >= JOKER:
        return "JK"
    if not TRUMPS[trump] >> card & 1:
        return "dead"
    if card == make_card(JACK, off_suit(trump)):
        return "jick"
    if card == make_card(THREE, off_suit(trump)):
        return "o3"
    return _RANK_ROLE.get(card % 13, "low")


_RANK_ROLE = {ACE: "A", KING: "K", QUEEN: "Q", JACK: "J", TEN: "T", THREE: "3", TWO: "2"}
_ROLE = tuple(tuple(role(card, trump) for card in range(54)) for trump in range(4))


def keep_value(card: Card, trump: Suit) -> float:
    """Worth of holding ``card``; ties among low trumps go to the stronger one."""
    return KEEP_VALUE[_ROLE[trump][card]] + 0.01 * STRENGTH[trump][card]


def hand_value(hand: CardMask, trump: Suit) -> float:
    """Points the team can expect with ``trump`` named and this seat the bidder.

    Length counts beyond each card: the team holding trumps longest keeps its point
    cards when the other runs out; past six, extra trumps are discarded.
    """
    trumps = hand & TRUMPS[trump]
    length = trumps.bit_count()
    weights = sum(BID_WEIGHT[_ROLE[trump][card]] for card in cards_in(trumps))
    return BID_BASE + weights + BID_LENGTH * max(0, length - 3) + BID_OVERLONG * max(0, length - 6)


def best_suit(hand: CardMask) -> tuple[float, Suit]:
    """The strongest suit to name and its expected points."""
    return max((hand_value(hand, suit), suit) for suit in range(4))


def canonical(card: Card) -> Card:
    """Actions name a lone joker ``JOKER``: map the second joker onto it."""
    return JOKER if card == SECOND_JOKER else card


class GreedyBot(Bot):
    """Bids its expected points, keeps point cards, captures points, protects threes."""

    name = "greedy"
    """The name it plays under."""
    version = "1.0"
    """Its version: raised when its play changes."""

    bid_margin = 0.0
    """Expected points needed above a bid before making it (tuned in self-play)."""
    bid_shade = 1
    """A seat before the dealer bids this much under its expectation (or the lowest legal
    bid, if higher): shutting out later bidders is worth some risk, not all of it."""
    bid_cap = 10
    """Never bid above this: the expectation is too rough to stake more."""
    partner_gap = 2
    """Extra expectation needed to overbid the partner: it only raises the team's stake."""

    # --- bidding and trumps ------------------------------------------------------------

    def bid(self, view: PlayerView, legal: Sequence[Bid]) -> Bid:
        """Bid when the hand's expected points clear the lowest legal bid; the forced
        dealer bids the minimum. A made bid scores the points taken whatever its size,
        so a higher bid only buys protection from later bidders."""
        amounts = [action.amount for action in legal if action.amount]
        if Bid(0) not in legal:
            return Bid(min(amounts))
        expected, _ = best_suit(view.hand)
        target = min(int(expected - self.bid_margin), self.bid_cap)
        if view.bidder >= 0 and view.bidder == partner(view.seat):
            target -= self.partner_gap
        if not amounts or target < min(amounts):
            return Bid(0)
        if view.options.scoring == "bid":
            return Bid(target)  # a made bid scores only the bid: bid all we expect
        if view.seat == view.dealer:
            return Bid(min(amounts))
        return Bid(max(min(amounts), target - self.bid_shade))

    def name_trump(self, view: PlayerView, legal: Sequence[NameTrump]) -> NameTrump:
        """Name the suit the bid was made on."""
        return NameTrump(best_suit(view.hand)[1])

    # --- discard, pick-up and the look through the stock ------------------------------

    def discard(self, view: PlayerView, legal: Sequence[Discard]) -> Discard:
        """Give up the trumps least worth keeping (point cards face up invite pick-ups)."""
        trump = view.trump
        return min(legal, key=lambda a: sum(keep_value(c, trump) for c in cards_in(a.cards)))

    def pick_up(self, view: PlayerView, legal: Sequence[PickUp]) -> PickUp:
        """Take every point card there is room for, the most valuable first."""
        trump = view.trump
        return max(legal, key=lambda a: sum(keep_value(c, trump) for c in cards_in(a.cards)))

    def look(self, view: PlayerView, legal: Sequence[StockChoice]) -> StockChoice:
        """Take point cards for dead or weak cards; as bidder with no dead card left,
        stop and let the partner (who likely holds dead fill cards) take the rest."""
        trump, card = view.trump, view.look_card
        assert card is not None  # a stock decision always shows its card
        weakest = min(cards_in(view.hand), key=lambda c: keep_value(c, trump))
        dead = not TRUMPS[trump] >> weakest & 1
        # The bidder without dead cards hands on to a partner who got fill cards.
        hand_on = (
            not dead
            and view.seat == view.bidder
            and view.fill_sizes[partner(view.seat)] > 0
            and StockChoice(StockMove.STOP) in legal
        )
        if hand_on:
            return StockChoice(StockMove.STOP)
        if POINTS[trump][card] and keep_value(card, trump) > keep_value(weakest, trump):
            return StockChoice(StockMove.TAKE, canonical(weakest))
        return StockChoice(StockMove.LEAVE)

    # --- play ---------------------------------------------------------------------------

    def play(self, view: PlayerView, legal: Sequence[Play]) -> Play:
        """Lead top trumps; capture points; dump point cards on a partner's sure trick;
        otherwise throw the cheapest card (the deuce or a low non-point trump)."""
        trick = TrickView(view)
        cards = [action.card for action in legal]
        tops = [c for c in cards if trick.strength(c) > trick.unseen_top]
        if not view.trick:
            if tops:
                return Play(max(tops, key=lambda c: (trick.at_risk(c), -trick.strength(c))))
            return Play(min(cards, key=trick.throw_key))
        winners = [c for c in cards if trick.strength(c) > trick.best]
        if trick.partner_winning and trick.secure(trick.best):
            dumps = [c for c in cards if trick.at_risk(c) and c not in tops]
            if dumps:
                return Play(max(dumps, key=lambda c: (POINTS[view.trump][c], -trick.strength(c))))
            return Play(min(cards, key=trick.throw_key))
        sure = [c for c in winners if trick.secure(trick.strength(c))]
        if sure and trick.stake:
            return Play(max(sure, key=lambda c: (trick.at_risk(c), -trick.strength(c))))
        if winners and trick.stake and not trick.partner_winning:
            return Play(max(winners, key=trick.strength))
        return Play(min(cards, key=trick.throw_key))


class TrickView:
    """What this seat knows about the trick in progress and the trumps still out."""

    def __init__(self, view: PlayerView) -> None:
        self.trump = trump = view.trump
        self.jokers_played = view.jokers_played
        strength, points = STRENGTH[trump], POINTS[trump]
        self.best, best_seat, self.stake = -1.0, -1, 0
        jokers = view.jokers_played - sum(1 for _, card in view.trick if card >= JOKER)
        for seat, card in view.trick:
            value = strength[card]
            if card >= JOKER:
                value, jokers = 11 - jokers, jokers + 1
            if value > self.best:
                self.best, best_seat = value, seat
            if card != DEUCE[trump]:
                self.stake += points[card]
        self.partner_winning = best_seat == partner(view.seat)
        # Cards out of play, in this hand or known to be in the partner's: no threat.
        played = view.centre | view.hand | view.picked[partner(view.seat)]
        for past in view.tricks:
            played |= sum(1 << card for _, card in past.plays)
        played |= sum(1 << card for _, card in view.trick)
        for event in view.look:
            if event.seat == view.seat and event.card is not None:
                taken = event.give_up if event.move is StockMove.TAKE else None
                played |= 1 << (event.card if taken is None else taken)
        unseen = TRUMPS[trump] & ~played
        self.unseen_top = max(
            (UNSEEN_JOKER if card >= JOKER else strength[card] for card in cards_in(unseen)),
            default=-1,
        )
        self.opponents_after = self._opponents_after(view)

    @staticmethod
    def _opponents_after(view: PlayerView) -> bool:
        """Whether an opponent who may still hold a trump plays after this seat.

        A seat missing from the last completed trick held no trump, and never will.
        """
        last = {seat for seat, _ in view.tricks[-1].plays} if view.tricks else set(range(4))
        leader = view.trick[0][0] if view.trick else view.seat
        order = seats_from(leader)
        after = order[order.index(view.seat) + 1 :]
        return any(team_of(seat) != team_of(view.seat) and seat in last for seat in after)

    def strength(self, card: Card) -> float:
        """The card's strength if this seat plays it now."""
        if card >= JOKER:
            return 11 - self.jokers_played
        return STRENGTH[self.trump][card]

    def secure(self, strength: float) -> bool:
        """Whether a card of this strength, now best in the trick, keeps it."""
        return not self.opponents_after or strength > self.unseen_top

    def at_risk(self, card: Card) -> int:
        """Points this card hands over if it falls in a lost trick (the deuce: none)."""
        return 0 if card == DEUCE[self.trump] else POINTS[self.trump][card]

    def throw_key(self, card: Card) -> tuple[int, float]:
        """Cheapest card to give up: no points at risk, then the weakest."""
        return (self.at_risk(card), self.strength(card))


__all__ = ["GreedyBot", "hand_value", "keep_value"]
