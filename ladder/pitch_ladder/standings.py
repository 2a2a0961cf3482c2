"""Ratings from the stored games: the Elo history and the standings table.

Players are bot *versions*: a new version is a new player and starts afresh.

Sequential Elo (``ratings.update_elo``: initial 1500, K = 16) is replayed over every
stored game in one fixed order, ``GAME_ORDER``: round, then match id (matches are
created in round-robin order when a round is scheduled), then the game's id within its
match (``pair-00000-a`` before ``pair-00000-b``). The order does not depend on when a
game finished or was imported, so the same games always give the same ratings, however
a run was interrupted and resumed or however many workers played it.

The rating after each game is kept in ``rating_history``. When games are imported out of
order (parallel matches finish in any order), the history is recomputed from the first
new game on, in the same transaction as the import.

The standings' 95% interval comes from the Bradley-Terry maximum-likelihood fit of all
games (``ratings.bradley_terry``), which ignores order.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from .models import Bot, BotVersion, Game, Match, RatingHistory
from .ratings import INITIAL_RATING, Rating, bradley_terry, update_elo

GAME_ORDER = "round, match id, game id"
_CHUNK = 1000  # ids per DELETE ... IN (...), well under every database's parameter limit


def _ordered_games(session: Session) -> list[Any]:
    """Every game's (id, round, match id, game id, A's version, B's version, A's score)."""
    rows = session.exec(
        select(
            Game.id,
            Match.round,
            Match.id,
            Game.game_id,
            Match.a_version_id,
            Match.b_version_id,
            Game.a_score,
        ).join(Match, col(Game.match_id) == col(Match.id))
    ).all()
    # GAME_ORDER, sorted here rather than in SQL so that no collation can reorder game ids.
    return sorted(rows, key=lambda row: (row[1], row[2], row[3]))


def rerate(session: Session, new_games: Collection[int]) -> None:
    """Recompute the Elo history from the first of ``new_games`` (``game.id``s) on.

    Call in the transaction that stores the new games, after a flush.
    """
    rows = _ordered_games(session)
    first = next((i for i, row in enumerate(rows) if row[0] in new_games), len(rows))
    stale = [row[0] for row in rows[first:]]
    for start in range(0, len(stale), _CHUNK):
        chunk = stale[start : start + _CHUNK]
        session.exec(delete(RatingHistory).where(col(RatingHistory.game_id).in_(chunk)))
    ratings: dict[str, float] = {}
    fresh = []
    for i, (game, _round, _match, _name, a, b, a_score) in enumerate(rows):
        ratings = update_elo(ratings, str(a), str(b), a_score)
        if i >= first:
            fresh += [
                RatingHistory.model_validate(
                    {"version_id": version, "game_id": game, "rating": ratings[str(version)]}
                )
                for version in (a, b)
            ]
    session.add_all(fresh)


@dataclass(frozen=True)
class Standing:
    """One line of the standings table."""

    rank: int
    bot: str
    version: str
    """The manifest's version and the first 8 digits of the content hash."""
    elo: float
    """Sequential Elo after the version's last game (``INITIAL_RATING`` before any)."""
    fit: Rating | None
    """Bradley-Terry rating with its 95% interval; ``None`` before any game."""
    games: int
    wins: int
    losses: int
    draws: int

    @property
    def score(self) -> float | None:
        """Points per game (a draw is half a point), or ``None`` before any game."""
        return (self.wins + self.draws / 2) / self.games if self.games else None


def version_label(version: BotVersion) -> str:
    """``1.0 (3fa2c1d4)``: the manifest's version and the start of the content hash."""
    return f"{version.manifest_version} ({version.content_hash[:8]})"


def latest_versions(
    session: Session, include_retired: bool = False
) -> list[tuple[Bot, BotVersion]]:
    """Each bot with its latest version, by name; retired bots only if asked."""
    latest = (
        select(BotVersion.bot_id, func.max(BotVersion.id).label("id"))
        .group_by(col(BotVersion.bot_id))
        .subquery()
    )
    query = (
        select(Bot, BotVersion)
        .join(latest, col(Bot.id) == latest.c.bot_id)
        .join(BotVersion, col(BotVersion.id) == latest.c.id)
        .order_by(col(Bot.name))
    )
    if not include_retired:
        query = query.where(col(Bot.active))
    return [(bot, version) for bot, version in session.exec(query).all()]


def standings(session: Session, include_retired: bool = False) -> list[Standing]:
    """The latest version of each bot, ranked by sequential Elo (ties by name)."""
    shown = latest_versions(session, include_retired)
    rows = _ordered_games(session)
    fits = bradley_terry((str(a), str(b), score) for *_, a, b, score in rows)
    elo = _last_ratings(session, [version.id for _, version in shown if version.id])
    scores: dict[int, list[float]] = {}
    for *_, a, b, a_score in rows:
        scores.setdefault(a, []).append(a_score)
        scores.setdefault(b, []).append(1.0 - a_score)
    lines = []
    for bot, version in shown:
        mine = scores.get(version.id or 0, [])
        lines.append(
            Standing(
                rank=0,
                bot=bot.name,
                version=version_label(version),
                elo=elo.get(version.id or 0, INITIAL_RATING),
                fit=fits.get(str(version.id)),
                games=len(mine),
                wins=mine.count(1.0),
                losses=mine.count(0.0),
                draws=mine.count(0.5),
            )
        )
    lines.sort(key=lambda line: (-line.elo, line.bot))
    return [replace(line, rank=rank) for rank, line in enumerate(lines, start=1)]


def _last_ratings(session: Session, versions: Sequence[int]) -> dict[int, float]:
    """Each version's rating after its last game in ``GAME_ORDER``."""
    if not versions:
        return {}
    rows = session.exec(
        select(RatingHistory.version_id, RatingHistory.rating, Match.round, Match.id, Game.game_id)
        .join(Game, col(Game.id) == col(RatingHistory.game_id))
        .join(Match, col(Match.id) == col(Game.match_id))
        .where(col(RatingHistory.version_id).in_(versions))
    ).all()
    last: dict[int, float] = {}
    for version, rating, *_ in sorted(rows, key=lambda row: (row[2], row[3], row[4])):
        last[version] = rating
    return last
