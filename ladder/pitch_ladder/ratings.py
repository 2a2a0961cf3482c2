"""Ladder ratings from finished games: sequential Elo and a Bradley-Terry maximum-likelihood fit.

This module owns how the ladder turns game results into ratings. It is pure math (numpy for
the fit's linear algebra, and the logistic Elo helpers of ``pitch_referee.stats``): no
database, no I/O.

A game is ``(a, b, score_a)``: bot A's team against bot B's team (each partnership team is
two copies of one bot), with A's score 1 for a win, 0.5 for a draw and 0 for a loss.

Two ratings are offered because they answer different questions. Sequential Elo is cheap,
moves after every game and rewards recent form, but depends on the order of the games:
two bots with the same results can end up far apart. The Bradley-Terry fit uses every
game at once, ignores order, and comes with a 95% interval per bot, so it is the one to
rank by.

The fit needs only how many games each pair of bots played and how many points each side
scored (a ``Pairing``), never the games one by one: the ladder keeps those sums up to date
as games are stored, so a fit costs the same at a thousand games and at a million, and
about the cube of the number of bots (a dense solve per Newton step: well under a second
at a thousand bots).

A rating compares bots only through the games that connect them. Bots whose results do
not connect (``connected_groups``: groups that never met, directly or through other bots)
have no common scale, so ``bradley_terry_by_group`` fits each group on its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from pitch_referee.stats import Z_95, score_from_elo

Game: TypeAlias = tuple[str, str, float]
Pairing: TypeAlias = tuple[str, str, float, float]
"""``(a, b, games, points_a)``: every game between bots A and B, with A's total score
(a draw is half a point each); B scored ``games - points_a``."""

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


def elo_step(
    rating_a: float, rating_b: float, score_a: float, k: float = K_FACTOR
) -> tuple[float, float]:
    """A's and B's ratings after one game: A gains ``k * (score_a - expected)``, B loses it."""
    delta = k * (score_a - expected_score(rating_a, rating_b))
    return rating_a + delta, rating_b - delta


def apply_elo(
    ratings: MutableMapping[str, float], a: str, b: str, score_a: float, k: float = K_FACTOR
) -> None:
    """``update_elo`` in place: only A's and B's entries change, whatever the table's size.

    Raises:
        ValueError: ``a == b`` or ``score_a`` is not 0, 0.5 or 1.
    """
    _check_game(a, b, score_a)
    ratings[a], ratings[b] = elo_step(
        ratings.get(a, INITIAL_RATING), ratings.get(b, INITIAL_RATING), score_a, k
    )


def update_elo(
    ratings: Mapping[str, float], a: str, b: str, score_a: float, k: float = K_FACTOR
) -> dict[str, float]:
    """Ratings after one game, as a new dict; ``ratings`` is not modified.

    A bot not yet in ``ratings`` starts at ``INITIAL_RATING``. A gains
    ``k * (score_a - expected)`` and B loses the same, so the total is conserved. The copy
    costs the size of the table: to replay games, use ``apply_elo`` (or ``elo_from_games``),
    which changes two entries per game.

    Raises:
        ValueError: ``a == b`` or ``score_a`` is not 0, 0.5 or 1.
    """
    after = dict(ratings)
    apply_elo(after, a, b, score_a, k)
    return after


def elo_from_games(games: Iterable[Game], k: float = K_FACTOR) -> dict[str, float]:
    """Replay ``games`` in the order given and return the final sequential Elo ratings.

    Order matters: pass games in the order they finished (ties broken by game id) so that
    the same history always gives the same ratings.
    """
    ratings: dict[str, float] = {}
    for a, b, score_a in games:
        apply_elo(ratings, a, b, score_a, k)
    return ratings


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's Bradley-Terry rating with its 95% interval and its number of real games."""

    rating: float
    lower: float
    upper: float
    games: int


def pairings(games: Iterable[Game]) -> list[Pairing]:
    """``games`` summed per pair of bots (the first name of each pair first), sorted.

    Raises:
        ValueError: a malformed game (see ``update_elo``).
    """
    sums: dict[tuple[str, str], list[float]] = {}
    for a, b, score_a in games:
        _check_game(a, b, score_a)
        key, points = ((a, b), score_a) if a < b else ((b, a), 1.0 - score_a)
        pair = sums.setdefault(key, [0.0, 0.0])
        pair[0] += 1.0
        pair[1] += points
    return [(a, b, played, points) for (a, b), (played, points) in sorted(sums.items())]


