"""Team ratings: each bot's skill, with its uncertainty, from games where bots partner each other.

In an ordinary match a team is one bot in both of its seats, and Elo rates that team. In a
mixed-partnership match bot A partners bot C against B and D, so a team's result belongs to
two bots. This module rates the bots themselves: each game is one sequential Bayesian update
of the four players' ratings (Weng and Lin's approximation, "A Bayesian approximation method
for online ranking", JMLR 2011, as implemented by the ``openskill`` library). It is pure
math: no I/O, and nothing from the ladder or the web.

The model is openskill's ``BradleyTerryFull``. With two teams it is the logistic
(Bradley-Terry) curve, the same one as Elo and the ladder's fit, and a draw counts as half a
win, as everywhere else in the project; ``ThurstoneMostellerFull`` would put a normal curve
and a draw margin of its own beside them. ``PlackettLuce`` gives the same updates for two
teams. The dynamics term ``tau`` is 0: a bot version does not learn between games, so its
skill is one fixed number, and a rating's uncertainty only ever shrinks. TrueSkill, the
other well-known team model, is patented by Microsoft and its Python package has had no
release since 2018; Glicko-2 rates two players, not teams.

The scale reads like Elo. A team's strength is the mean of its two players' ratings (which
is openskill's sum, halved), and ``BETA`` is chosen so that a team whose strength is 400
points higher scores 10/11 (odds of 10 to 1) when the ratings are certain: two
same-bot teams (X, X) and (Y, Y) with ratings 400 apart are exactly two Elo players 400
apart. A new bot starts at 1500 with a standard deviation of 350, Glicko's conventions.

A same-bot team (X, X) has strength ``mu_X`` and uncertainty ``sigma_X``, since both seats
are one unknown skill: openskill is given the team as one player of rating ``2 * mu_X``
and deviation ``2 * sigma_X`` (a team of two copies would count the one skill's doubt as
two independent doubts, and update the bot twice). Its update, halved, is the exact update
for ``X`` under the team model, so the bot gets one consistent update per game.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar

from openskill.models import BradleyTerryFull, BradleyTerryFullRating

K = TypeVar("K", bound=Hashable)

INITIAL_MU = 1500.0
"""Rating of a bot before its first game (Elo points)."""

INITIAL_SIGMA = 350.0
"""Uncertainty of a bot before its first game: it is believed within 1500 ± 700."""

BETA = 400.0 * math.sqrt(2.0) / math.log(10.0)
"""Per-player performance spread in openskill's summed units (about 245.7).

