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
"""Where each field starts in an observation, by name."""
_at = 0
for _name, _width in BINARY_FIELDS:
    OFFSET[_name] = _at
    _at += _width
BINARY_SIZE = _at
"""The number of 0/1 values, which come first."""
for _name, _width, _low, _high in SCALAR_FIELDS:
    OFFSET[_name] = _at
    _at += _width
OBSERVATION_SIZE = _at
"""The length of an observation vector."""

LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
"""The lowest value of each position of an observation (the space's bounds)."""
HIGH = np.ones(OBSERVATION_SIZE, dtype=np.float32)
"""The highest value of each position of an observation."""
for _name, _width, _low, _high in SCALAR_FIELDS:
    LOW[OFFSET[_name] : OFFSET[_name] + _width] = _low
    HIGH[OFFSET[_name] : OFFSET[_name] + _width] = _high

_BYTES = (OBSERVATION_SIZE + 7) // 8
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
_DOWN, _PICKED, _TRICK, _LEADER, _PLAYED, _SEEN_GONE, _JOKERS = (
    OFFSET[name]
    for name in (
        "discarded_down", "picked", "trick", "leader", "played", "seen_gone", "jokers_played",
    )
)  # fmt: skip
_HAND_SIZES_AT = OFFSET["hand_sizes"] - OFFSET["jokers_played"]
_FILL_SIZES_AT = OFFSET["fill_sizes"] - OFFSET["jokers_played"]
"""Where the size fields start, from the jokers' field (``encode`` builds them together)."""
_RELATIVE = tuple(tuple((seat - me) & 3 for seat in range(4)) for me in range(4))
"""``_RELATIVE[me][seat]``: where ``seat`` sits from ``me``'s side (0 me, 1 left, 2 partner)."""
_FROM = tuple(tuple((me + step) & 3 for step in range(4)) for me in range(4))
"""``_FROM[me]``: the seats in relative order (me, left, partner, right)."""
_BID_BITS: dict[tuple[int, tuple[tuple[int, int], ...]], int] = {}
"""Memo of the bids field: every decision after the bidding repeats its history. Bounded:
bids only rise, so there are some tens of thousands of histories by seat and dealer."""


def encode(view: PlayerView, chosen: CardMask = 0) -> np.ndarray:
    """``view`` as a ``float32`` vector of ``OBSERVATION_SIZE``; ``chosen`` is the part of
    a discard or pick-up already chosen (``DecisionSteps.chosen``).

    The 0/1 fields are gathered in a few small integers, each shifted into place once
    (an operation on the whole 1,287-bit integer costs several on a small one)."""
    me = view.seat
    relative = _RELATIVE[me]
    low = (  # every field below the centre's end: under 300 bits
        1 << _PHASE + view.phase
        | view.hand << _HAND
        | chosen << _CHOSEN
        | view.centre << _CENTRE
        | 1 << _DEALER + relative[view.dealer]
        | _bids_field(me, view.bids)
    )
    if view.look_card is not None:
        low |= 1 << _LOOK_CARD + view.look_card
    if view.bidder >= 0:
        low |= 1 << _BIDDER + relative[view.bidder] | 1 << _BID + view.bid - 4
    if view.trump >= 0:
        low |= 1 << _TRUMP + view.trump
    trick = 0  # the trick in progress and its leader, from the trick field's start
    for seat, card in view.trick:
        trick |= 1 << 54 * relative[seat] + card
    if view.leader >= 0:
        trick |= 1 << _LEADER - _TRICK + relative[view.leader]
    tail = 1 << view.jokers_played  # the jokers played and the sizes, from the jokers' start
    hand_sizes, fill_sizes = view.hand_sizes, view.fill_sizes
    for seat in range(4):
        at = relative[seat]
        tail |= 1 << _HAND_SIZES_AT + 10 * at + hand_sizes[seat]
        tail |= 1 << _FILL_SIZES_AT + 7 * at + fill_sizes[seat]
    seen_gone, takes = _look_fields(view, me)
    bits = low | trick << _TRICK | tail << _JOKERS | _cards_gone(view, me) | seen_gone
    packed = np.frombuffer(bits.to_bytes(_BYTES, "little"), dtype=np.uint8)
    # Unpacked to the whole length (the scaled numbers' places 0), then made floats: one
    # numpy call fewer than filling an empty vector, which is most of the cost here.
    observation = np.unpackbits(packed, count=OBSERVATION_SIZE, bitorder="little")
    observation = observation.astype(np.float32)
    team, target = me & 1, view.options.target
    observation[BINARY_SIZE:] = (
        min(2.0, max(-1.0, view.scores[team] / target)),
        min(2.0, max(-1.0, view.scores[1 - team] / target)),
        view.taken[team] / 13,
        view.taken[1 - team] / 13,
        view.hand_number / view.options.hand_cap,
        view.stock_size / _HAND_CARDS,
        view.look_remaining / _HAND_CARDS,
        *takes,
    )
    return observation


