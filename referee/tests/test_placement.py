"""A bot's place on the reference scale from its bouts (``pitch_referee.placement``)."""

from __future__ import annotations

import math

import pytest

from pitch_referee.placement import Bout, Verdict, place
from pitch_sdk.reference.scale import Rung

RANDOM = Rung("random", 0, 0, 0, "Bronze")
BEGINNER = Rung("beginner", 500, 450, 550, "Silver")
GREEDY = Rung("greedy", 1000, 950, 1050, "Gold")


def test_an_even_score_against_one_opponent_is_its_rating():
    placement = place([Bout(RANDOM, 40, 20, Verdict.UNDECIDED)])
    assert placement.rating == pytest.approx(0, abs=0.2)
    assert placement.low == pytest.approx(-placement.high, abs=0.2) and placement.high > 50
    assert placement.league == "Wood"


def test_the_league_is_that_of_the_last_opponent_beaten_before_the_first_not_beaten():
    bouts = [Bout(RANDOM, 16, 16, Verdict.BEATEN), Bout(BEGINNER, 30, 8, Verdict.LOST)]
    placement = place(bouts)
    assert placement.league == "Bronze"
    assert 0 < placement.low < placement.rating < placement.high < 500


def test_a_bot_that_won_every_game_has_no_upper_bound_but_a_finite_lower_one():
    placement = place(
        [Bout(RANDOM, 16, 16, Verdict.BEATEN), Bout(BEGINNER, 20, 20, Verdict.BEATEN)]
    )
    assert placement.rating == placement.high == math.inf
    assert BEGINNER.rating < placement.low < math.inf
    assert placement.league == "Silver"


def test_more_games_narrow_the_interval():
    few = place([Bout(GREEDY, 20, 12, Verdict.UNDECIDED)])
    many = place([Bout(GREEDY, 200, 120, Verdict.UNDECIDED)])
    assert few.rating == pytest.approx(many.rating, abs=0.5)
    assert many.high - many.low < (few.high - few.low) / 2
