"""A seat's view as a fixed-size vector of numbers: the environment's observation.

Built from ``PlayerView`` only, so it holds nothing the seat may not know. Seats are
relative to the observer (0 itself, 1 its left, 2 its partner, 3 its right): a policy
learned in one seat plays in any. Most fields are 0/1 (card sets as 54 slots by card
code, small numbers one-hot); they are packed into one integer and unpacked by numpy in
one call, which keeps an observation cheap. A few numbers without a small range
(scores, points taken) follow as scaled values. ``docs/env.md`` lists every field.
"""

from __future__ import annotations

import numpy as np

from ..actions import StockMove
from ..cards import DECK_SIZE, CardMask
from ..views import PlayerView

BINARY_FIELDS: tuple[tuple[str, int], ...] = (
    ("phase", 8),
    ("hand", DECK_SIZE),
    ("chosen", DECK_SIZE),
    ("look_card", DECK_SIZE),
    ("dealer", 4),
    ("bids", 4 * 12),
    ("bidder", 4),
    ("bid", 10),
    ("trump", 4),
    ("centre", DECK_SIZE),
    ("discarded_down", 4 * DECK_SIZE),
    ("picked", 4 * DECK_SIZE),
    ("trick", 4 * DECK_SIZE),
    ("leader", 4),
    ("played", 4 * DECK_SIZE),
    ("seen_gone", DECK_SIZE),
    ("jokers_played", 3),
    ("hand_sizes", 4 * 10),
    ("fill_sizes", 4 * 7),
)
"""(name, width) of each 0/1 field, in order (``docs/env.md`` says what each holds)."""

SCALAR_FIELDS: tuple[tuple[str, int, float, float], ...] = (
    ("scores", 2, -1.0, 2.0),
    ("taken", 2, 0.0, 1.0),
    ("hand_number", 1, 0.0, 1.0),
    ("stock_size", 1, 0.0, 1.0),
    ("look_remaining", 1, 0.0, 1.0),
    ("stock_takes", 4, 0.0, 1.0),
)
"""(name, width, lowest, highest) of each scaled field, after the 0/1 fields."""

OFFSET: dict[str, int] = {}
_at = 0
for _name, _width in BINARY_FIELDS:
    OFFSET[_name] = _at
    _at += _width
BINARY_SIZE = _at
for _name, _width, _low, _high in SCALAR_FIELDS:
    OFFSET[_name] = _at
    _at += _width
OBSERVATION_SIZE = _at

LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
HIGH = np.ones(OBSERVATION_SIZE, dtype=np.float32)
for _name, _width, _low, _high in SCALAR_FIELDS:
    LOW[OFFSET[_name] : OFFSET[_name] + _width] = _low
    HIGH[OFFSET[_name] : OFFSET[_name] + _width] = _high

_BYTES = (BINARY_SIZE + 7) // 8
_HAND_CARDS = 18
"""Cards in the stock after the deal: the scale of ``stock_size`` and ``look_remaining``."""


_PHASE, _HAND, _CHOSEN, _LOOK_CARD, _DEALER, _BIDS, _BIDDER, _BID, _TRUMP, _CENTRE = (
    OFFSET[name]
    for name in (
        "phase",
        "hand",
        "chosen",
        "look_card",
        "dealer",
        "bids",
        "bidder",
        "bid",
        "trump",
        "centre",
    )
)
_DOWN, _PICKED, _TRICK, _LEADER, _PLAYED, _SEEN_GONE, _JOKERS, _SIZES = (
    OFFSET[name]
    for name in (
        "discarded_down", "picked", "trick", "leader", "played", "seen_gone", "jokers_played",
        "hand_sizes",
    )
)  # fmt: skip
_FILL_AFTER_HAND = OFFSET["fill_sizes"] - OFFSET["hand_sizes"]
_RELATIVE = tuple(tuple((seat - me) & 3 for seat in range(4)) for me in range(4))
"""``_RELATIVE[me][seat]``: where ``seat`` sits from ``me``'s side (0 me, 1 left, 2 partner)."""
_FROM = tuple(tuple((me + step) & 3 for step in range(4)) for me in range(4))
"""``_FROM[me]``: the seats in relative order (me, left, partner, right)."""
_BID_BITS: dict[tuple, int] = {}
"""Memo of the bids field: every decision after the bidding repeats its history. Bounded:
bids only rise, so there are some tens of thousands of histories by seat and dealer."""


