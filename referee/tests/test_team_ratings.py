"""Team ratings: simulated bots of known strength, same-bot teams, draws, resuming, bad input."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import BradleyTerryFull

from pitch_referee.stats import score_from_elo
from pitch_referee.team_ratings import (
    BETA,
    INITIAL_MU,
    INITIAL_SIGMA,
    PRIOR,
    TeamRating,
    TeamRatings,
    rate_games,
)

Game = tuple[tuple[str, str], tuple[str, str], float]

# --- Simulated bots of known strength ---------------------------------------------------

TRUE_SKILL = {
    "a": 1000.0,
    "b": 1040.0,  # close to a
    "c": 1250.0,
    "d": 1300.0,  # c, d and e within 80 of each other
    "e": 1330.0,
    "f": 1600.0,
    "g": 1700.0,
    "h": 1900.0,  # 900 above a
}
"""True skills in Elo points. Their origin is arbitrary: the tests compare gaps only."""

DRAWINESS = 0.1
"""Draws are 10% of games between equal teams, fewer the more lopsided the game."""

ROUNDS = 10
"""Each round is the 420 games of the mixed-partnership format over the eight bots."""


def simulated_result(rng: random.Random, team_a: tuple[str, str], team_b: tuple[str, str]) -> float:
    """Draw A's score from the true model: a team's strength is the mean of its players'.

    A's expected score is Elo's ``score_from_elo(strength_a - strength_b)``. Draws take
    ``DRAWINESS * 2 * min(expected, 1 - expected)`` of the games, half from each side's wins,
    so the expected score stays Elo's and the true gaps are the gaps a rating should find.
    """
    strength_a = sum(TRUE_SKILL[key] for key in team_a) / 2
    strength_b = sum(TRUE_SKILL[key] for key in team_b) / 2
    expected = score_from_elo(strength_a - strength_b)
    draw = DRAWINESS * 2 * min(expected, 1 - expected)
    u = rng.random()
    if u < expected - draw / 2:
        return 1.0
    if u < expected + draw / 2:
        return 0.5
    return 0.0


def mixed_partnership_round() -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Every quartet's three partnerships (AB-CD, AC-BD, AD-BC), each with the teams swapped."""
    pairings = []
    for a, b, c, d in itertools.combinations(sorted(TRUE_SKILL), 4):
        for team_1, team_2 in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            pairings += [(team_1, team_2), (team_2, team_1)]
    return pairings


def simulated_games(seed: int, rounds: int = ROUNDS) -> list[Game]:
    """``rounds`` mixed-partnership rounds, each in a shuffled order, with simulated results."""
    rng = random.Random(seed)
    games: list[Game] = []
    for _ in range(rounds):
        pairings = mixed_partnership_round()
        rng.shuffle(pairings)
        games += [(a, b, simulated_result(rng, a, b)) for a, b in pairings]
    return games


def gap_sigma(ratings: TeamRatings[str], i: str, j: str) -> float:
    """Standard deviation of ``mu_i - mu_j``, taken as ``sqrt(sigma_i**2 + sigma_j**2)``.

    That treats the two ratings' errors as independent. They are positively correlated
    (both carry the uncertainty of the common level), so the gap is known better than this
    and the intervals built on it are a little conservative.
    """
    return math.hypot(ratings[i].sigma, ratings[j].sigma)


def test_mixed_partnership_round_seats_every_bot_with_and_against_every_other() -> None:
    pairings = mixed_partnership_round()
    assert len(pairings) == 420  # 70 quartets, 3 partnerships, 2 orders
    partners = {frozenset(team) for pairing in pairings for team in pairing}
    assert partners == {frozenset(pair) for pair in itertools.combinations(TRUE_SKILL, 2)}


