"""Card-mask helpers and the constants of the sampler.

The sampler turns masks into card lists and back in its inner loops, so it keeps its own
table-driven versions of ``cards_in`` and ``mask_of`` here.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..actions import StockMove
from ..cards import DECK_SIZE, JOKER, POINTS, SUITS, TRUMPS, Card, CardMask, cards_in, mask_of

ALL_MASK = (1 << DECK_SIZE) - 1
"""Every card of the deck as a mask."""
LOW_JOKER_BIT = 1 << JOKER
"""The first joker code: the one the engine gives when a seat holding both is asked for JK."""
TAKE, LEAVE_MOVE, STOP_MOVE = StockMove.TAKE, StockMove.LEAVE, StockMove.STOP
POINT_CLASSES = tuple(
    tuple(
        mask_of(card for card in cards_in(TRUMPS[suit]) if POINTS[suit][card] == value)
        for value in (0, 1, 3)
    )
    for suit in SUITS
)
"""``POINT_CLASSES[trump]``: the trumps worth 0, 1 and 3 points."""
_BIT = tuple(1 << card for card in range(DECK_SIZE))
_BYTE_CARDS = tuple(
    tuple(tuple(8 * shift + i for i in range(8) if byte >> i & 1) for byte in range(256))
    for shift in range(7)
)
"""``_BYTE_CARDS[k][byte]``: the cards of bits ``8k .. 8k+7`` set in ``byte``."""


def _cards(mask: CardMask) -> list[Card]:
    """The cards of a mask, lowest first (a table per byte: faster than ``cards_in``)."""
    cards: list[Card] = []
    for table in _BYTE_CARDS:
        if not mask:
            break
        cards += table[mask & 255]
        mask >>= 8
    return cards


def _mask(cards: Iterable[Card]) -> CardMask:
    """The mask of distinct cards (a sum of bits: faster than ``mask_of``)."""
    return sum(map(_BIT.__getitem__, cards))
