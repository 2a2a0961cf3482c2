"""Helpers for the engine tests: exact deck orders built from the hands you want, and
short ways to drive a ``GameState`` through a hand.

The deal is rebuilt here from docs/rules.md ("3 cards at a time to each player, starting with
the player on the dealer's left, three times round"), not borrowed from the engine, so
the tests check the engine's deal instead of repeating it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from pitch_sdk.actions import LEAVE, STOP, Decision, parse_action
from pitch_sdk.cards import (
    ALL_CARDS,
    HEARTS,
    JOKER,
    SECOND_JOKER,
    TRUMPS,
    Card,
    CardMask,
    Seat,
    Suit,
    format_cards,
    parse_card,
)
from pitch_sdk.options import RuleOptions
from pitch_sdk.rules import CHANCE, GameState

HAND_CARDS = 9
STOCK_CARDS = 18


def dealt_positions(seat: Seat, dealer: Seat) -> list[int]:
    """The deck positions (top card first) that ``seat`` receives when ``dealer`` deals."""
    k = (seat - dealer - 1) % 4  # 0 for the player on the dealer's left
    return [rnd * 12 + k * 3 + i for rnd in range(3) for i in range(3)]


class _Namer:
    """Reads card names; ``JK`` is the next joker not yet named, ``JK2`` the second joker."""

    def __init__(self) -> None:
        self.used: set[Card] = set()

    def cards(self, text: str) -> list[Card]:
        result = []
        for word in text.split():
            if word.upper() == "JK2":
                card = SECOND_JOKER
            elif word.upper() == "JK":
                card = JOKER if JOKER not in self.used else SECOND_JOKER
            else:
                card = parse_card(word)
            if card in self.used:
                raise ValueError(f"card {word} named twice")
            self.used.add(card)
            result.append(card)
        return result


def build_deck(
    hands: Mapping[Seat, str],
    *,
    stock: str = "",
    stock_tail: str = "",
    dealer: Seat = 0,
    trump: Suit = HEARTS,
) -> list[Card]:
    """A 54-card deck order that deals ``hands`` (card names per seat, up to 9 each) and
    a stock that starts with ``stock`` and ends with ``stock_tail``.

    Cards not named fill the gaps: first the non-trumps of ``trump`` (lowest code first),
    then its trumps. So a hand given fewer than nine cards is padded with dead cards,
    and unnamed trumps sink to the bottom of the stock.
    """
    namer = _Namer()
    named_hands = {seat: namer.cards(hands.get(seat, "")) for seat in range(4)}
    head, tail = namer.cards(stock), namer.cards(stock_tail)
    filler = sorted(
        (card for card in ALL_CARDS if card not in namer.used),
        key=lambda card: (bool(TRUMPS[trump] >> card & 1), card),
    )
    order: list[Card | None] = [None] * 54
    for seat in range(4):
        cards = named_hands[seat]
        if len(cards) > HAND_CARDS:
            raise ValueError(f"seat {seat} is given {len(cards)} cards, more than 9")
        while len(cards) < HAND_CARDS:
            cards.append(filler.pop(0))
        for position, card in zip(dealt_positions(seat, dealer), cards, strict=True):
            order[position] = card
    stock_cards = head + filler + tail
    if len(stock_cards) != STOCK_CARDS:
        raise ValueError(f"the stock would hold {len(stock_cards)} cards, not 18")
    order[4 * HAND_CARDS :] = stock_cards
    return order  # type: ignore[return-value]


def new_hand(
    hands: Mapping[Seat, str],
    *,
    stock: str = "",
    stock_tail: str = "",
    dealer: Seat = 0,
    trump: Suit = HEARTS,
    options: RuleOptions | None = None,
    scores: tuple[int, int] = (0, 0),
) -> GameState:
    """A game whose first hand is dealt from ``build_deck(...)`` by ``dealer``.

    ``scores`` stands for earlier hands of the game: the score before this hand.
    """
    state = GameState(options, first_dealer=dealer)
    state.scores = scores
    state.deal(build_deck(hands, stock=stock, stock_tail=stock_tail, dealer=dealer, trump=trump))
    return state


def act(state: GameState, *texts: str) -> None:
    """Apply each action, given in its text form, for whoever is to move (checked)."""
    for text in texts:
        state.apply(parse_action(text))


def mask(text: str) -> CardMask:
    """The mask of card names (``JK`` twice is both jokers, ``JK2`` the second one)."""
    result = 0
    for card in _Namer().cards(text):
        result |= 1 << card
    return result


def names(cards: CardMask) -> str:
    return format_cards(cards)


def legal(state: GameState) -> list[str]:
    return [str(action) for action in state.legal_actions()]


def skip_look(state: GameState) -> None:
    """End the look through the stock at once: the bidder stops, the partner stops (or
    leaves the last card)."""
    while state.decision() is Decision.STOCK:
        state.apply(STOP if STOP in state.legal_actions() else LEAVE)


def play_out_hand(state: GameState) -> None:
    """Finish the current hand taking the first legal action at every decision."""
    while state.current_seat() >= 0:
        state.apply(state.legal_actions()[0])


def random_walk(state: GameState, rng: random.Random, seed: int | str) -> Iterable[GameState]:
    """Play ``state`` to the end with random legal actions and seeded deals, yielding the
    state after every step (the same object, changed in place)."""
    from pitch_sdk.deck import deck_for

    while not state.is_over():
        if state.current_seat() == CHANCE:
            state.deal(deck_for(seed, state.hand_number + 1))
        else:
            state.apply(rng.choice(state.legal_actions()))
        yield state
