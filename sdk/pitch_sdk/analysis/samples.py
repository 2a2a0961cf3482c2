"""Random positions at the first lead, for the solver's tests and benchmark.

A random deal is taken through the bidding, trumps, discards and the stock with random
legal decisions. Random trumps leave about a dozen trumps in play; naming instead the
suit with the most trumps in the four hands gives the heavy hands (up to all 17 trumps)
where search is hardest.
"""

from __future__ import annotations

import random

from ..actions import Decision, NameTrump
from ..cards import SUITS, TRUMPS
from ..deck import shuffled_deck
from ..rules import GameState


def first_lead(rng: random.Random, most_trumps: bool = False) -> GameState:
    """A random hand at its first lead; with ``most_trumps``, trumps are the suit that puts
    the most trumps in the hands."""
    while True:  # a rare hand ends before its first lead (a team dealt no trump)
        state = GameState()
        state.deal(shuffled_deck(rng))
        while state.decision() not in (Decision.PLAY, None):
            if most_trumps and state.decision() is Decision.TRUMP:
                held = state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]
                state.apply(
                    NameTrump(max(SUITS, key=lambda suit: (held & TRUMPS[suit]).bit_count()))
                )
            else:
                state.apply(rng.choice(state.legal_actions()))
        if state.decision() is Decision.PLAY:
            return state
