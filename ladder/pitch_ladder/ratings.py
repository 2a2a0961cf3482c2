"""Ladder ratings from finished games: sequential Elo and a Bradley-Terry maximum-likelihood fit.

This module owns how the ladder turns game results into ratings. It is pure math (numpy and
scipy's sparse matrices for the fit, and the logistic Elo helpers of ``pitch_referee.stats``):
no database, no I/O.

A game is ``(a, b, score_a)``: bot A's team against bot B's team (each partnership team is
two copies of one bot), with A's score 1 for a win, 0.5 for a draw and 0 for a loss.

Two ratings are offered because they answer different questions. Sequential Elo is cheap,
moves after every game and rewards recent form, but depends on the order of the games:
two bots with the same results can end up far apart. The Bradley-Terry fit uses every
game at once, ignores order, and comes with a 95% interval per bot, so it is the one to
rank by.

The fit needs only how many games each pair of bots played and how many points each side
scored (a ``Pairing``), never the games one by one: the ladder keeps those sums up to date
as games are stored, so a fit costs the same at a thousand games and at a million. Its
cost grows with the pairs that played, not with the square of the bots: each Newton step
is solved by conjugate gradients over the sparse information matrix (a few seconds at
10,000 bots with a few dozen opponents each), and a fit can start from the last one
(``start``), which leaves a step or two after new games.

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
from scipy import sparse
from scipy.linalg import lapack

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

EXACT_VARIANCE_BOTS = 1000
"""Up to this many bots in a group, the intervals come from the exact inverse information
(a dense Cholesky inverse, which grows with the cube of the bots: well under a second
at 1,000); above, from ``_sampled_variances``."""

VARIANCE_SAMPLE = 16
"""Bots whose exact variance calibrates ``_sampled_variances``: one sparse solve each."""

SAMPLED_WIDTH_TOLERANCE = 0.05
"""How far (relative) the interval widths of ``_sampled_variances`` may be from the exact
ones on a scheduler's ladder: checked by ``test_ratings``."""

_CG_TOLERANCE = 1e-8
"""Relative residual at which conjugate gradients stop: the last Newton steps move the
ratings by far less than the fit's tolerance, and rounding still lets them get there."""
_CG_LOOSEST = 1e-3
"""The loosest tolerance of a Newton step's conjugate gradients (far from the maximum)."""
_SAMPLE_TOLERANCE = 1e-4
"""Conjugate gradients' tolerance for the exact variances of ``_sampled_variances``."""
_BLOCK_COLUMNS = 8
_CG_ITERATIONS = 2000
"""Conjugate gradients stop after this many iterations, converged or not (a few hundred
suffice at 10,000 bots; the line search keeps a poor step from lowering the likelihood)."""
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


def _gradient_and_information(
    table: _Table, theta: np.ndarray
) -> tuple[np.ndarray, sparse.csr_array]:
    """Gradient of the log-likelihood and the observed information (minus the Hessian), the
    latter sparse: one entry per pair that played, and the diagonal."""
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
    diagonal = (
        _BETA**2 * PRIOR_DRAWS * q * (1.0 - q)
        + np.bincount(table.first, weight, size)
        + np.bincount(table.second, weight, size)
    )
    everyone = np.arange(size)
    information = sparse.csr_array(
        (
            np.concatenate([-weight, -weight, diagonal]),
            (
                np.concatenate([table.first, table.second, everyone]),
                np.concatenate([table.second, table.first, everyone]),
            ),
        ),
        shape=(size, size),
    )
    return gradient, information


def _expected(difference: np.ndarray) -> np.ndarray:
    """``expected_score`` of rating differences, elementwise."""
    return 1.0 / (1.0 + np.exp(-_BETA * difference))


