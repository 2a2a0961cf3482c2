"""Where the cards' order comes from: every deal of a seeded game is reproducible.

Each hand's deck order depends only on the game seed and the hand number, so the two
games of a duplicate pair see the same cards in every hand, whatever happened before.
"""

from __future__ import annotations

import random

from .cards import DECK_SIZE, Card

_CARD_CODES = range(DECK_SIZE)


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A uniformly random order of the 54 cards drawn from ``rng``.

    Sorting by random keys costs about half of ``rng.shuffle`` for 54 cards.
    """
    draw = rng.random
    keys = [draw() for _ in _CARD_CODES]
    return sorted(_CARD_CODES, key=keys.__getitem__)


def deck_for(seed: int | str, hand_number: int) -> list[Card]:
    """The deck order of hand ``hand_number`` (1-based) in the game with ``seed``.

    Examples:
        >>> deck_for(7, 1) == deck_for(7, 1) != deck_for(7, 2)
        True
    """
    return shuffled_deck(random.Random(f"pitch-deal:{seed}:{hand_number}"))
