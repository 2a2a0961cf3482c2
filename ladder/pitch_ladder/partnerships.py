"""The team model's ratings of the ladder's bot versions, from the games of team matches.

Elo and the Bradley-Terry fit rate a bot partnering itself (``standings``). A team match
of the mixed-partnership format (``ladder run --partnerships``) seats a bot beside
another one, and its result belongs to both: the team model
(``pitch_referee.team_ratings``) rates each version from those games, so a bot that
plays well only beside itself shows it. The two ratings are shown side by side.

The model is sequential, so its ratings depend on the order of the games: it rates them
in the ladder's one order (``rating_tables.GAME_ORDER``: round, match, game), never in the
order they were stored, so the same games always give the same ratings however a run
was interrupted or however many workers played it. They are computed on the first read
after new games and kept (``team_rating``, valid while ``team_fit_state`` names the
newest game), as the fit is: new games after the last one rated are rated on from the
kept ratings, anything else rates every team game again (the team games' own index).
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import delete, func, tuple_
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from pitch_referee.team_ratings import TeamRating, TeamRatings

from .database import select_columns
from .models import Game, TeamFitState, TeamRatingRow, now

STATE_ROW = 1
"""The id of the one ``team_fit_state`` row."""


class TeamGame(NamedTuple):
    """A team match's game as the team model reads it, with its place in ``GAME_ORDER``."""

    round: int
    match_id: int
    game_id: str
    a: int
    a_partner: int
    b: int
    b_partner: int
    a_score: float

    @property
    def order(self) -> tuple[int, int, str]:
        return self.round, self.match_id, self.game_id


def team_ratings(session: Session) -> dict[int, TeamRating]:
    """Each version's team-model rating (by version id) from every team match's game:
    the kept ones, or (after new games) new ones, kept.

    New games that all come after the last one rated, in ``GAME_ORDER`` (a new round, a
    match that finished after those before it), are rated on from the kept ratings: only
    they are read. Otherwise every team game is rated again. As ``rating_tables.current_fit``,
    the newest game id is read first, and keeping is best effort (another command wrote
    them first, a busy or read-only database).
    """
    through = session.exec(select(func.max(Game.id))).one()
    state = session.get(TeamFitState, STATE_ROW)
    kept = _kept(session) if state is not None else {}
    if state is not None and state.through_game_id == through:
        return kept
    last = (state.last_round, state.last_match_id, state.last_game) if state else None
    later = _team_games(session, after=last) if last else []
    total = session.exec(select(func.count()).where(_TEAM_GAME)).one()
    if state is not None and state.rated_games + len(later) == total:
        ratings, games = TeamRatings(kept), later  # only games after the last rated
    else:
        ratings, games = TeamRatings(), _team_games(session)
    for game in games:
        ratings.rate((game.a, game.a_partner), (game.b, game.b_partner), game.a_score)
    newest = games[-1].order if games else last or (0, 0, "")
    _keep(session, dict(ratings.items()), through, total, newest)
    return dict(ratings.items())


_TEAM_GAME = col(Game.a_partner_version_id).is_not(None)


def _team_games(session: Session, after: tuple[int, int, str] | None = None) -> list[TeamGame]:
    """The team matches' games in ``GAME_ORDER`` (those after ``after`` only)."""
    query = select_columns(
        Game.round,
        Game.match_id,
        Game.game_id,
        Game.a_version_id,
        Game.a_partner_version_id,
        Game.b_version_id,
        Game.b_partner_version_id,
        Game.a_score,
    ).where(_TEAM_GAME)
    if after is not None:  # a range of the index; the game ids are compared here
        query = query.where(tuple_(Game.round, Game.match_id) >= after[:2])
    games = [TeamGame(*row) for row in session.exec(query)]
    if after is not None:
        games = [game for game in games if game.order > after]
    return sorted(games, key=lambda game: game.order)


def _kept(session: Session) -> dict[int, TeamRating]:
    return {
        row.version_id: TeamRating(row.mu, row.sigma, row.games)
        for row in session.exec(select(TeamRatingRow))
    }


def _keep(
    session: Session,
    ratings: dict[int, TeamRating],
    through: int | None,
    rated: int,
    last: tuple[int, int, str],
) -> None:
    try:
        session.exec(delete(TeamRatingRow))
        session.add_all(
            TeamRatingRow.model_validate(
                {"version_id": version, "mu": r.mu, "sigma": r.sigma, "games": r.games}
            )
            for version, r in ratings.items()
        )
        state = session.get(TeamFitState, STATE_ROW) or TeamFitState.model_validate(
            {"id": STATE_ROW}
        )
        state.through_game_id, state.rated_games, state.fitted_at = through, rated, now()
        state.last_round, state.last_match_id, state.last_game = last
        session.add(state)
        session.commit()
    except DBAPIError:
        session.rollback()


def forget_team_ratings(session: Session) -> None:
    """Drop the kept ratings, so that the next read computes them again (a repair)."""
    for table in (TeamRatingRow, TeamFitState):
        session.exec(delete(table))
