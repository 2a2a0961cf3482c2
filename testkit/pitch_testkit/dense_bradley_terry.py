"""The Bradley-Terry fit as the ladder computed it before its fit went sparse: dense Newton
steps on the ratings with the last one pinned by the mean, intervals from the inverse of
the reduced information. The sparse fit (``pitch_ladder.ratings``) is checked against it."""

from __future__ import annotations

from typing import Any

import numpy as np

from pitch_ladder.ratings import (
    _BETA,
    INITIAL_RATING,
    PRIOR_DRAWS,
    Rating,
    _expected,
    _first_guess,
    _log_likelihood,
    _Table,
)
from pitch_referee.stats import Z_95


def dense_fit(
    table: _Table, tolerance: float = 1e-9, max_iterations: int = 100
) -> dict[Any, Rating]:
    """The reference fit of one group's ``table``, by dense Newton steps and line search."""
    if not table.bots:
        return {}
    theta = _first_guess(table, {})
    likelihood = _log_likelihood(table, theta)
    for _ in range(max_iterations):
        gradient, information = _reduce(*_dense_information(table, theta))
        step = np.linalg.solve(information, gradient)
        step = np.append(step, -step.sum())
        if np.abs(step).max() < tolerance:
            return _ratings(table, theta + step)
        scale = 1.0
        while scale > 1e-18:
            candidate = theta + scale * step
            if (value := _log_likelihood(table, candidate)) >= likelihood - 1e-12 * (
                1.0 + abs(likelihood)
            ):
                theta, likelihood = candidate, value
                break
            scale /= 2.0
    raise RuntimeError("the dense reference fit did not converge")


def invert(matrix: Any) -> np.ndarray:
    """Inverse of a square matrix (LAPACK, through numpy); ``ValueError`` when singular."""
    try:
        return np.linalg.inv(np.asarray(matrix, dtype=float))
    except np.linalg.LinAlgError:
        raise ValueError("matrix is singular") from None


def _dense_information(table: _Table, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    size = len(theta)
    q = _expected(theta - INITIAL_RATING)
    p = _expected(theta[table.first] - theta[table.second])
    residual = table.points - table.played * p
    gradient = _BETA * (
        PRIOR_DRAWS * (0.5 - q)
        + np.bincount(table.first, residual, size)
        - np.bincount(table.second, residual, size)
    )
    weight = _BETA**2 * table.played * p * (1.0 - p)
    information = np.zeros((size, size))
    information[table.first, table.second] = -weight
    information[table.second, table.first] = -weight
    information[np.diag_indices(size)] = (
        _BETA**2 * PRIOR_DRAWS * q * (1.0 - q)
        + np.bincount(table.first, weight, size)
        + np.bincount(table.second, weight, size)
    )
    return gradient, information


def _reduce(gradient: np.ndarray, information: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and information of the first n-1 ratings, the last pinned by the mean."""
    last = len(gradient) - 1
    reduced = (
        information[:last, :last]
        - information[:last, last][:, None]
        - information[last, :last][None, :]
        + information[last, last]
    )
    return gradient[:last] - gradient[last], reduced


def dense_variances(table: _Table, theta: np.ndarray) -> np.ndarray:
    """The diagonal of the inverse reduced information; the last rating's is the sum."""
    covariance = invert(_reduce(*_dense_information(table, theta))[1])
    return np.append(np.diagonal(covariance), covariance.sum())


def _ratings(table: _Table, theta: np.ndarray) -> dict[Any, Rating]:
    half_widths = Z_95 * np.sqrt(dense_variances(table, theta))
    return {
        bot: Rating(rating, rating - half, rating + half, round(games))
        for bot, rating, half, games in zip(
            table.bots, theta.tolist(), half_widths.tolist(), table.games.tolist(), strict=True
        )
    }