def test_fitted_gaps_match_true_gaps_within_three_combined_sigmas() -> None:
    games = simulated_games(seed=1)
    assert 0 < sum(score == 0.5 for _, _, score in games) < len(games) / 10
    ratings = rate_games(games)
    for i, j in itertools.combinations(TRUE_SKILL, 2):
        fitted = ratings[i].mu - ratings[j].mu
        true = TRUE_SKILL[i] - TRUE_SKILL[j]
        # Three sigmas, not two: 28 gaps at 95% each would miss one about every other run
        # by chance; the calibration test below checks the two-sigma intervals on average.
        assert abs(fitted - true) <= 3 * gap_sigma(ratings, i, j), (i, j, fitted, true)
    # The intervals are narrow enough to mean something: every gap known to ±212 or better
    # (3 * sqrt(2) * 50), against true gaps of 30 to 900.
    assert all(rating.sigma < 50 for _, rating in ratings.items())


def test_fitted_order_matches_true_order_where_gaps_exceed_intervals() -> None:
    ratings = rate_games(simulated_games(seed=2))
    decided = 0
    for i, j in itertools.combinations(TRUE_SKILL, 2):
        true = TRUE_SKILL[i] - TRUE_SKILL[j]
        if abs(true) > 2 * gap_sigma(ratings, i, j):
            decided += 1
            assert (ratings[i].mu - ratings[j].mu) * true > 0, (i, j)
    assert decided >= 20  # all but the close pairs (a-b, c-d, c-e, d-e, f-g)
    assert [key for key, _ in ratings.ranked()][:2] == ["h", "g"]
    assert {key for key, _ in ratings.ranked()[-2:]} == {"a", "b"}


def test_standardized_gap_errors_have_mean_square_near_one() -> None:
    """The intervals are honest: neither too narrow (mean square >> 1) nor too wide (<< 1).

    Over four runs, the squared error of each gap over its variance averages about 0.7 (the
    combined sigma is a little conservative, see ``gap_sigma``); intervals off by a factor
    of two would give about 2.8 or 0.17.
    """
    squares = []
    for seed in range(10, 14):
        ratings = rate_games(simulated_games(seed))
        for i, j in itertools.combinations(TRUE_SKILL, 2):
            error = ratings[i].mu - ratings[j].mu - (TRUE_SKILL[i] - TRUE_SKILL[j])
            squares.append((error / gap_sigma(ratings, i, j)) ** 2)
    assert 0.35 < sum(squares) / len(squares) < 1.5
    covered = sum(square <= 4 for square in squares) / len(squares)
    assert covered >= 0.88  # the shown two-sigma interval covers the truth


def test_same_bot_teams_recover_the_elo_gap() -> None:
    """(X, X) against (Y, Y) only: the fitted gap is the Elo gap that made the results."""
    rng = random.Random(3)
    expected = score_from_elo(400)  # 10 to 1
    games: list[Game] = []
    for n in range(2000):
        score = 1.0 if rng.random() < expected else 0.0
        games.append(
            (("x", "x"), ("y", "y"), score) if n % 2 else (("y", "y"), ("x", "x"), 1 - score)
        )
    ratings = rate_games(games)
    gap = ratings["x"].mu - ratings["y"].mu
    assert abs(gap - 400) <= 2 * gap_sigma(ratings, "x", "y")
    assert ratings["x"].games == ratings["y"].games == 2000


# --- Same-bot teams -----------------------------------------------------------------------


def test_same_bot_team_winner_goes_up_loser_down_once_each() -> None:
    ratings: TeamRatings[str] = TeamRatings()
    ratings.rate(("x", "x"), ("y", "y"), 1.0)
    assert ratings["x"].mu > INITIAL_MU > ratings["y"].mu
    assert ratings["x"].games == ratings["y"].games == 1
    assert ratings["x"].sigma < INITIAL_SIGMA and ratings["y"].sigma < INITIAL_SIGMA