def encode(view: PlayerView, chosen: CardMask = 0) -> np.ndarray:
    """``view`` as a ``float32`` vector of ``OBSERVATION_SIZE``; ``chosen`` is the part of
    a discard or pick-up already chosen (``DecisionSteps.chosen``)."""
    me = view.seat
    relative = _RELATIVE[me]
    first, left, across, right = _FROM[me]
    bits = (
        1 << _PHASE + view.phase | view.hand << _HAND | chosen << _CHOSEN | view.centre << _CENTRE
    )
    if view.look_card is not None:
        bits |= 1 << _LOOK_CARD + view.look_card
    bits |= 1 << _DEALER + relative[view.dealer] | 1 << _JOKERS + view.jokers_played
    key = (me, view.bids)
    bid_bits = _BID_BITS.get(key)
    if bid_bits is None:
        slots = [0, 0, 0, 0]  # per relative seat: 0 not yet, 1 pass, 2-11 bids 4-13
        for seat, amount in view.bids:
            slots[relative[seat]] = amount - 2 if amount else 1
        bid_bits = _BID_BITS[key] = sum(
            1 << _BIDS + 12 * at + slot for at, slot in enumerate(slots)
        )
    bits |= bid_bits
    if view.bidder >= 0:
        bits |= 1 << _BIDDER + relative[view.bidder] | 1 << _BID + view.bid - 4
    if view.trump >= 0:
        bits |= 1 << _TRUMP + view.trump
    if view.leader >= 0:
        bits |= 1 << _LEADER + relative[view.leader]
    down, picked = view.discarded_down, view.picked
    bits |= (down[first] | down[left] << 54 | down[across] << 108 | down[right] << 162) << _DOWN | (
        picked[first] | picked[left] << 54 | picked[across] << 108 | picked[right] << 162
    ) << _PICKED
    trick = played = 0  # small integers first, shifted into place once
    for seat, card in view.trick:
        trick |= 1 << 54 * relative[seat] + card
    for done in view.tricks:
        for seat, card in done.plays:
            played |= 1 << 54 * relative[seat] + card
    bits |= trick << _TRICK | played << _PLAYED
    takes = [0, 0, 0, 0]
    for event in view.look:
        if event.move is StockMove.TAKE:
            takes[relative[event.seat]] += 1
        if event.seat == me and event.move is not StockMove.STOP:
            gone = event.give_up if event.move is StockMove.TAKE else event.card
            bits |= 1 << _SEEN_GONE + gone  # type: ignore[operator]
    sizes, hand_sizes, fill_sizes = 0, view.hand_sizes, view.fill_sizes
    for seat in range(4):
        at = relative[seat]
        sizes |= 1 << 10 * at + hand_sizes[seat] | 1 << _FILL_AFTER_HAND + 7 * at + fill_sizes[seat]
    bits |= sizes << _SIZES
    packed = np.frombuffer(bits.to_bytes(_BYTES, "little"), dtype=np.uint8)
    observation = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    observation[:BINARY_SIZE] = np.unpackbits(packed, count=BINARY_SIZE, bitorder="little")
    team, target = me & 1, view.options.target
    observation[BINARY_SIZE:] = (
        min(2.0, max(-1.0, view.scores[team] / target)),
        min(2.0, max(-1.0, view.scores[1 - team] / target)),
        view.taken[team] / 13,
        view.taken[1 - team] / 13,
        view.hand_number / view.options.hand_cap,
        view.stock_size / _HAND_CARDS,
        view.look_remaining / _HAND_CARDS,
        min(1.0, takes[0] / 9),
        min(1.0, takes[1] / 9),
        min(1.0, takes[2] / 9),
        min(1.0, takes[3] / 9),
    )
    return observation
