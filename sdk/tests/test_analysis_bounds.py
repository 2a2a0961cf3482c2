"""The sure points that bound the solver's search, against the exhaustive search."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_sdk.actions import Decision
from pitch_sdk.analysis import exhaustive_solve
from pitch_sdk.analysis.bounds import mid_trick_bounds, sure_points, trick_start_bounds
from pitch_sdk.analysis.position import slot_position
from pitch_sdk.analysis.samples import first_lead
from pitch_sdk.rules import GameState

ACE, KING, TEN, FIVE, FOUR, THREE, SEVEN, SIX = 16, 15, 9, 4, 3, 2, 6, 5


def slots(*strengths: int) -> int:
    return sum(1 << strength for strength in strengths)


def played_on(seed: int, most_trumps: bool, plays: int) -> GameState | None:
    """A random hand at its first lead played on at random, or None once it is over or
    too long for a quick exhaustive search."""
    rng = random.Random(seed)
    state = first_lead(rng, most_trumps)
    for _ in range(plays):
        if state.decision() is not Decision.PLAY:
            return None
        state.push(rng.choice(state.legal_actions()))
    if state.decision() is not Decision.PLAY:
        return None
    if sum(state.trumps_held(seat).bit_count() for seat in range(4)) > 12:
        return None
    return state


def team0_value(state: GameState) -> int:
    """Team 0's points from ``state`` on, as the slot search counts them (no deuce)."""
    constant = slot_position(state).constant_team0
    return exhaustive_solve(state).taken[0] - state.taken[0] - constant


SETTINGS = settings(max_examples=300, deadline=None)
POSITIONS = given(
    seed=st.integers(0, 2**32 - 1), most_trumps=st.booleans(), plays=st.integers(0, 12)
)


@POSITIONS
@SETTINGS
def test_the_bounds_hold_the_exhaustive_result_at_a_trick_start(
    seed: int, most_trumps: bool, plays: int
) -> None:
    state = played_on(seed, most_trumps, plays)
    if state is None or state.trick:
        return
    low, high = trick_start_bounds(list(slot_position(state).hands))
    assert low <= team0_value(state) <= high


@POSITIONS
@SETTINGS
def test_the_bounds_hold_the_exhaustive_result_in_a_trick(
    seed: int, most_trumps: bool, plays: int
) -> None:
    state = played_on(seed, most_trumps, plays)
    if state is None or not state.trick:
        return
    position = slot_position(state)
    low, high = mid_trick_bounds(
        list(position.hands), position.queue, 0, *position.best, position.trick_points
    )
    assert low <= team0_value(state) <= high


def test_a_team_with_a_winner_for_every_trick_takes_every_card_played_to_them() -> None:
    hands = [slots(ACE, KING), slots(THREE, TEN), slots(FOUR, FIVE), slots(SIX, SEVEN)]
    assert trick_start_bounds(hands) == (5, 5)


def test_a_seat_that_outlasts_the_other_team_keeps_its_best_cards() -> None:
    # Seat 0 holds three cards against one-card hands: two tricks' worth are kept.
    assert sure_points(slots(FOUR, THREE, TEN), 0, slots(KING), 0) == 4


def test_a_trick_no_card_to_come_can_take_counts_for_the_team_holding_it() -> None:
    # Seat 0 led the ace with the three of trumps already under it; seats 1-3 follow.
    hands = [slots(KING), slots(SIX), slots(FOUR), slots(SEVEN)]
    assert mid_trick_bounds(hands, (0, 1, 2, 3), 1, ACE, 0, 1 + 3) == (4, 4)
