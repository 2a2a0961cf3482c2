"""``play_values``: every legal card of a position valued double-dummy, the values a
card's cost (``play_costs``) and the duplicate comparison's analysis are measured by."""

from __future__ import annotations

import random

import pytest

from pitch_sdk.analysis import solve
from pitch_sdk.analysis.costs import play_values
from pitch_sdk.analysis.samples import first_lead
from pitch_sdk.cards import TEAM_OF
from pitch_sdk.deck import shuffled_deck
from pitch_sdk.rules import GameState


@pytest.mark.parametrize("seed", range(5))
def test_each_legal_card_is_valued_and_the_best_is_the_positions_value(seed: int) -> None:
    state = first_lead(random.Random(seed))
    values = play_values(state)
    assert set(values) == set(state.legal_actions())
    team = TEAM_OF[state.current_seat()]
    assert max(values.values()) == solve(state).taken[team]
    for action, value in values.items():
        after = state.copy()
        after.advance(action)
        assert value == solve(after).taken[team]


def test_a_position_outside_the_play_is_refused_in_one_line() -> None:
    state = GameState()
    state.deal(shuffled_deck(random.Random(1)))
    with pytest.raises(ValueError, match="no card is to be played: the hand is in bid"):
        play_values(state)
