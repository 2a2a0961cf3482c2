"""The default policy of the playouts: a cheap player that reads the engine state directly.

A playout finishes the hand from a sampled full state, so every seat's cards are known
to it; what matters is speed (thousands of playouts per decision) and that its play is
sensible enough that the hand's result says something about the action being tried.
Purely random play is fast but noisy: random partners throw away threes and bid
nonsense, and the averages then rank actions by luck. So each seat here plays a
stripped-down version of the greedy bot, computed from ``GameState`` fields without
building a ``PlayerView`` (a view for each of a playout's decisions would cost about
four times the playout itself):

* bids from the greedy bot's hand estimate (``best_suit``), trumps on the best suit;
* discards, pick-ups and stock takes by the greedy bot's ``keep_value``;
* in play: win a trick with points in it with the lowest card that does, feed points
  to a partner who is winning, lead high, and otherwise throw the least valuable card.

Randomness enters only through the sampled deal: the policy is deterministic, so two
actions tried on the same sample face the same opponents' replies unless the action
itself changes them (less noise when comparing actions).
"""

from __future__ import annotations

from typing import cast

from ...actions import Action, Bid, Discard, NameTrump, PickUp, Play, StockChoice, StockMove
from ...cards import (
    DEUCE,
    JOKER,
    POINTS,
    STRENGTH,
    STRENGTH_LOW_JOKER,
    TEAM_OF,
    cards_in,
    distinct_cards,
)
from ...progress import BIDDING, DISCARDING, LOOKING, PICKING_UP, PLAYING, TRUMP_NAMING
from ...rules import CHANCE, TERMINAL, GameState
from ..greedy import best_suit, keep_value

BID_SHADE = 1
"""Like the greedy bot, a rollout bidder bids a point under its estimate when it may."""


def play_out_hand(state: GameState) -> None:
    """Play ``state`` (changed in place) to the end of the current hand."""
    while True:
        seat = state.to_move
        if seat in (CHANCE, TERMINAL):
            return
        state.advance(choose(state, seat))


def choose(state: GameState, seat: int) -> Action:
    """The rollout policy's action for ``seat``, which is to move in ``state``."""
    phase = state.phase
    if phase is PLAYING:
        return _play(state, seat)
    if phase == BIDDING:
        return _bid(state, seat)
    if phase == TRUMP_NAMING:
        return NameTrump(best_suit(state.hands[seat])[1])
    if phase == LOOKING:
        return _look(state, seat)
    trump = state.trump
    legal = cast(tuple[Discard | PickUp, ...], state.legal_actions())  # sets of cards now
    worth = [sum(keep_value(card, trump) for card in cards_in(a.cards)) for a in legal]
    if phase == DISCARDING:  # throw out what is worth least
        return legal[worth.index(min(worth))]
    if phase == PICKING_UP:  # take what is worth most
        return legal[worth.index(max(worth))]
    raise ValueError(f"no rollout policy for phase {phase!r}")


def _bid(state: GameState, seat: int) -> Bid:
    bids = cast(tuple[Bid, ...], state.legal_actions())  # the bidding phase
    amounts = [action.amount for action in bids if action.amount]
    if not amounts:
        return Bid(0)  # someone bid 13: passing is all that is left
    lowest = min(amounts)
    if seat == state.dealer and state.bid == 0:
        return Bid(lowest)  # the dealer after three passes must bid
    expected = int(best_suit(state.hands[seat])[0])
    if expected < lowest:
        return Bid(0)
    if seat == state.dealer:
        return Bid(lowest)
    return Bid(min(max(lowest, expected - BID_SHADE), max(amounts)))


def _look(state: GameState, seat: int) -> StockChoice:
    """Take a point card in exchange for the least valuable card held, else leave it."""
    trump, turned = state.trump, state.look_cards[0]
    if not POINTS[trump][turned]:
        return StockChoice(StockMove.LEAVE)
    held = distinct_cards(state.hands[seat])
    weakest = min(cards_in(held), key=lambda card: keep_value(card, trump))
    if keep_value(turned, trump) > keep_value(weakest, trump):
        return StockChoice(StockMove.TAKE, weakest)
    return StockChoice(StockMove.LEAVE)


def _strength(state: GameState, card: int) -> int:
    """How strong ``card`` would be if played now: a joker is high only if it is first."""
    if card >= JOKER:
        return STRENGTH_LOW_JOKER + 1 - state.jokers_played
    return STRENGTH[state.trump][card]


def _play(state: GameState, seat: int) -> Play:
    legal = cast(tuple[Play, ...], state.legal_actions())  # the play phase
    trump = state.trump
    points = POINTS[trump]
    strength = STRENGTH[trump]
    cards = [action.card for action in legal]
    if len(cards) == 1:
        return legal[0]
    # The cheapest card to throw: no points first (the deuce is kept whoever wins, so it
    # is nearly free), then the weakest.
    deuce = DEUCE[trump]

    def throw_cost(card: int) -> tuple[int, int]:
        cost = 0 if card == deuce else points[card]
        return cost, _strength(state, card)

    trick = state.trick
    if not trick:
        # Lead the strongest card: it draws trumps out and keeps the lead.
        best = max(cards, key=lambda card: _strength(state, card))
        if _strength(state, best) >= 13:  # jack or better: a likely winner
            return Play(best)
        return Play(min(cards, key=throw_cost))
    best_strength, best_seat = state.trick_best
    partner_winning = TEAM_OF[best_seat] == TEAM_OF[seat]
    stake = sum(points[card] for _, card in trick if card != deuce)
    if partner_winning and (best_strength >= 13 or len(state.queue) == 1):
        # Partner's card is strong (or nobody follows me): feed it the best point card.
        feed = max(cards, key=lambda card: (points[card], -strength[card]))
        if points[feed]:
            return Play(feed)
        return Play(min(cards, key=throw_cost))
    winners = [card for card in cards if _strength(state, card) > best_strength]
    if winners and (stake or (len(state.queue) > 1 and not partner_winning)):
        # Win with the lowest card that does when last; otherwise with the strongest,
        # so that later seats cannot overtake it.
        if len(state.queue) == 1:
            return Play(min(winners, key=lambda card: _strength(state, card)))
        return Play(max(winners, key=lambda card: _strength(state, card)))
    return Play(min(cards, key=throw_cost))
