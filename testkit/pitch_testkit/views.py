"""Real positions of every kind of decision, for the search bots' tests."""

from __future__ import annotations

import random
from functools import cache

from pitch_sdk.actions import Decision
from pitch_sdk.bots import GreedyBot
from pitch_sdk.rules import CHANCE, GameState
from pitch_sdk.views import PlayerView


@cache
def views_of_every_kind() -> dict[Decision, tuple[PlayerView, ...]]:
    """A few positions of each kind of decision from seeded greedy games (discards and
    pick-ups are rare, so games are played until some turn up)."""
    found: dict[Decision, list[PlayerView]] = {kind: [] for kind in Decision}
    rng = random.Random(14)
    game = 0
    while not all(found.values()) and game < 400:
        state, bots = GameState(first_dealer=game % 4), [GreedyBot(seat) for seat in range(4)]
        while not state.is_over():
            if state.current_seat() == CHANCE:
                deck = list(range(54))
                rng.shuffle(deck)
                state.deal(deck)
                continue
            view = state.view(state.current_seat())
            if len(view.legal_actions) > 1 and len(found[view.decision]) < 3:
                found[view.decision].append(view)
            state.apply(bots[state.current_seat()].decide(view))
        game += 1
    return {kind: tuple(views) for kind, views in found.items()}