A team's summed strength beats another by ``d`` with probability ``1 / (1 + exp(-d / c))``,
``c = sqrt(2 * BETA**2 + the teams' variances)``. With certain ratings,
``d / (sqrt(2) * BETA) = d * ln(10) / 800``: a summed gap of 800 (a mean gap of 400) gives
odds of 10 to 1, as Elo does for 400 points.
"""

INTERVAL_SIGMAS = 2.0
"""Half-width of the shown interval in standard deviations: ``mu ± 2 sigma``, about 95%."""

_MODEL = BradleyTerryFull(mu=INITIAL_MU, sigma=INITIAL_SIGMA, beta=BETA, tau=0.0)

_RANKS: dict[float, list[float]] = {1.0: [0, 1], 0.5: [0, 0], 0.0: [1, 0]}
"""openskill ranks (lower is better) of team A and team B for A's score."""

Game: TypeAlias = tuple[tuple[K, K], tuple[K, K], float]
"""``(team_a, team_b, score_a)``: A's score is 1 for a win, 0.5 for a draw, 0 for a loss."""


@dataclass(frozen=True, slots=True)
class TeamRating:
    """One bot's rating: ``mu`` in Elo points, ``sigma`` its standard deviation.

    These three numbers are the whole state of a bot, so storing them and passing them back
    to ``TeamRatings(known=...)`` resumes the ratings exactly.
    """

    mu: float
    sigma: float
    games: int

    def __post_init__(self) -> None:
        if not math.isfinite(self.mu):
            raise ValueError(f"rating mu={self.mu} is not a finite number")
        if not (math.isfinite(self.sigma) and self.sigma > 0.0):
            raise ValueError(f"rating sigma={self.sigma} must be a positive number")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 0:
            raise ValueError(f"rating games={self.games!r} must be a non-negative integer")

    @property
    def lower(self) -> float:
        """Bottom of the shown interval, ``mu - 2 sigma`` (about 95% if the model holds)."""
        return self.mu - INTERVAL_SIGMAS * self.sigma

    @property
    def upper(self) -> float:
        """Top of the shown interval, ``mu + 2 sigma``."""
        return self.mu + INTERVAL_SIGMAS * self.sigma


PRIOR = TeamRating(INITIAL_MU, INITIAL_SIGMA, 0)
"""The rating of a bot that has played no game."""


def _check_game(team_a: tuple[K, K], team_b: tuple[K, K], score_a: float) -> None:
    if score_a not in _RANKS:
        raise ValueError(
            f"score of {team_a!r} against {team_b!r} must be 0, 0.5 or 1, got {score_a}"
        )
    for team in (team_a, team_b):
        if len(team) != 2:
            raise ValueError(f"a team is two seats, got {team!r}")
    both = set(team_a) & set(team_b)
    if both:
        raise ValueError(f"{both.pop()!r} plays on both teams of {team_a!r} against {team_b!r}")


class TeamRatings(Generic[K]):
    """Sequential (online) team ratings: each game updates the four players' ratings.

    The result depends on the order of the games, as sequential Elo's does, though less:
    each update is weighed by how uncertain the ratings still are. Feed games in the order
    they finished (ties broken by game id) so that one history always gives one set of
    ratings.
    """

    def __init__(self, known: Mapping[K, TeamRating] | None = None) -> None:
        """Start from stored ratings (``known``), or from nothing: every bot at ``PRIOR``."""
        self._ratings: dict[K, TeamRating] = dict(known or {})

    def __getitem__(self, key: K) -> TeamRating:
        """The bot's rating; a bot that has not played yet has ``PRIOR``."""
        return self._ratings.get(key, PRIOR)

    def __contains__(self, key: object) -> bool:
        return key in self._ratings

    def __len__(self) -> int:
        return len(self._ratings)

    def items(self) -> Iterator[tuple[K, TeamRating]]:
        """Every rated bot (played, or passed in as ``known``), in the order first seen."""
        return iter(self._ratings.items())

    def ranked(self) -> list[tuple[K, TeamRating]]:
        """Every rated bot, highest ``mu`` first; equal ``mu`` keep the order first seen.

        By ``mu``, not by the conservative ``lower``: ``mu`` is the best estimate of the
        bot's strength, and ranking by ``lower`` would put a new bot below weaker ones
        because it is unknown. The interval is there to be shown beside the rank.
        """
        return sorted(self._ratings.items(), key=lambda item: -item[1].mu)

    def rate(self, team_a: tuple[K, K], team_b: tuple[K, K], score_a: float) -> None:
        """Update the players of one game: A's score is 1 (won), 0.5 (drawn) or 0 (lost).

        A team may be one bot in both seats, ``(X, X)``: it is rated as one player of twice
        the rating (see the module docstring), and ``X`` is updated once.

        Raises:
            ValueError: the score is not 0, 0.5 or 1, a team is not two seats, or one bot
            plays on both teams.
        """
        _check_game(team_a, team_b, score_a)
        teams = [self._model_team(team_a), self._model_team(team_b)]
        rated = _MODEL.rate(teams, ranks=_RANKS[score_a])
        for team, players in zip((team_a, team_b), rated, strict=True):
            self._store(team, players)

    def _model_team(self, team: tuple[K, K]) -> list[BradleyTerryFullRating]:
        """The team as openskill's players: two, or one of double rating for ``(X, X)``."""
        first, second = team
        if first == second:
            rating = self[first]
            return [_MODEL.rating(2.0 * rating.mu, 2.0 * rating.sigma)]
        return [_MODEL.rating(self[key].mu, self[key].sigma) for key in team]

    def _store(self, team: tuple[K, K], players: list[BradleyTerryFullRating]) -> None:
        first, second = team
        if first == second:
            (player,) = players
            self._ratings[first] = TeamRating(
                player.mu / 2.0, player.sigma / 2.0, self[first].games + 1
            )
            return
        for key, player in zip(team, players, strict=True):
            self._ratings[key] = TeamRating(player.mu, player.sigma, self[key].games + 1)


def rate_games(
    games: Iterable[Game[K]],
    known: Mapping[K, TeamRating] | None = None,
) -> TeamRatings[K]:
    """Rate ``games`` in the order given, starting from ``known`` (or from nothing).

    Raises:
        ValueError: a bad game (see ``TeamRatings.rate``).
    """
    ratings: TeamRatings[K] = TeamRatings(known)
    for team_a, team_b, score_a in games:
        ratings.rate(team_a, team_b, score_a)
    return ratings