def _solve(
    information: sparse.csr_array, rights: np.ndarray, tolerance: float = _CG_TOLERANCE
) -> np.ndarray:
    """The solution ``d`` of ``H d = r - λ1`` with ``sum(d) == 0``, for each column ``r``
    of ``rights`` (``H`` the information): what the ratings do under the mean constraint.

    By conjugate gradients projected on the ratings that keep their mean and
    preconditioned by the diagonal (the projection taken in the preconditioner's metric,
    so every direction keeps the mean), the columns side by side. ``H`` is symmetric
    positive definite (the prior draws add to its diagonal), so they converge; they stop
    once every column's preconditioned residual is below ``tolerance`` of its start.
    """
    inverse_diagonal = 1.0 / information.diagonal()[:, None]

    def precondition(residual: np.ndarray) -> np.ndarray:
        scaled = inverse_diagonal * residual
        return scaled - inverse_diagonal * (scaled.sum(axis=0) / inverse_diagonal.sum())

    solution = np.zeros_like(rights)
    residual = rights.copy()
    preconditioned = precondition(residual)
    direction = preconditioned.copy()
    product = (residual * preconditioned).sum(axis=0)
    goal = tolerance**2 * product
    for _ in range(_CG_ITERATIONS):
        if (product <= goal).all():
            break
        image = _product(information, direction)
        curvature = (direction * image).sum(axis=0)
        length = np.divide(product, curvature, out=np.zeros_like(product), where=curvature > 0)
        solution += length * direction
        residual -= length * image
        preconditioned = precondition(residual)
        before, product = product, (residual * preconditioned).sum(axis=0)
        turn = np.divide(product, before, out=np.zeros_like(product), where=before > 0)
        direction = preconditioned + turn * direction
    return solution


def _product(matrix: sparse.csr_array, block: np.ndarray) -> np.ndarray:
    """``matrix @ block``: column by column for a few columns, where scipy's product with a
    block is several times slower than its product with a vector."""
    if block.shape[1] > _BLOCK_COLUMNS:
        return matrix @ block
    return np.column_stack([matrix @ column for column in block.T])


def _newton_step(table: _Table, theta: np.ndarray) -> np.ndarray:
    """Newton direction for ``theta`` that keeps the mean rating fixed.

    The step ``d`` maximizes the quadratic model subject to ``sum(d) == 0``: with ``H`` the
    information and ``g`` the gradient, ``H d = g - λ1`` (``λ`` a Lagrange multiplier),
    one ``_solve``. Far from the maximum it is solved loosely (to the size of the gradient
    along the constraint): the step is only a direction there; the last steps, where
    that gradient vanishes, are solved to ``_CG_TOLERANCE`` (an inexact Newton method,
    which keeps Newton's fast finish).
    """
    gradient, information = _gradient_and_information(table, theta)
    uphill = gradient - gradient.mean()  # what the mean constraint leaves of it: the same
    # step (only λ differs), and rounding then scales with what is left to climb
    tolerance = float(np.clip(np.linalg.norm(uphill), _CG_TOLERANCE, _CG_LOOSEST))
    step = _solve(information, uphill[:, None], tolerance)[:, 0]
    return step - step.mean()  # what rounding leaves


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
    """Variance of each rating under the mean constraint, from the observed information.

    With ``H`` the information, the covariance of ratings whose mean is fixed is
    ``H⁻¹ - u uᵀ / sum(u)`` with ``u = H⁻¹1`` (the inverse of the information on the
    ratings that keep the mean). Exact up to ``EXACT_VARIANCE_BOTS`` bots; above, where
    the inverse of ``H`` is out of reach (it is dense), ``_sampled_variances``.
    """
    information = _gradient_and_information(table, theta)[1]
    if len(theta) > EXACT_VARIANCE_BOTS:
        return _sampled_variances(information)
    inverse = _inverse(information.toarray())
    level = inverse.sum(axis=1)
    return np.diagonal(inverse) - level**2 / level.sum()


def _inverse(matrix: np.ndarray) -> np.ndarray:
    """The inverse of a symmetric positive definite matrix, from its Cholesky factor
    (LAPACK's ``potrf`` and ``potri``: a third of the work of a general inverse)."""
    factor, failed = lapack.dpotrf(matrix, lower=False)
    if not failed:
        upper, failed = lapack.dpotri(factor, lower=False)
    if failed:
        raise ValueError("the information is not positive definite")
    return np.triu(upper) + np.triu(upper, 1).T


