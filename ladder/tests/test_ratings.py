"""Ladder ratings against hand-computed values (the algebra is in the comments)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_ladder import ratings
from pitch_ladder.ratings import (
    EXACT_VARIANCE_BOTS,
    INITIAL_RATING,
    K_FACTOR,
    PRIOR_DRAWS,
    SAMPLED_WIDTH_TOLERANCE,
    bradley_terry,
    bradley_terry_by_group,
    connected_groups,
    elo_from_games,
    expected_score,
    fit_arrays_by_group,
    update_elo,
)
from pitch_referee.stats import Z_95
from pitch_testkit.dense_bradley_terry import dense_fit

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


# --- the sparse fit against the dense Newton solve -------------------------------------------


@st.composite
def pair_totals(draw: st.DrawFn) -> tuple[list[int], list[int], list[float], list[float]]:
    """Pair totals of up to 14 bots: any pairs (so groups that never met are common),
    each with 1-40 games and any points, draws included."""
    bots = draw(st.integers(2, 14))
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, bots - 1), st.integers(0, bots - 1)).filter(
                lambda pair: pair[0] != pair[1]
            ),
            min_size=1,
            max_size=40,
        )
    )
    played = [float(draw(st.integers(1, 40))) for _ in pairs]
    points = [draw(st.integers(0, 2 * int(n))) / 2 for n in played]
    return [a for a, _ in pairs], [b for _, b in pairs], played, points


def _dense_by_group(a: list[int], b: list[int], played: list[float], points: list[float]):
    table = ratings._tabulate(a, b, played, points)
    fits = {}
    for group in ratings._components(table):
        fits.update(dense_fit(table.part(group)))
    return fits


@settings(max_examples=150, deadline=None)
@given(pair_totals())
def test_the_sparse_fit_equals_the_dense_newton_solve_group_by_group(totals) -> None:
    sparse_fit = fit_arrays_by_group(*totals).ratings
    reference = _dense_by_group(*totals)
    assert sparse_fit.keys() == reference.keys()
    for bot, rating in sparse_fit.items():
        assert rating.rating == pytest.approx(reference[bot].rating, abs=0.01)
        assert rating.lower == pytest.approx(reference[bot].lower, abs=0.01)
        assert rating.upper == pytest.approx(reference[bot].upper, abs=0.01)
        assert rating.games == reference[bot].games


@settings(max_examples=40, deadline=None)
@given(pair_totals(), st.floats(-400, 400))
def test_a_fit_started_from_other_ratings_reaches_the_same_maximum(totals, shift) -> None:
    cold = fit_arrays_by_group(*totals).ratings
    start = {bot: rating.rating + shift * (bot % 3 - 1) for bot, rating in cold.items()}
    warm = fit_arrays_by_group(*totals, start=start).ratings
    assert warm.keys() == cold.keys()
    for bot, rating in warm.items():
        assert rating.rating == pytest.approx(cold[bot].rating, abs=0.01)


def scheduler_ladder(bots: int, neighbours: int, spread: int, games: float, seed: int = 1):
    """Pair totals as the scheduler leaves them: each bot against its ``neighbours`` nearest
    in strength and ``spread`` bots at even steps down the field (placement), results
    drawn from the strengths."""
    rng = np.random.default_rng(seed)
    strength = np.sort(rng.normal(0.0, 200.0, bots))[::-1]
    index = np.arange(bots)
    a = np.concatenate([index[: bots - d] for d in range(1, neighbours + 1)] + [index] * spread)
    b = np.concatenate(
        [index[d:] for d in range(1, neighbours + 1)]
        + [(index + (s + 1) * bots // (spread + 1)) % bots for s in range(spread)]
    )
    played = rng.poisson(games, len(a)) + 1.0
    p = 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
    return a, b, played, rng.binomial(played.astype(int), p).astype(float)


def test_the_scheduler_ladder_fit_equals_the_dense_newton_solve() -> None:
    totals = scheduler_ladder(300, 10, 4, 20.0)
    sparse_fit = fit_arrays_by_group(*totals).ratings
    reference = _dense_by_group(*totals)
    for bot, rating in sparse_fit.items():
        assert rating.rating == pytest.approx(reference[bot].rating, abs=0.01)
        assert rating.upper - rating.lower == pytest.approx(
            reference[bot].upper - reference[bot].lower, abs=0.01
        )


def test_sampled_intervals_are_within_their_tolerance_of_the_exact_ones() -> None:
    # Above EXACT_VARIANCE_BOTS the intervals are calibrated local approximations: on a
    # scheduler's ladder every width is within SAMPLED_WIDTH_TOLERANCE of the exact one.
    table = ratings._tabulate(*scheduler_ladder(EXACT_VARIANCE_BOTS + 200, 20, 8, 36.0))
    theta = np.array([r.rating for r in ratings._fit(table).values()])
    information = ratings._gradient_and_information(table, theta)[1]
    inverse = ratings._inverse(information.toarray())
    level = inverse.sum(axis=1)
    exact = np.sqrt(np.diagonal(inverse) - level**2 / level.sum())
    sampled = np.sqrt(ratings._sampled_variances(information))
    assert np.abs(sampled / exact - 1.0).max() <= SAMPLED_WIDTH_TOLERANCE
    local = np.sqrt(ratings._local_variances(information))
    assert (local < exact).all()  # the uncalibrated ones fall short: the sample is needed
    assert np.abs(sampled / exact - 1.0).mean() < np.abs(local / exact - 1.0).mean() / 2


def test_the_information_inverse_is_that_of_lapack() -> None:
    # [[4, 2], [2, 3]]: det = 8, inverse = [[3, -2], [-2, 4]] / 8.
    assert ratings._inverse(np.array([[4.0, 2.0], [2.0, 3.0]])).tolist() == [
        [approx(0.375), approx(-0.25)],
        [approx(-0.25), approx(0.5)],
    ]
    with pytest.raises(ValueError, match="not positive definite"):
        ratings._inverse(np.array([[1.0, 2.0], [2.0, 1.0]]))
