"""Ladder ratings from finished games: sequential Elo and a Bradley-Terry maximum-likelihood fit.

This module owns how the ladder turns game results into ratings. It is pure math (the
standard library plus the logistic Elo helpers of ``pitch_referee.stats``): no database, no I/O.

A game is ``(a, b, score_a)``: bot A's team against bot B's team (each partnership team is
two copies of one bot), with A's score 1 for a win, 0.5 for a draw and 0 for a loss.

Two ratings are offered because they answer different questions. Sequential Elo is cheap,
moves after every game and rewards recent form, but depends on the order of the games:
two bots with the same results can end up far apart. The Bradley-Terry fit uses every
game at once, ignores order, and comes with a 95% interval per bot, so it is the one to
rank by.

A rating compares bots only through the games that connect them. Bots whose results do
not connect (``connected_groups``: groups that never met, directly or through other bots)
have no common scale, so ``bradley_terry_by_group`` fits each group on its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from pitch_referee.stats import Z_95, score_from_elo

Game: TypeAlias = tuple[str, str, float]
_Matrix: TypeAlias = list[list[float]]

INITIAL_RATING = 1500.0
"""Rating of a bot before its first game, and the mean of every Bradley-Terry fit."""

K_FACTOR = 16.0
"""Sequential Elo step: a win between equals moves each rating by ``K_FACTOR / 2``."""

PRIOR_DRAWS = 1.0
"""Virtual draws each bot has against a reference player rated ``INITIAL_RATING``.

Without them a bot that won (or lost) every game has an infinite maximum-likelihood
rating. One draw against the average bot keeps every rating finite and pulls bots with few
games toward the mean. It does not make groups of bots that never met comparable: it would
put them on one scale by the prior alone (see ``connected_groups``).
"""

_BETA = math.log(10.0) / 400.0
"""Natural-log units per Elo point: ``score_from_elo(x) == 1 / (1 + exp(-_BETA * x))``."""

_MAX_HALVINGS = 60
_ROUNDING_SLACK = 1e-12


def expected_score(rating_a: float, rating_b: float) -> float:
    """Expected score of A against B under the logistic Elo model."""
    return score_from_elo(rating_a - rating_b)


def _check_game(a: str, b: str, score_a: float) -> None:
    if a == b:
        raise ValueError(f"a game needs two different bots, got {a!r} twice")
    if score_a not in (0.0, 0.5, 1.0):
        raise ValueError(f"score of {a!r} against {b!r} must be 0, 0.5 or 1, got {score_a}")


def update_elo(
    ratings: Mapping[str, float], a: str, b: str, score_a: float, k: float = K_FACTOR
) -> dict[str, float]:
    """Ratings after one game, as a new dict; ``ratings`` is not modified.

    A bot not yet in ``ratings`` starts at ``INITIAL_RATING``. A gains
    ``k * (score_a - expected)`` and B loses the same, so the total is conserved.

    Raises:
        ValueError: ``a == b`` or ``score_a`` is not 0, 0.5 or 1.
    """
    _check_game(a, b, score_a)
    rating_a = ratings.get(a, INITIAL_RATING)
    rating_b = ratings.get(b, INITIAL_RATING)
    delta = k * (score_a - expected_score(rating_a, rating_b))
    return {**ratings, a: rating_a + delta, b: rating_b - delta}


def elo_from_games(games: Iterable[Game], k: float = K_FACTOR) -> dict[str, float]:
    """Replay ``games`` in the order given and return the final sequential Elo ratings.

    Order matters: pass games in the order they finished (ties broken by game id) so that
    the same history always gives the same ratings.
    """
    ratings: dict[str, float] = {}
    for a, b, score_a in games:
        ratings = update_elo(ratings, a, b, score_a, k)
    return ratings


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's Bradley-Terry rating with its 95% interval and its number of real games."""

    rating: float
    lower: float
    upper: float
    games: int


@dataclass(frozen=True, slots=True)
class _Table:
    """Games aggregated per ordered pair of bots (indices into the sorted ``bots``)."""

    bots: list[str]
    points: _Matrix  # points[i][j]: what bot i scored against bot j
    played: _Matrix  # played[i][j]: games between bots i and j


