"""The sure points that bound the solver's search, against the exhaustive search."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_sdk.actions import Decision
from pitch_sdk.analysis import exhaustive_solve
from pitch_sdk.analysis.bounds import sure_points, trick_start_bounds
from pitch_sdk.analysis.position import slot_position
from pitch_sdk.analysis.samples import first_lead

ACE, KING, TEN, FIVE, FOUR, THREE, SEVEN, SIX = 16, 15, 9, 4, 3, 2, 6, 5


def slots(*strengths: int) -> int:
    return sum(1 << strength for strength in strengths)


@given(
    seed=st.integers(0, 2**32 - 1),
    most_trumps=st.booleans(),
    plays=st.integers(0, 12),
)
@settings(max_examples=300, deadline=None)
def test_the_bounds_hold_the_exhaustive_result_at_a_trick_start(
    seed: int, most_trumps: bool, plays: int
) -> None:
    rng = random.Random(seed)
    state = first_lead(rng, most_trumps)
    for _ in range(plays):
        if state.decision() is not Decision.PLAY:
            return
        state.push(rng.choice(state.legal_actions()))
    position = slot_position(state)
    if state.decision() is not Decision.PLAY or position.best[1] >= 0:
        return
    if sum(hand.bit_count() for hand in position.hands) > 12:
        return  # keep the exhaustive search quick
    low, high = trick_start_bounds(list(position.hands))
    value = exhaustive_solve(state).taken[0] - state.taken[0] - position.constant_team0
    assert low <= value <= high


def test_a_team_with_a_winner_for_every_trick_takes_every_card_played_to_them() -> None:
    hands = [slots(ACE, KING), slots(THREE, TEN), slots(FOUR, FIVE), slots(SIX, SEVEN)]
    assert trick_start_bounds(hands) == (5, 5)


def test_a_seat_that_outlasts_the_other_team_keeps_its_best_cards() -> None:
    # Seat 0 holds three cards against one-card hands: two tricks' worth are kept.
    assert sure_points(slots(FOUR, THREE, TEN), 0, slots(KING), 0) == 4
