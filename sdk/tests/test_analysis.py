"""The double-dummy solver against the plain exhaustive search, and its refusals.

Positions are random hands (half with the trump suit that puts the most trumps in play,
so floating jokers, long runs and team-outs are common) played on at random; every
position with at most ``LATE_CARDS`` trumps left in the hands is solved both ways, so
each hand gives several positions, from a trick's lead and from its middle.
``PITCH_ANALYSIS_POSITIONS`` sets how many (10,000 by default).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from itertools import islice

import pytest

from pitch_sdk.actions import Decision
from pitch_sdk.analysis import Solver, exhaustive_solve, solve
from pitch_sdk.analysis.costs import play_costs
from pitch_sdk.analysis.samples import first_lead
from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.replay import Step, replay
from pitch_sdk.rules import GameState
from pitch_sdk.selfplay import play_game

POSITIONS = int(os.environ.get("PITCH_ANALYSIS_POSITIONS", "10000"))
LATE_CARDS = 12


def late_positions(rng: random.Random) -> Iterator[GameState]:
    """Positions of random hands once few trumps are left, played on at random."""
    hand = 0
    while True:
        state = first_lead(rng, most_trumps=hand % 2 == 0)
        hand += 1
        while state.decision() is Decision.PLAY:
            if sum(state.trumps_held(seat).bit_count() for seat in range(4)) <= LATE_CARDS:
                yield state
            state.push(rng.choice(state.legal_actions()))


def test_the_solver_finds_the_exhaustive_result_on_random_positions() -> None:
    rng = random.Random(22)
    for state in islice(late_positions(rng), POSITIONS):
        fast, exact = solve(state), exhaustive_solve(state)
        assert (fast.taken, fast.made, fast.bidding_score) == (
            exact.taken,
            exact.made,
            exact.bidding_score,
        ), state


def test_every_cards_outcome_from_one_search_is_the_exhaustive_result_after_it() -> None:
    rng = random.Random(23)
    shared = Solver()  # its tables carried from position to position must not change a value
    for state in islice(late_positions(rng), POSITIONS // 10):
        for solver in (Solver(), shared):
            outcomes = solver.card_outcomes(state)
            assert set(outcomes) == {action.card for action in state.legal_actions()}
            for action in state.legal_actions():
                after = state.copy()
                after.advance(action)
                if after.decision() is Decision.PLAY:  # (a hand's last card ends it)
                    assert outcomes[action.card].taken == exhaustive_solve(after).taken, state


def test_a_hand_not_in_its_play_is_refused_with_the_reason() -> None:
    state = GameState()
    state.deal(range(54))
    with pytest.raises(ValueError, match="no card is to be played: the hand is in bid"):
        solve(state)
    with pytest.raises(ValueError, match="no card is to be played"):
        exhaustive_solve(state)


def test_a_cards_cost_is_what_its_team_loses_against_the_positions_value() -> None:
    game = play_game([GreedyBot() for _ in range(4)], seed=5, options=RuleOptions(hand_cap=3))
    steps = {(step.hand, step.index): step for step in replay(game) if isinstance(step, Step)}
    costs = list(play_costs(game))
    assert costs
    for cost in costs:
        before = steps[cost.hand, cost.index].before
        assert cost.value + cost.cost == solve(before).taken[cost.seat % 2]
        assert (cost.cost == 0) == (cost.played in cost.best)
