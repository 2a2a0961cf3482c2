"""A bot's place on the reference scale, from its matches against the reference bots
(``pitch gauntlet``): its rating with a 95% interval, and the league it reached.

Each match stops once its SPRT (``GAUNTLET_SPRT``: is the bot better or worse than this
opponent by a clear margin?) decides. The rating is the maximum-likelihood Elo that
explains all the bot's games at once against the opponents' fixed ratings (logistic
model); its interval is where the log-likelihood falls 1.92 below the best (95%). Games
are counted as independent, which overstates the noise of duplicate pairs a little: the
interval errs wide. The opponents' ratings are taken as exact: their own intervals
(``scale.toml``) are not added to the bot's. A bot that won (or lost) every game has no
finite rating on that side: its bound there is infinite.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pitch_sdk.reference.scale import FIRST_LEAGUE, Rung

from .match.summary import MatchSummary
from .stats import score_from_elo

GAUNTLET_SPRT = "elo0=-75,elo1=75"
"""Each match's test: a placement, not a fine comparison, so the margin is wide and a
clear result (a sweep) decides within about ten deal pairs."""
_DROP_95 = 1.920729410347062
"""Half the 95% quantile of chi-square with one degree of freedom."""
_SEARCH_ELO = 6000.0
"""How far from the opponents the rating and its bounds are looked for."""


class Verdict(StrEnum):
    BEATEN = "beaten"
    LOST = "lost to"
    UNDECIDED = "undecided against"


@dataclass(frozen=True)
class Bout:
    """The bot's match against one reference bot: what it scored, what the test said."""

    opponent: Rung
    games: int
    score: float
    """The bot's wins plus half its draws."""
    verdict: Verdict


@dataclass(frozen=True)
class Placement:
    rating: float
    low: float
    high: float
    league: str


def bout_of(opponent: Rung, summary: MatchSummary) -> Bout:
    """The bout a finished match was (the bot is its side A)."""
    decision = summary.stats.sprt.decision if summary.stats.sprt else None
    verdict = {"H1": Verdict.BEATEN, "H0": Verdict.LOST}.get(decision or "", Verdict.UNDECIDED)
    score = summary.wins + summary.draws / 2
    return Bout(opponent, summary.games_played, score, verdict)


def place(bouts: Sequence[Bout]) -> Placement:
    """The rating that explains ``bouts`` and the league of the last opponent beaten
    (the bouts run weakest first and stop at the first one not beaten)."""
    league = FIRST_LEAGUE
    for bout in bouts:
        if bout.verdict is not Verdict.BEATEN:
            break
        league = bout.opponent.league
    played = [bout for bout in bouts if bout.games]
    if not played:
        return Placement(-math.inf, -math.inf, math.inf, league)
    rating = _best(played)
    best = _log_likelihood(played, rating) if math.isfinite(rating) else 0.0
    low = _bound(played, rating, best, -1)
    high = _bound(played, rating, best, +1)
    return Placement(rating, low, high, league)


def _log_likelihood(bouts: Sequence[Bout], rating: float) -> float:
    total = 0.0
    for bout in bouts:
        expected = score_from_elo(rating - bout.opponent.rating)
        if bout.score:
            total += bout.score * math.log(expected) if expected > 0 else -math.inf
        if bout.games - bout.score:
            lost = bout.games - bout.score
            total += lost * math.log1p(-expected) if expected < 1 else -math.inf
    return total


def _best(bouts: Sequence[Bout]) -> float:
    """The maximum-likelihood rating: where the expected score equals the score."""
    score = sum(bout.score for bout in bouts)
    games = sum(bout.games for bout in bouts)
    if score == 0:
        return -math.inf
    if score == games:
        return math.inf

    def excess(rating: float) -> float:
        expected = sum(bout.games * score_from_elo(rating - bout.opponent.rating) for bout in bouts)
        return expected - score

    centre = sum(bout.opponent.rating for bout in bouts) / len(bouts)
    return _root(excess, centre - _SEARCH_ELO, centre + _SEARCH_ELO)


def _bound(bouts: Sequence[Bout], rating: float, best: float, side: int) -> float:
    """The 95% bound on ``side`` (-1 low, +1 high): infinite if never reached.

    A sweep's rating is infinite, its likelihood tending to 1 (``best`` 0): its other
    bound is looked for from far on the sweep's side."""
    if rating * side == math.inf:
        return rating
    if math.isinf(rating):
        centre = sum(bout.opponent.rating for bout in bouts) / len(bouts)
        rating = centre - side * _SEARCH_ELO
    far = rating + side * 2 * _SEARCH_ELO
    drop = best - _DROP_95
    if _log_likelihood(bouts, far) >= drop:
        return side * math.inf
    return _root(lambda elo: _log_likelihood(bouts, elo) - drop, rating, far)


def _root(function: Callable[[float], float], start: float, end: float) -> float:
    """Bisection for the sign change of ``function`` between ``start`` and ``end``
    (monotone between them, either way round), to a tenth of an Elo point."""
    start_positive = function(start) > 0
    while abs(end - start) > 0.1:
        middle = (start + end) / 2
        if (function(middle) > 0) == start_positive:
            start = middle
        else:
            end = middle
    return (start + end) / 2


__all__ = ["GAUNTLET_SPRT", "Bout", "Placement", "Verdict", "bout_of", "place"]