def test_same_bot_team_results_give_symmetric_changes() -> None:
    won: TeamRatings[str] = TeamRatings()
    won.rate(("x", "x"), ("y", "y"), 1.0)
    lost: TeamRatings[str] = TeamRatings()
    lost.rate(("x", "x"), ("y", "y"), 0.0)
    gain = won["x"].mu - INITIAL_MU
    assert gain > 0
    assert won["y"].mu - INITIAL_MU == pytest.approx(-gain, rel=1e-12)
    assert lost["x"].mu - INITIAL_MU == pytest.approx(-gain, rel=1e-12)
    assert lost["y"].mu - INITIAL_MU == pytest.approx(gain, rel=1e-12)
    assert won["x"].sigma == won["y"].sigma == lost["x"].sigma == lost["y"].sigma


def test_same_bot_game_is_one_elo_scale_update_of_the_bot() -> None:
    """(X, X) against (Y, Y) updates X as a one-player game of X against Y would.

    Both seats are one skill, so the team is X's rating counted twice, doubt included; the
    bot is then updated once, exactly as openskill updates X alone against Y when the
    per-player spread is halved (``BETA / 2``: one player's rating is the team's mean).
    Two independent copies of X would shrink its sigma only half as fast.
    """
    solo = BradleyTerryFull(mu=INITIAL_MU, sigma=INITIAL_SIGMA, beta=BETA / 2, tau=0.0)
    x, y = solo.rating(1620.0, 80.0), solo.rating(1480.0, 120.0)
    ratings = TeamRatings({"x": TeamRating(1620.0, 80.0, 5), "y": TeamRating(1480.0, 120.0, 7)})
    for score, ranks in ((1.0, [0, 1]), (0.5, [0, 0]), (0.0, [1, 0])):
        [[x], [y]] = solo.rate([[x], [y]], ranks=ranks)
        ratings.rate(("x", "x"), ("y", "y"), score)
        assert ratings["x"].mu == pytest.approx(x.mu, rel=1e-12)
        assert ratings["x"].sigma == pytest.approx(x.sigma, rel=1e-12)
        assert ratings["y"].mu == pytest.approx(y.mu, rel=1e-12)
        assert ratings["y"].sigma == pytest.approx(y.sigma, rel=1e-12)
    assert (ratings["x"].games, ratings["y"].games) == (8, 10)


def test_same_bot_team_against_a_mixed_team_updates_each_bot_once() -> None:
    ratings: TeamRatings[str] = TeamRatings()
    ratings.rate(("x", "x"), ("b", "c"), 0.0)
    assert ratings["x"].mu < INITIAL_MU < ratings["b"].mu == ratings["c"].mu
    assert [rating.games for _, rating in ratings.items()] == [1, 1, 1]


# --- Draws ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("team_a", "team_b"), [(("x", "x"), ("y", "y")), (("a", "b"), ("c", "d"))])
def test_draw_between_equal_teams_keeps_mu_and_shrinks_sigma(
    team_a: tuple[str, str], team_b: tuple[str, str]
) -> None:
    ratings: TeamRatings[str] = TeamRatings()
    ratings.rate(team_a, team_b, 0.5)
    for key in {*team_a, *team_b}:
        assert ratings[key].mu == pytest.approx(INITIAL_MU, abs=1e-9)
        assert ratings[key].sigma < INITIAL_SIGMA


def test_draw_against_a_stronger_team_raises_the_weaker() -> None:
    ratings = TeamRatings({"x": TeamRating(1700.0, 100.0, 9), "y": TeamRating(1300.0, 100.0, 9)})
    ratings.rate(("x", "x"), ("y", "y"), 0.5)
    assert ratings["x"].mu < 1700.0 and ratings["y"].mu > 1300.0


# --- Resuming from stored ratings -------------------------------------------------------------


