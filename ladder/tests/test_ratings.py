"""Ladder ratings against hand-computed values (the algebra is in the comments)."""

from __future__ import annotations

import math

import pytest

from pitch_ladder import ratings
from pitch_ladder.ratings import (
    INITIAL_RATING,
    K_FACTOR,
    PRIOR_DRAWS,
    bradley_terry,
    bradley_terry_by_group,
    connected_groups,
    elo_from_games,
    expected_score,
    update_elo,
)
from pitch_referee.stats import Z_95

BETA = math.log(10) / 400  # d/dx of the logistic score is BETA * p * (1 - p)


def approx(value: float) -> object:
    return pytest.approx(value, rel=1e-12, abs=1e-9)


# --- sequential Elo -----------------------------------------------------------------------


def test_defaults() -> None:
    assert INITIAL_RATING == 1500.0
    assert K_FACTOR == 16.0
    assert PRIOR_DRAWS == 1.0


def test_win_between_equals_moves_half_k() -> None:
    # Expected score 0.5; A gains 16 * (1 - 0.5) = 8, B loses 8.
    assert update_elo({}, "A", "B", 1.0) == {"A": 1508.0, "B": 1492.0}
    assert update_elo({}, "A", "B", 0.0) == {"A": 1492.0, "B": 1508.0}
    assert update_elo({}, "A", "B", 1.0, k=32) == {"A": 1516.0, "B": 1484.0}


def test_draw_between_equals_changes_nothing() -> None:
    assert update_elo({"A": 1500.0, "B": 1500.0}, "A", "B", 0.5) == {"A": 1500.0, "B": 1500.0}


def test_draw_pulls_unequal_ratings_together() -> None:
    # E_A = 1 / (1 + 10**(-200/400)) = 1 / 1.3162278 = 0.7597469.
    # A: 1600 + 16 * (0.5 - 0.7597469) = 1595.8440; B: 1400 + 4.1560 = 1404.1560.
    after = update_elo({"A": 1600.0, "B": 1400.0}, "A", "B", 0.5)
    assert after["A"] == approx(1600 + 16 * (0.5 - 1 / (1 + 10**-0.5)))
    assert after["A"] == pytest.approx(1595.8440, abs=1e-4)
    assert after["B"] == pytest.approx(1404.1560, abs=1e-4)


def test_update_is_pure_and_keeps_other_bots() -> None:
    before = {"A": 1500.0, "B": 1500.0, "C": 1700.0}
    after = update_elo(before, "A", "B", 1.0)
    assert before == {"A": 1500.0, "B": 1500.0, "C": 1700.0}
    assert after["C"] == 1700.0


def test_order_matters() -> None:
    # A wins first: 1508 / 1492. Then B wins: E_B = 1 / (1 + 10**(16/400)) = 1/2.0964782
    # = 0.4769904, so B gains 16 * 0.5230096 = 8.3681534 -> B 1500.3681534, A 1499.6318466.
    # The opposite order mirrors it.
    ab = elo_from_games([("A", "B", 1.0), ("A", "B", 0.0)])
    ba = elo_from_games([("A", "B", 0.0), ("A", "B", 1.0)])
    gain = 16 * (1 - 1 / (1 + 10**0.04))
    assert ab == {"A": approx(1508 - gain), "B": approx(1492 + gain)}
    assert ab["B"] == pytest.approx(1500.3681534, abs=1e-7)
    assert ba == {"A": approx(1492 + gain), "B": approx(1508 - gain)}


def test_replay_is_deterministic_and_conserves_the_total() -> None:
    games = [
        ("A", "B", 1.0),
        ("B", "C", 0.5),
        ("C", "A", 1.0),
        ("A", "D", 0.0),
        ("D", "B", 0.5),
        ("C", "D", 1.0),
    ]
    first = elo_from_games(games)
    assert elo_from_games(iter(games)) == first
    assert list(first) == ["A", "B", "C", "D"]
    assert sum(first.values()) == pytest.approx(4 * 1500.0, abs=1e-9)


def test_elo_rejects_malformed_games() -> None:
    with pytest.raises(ValueError, match="two different bots"):
        update_elo({}, "A", "A", 1.0)
    with pytest.raises(ValueError, match=r"must be 0, 0\.5 or 1"):
        elo_from_games([("A", "B", 0.7)])


# --- Bradley-Terry ---------------------------------------------------------------------------