def _local_variances(information: sparse.csr_array) -> np.ndarray:
    """The variances of ``_variances`` to second order in the opponents' information.

    Writing ``H = D - A`` (``D`` its diagonal), ``H⁻¹ = D⁻¹ + D⁻¹AD⁻¹ + D⁻¹AD⁻¹AD⁻¹ + ...``;
    the first term whose diagonal is not zero after ``D⁻¹`` is the third, ``sum_j A_ij² /
    (D_i² D_j)``: a bot's own games, and how well its opponents are known in turn. Every
    term is positive, so this falls short of the exact variance by what longer chains of
    games add (a few percent on a scheduler's ladder).
    """
    diagonal = information.diagonal()
    off = information - sparse.diags_array(diagonal)
    return (1.0 + (off.multiply(off) @ (1.0 / diagonal)) / diagonal) / diagonal


def _sampled_variances(information: sparse.csr_array) -> np.ndarray:
    """``_local_variances`` scaled by how far they fall short of the exact variances of
    ``VARIANCE_SAMPLE`` bots spread over the group.

    Each exact variance is one ``_solve`` (``C e_i`` is its solution for ``e_i``). The
    shortfall of the local variances is much the same for every bot of a ladder (the
    chains of games that it leaves out are alike), so one factor corrects most of it:
    ``test_ratings`` checks the widths against the exact ones to within
    ``SAMPLED_WIDTH_TOLERANCE`` on a scheduler's ladder (placement spreads each bot's
    opponents over the field). On thin ladders, a handful of opponents a bot, single
    widths were measured 9-14% off (too narrow as often as too wide).
    """
    size = information.shape[0]
    local = _local_variances(information)
    sample = np.linspace(0, size - 1, VARIANCE_SAMPLE).round().astype(np.intp)
    columns = np.arange(VARIANCE_SAMPLE)
    rights = np.zeros((size, VARIANCE_SAMPLE))
    rights[sample, columns] = 1.0
    exact = _solve(information, rights, _SAMPLE_TOLERANCE)[sample, columns]
    return local * float(np.mean(exact / local[sample]))


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


def _fit(
    table: _Table,
    tolerance: float = 1e-6,
    max_iterations: int = 100,
    start: Mapping[Any, float] | None = None,
) -> dict[Any, Rating]:
    if not table.bots:
        return {}
    theta = _first_guess(table, start or {})
    likelihood = _log_likelihood(table, theta)
    for _ in range(max_iterations):
        step = _newton_step(table, theta)
        if np.abs(step).max() < tolerance:
            return _ratings(table, theta + step)
        theta, likelihood = _line_search(table, theta, step, likelihood)
    raise RuntimeError(f"Bradley-Terry fit did not converge in {max_iterations} iterations")


def _first_guess(table: _Table, start: Mapping[Any, float]) -> np.ndarray:
    """Where Newton starts: the ``start`` rating of each bot that has one, else its score
    (its prior draws included) as the Elo difference that would give it against an
    average opponent; around the mean.

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
    if start:
        known = np.array([bot in start for bot in table.bots])
        guess[known] = [start[bot] for bot in table.bots if bot in start]
        guess[~known] += INITIAL_RATING
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
    a: ArrayLike,
    b: ArrayLike,
    played: ArrayLike,
    points_a: ArrayLike,
    start: Mapping[Any, float] | None = None,
) -> GroupFit:
    """``fit_by_group`` of pairings given as four arrays (``Pairing``'s fields), as a
    database returns them: bots are any sortable labels (the ladder uses version ids).

    ``start``: ratings to start from, by bot (an earlier fit's): the maximum is the same
    from any start, but from a fit of nearly the same games it is a step or two away.

    Raises:
        ValueError: a pairing of a bot with itself.
        RuntimeError: a group's fit did not converge.
    """
    return _fit_by_group(_tabulate(a, b, played, points_a), start or {})


def _fit_by_group(table: _Table, start: Mapping[Any, float] | None = None) -> GroupFit:
    groups = _components(table)
    fits: dict[Any, Rating] = {}
    for group in groups:
        fits.update(_fit(table.part(group) if len(groups) > 1 else table, start=start))
    return GroupFit(
        dict(sorted(fits.items())), [[table.bots[i] for i in group.tolist()] for group in groups]
    )