@dataclass(frozen=True, slots=True)
class _Table:
    """Pairings as arrays: pair ``k`` is bots ``first[k] < second[k]`` (indices into the
    sorted ``bots``), who played ``played[k]`` games in which the first scored
    ``points[k]``. Each pair appears once, in the order of ``(first, second)``."""

    bots: list[Any]
    first: np.ndarray
    second: np.ndarray
    played: np.ndarray
    points: np.ndarray

    @property
    def games(self) -> np.ndarray:
        """Real games per bot."""
        size = len(self.bots)
        return np.bincount(self.first, self.played, size) + np.bincount(
            self.second, self.played, size
        )

    def part(self, members: np.ndarray) -> _Table:
        """The table of the bots ``members`` (ascending indices) and the pairs among them."""
        inside = np.isin(self.first, members)
        index = np.zeros(len(self.bots), dtype=np.intp)
        index[members] = np.arange(len(members))
        return _Table(
            [self.bots[i] for i in members.tolist()],
            index[self.first[inside]],
            index[self.second[inside]],
            self.played[inside],
            self.points[inside],
        )


def _tabulate(a: ArrayLike, b: ArrayLike, played: ArrayLike, points_a: ArrayLike) -> _Table:
    """The canonical table of pairings given as arrays (bots are any sortable labels: names,
    version ids): pairs merged, put in order, and without those that played no game, so the
    fit does not depend on the order of the games.

    Raises:
        ValueError: a pairing of a bot with itself.
    """
    a, b = np.asarray(a), np.asarray(b)
    played, points_a = np.asarray(played, dtype=float), np.asarray(points_a, dtype=float)
    if len(a) and (same := np.flatnonzero(a == b)).size:
        raise ValueError(f"a game needs two different bots, got {a[same[0]].item()!r} twice")
    some = played > 0
    a, b, played, points_a = a[some], b[some], played[some], points_a[some]
    bots, index = np.unique(np.concatenate([a, b]), return_inverse=True)
    i, j = index[: len(a)], index[len(a) :]
    swap = i > j
    first, second = np.where(swap, j, i), np.where(swap, i, j)
    points = np.where(swap, played - points_a, points_a)
    keys, pair = np.unique(first * len(bots) + second, return_inverse=True)
    return _Table(
        bots.tolist(),
        (keys // len(bots)).astype(np.intp),
        (keys % len(bots)).astype(np.intp),
        np.bincount(pair, played, len(keys)),
        np.bincount(pair, points, len(keys)),
    )


def _tabulate_pairings(pairs: Iterable[Pairing]) -> _Table:
    listed = list(pairs)
    if not listed:
        return _tabulate([], [], [], [])
    a, b, played, points = zip(*listed, strict=True)
    return _tabulate(list(a), list(b), played, points)


def _components(table: _Table) -> list[np.ndarray]:
    """The bots of ``table`` (indices) in groups that its pairs connect, as
    ``connected_groups`` orders them.

    Each bot takes the smallest label among its neighbours' until nothing changes (with
    pointer jumping): a few passes over the pairs, each a vectorized one.
    """
    labels = np.arange(len(table.bots))
    while True:
        low = np.minimum(labels[table.first], labels[table.second])
        lowered = labels.copy()
        np.minimum.at(lowered, table.first, low)
        np.minimum.at(lowered, table.second, low)
        lowered = lowered[lowered]
        if np.array_equal(lowered, labels):
            break
        labels = lowered
    order = np.argsort(labels, kind="stable")
    roots, starts = np.unique(labels[order], return_index=True)
    groups = np.split(order, starts[1:]) if len(roots) else []
    return sorted(groups, key=lambda group: (-len(group), table.bots[group[0]]))


def _log_likelihood(table: _Table, theta: np.ndarray) -> float:
    """Log-likelihood of the ratings ``theta``, prior draws included (draws = half wins)."""
    x = _BETA * (theta[table.first] - theta[table.second])
    # log p = -log(1 + e^-x) and log (1 - p) = -log(1 + e^x), finite however far apart.
    games = table.points * np.logaddexp(0.0, -x) + (table.played - table.points) * np.logaddexp(
        0.0, x
    )
    prior = _BETA * (theta - INITIAL_RATING)
    priors = np.logaddexp(0.0, -prior) + np.logaddexp(0.0, prior)
    return float(-games.sum() - PRIOR_DRAWS * 0.5 * priors.sum())


def _gradient_and_information(table: _Table, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient of the log-likelihood and the observed information (minus the Hessian)."""
    size = len(theta)
    q = _expected(theta - INITIAL_RATING)
    p = _expected(theta[table.first] - theta[table.second])
    residual = table.points - table.played * p  # what the first bot scored above expectation
    gradient = _BETA * (
        PRIOR_DRAWS * (0.5 - q)
        + np.bincount(table.first, residual, size)
        - np.bincount(table.second, residual, size)
    )
    weight = _BETA**2 * table.played * p * (1.0 - p)
    information = np.zeros((size, size))
    information[table.first, table.second] = -weight  # each pair once: no sums needed
    information[table.second, table.first] = -weight
    diagonal = (
        _BETA**2 * PRIOR_DRAWS * q * (1.0 - q)
        + np.bincount(table.first, weight, size)
        + np.bincount(table.second, weight, size)
    )
    information[np.diag_indices(size)] = diagonal
    return gradient, information


def _expected(difference: np.ndarray) -> np.ndarray:
    """``expected_score`` of rating differences, elementwise."""
    return 1.0 / (1.0 + np.exp(-_BETA * difference))


def _reduce(gradient: np.ndarray, information: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and information for the first n-1 ratings, the last one pinned by the mean.

    With ``theta_last = n * INITIAL_RATING - sum(others)``, the chain rule gives
    ``g_k - g_last`` and ``J_kl - J_k,last - J_last,l + J_last,last``.
    """
    last = len(gradient) - 1
    reduced = (
        information[:last, :last]
        - information[:last, last][:, None]
        - information[last, :last][None, :]
        + information[last, last]
    )
    return gradient[:last] - gradient[last], reduced


def _invert(matrix: np.ndarray) -> np.ndarray:
    """Inverse of a square matrix (LAPACK, through numpy).

    Raises:
        ValueError: the matrix is singular.
    """
    try:
        return np.linalg.inv(np.asarray(matrix, dtype=float))
    except np.linalg.LinAlgError:
        raise ValueError("matrix is singular") from None


def _newton_step(table: _Table, theta: np.ndarray) -> np.ndarray:
    """Newton direction for ``theta`` that keeps the mean rating fixed."""
    reduced_gradient, reduced_information = _reduce(*_gradient_and_information(table, theta))
    try:
        step = np.linalg.solve(reduced_information, reduced_gradient)
    except np.linalg.LinAlgError:
        raise ValueError("matrix is singular") from None
    return np.append(step, -step.sum())


def _line_search(
    table: _Table, theta: np.ndarray, step: np.ndarray, base: float
) -> tuple[np.ndarray, float]:
    """Halve ``step`` until it does not lower the likelihood (Newton can overshoot far out).

    ``base`` is the log-likelihood at ``theta``; returns the new ratings and theirs.
    Rounding slack is allowed: near the optimum a good step changes the likelihood by less
    than floating-point noise, and rejecting it would stall the fit.
    """
    floor = base - _ROUNDING_SLACK * (1.0 + abs(base))
    scale = 1.0
    for _ in range(_MAX_HALVINGS):
        candidate = theta + scale * step
        likelihood = _log_likelihood(table, candidate)
        if likelihood >= floor:
            return candidate, likelihood
        scale /= 2.0
    return theta, base


def _variances(table: _Table, theta: np.ndarray) -> np.ndarray:
    """Variance of each rating: the inverse observed information under the mean constraint.

    The first n-1 variances are the diagonal of the inverted reduced information; the last
    rating is minus the sum of the others (plus a constant), so its variance is the sum of
    every entry.
    """
    covariance = _invert(_reduce(*_gradient_and_information(table, theta))[1])
    return np.append(np.diagonal(covariance), covariance.sum())


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
    does not depend on the order of ``games``: it is ``bradley_terry_pairings`` of their
    ``pairings``.

    Bots in different ``connected_groups`` get numbers on one scale only through the prior
    and the common mean, which says nothing about how they compare: use
    ``bradley_terry_by_group`` to rate them.

    Raises:
        ValueError: a malformed game (see ``update_elo``).
        RuntimeError: no convergence within ``max_iterations`` Newton steps.
    """
    return bradley_terry_pairings(
        pairings(games), tolerance=tolerance, max_iterations=max_iterations
    )


def bradley_terry_pairings(
    pairs: Iterable[Pairing], *, tolerance: float = 1e-6, max_iterations: int = 100
) -> dict[str, Rating]:
    """``bradley_terry`` from the games summed per pair of bots (``Pairing``s).

    Raises:
        ValueError: a pairing of a bot with itself.
        RuntimeError: no convergence within ``max_iterations`` Newton steps.
    """
    return _fit(_tabulate_pairings(pairs), tolerance, max_iterations)


def _fit(table: _Table, tolerance: float = 1e-6, max_iterations: int = 100) -> dict[Any, Rating]:
    if not table.bots:
        return {}
    theta = _first_guess(table)
    likelihood = _log_likelihood(table, theta)
    for _ in range(max_iterations):
        step = _newton_step(table, theta)
        if np.abs(step).max() < tolerance:
            return _ratings(table, theta + step)
        theta, likelihood = _line_search(table, theta, step, likelihood)
    raise RuntimeError(f"Bradley-Terry fit did not converge in {max_iterations} iterations")


def _first_guess(table: _Table) -> np.ndarray:
    """Where Newton starts: each bot's score (its prior draws included) as the Elo
    difference that would give it against an average opponent, around the mean.

    Any start reaches the same maximum (the likelihood is concave, and the line search
    never lets it fall); this one saves about two of the seven solves from all-equal
    ratings at a thousand bots.
    """
    size = len(table.bots)
    scored = np.bincount(table.first, table.points, size) + np.bincount(
        table.second, table.played - table.points, size
    )
    share = (scored + 0.5 * PRIOR_DRAWS) / (table.games + PRIOR_DRAWS)
    guess = 400.0 * np.log10(share / (1.0 - share))
    return guess - guess.mean() + INITIAL_RATING


def _ratings(table: _Table, theta: np.ndarray) -> dict[Any, Rating]:
    half_widths = Z_95 * np.sqrt(_variances(table, theta))
    return {
        bot: Rating(rating, rating - half_width, rating + half_width, round(games))
        for bot, rating, half_width, games in zip(
            table.bots, theta.tolist(), half_widths.tolist(), table.games.tolist(), strict=True
        )
    }


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
    table = _tabulate_pairings(pairings(games))
    return [[table.bots[i] for i in group.tolist()] for group in _components(table)]


def bradley_terry_by_group(games: Iterable[Game]) -> dict[str, Rating]:
    """``bradley_terry`` fitted separately within each of ``connected_groups(games)``.

    Each group's ratings come from its own games only and average ``INITIAL_RATING``:
    compare them only within a group. When the games connect every bot (one group), this
    is exactly ``bradley_terry(games)``.

    Raises:
        ValueError: a malformed game (see ``update_elo``).
        RuntimeError: a group's fit did not converge.
    """
    return fit_by_group(pairings(games)).ratings


@dataclass(frozen=True, slots=True)
class GroupFit:
    """``fit_by_group``: each bot's rating within its group, and the groups."""

    ratings: dict[Any, Rating]
    """By bot, in the order of the bots."""
    groups: list[list[Any]]
    """``connected_groups``: largest first, each in the order of the bots."""


def fit_by_group(pairs: Iterable[Pairing]) -> GroupFit:
    """``bradley_terry_by_group`` from the games summed per pair of bots (``Pairing``s).

    Raises:
        ValueError: a pairing of a bot with itself.
        RuntimeError: a group's fit did not converge.
    """
    return _fit_by_group(_tabulate_pairings(pairs))


def fit_arrays_by_group(
    a: ArrayLike, b: ArrayLike, played: ArrayLike, points_a: ArrayLike
) -> GroupFit:
    """``fit_by_group`` of pairings given as four arrays (``Pairing``'s fields), as a
    database returns them: bots are any sortable labels (the ladder uses version ids).

    Raises:
        ValueError: a pairing of a bot with itself.
        RuntimeError: a group's fit did not converge.
    """
    return _fit_by_group(_tabulate(a, b, played, points_a))


def _fit_by_group(table: _Table) -> GroupFit:
    groups = _components(table)
    fits: dict[Any, Rating] = {}
    for group in groups:
        fits.update(_fit(table.part(group) if len(groups) > 1 else table))
    return GroupFit(
        dict(sorted(fits.items())), [[table.bots[i] for i in group.tolist()] for group in groups]
    )
