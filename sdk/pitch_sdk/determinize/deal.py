"""Dealing helpers shared by the samplers: random card orders and the deck order of a sample."""

from __future__ import annotations

import random

from ..cards import DECK_SIZE, Card, CardMask, Seat, left_of, seats_from
from ..rules import CARDS_DEALT
from .bits import _cards


def _mixed(cards: list[Card], rng: random.Random) -> list[Card]:
    """``cards`` in random order (sorting on random keys costs less than ``shuffle``)."""
    draw = rng.random
    return sorted(cards, key=lambda _: draw())


def _shuffled(mask: CardMask, rng: random.Random) -> list[Card]:
    """The cards of ``mask`` in random order."""
    draw = rng.random
    return sorted(_cards(mask), key=lambda _: draw())


def _deck_order(
    dealer: Seat, dealt: list[CardMask], stock: tuple[Card, ...] | list[Card]
) -> tuple[Card, ...]:
    """A deck order that deals ``dealt`` (nine cards a seat) and then ``stock``.

    Each seat's nine cards are placed in code order: which of its positions a card had
    changes nothing in the hand. Returns ``()`` when the parts do not make a deck (only
    in the fallback).
    """
    order: list[Card] = [0] * DECK_SIZE
    for k, seat in enumerate(seats_from(left_of(dealer))):
        cards = _cards(dealt[seat])
        if len(cards) != CARDS_DEALT:
            return ()
        for i, card in enumerate(cards):
            order[(i // 3) * 12 + k * 3 + i % 3] = card
    order[4 * CARDS_DEALT :] = stock
    if len(order) != DECK_SIZE or len(set(order)) != DECK_SIZE:
        return ()
    return tuple(order)