def _bids_field(me: int, bids: tuple[tuple[int, int], ...]) -> int:
    """The ``bids`` field in place: one-hot per relative seat (not yet, pass, 4 ... 13)."""
    key = (me, bids)
    bits = _BID_BITS.get(key)
    if bits is None:
        relative = _RELATIVE[me]
        slots = [0, 0, 0, 0]  # per relative seat: 0 not yet, 1 pass, 2-11 bids 4-13
        for seat, amount in bids:
            slots[relative[seat]] = amount - 2 if amount else 1
        bits = _BID_BITS[key] = sum(1 << _BIDS + 12 * at + slot for at, slot in enumerate(slots))
    return bits


_GONE: list[tuple[object, object, object, int]] = [(None, None, None, 0)] * 4
"""Per seat: the last (discarded_down, picked, tricks) encoded and their bits. The engine
replaces these tuples when they change (a few times a hand) and views share them, so the
same objects mean the same cards: most observations reuse the bits."""


_LOOK: list[tuple[object, int, tuple[float, ...]]] = [(None, 0, ())] * 4
"""Per seat: the last look through the stock encoded, and its fields (``_look_fields``)."""


def _look_fields(view: PlayerView, me: int) -> tuple[int, tuple[float, ...]]:
    """The ``seen_gone`` field in place, and the scaled ``stock_takes`` by relative seat.

    Views of the same look share its tuple of events (``views._look_as_seen``), which
    then holds the whole look until the next deal: the fields are kept per seat and
    reused while it is the same object."""
    look = view.look
    last = _LOOK[me]
    if last[0] is look:
        return last[1], last[2]
    relative = _RELATIVE[me]
    bits, takes = 0, [0, 0, 0, 0]
    for event in look:
        if event.move is StockMove.TAKE:
            takes[relative[event.seat]] += 1
        if event.seat == me and event.move is not StockMove.STOP:
            gone = event.give_up if event.move is StockMove.TAKE else event.card
            bits |= 1 << _SEEN_GONE + gone  # type: ignore[operator]
    scaled = tuple(min(1.0, count / 9) for count in takes)
    _LOOK[me] = (look, bits, scaled)
    return bits, scaled


def _cards_gone(view: PlayerView, me: int) -> int:
    """The ``discarded_down``, ``picked`` and ``played`` fields, in place in the vector."""
    down, picked, tricks = view.discarded_down, view.picked, view.tricks
    last = _GONE[me]
    if last[0] is down and last[1] is picked and last[2] is tricks:
        return last[3]
    relative = _RELATIVE[me]
    first, left, across, right = _FROM[me]
    played = 0  # small integers first, shifted into place once
    for done in tricks:
        for seat, card in done.plays:
            played |= 1 << 54 * relative[seat] + card
    bits = (
        (down[first] | down[left] << 54 | down[across] << 108 | down[right] << 162) << _DOWN
        | (picked[first] | picked[left] << 54 | picked[across] << 108 | picked[right] << 162)
        << _PICKED
        | played << _PLAYED
    )
    _GONE[me] = (down, picked, tricks, bits)
    return bits