def _tabulate(games: Iterable[Game]) -> _Table:
    listed = list(games)
    for a, b, score_a in listed:
        _check_game(a, b, score_a)
    bots = sorted({bot for a, b, _ in listed for bot in (a, b)})
    index = {bot: i for i, bot in enumerate(bots)}
    points = [[0.0] * len(bots) for _ in bots]
    played = [[0.0] * len(bots) for _ in bots]
    for a, b, score_a in listed:
        i, j = index[a], index[b]
        points[i][j] += score_a
        points[j][i] += 1.0 - score_a
        played[i][j] += 1.0
        played[j][i] += 1.0
    return _Table(bots, points, played)


def _log_likelihood(table: _Table, theta: list[float]) -> float:
    """Log-likelihood of the ratings ``theta``, prior draws included (draws = half wins)."""
    total = 0.0
    for i, row in enumerate(table.points):
        for j, points in enumerate(row):
            if points:
                total += points * math.log(expected_score(theta[i], theta[j]))
        q = expected_score(theta[i], INITIAL_RATING)
        total += PRIOR_DRAWS * 0.5 * (math.log(q) + math.log(1.0 - q))
    return total


def _gradient_and_information(table: _Table, theta: list[float]) -> tuple[list[float], _Matrix]:
    """Gradient of the log-likelihood and the observed information (minus the Hessian)."""
    n = len(theta)
    gradient = [0.0] * n
    information = [[0.0] * n for _ in range(n)]
    for i in range(n):
        q = expected_score(theta[i], INITIAL_RATING)
        gradient[i] = _BETA * PRIOR_DRAWS * (0.5 - q)
        information[i][i] = _BETA**2 * PRIOR_DRAWS * q * (1.0 - q)
        for j in range(n):
            if j == i or not table.played[i][j]:
                continue
            p = expected_score(theta[i], theta[j])
            gradient[i] += _BETA * (table.points[i][j] - table.played[i][j] * p)
            weight = _BETA**2 * table.played[i][j] * p * (1.0 - p)
            information[i][i] += weight
            information[i][j] -= weight
    return gradient, information


def _reduce(gradient: list[float], information: _Matrix) -> tuple[list[float], _Matrix]:
    """Gradient and information for the first n-1 ratings, the last one pinned by the mean.

    With ``theta_last = n * INITIAL_RATING - sum(others)``, the chain rule gives
    ``g_k - g_last`` and ``J_kl - J_k,last - J_last,l + J_last,last``.
    """
    last = len(gradient) - 1
    reduced_gradient = [gradient[k] - gradient[last] for k in range(last)]
    reduced_information = [
        [
            information[k][col]
            - information[k][last]
            - information[last][col]
            + information[last][last]
            for col in range(last)
        ]
        for k in range(last)
    ]
    return reduced_gradient, reduced_information


def _invert(matrix: _Matrix) -> _Matrix:
    """Inverse of a square matrix by Gauss-Jordan elimination with partial pivoting.

    Raises:
        ValueError: the matrix is singular.
    """
    n = len(matrix)
    augmented = [[*row, *(float(i == r) for i in range(n))] for r, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(augmented[r][col]))
        if augmented[pivot][col] == 0.0:
            raise ValueError("matrix is singular")
        augmented[col], augmented[pivot] = augmented[pivot], augmented[col]
        scale = augmented[col][col]
        augmented[col] = [value / scale for value in augmented[col]]
        for r in range(n):
            factor = augmented[r][col]
            if r != col and factor:
                augmented[r] = [
                    x - factor * y for x, y in zip(augmented[r], augmented[col], strict=True)
                ]
    return [row[n:] for row in augmented]


def _newton_step(table: _Table, theta: list[float]) -> list[float]:
    """Newton direction for ``theta`` that keeps the mean rating fixed."""
    gradient, information = _gradient_and_information(table, theta)
    reduced_gradient, reduced_information = _reduce(gradient, information)
    inverse = _invert(reduced_information)
    step = [sum(x * g for x, g in zip(row, reduced_gradient, strict=True)) for row in inverse]
    return [*step, -sum(step)]


def _line_search(table: _Table, theta: list[float], step: list[float]) -> list[float]:
    """Halve ``step`` until it does not lower the likelihood (Newton can overshoot far out).

    Rounding slack is allowed: near the optimum a good step changes the likelihood by less
    than floating-point noise, and rejecting it would stall the fit.
    """
    base = _log_likelihood(table, theta)
    floor = base - _ROUNDING_SLACK * (1.0 + abs(base))
    scale = 1.0
    for _ in range(_MAX_HALVINGS):
        candidate = [t + scale * s for t, s in zip(theta, step, strict=True)]
        if _log_likelihood(table, candidate) >= floor:
            return candidate
        scale /= 2.0
    return theta