@pytest.mark.parametrize("split", [0, 1, 137, 419, 420])
def test_resuming_from_stored_ratings_equals_rating_all_games_at_once(split: int) -> None:
    games = simulated_games(seed=4, rounds=1)
    games += [(("a", "a"), ("h", "h"), 0.0), (("b", "b"), ("c", "d"), 0.5)]
    at_once = rate_games(games)
    first = rate_games(games[:split])
    stored = {key: (rating.mu, rating.sigma, rating.games) for key, rating in first.items()}
    resumed = rate_games(games[split:], known={k: TeamRating(*v) for k, v in stored.items()})
    assert dict(resumed.items()) == dict(at_once.items())  # exactly: the state is just these


def test_unknown_bot_has_the_prior_and_is_not_added() -> None:
    ratings = TeamRatings({"x": TeamRating(1600.0, 50.0, 3)})
    assert ratings["nobody"] == PRIOR == TeamRating(1500.0, 350.0, 0)
    assert "nobody" not in ratings and len(ratings) == 1


def test_interval_is_two_sigmas_each_side() -> None:
    rating = TeamRating(1600.0, 40.0, 12)
    assert (rating.lower, rating.upper) == (1520.0, 1680.0)


def test_ranked_is_by_mu_best_first_ties_in_the_order_first_seen() -> None:
    ratings = TeamRatings(
        {
            "new": TeamRating(1550.0, 300.0, 1),
            "sure": TeamRating(1540.0, 20.0, 900),
            "tied": TeamRating(1540.0, 90.0, 50),
            "weak": TeamRating(1200.0, 30.0, 400),
        }
    )
    assert [key for key, _ in ratings.ranked()] == ["new", "sure", "tied", "weak"]


# --- Bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("score", [0.7, 2, -1, 0.25, math.nan])
def test_score_other_than_win_draw_or_loss_raises_one_line(score: float) -> None:
    ratings: TeamRatings[str] = TeamRatings()
    with pytest.raises(ValueError, match=r"must be 0, 0\.5 or 1") as error:
        ratings.rate(("a", "b"), ("c", "d"), score)
    assert "\n" not in str(error.value)
    assert len(ratings) == 0


def test_bot_on_both_teams_raises() -> None:
    with pytest.raises(ValueError, match="'a' plays on both teams"):
        TeamRatings[str]().rate(("a", "b"), ("c", "a"), 1.0)


@pytest.mark.parametrize(
    ("mu", "sigma", "games"), [(math.nan, 50.0, 1), (1500.0, 0.0, 1), (1500.0, 50.0, -1)]
)
def test_stored_rating_that_cannot_be_raises(mu: float, sigma: float, games: int) -> None:
    with pytest.raises(ValueError, match="rating"):
        TeamRating(mu, sigma, games)


# --- Any sequence of games --------------------------------------------------------------------

BOTS = ["p", "q", "r", "s", "t"]


@st.composite
def any_game(draw: st.DrawFn) -> Game:
    """Two teams of distinct bots, each a same-bot team or a partnership, and a result."""
    seats = draw(st.lists(st.sampled_from(BOTS), min_size=2, max_size=4, unique=True))
    if len(seats) == 2:
        teams = ((seats[0], seats[0]), (seats[1], seats[1]))
    elif len(seats) == 3:
        teams = ((seats[0], seats[0]), (seats[1], seats[2]))
    else:
        teams = ((seats[0], seats[1]), (seats[2], seats[3]))
    return (*teams, draw(st.sampled_from([0.0, 0.5, 1.0])))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(any_game(), max_size=60))
def test_ratings_stay_finite_and_sigma_never_grows(games: list[Game]) -> None:
    ratings: TeamRatings[str] = TeamRatings()
    for team_a, team_b, score in games:
        before = {key: ratings[key] for key in {*team_a, *team_b}}
        ratings.rate(team_a, team_b, score)
        for key, old in before.items():
            new = ratings[key]
            assert math.isfinite(new.mu) and 0.0 < new.sigma <= old.sigma
            assert new.games == old.games + 1
    assert sum(rating.games for _, rating in ratings.items()) == sum(
        len({*a, *b}) for a, b, _ in games
    )
