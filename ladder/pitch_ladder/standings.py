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

The standings rank by the Bradley-Terry maximum-likelihood fit of all games
(``ratings.bradley_terry_by_group``), which ignores their order, so two bots with the same
results always get the same rating and the same rank; the sequential Elo is shown beside
it. Bots whose results do not connect (groups that never met, directly or through other
bots, ``ratings.connected_groups``) have no common scale: each group is fitted and ranked
on its own, and each line says which group it is in.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby
from typing import NamedTuple

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from .models import Bot, BotVersion, Game, Match, RatingHistory
from .ratings import (
    INITIAL_RATING,
    Rating,
    bradley_terry_by_group,
    connected_groups,
    update_elo,
)

GAME_ORDER = "round, match id, game id"
_CHUNK = 1000  # ids per DELETE ... IN (...), well under every database's parameter limit

RATING_TIE = 1e-6
"""Fitted ratings closer than this many Elo points are a tie: one rank, listed by name.

Two bots with the same results get the same rating up to rounding (far below this), and
the fit converges far closer than this.
"""


class GameRow(NamedTuple):
    """A stored game as the ratings read it: its place in ``GAME_ORDER`` and its result."""

    id: int
    """``game.id``."""
    round: int
    match_id: int
    game_id: str
    """The game's id within its match, e.g. ``pair-00003-b``."""
    a_version: int
    b_version: int
    a_score: float
    """1 win, 0.5 draw, 0 loss, from the side of A's version."""


class LatestVersion(NamedTuple):
    """A bot and its latest version."""

    bot: Bot
    version: BotVersion


def _ordered_games(session: Session) -> list[GameRow]:
    """Every stored game, in ``GAME_ORDER``."""
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
    games = [GameRow(*row) for row in rows]
    # GAME_ORDER, sorted here rather than in SQL so that no collation can reorder game ids.
    return sorted(games, key=lambda game: (game.round, game.match_id, game.game_id))


def rerate(session: Session, new_games: Collection[int]) -> None:
    """Recompute the Elo history from the first of ``new_games`` (``game.id``s) on.

    Call in the transaction that stores the new games, after a flush.
    """
    rows = _ordered_games(session)
    first = next((i for i, row in enumerate(rows) if row.id in new_games), len(rows))
    stale = [row.id for row in rows[first:]]
    for start in range(0, len(stale), _CHUNK):
        chunk = stale[start : start + _CHUNK]
        session.exec(delete(RatingHistory).where(col(RatingHistory.game_id).in_(chunk)))
    ratings: dict[str, float] = {}
    fresh = []
    for i, row in enumerate(rows):
        ratings = update_elo(ratings, str(row.a_version), str(row.b_version), row.a_score)
        if i >= first:
            fresh += [
                RatingHistory.model_validate(
                    {"version_id": version, "game_id": row.id, "rating": ratings[str(version)]}
                )
                for version in (row.a_version, row.b_version)
            ]
    session.add_all(fresh)


@dataclass(frozen=True)
class Standing:
    """One line of the standings table."""

    rank: int | None
    """Rank within the line's group by the fit (1 is the best; tied ratings share a rank,
    listed by name); ``None`` before any game."""
    group: int | None
    """Which group of bots whose results connect (``ratings.connected_groups``) the version
    is in: 1 is the group with the most bots shown; ``None`` before any game. Ratings are
    comparable only within a group."""
    bot: str
    version: str
    """The manifest's version and the first 8 digits of the content hash."""
    fit: Rating | None
    """Bradley-Terry rating within the group, with its 95% interval (``None`` before any
    game): the ranking."""
    elo: float
    """Sequential Elo after the version's last game (``INITIAL_RATING`` before any)."""
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


def latest_versions(session: Session, include_retired: bool = False) -> list[LatestVersion]:
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
    return [LatestVersion(bot, version) for bot, version in session.exec(query).all()]


def standings(session: Session, include_retired: bool = False) -> list[Standing]:
    """The latest version of each bot, ranked within its group by the Bradley-Terry fit.

    Every stored game counts, old versions' and retired bots' included: they rate their
    opponents, and they can connect two bots that never met. Lines come group by group
    (group 1 first), each ranked by fitted rating (``RATING_TIE``: equal ratings share a
    rank and are listed by name), then the versions without games, by name.
    """
    shown = latest_versions(session, include_retired)
    rows = _ordered_games(session)
    results = [(str(row.a_version), str(row.b_version), row.a_score) for row in rows]
    fits = bradley_terry_by_group(results)
    names = {str(version.id): bot.name for bot, version in shown}
    groups = _number_groups(connected_groups(results), names)
    elo = _last_ratings(session, [version.id for _, version in shown if version.id])
    scores: dict[int, list[float]] = {}
    for row in rows:
        scores.setdefault(row.a_version, []).append(row.a_score)
        scores.setdefault(row.b_version, []).append(1.0 - row.a_score)
    lines = []
    for bot, version in shown:
        mine = scores.get(version.id or 0, [])
        lines.append(
            Standing(
                rank=None,
                group=groups.get(str(version.id)),
                bot=bot.name,
                version=version_label(version),
                fit=fits.get(str(version.id)),
                elo=elo.get(version.id or 0, INITIAL_RATING),
                games=len(mine),
                wins=mine.count(1.0),
                losses=mine.count(0.0),
                draws=mine.count(0.5),
            )
        )
    return _ranked(lines)


def _number_groups(groups: Sequence[list[str]], names: Mapping[str, str]) -> dict[str, int]:
    """Group numbers of the shown versions (``names``: version key to bot name).

    Only groups with a shown version are numbered: the most shown versions first, equal
    counts in the order of their first bot names.
    """
    shown = [sorted(names[key] for key in group if key in names) for group in groups]
    order = sorted(
        (i for i, group in enumerate(shown) if group), key=lambda i: (-len(shown[i]), shown[i])
    )
    number = {i: n for n, i in enumerate(order, start=1)}
    return {key: number[i] for i, group in enumerate(groups) for key in group if key in names}


def _ranked(lines: list[Standing]) -> list[Standing]:
    """Lines by group, ranked within it by fitted rating; then the lines without games."""
    rated = sorted(
        (line for line in lines if line.fit is not None and line.group is not None),
        key=lambda line: (line.group, -_rating(line)),
    )
    ranked = []
    for _group, members in groupby(rated, key=lambda line: line.group):
        ties: list[list[Standing]] = []
        for line in members:
            if ties and _rating(ties[-1][0]) - _rating(line) <= RATING_TIE:
                ties[-1].append(line)
            else:
                ties.append([line])
        rank = 1
        for tie in ties:
            ranked += [replace(line, rank=rank) for line in sorted(tie, key=lambda x: x.bot)]
            rank += len(tie)
    unrated = [line for line in lines if line.fit is None or line.group is None]
    return ranked + sorted(unrated, key=lambda line: line.bot)


def _rating(line: Standing) -> float:
    assert line.fit is not None
    return line.fit.rating


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