def _variances(table: _Table, theta: list[float]) -> list[float]:
    """Variance of each rating: the inverse observed information under the mean constraint.

    The first n-1 variances are the diagonal of the inverted reduced information; the last
    rating is minus the sum of the others (plus a constant), so its variance is the sum of
    every entry.
    """
    gradient, information = _gradient_and_information(table, theta)
    covariance = _invert(_reduce(gradient, information)[1])
    diagonal = [covariance[k][k] for k in range(len(covariance))]
    return [*diagonal, sum(map(sum, covariance))]


def bradley_terry(
    games: Iterable[Game], *, tolerance: float = 1e-6, max_iterations: int = 100
) -> dict[str, Rating]:
    """Maximum-likelihood Bradley-Terry ratings over all games, on the Elo scale.

    The model is ``P(A beats B) = expected_score(rating_a, rating_b)``; a draw counts as half
    a win each way, and every bot also has ``PRIOR_DRAWS`` virtual draws against a
    reference player at ``INITIAL_RATING``. Ratings are anchored so their mean is
    ``INITIAL_RATING``. Newton iterations (rather than MM) are used because the intervals
    need the information matrix anyway, and Newton converges in a handful of steps; they
    stop once no rating moves more than ``tolerance`` Elo. The interval is
    ``rating ± Z_95 * sqrt(variance)`` from the inverse observed information. The result
    does not depend on the order of ``games``.

    Bots in different ``connected_groups`` get numbers on one scale only through the prior
    and the common mean, which says nothing about how they compare: use
    ``bradley_terry_by_group`` to rate them.

    Raises:
        ValueError: a malformed game (see ``update_elo``).
        RuntimeError: no convergence within ``max_iterations`` Newton steps.
    """
    table = _tabulate(games)
    if not table.bots:
        return {}
    theta = [INITIAL_RATING] * len(table.bots)
    for _ in range(max_iterations):
        step = _newton_step(table, theta)
        if max(map(abs, step)) < tolerance:
            return _ratings(table, [t + s for t, s in zip(theta, step, strict=True)])
        theta = _line_search(table, theta, step)
    raise RuntimeError(f"Bradley-Terry fit did not converge in {max_iterations} iterations")


def _ratings(table: _Table, theta: list[float]) -> dict[str, Rating]:
    ratings = {}
    for i, (bot, rating, variance) in enumerate(
        zip(table.bots, theta, _variances(table, theta), strict=True)
    ):
        half_width = Z_95 * math.sqrt(variance)
        games = round(sum(table.played[i]))
        ratings[bot] = Rating(rating, rating - half_width, rating + half_width, games)
    return ratings


def connected_groups(games: Iterable[Game]) -> list[list[str]]:
    """The bots of ``games`` split into groups that their results connect.

    Two bots are in one group when they played each other, or when a chain of bots that
    played each other leads from one to the other, whatever the results: a pairing where
    one side won every game connects the two like any other (the prior draws keep the
    fit finite). No game relates bots of different groups, so their ratings are not
    comparable.

    Returns the groups largest first (equal sizes in the order of their first names), the
    bots of each sorted by name.

    Raises:
        ValueError: a malformed game (see ``update_elo``).
    """
    parent: dict[str, str] = {}

    def root(bot: str) -> str:
        while parent[bot] != bot:
            parent[bot] = parent[parent[bot]]
            bot = parent[bot]
        return bot

    for a, b, score_a in games:
        _check_game(a, b, score_a)
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for bot in sorted(parent):
        groups.setdefault(root(bot), []).append(bot)
    return sorted(groups.values(), key=lambda group: (-len(group), group[0]))


def bradley_terry_by_group(games: Iterable[Game]) -> dict[str, Rating]:
    """``bradley_terry`` fitted separately within each of ``connected_groups(games)``.

    Each group's ratings come from its own games only and average ``INITIAL_RATING``:
    compare them only within a group. When the games connect every bot (one group), this
    is exactly ``bradley_terry(games)``.

    Raises:
        ValueError: a malformed game (see ``update_elo``).
        RuntimeError: a group's fit did not converge.
    """
    listed = list(games)
    group_of = {bot: i for i, group in enumerate(connected_groups(listed)) for bot in group}
    by_group: dict[int, list[Game]] = {}
    for game in listed:
        by_group.setdefault(group_of[game[0]], []).append(game)
    fits: dict[str, Rating] = {}
    for group_games in by_group.values():
        fits.update(bradley_terry(group_games))
    return dict(sorted(fits.items()))
