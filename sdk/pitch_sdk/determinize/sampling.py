"""Sampling: one try at the hidden slots, by stage of the hand.

The stages before the fill are simple enough to sample here; after the fill the work is
done by ``after_fill._AfterFill``.
"""

from __future__ import annotations

import random

from ..cards import SEATS
from .after_fill import _AfterFill
from .bits import ALL_MASK, LOW_JOKER_BIT, _mask
from .deal import _deck_order, _shuffled
from .model import _Facts, _Stage, _World


def _sample_world(facts: _Facts, rng: random.Random, *, strict: bool) -> _World | None:
    """One try: a world, or ``None`` when a strict constraint failed (try again)."""
    if facts.stage is _Stage.UNDEALT:
        return _World(hands=[0, 0, 0, 0])
    if facts.stage is _Stage.BIDDING:
        return _sample_bidding(facts, rng)
    if facts.stage is _Stage.BEFORE_FILL:
        return _sample_before_fill(facts, rng, strict=strict)
    return _AfterFill(facts, rng, strict).sample()


def _sample_bidding(facts: _Facts, rng: random.Random) -> _World:
    """Before trumps nothing is known but the seat's own nine cards."""
    view = facts.view
    pool = _shuffled(ALL_MASK & ~view.hand, rng)
    hands = [0, 0, 0, 0]
    hands[facts.me] = view.hand
    for seat in facts.hidden:
        size = view.hand_sizes[seat]
        hands[seat], pool = _mask(pool[:size]), pool[size:]
    stock = tuple(pool)
    return _World(hands=hands, stock=stock, deck=_deck_order(facts.dealer, hands, stock))


def _sample_before_fill(facts: _Facts, rng: random.Random, *, strict: bool) -> _World | None:
    """After trumps and before the fill every hand holds only trumps; the stock the rest."""
    view = facts.view
    picked = 0
    for seat in SEATS:
        picked |= view.picked[seat]
    pool = ALL_MASK & ~(view.centre | picked | view.hand)
    trumps = _shuffled(pool & facts.trumps, rng)
    hands = [0, 0, 0, 0]
    hands[facts.me] = view.hand
    for seat in facts.hidden:
        need = view.hand_sizes[seat] - view.picked[seat].bit_count()
        hands[seat] = view.picked[seat] | _mask(trumps[:need])
        trumps = trumps[need:]
        if strict and seat in facts.no_low_joker_in_kept and hands[seat] & LOW_JOKER_BIT:
            return None
    stock = (pool & ~facts.trumps) | _mask(trumps)
    stock_order = tuple(_shuffled(stock, rng))
    dealt = [
        view.discarded[seat] | view.discarded_down[seat] | (hands[seat] & ~view.picked[seat])
        for seat in SEATS
    ]
    return _World(
        hands=hands, stock=stock_order, deck=_deck_order(facts.dealer, dealt, stock_order)
    )