def test_two_bots_three_wins_one_loss() -> None:
    # A beat B 3 times and lost once; each also draws once with the reference at 1500 (the
    # mean). The mean constraint makes A = 1500 + d/2, B = 1500 - d/2. With p = P(A beats B)
    # = 1/(1 + 10**(-d/400)) and q = P(A beats reference) = 1/(1 + 10**(-d/800)):
    #   l(d) = 3 log p + log(1 - p) + [½ log q + ½ log(1-q)] (A) + [½ log(1-q) + ½ log q] (B)
    #   l'(d) = BETA * (3 - 4p) + BETA * (½ - q) = 0   ->   4p + q = 3.5.
    # With u = 10**(d/800): p = u²/(1+u²), q = u/(1+u); clearing denominators,
    #   4u²(1+u) + u(1+u²) = 3.5 (1+u)(1+u²)   ->   3u³ + u² - 5u - 7 = 0,
    # whose real root is u = 1.6073 -> d = 800 log10(u) = 164.84 Elo (without the prior,
    # p = 3/4 would give 400 log10(3) = 190.85: the prior shrinks toward the mean).
    fit = bradley_terry([("A", "B", 1.0)] * 3 + [("A", "B", 0.0)])
    d = fit["A"].rating - fit["B"].rating
    u = 10 ** (d / 800)
    assert 3 * u**3 + u**2 - 5 * u - 7 == pytest.approx(0.0, abs=1e-9)
    assert d == pytest.approx(164.8385, abs=1e-4)
    assert fit["A"].rating == approx(1500 + d / 2)
    assert fit["B"].rating == approx(1500 - d / 2)
    assert d < 400 * math.log10(3)
    # Interval: with phi = A - 1500 (so d = 2 phi), the information is
    #   -l''(phi) = 4 * -l''(d) = 4 * BETA² * (4 p (1-p) + q (1-q) / 2),
    # and the 95% half-width is Z_95 / sqrt(that) = 177.19 Elo, the same for both bots.
    p = 1 / (1 + 10 ** (-d / 400))
    q = 1 / (1 + 10 ** (-d / 800))
    half = Z_95 / math.sqrt(4 * BETA**2 * (4 * p * (1 - p) + q * (1 - q) / 2))
    assert half == pytest.approx(177.19, abs=1e-2)
    for rating in fit.values():
        assert rating.upper - rating.rating == pytest.approx(half, rel=1e-9)
        assert rating.rating - rating.lower == pytest.approx(half, rel=1e-9)
        assert rating.games == 4


def test_symmetric_results_give_equal_ratings() -> None:
    cycle = bradley_terry([("A", "B", 1.0), ("B", "C", 1.0), ("C", "A", 1.0)])
    assert [r.rating for r in cycle.values()] == [approx(1500.0)] * 3
    assert len({(round(r.lower, 9), round(r.upper, 9)) for r in cycle.values()}) == 1
    split = bradley_terry([("A", "B", 1.0), ("B", "A", 1.0), ("A", "B", 0.5)])
    assert split["A"].rating == approx(1500.0)
    assert split["B"].rating == approx(1500.0)


def test_intervals_shrink_with_more_games() -> None:
    few = bradley_terry([("A", "B", 1.0)] * 3 + [("A", "B", 0.0)])
    many = bradley_terry([("A", "B", 1.0)] * 30 + [("A", "B", 0.0)] * 10)
    width = {name: fit["A"].upper - fit["A"].lower for name, fit in (("few", few), ("many", many))}
    assert width["many"] < width["few"] / 2.5  # roughly 1/sqrt(10) as wide
    # With ten times the data the prior matters less: closer to 400 log10(3) = 190.85.
    assert 164.84 < many["A"].rating - many["B"].rating < 190.85


def test_perfect_record_stays_finite() -> None:
    fit = bradley_terry([("A", "B", 1.0)] * 20)
    assert all(math.isfinite(v) for r in fit.values() for v in (r.rating, r.lower, r.upper))
    assert fit["A"].rating > fit["B"].rating


def test_score_equations_hold_for_several_bots() -> None:
    # At the constrained maximum every bot's gradient component is the same Lagrange
    # multiplier: sum_j (points_ij - games_ij * p_ij) + PRIOR * (½ - q_i) is equal for all i.
    # The mean is anchored at 1500 even when the bots split into groups that never met.
    games = [
        ("A", "B", 1.0),
        ("A", "B", 0.5),
        ("B", "C", 1.0),
        ("C", "A", 0.0),
        ("D", "E", 1.0),
        ("E", "D", 0.5),
    ]
    fit = bradley_terry(games, tolerance=1e-10)
    theta = {bot: r.rating for bot, r in fit.items()}
    residual = {bot: PRIOR_DRAWS * (0.5 - expected_score(theta[bot], 1500)) for bot in theta}
    for a, b, score_a in games:
        p = expected_score(theta[a], theta[b])
        residual[a] += score_a - p
        residual[b] += (1 - score_a) - (1 - p)
    assert max(residual.values()) - min(residual.values()) == pytest.approx(0.0, abs=1e-9)
    assert sum(theta.values()) / len(theta) == approx(1500.0)
    assert {bot: r.games for bot, r in fit.items()} == {"A": 3, "B": 3, "C": 2, "D": 2, "E": 2}


def test_fit_ignores_game_order() -> None:
    games = [("A", "B", 1.0), ("B", "C", 0.5), ("C", "A", 1.0), ("A", "C", 1.0)]
    assert bradley_terry(games) == bradley_terry(list(reversed(games)))


def test_no_games_no_ratings() -> None:
    assert bradley_terry([]) == {}
    assert bradley_terry_by_group([]) == {}
    assert connected_groups([]) == []


def test_identical_bots_get_the_same_fit_whatever_the_order_of_their_games() -> None:
    # X and Y have the same results against C and D and split their own games: whatever
    # the order, the fit cannot tell them apart, while the sequential Elo can.
    games = [
        ("X", "C", 1.0),
        ("X", "D", 1.0),
        ("X", "D", 0.0),
        ("C", "Y", 0.0),
        ("D", "Y", 0.0),
        ("Y", "D", 0.0),
        ("X", "Y", 1.0),
        ("Y", "X", 1.0),
        ("C", "D", 0.5),
    ]
    orders = [games, games[::-1], games[3:] + games[:3], sorted(games)]
    for order in orders:
        fit = bradley_terry_by_group(order)
        assert fit["X"].rating == pytest.approx(fit["Y"].rating, abs=1e-9)
        assert fit["X"].upper == pytest.approx(fit["Y"].upper, abs=1e-9)
        assert fit["X"].rating == pytest.approx(bradley_terry(games)["X"].rating, abs=1e-9)
    elo = [elo_from_games(order) for order in orders]
    assert all(ratings["X"] != pytest.approx(ratings["Y"], abs=0.1) for ratings in elo)
    assert len({ratings["X"] > ratings["Y"] for ratings in elo}) == 2  # either twin ahead


# --- groups of bots whose results connect ----------------------------------------------------


def test_connected_groups_split_bots_that_never_met_directly_or_through_others() -> None:
    games = [
        ("B", "A", 1.0),
        ("C", "B", 0.5),  # A and C never met: B connects them
        ("E", "D", 1.0),
        ("F", "G", 0.0),
        ("G", "H", 1.0),
    ]
    # Largest first: F, G and H (three bots) before D and E.
    assert connected_groups(games) == [["A", "B", "C"], ["F", "G", "H"], ["D", "E"]]
    assert connected_groups(reversed(games)) == connected_groups(games)
    # Equal sizes: in the order of their first names.
    assert connected_groups([("Y", "Z", 1.0), ("B", "A", 0.0)]) == [["A", "B"], ["Y", "Z"]]
    with pytest.raises(ValueError, match="two different bots"):
        connected_groups([("A", "A", 1.0)])


def test_a_pairing_won_every_time_still_connects_and_the_fit_stays_finite() -> None:
    # A always beats B, B always beats C: one group, and the prior keeps every rating finite.
    games = [("A", "B", 1.0)] * 10 + [("C", "B", 0.0)] * 10
    assert connected_groups(games) == [["A", "B", "C"]]
    fit = bradley_terry_by_group(games)
    assert all(math.isfinite(v) for r in fit.values() for v in (r.rating, r.lower, r.upper))
    assert fit["A"].rating > fit["B"].rating > fit["C"].rating
    assert fit == bradley_terry(games)  # one group: the same fit as over all games


def test_each_group_is_fitted_on_its_own_games_around_the_common_mean() -> None:
    # Without groups, one fit would put D and E on the scale of A, B and C through the prior
    # alone. By group, each group's ratings come from its own games and average 1500.
    first = [("A", "B", 1.0), ("A", "B", 1.0), ("B", "C", 0.5), ("C", "A", 0.0)]
    second = [("D", "E", 1.0), ("E", "D", 0.5)]
    fit = bradley_terry_by_group(first + second)
    assert fit == {**bradley_terry(first), **bradley_terry(second)}
    assert list(fit) == ["A", "B", "C", "D", "E"]
    for group in ("ABC", "DE"):
        mean = sum(fit[bot].rating for bot in group) / len(group)
        assert mean == pytest.approx(INITIAL_RATING, abs=1e-6)


def test_iteration_cap_is_reported() -> None:
    with pytest.raises(RuntimeError, match="did not converge in 1 iterations"):
        bradley_terry([("A", "B", 1.0)] * 3, max_iterations=1)


def test_fit_rejects_malformed_games() -> None:
    with pytest.raises(ValueError, match="two different bots"):
        bradley_terry([("A", "A", 1.0)])


# --- matrix inversion ----------------------------------------------------------------------


def test_invert_small_matrices() -> None:
    # [[4, 7], [2, 6]]: det = 24 - 14 = 10, inverse = [[6, -7], [-2, 4]] / 10.
    assert ratings._invert([[4.0, 7.0], [2.0, 6.0]]).tolist() == [
        [approx(0.6), approx(-0.7)],
        [approx(-0.2), approx(0.4)],
    ]
    # A zero on the diagonal needs a row swap; the permutation is its own inverse.
    assert ratings._invert([[0.0, 1.0], [1.0, 0.0]]).tolist() == [[0.0, 1.0], [1.0, 0.0]]
    with pytest.raises(ValueError, match="singular"):
        ratings._invert([[1.0, 2.0], [2.0, 4.0]])
