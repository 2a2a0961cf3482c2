"""The standings: each bot's latest version, ranked by the ratings kept for it.

Reads only what ``rating_tables`` keeps current as games are stored (each version's Elo
and results, the kept fit), never the games.

The standings rank by the Bradley-Terry maximum-likelihood fit of all games, which
ignores their order, so two bots with the same results always get the same rating and
the same rank; the sequential Elo is shown beside it. Bots whose results do not connect
(groups that never met, directly or through other bots, ``ratings.connected_groups``)
have no common scale: each group is fitted and ranked on its own, and each line says
which group it is in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import NamedTuple

from sqlalchemy import func
from sqlmodel import Session, col, select

from pitch_referee.team_ratings import TeamRating

from .database import driver_rows
from .models import Bot, BotVersion, VersionRating
from .partnerships import team_ratings
from .rating_tables import Fit, current_fit
from .ratings import INITIAL_RATING, Rating

RATING_TIE = 1e-6
"""Fitted ratings closer than this many Elo points are a tie: one rank, listed by name.

Two bots with the same results get the same rating up to rounding (far below this), and
the fit converges far closer than this.
"""


class LatestVersion(NamedTuple):
    """A bot and its latest version."""

    bot: Bot
    version: BotVersion


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
    team: TeamRating | None = None
    """The team model's rating from the version's team matches (``partnerships``), with
    its games; ``None`` when it has played none. Elo, the fit and the counts above are
    of its same-bot games."""

    @property
    def score(self) -> float | None:
        """Points per game (a draw is half a point), or ``None`` before any game."""
        return (self.wins + self.draws / 2) / self.games if self.games else None


def version_label(version: BotVersion) -> str:
    """``1.0 (3fa2c1d4)``: the manifest's version and the start of the content hash."""
    return label_of(version.manifest_version, version.content_hash)


def label_of(manifest_version: str, content_hash: str) -> str:
    """``version_label`` from the two columns, for queries that read only those."""
    return f"{manifest_version} ({content_hash[:8]})"


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


class LatestRow(NamedTuple):
    """A bot and its latest version with its results, as plain columns (``latest_rows``)."""

    bot_id: int
    name: str
    active: bool
    version_id: int
    manifest_version: str
    content_hash: str
    folder: str
    elo: float | None
    """``None``: the version has not played (no ``version_rating`` row)."""
    games: int | None
    wins: int | None
    losses: int | None
    draws: int | None

    @property
    def label(self) -> str:
        """``version_label``."""
        return label_of(self.manifest_version, self.content_hash)


def latest_rows(session: Session, include_retired: bool = False) -> list[LatestRow]:
    """``latest_versions`` with each version's results, as columns in one query, read by
    the driver (``database.driver_rows``): ten thousand bots without an object a row."""
    latest = (
        select(BotVersion.bot_id, func.max(BotVersion.id).label("id"))
        .group_by(col(BotVersion.bot_id))
        .subquery()
    )
    query = (
        select(
            Bot.id,
            Bot.name,
            Bot.active,
            BotVersion.id,
            BotVersion.manifest_version,
            BotVersion.content_hash,
            BotVersion.folder,
            VersionRating.elo,
            VersionRating.games,
            VersionRating.wins,
            VersionRating.losses,
            VersionRating.draws,
        )
        .join(latest, col(Bot.id) == latest.c.bot_id)
        .join(BotVersion, col(BotVersion.id) == latest.c.id)
        .outerjoin(VersionRating, col(VersionRating.version_id) == col(BotVersion.id))
        .order_by(col(Bot.name))
    )
    if not include_retired:
        query = query.where(col(Bot.active))
    return [
        LatestRow(bot, name, bool(active), *rest)
        for bot, name, active, *rest in driver_rows(session, query)
    ]


def standings(
    session: Session, include_retired: bool = False, fit: Fit | None = None
) -> list[Standing]:
    """The latest version of each bot, ranked within its group by the Bradley-Terry fit.

    Every stored game counts, old versions' and retired bots' included: they rate their
    opponents, and they can connect two bots that never met. Lines come group by group
    (group 1 first), each ranked by fitted rating (``RATING_TIE``: equal ratings share a
    rank and are listed by name), then the versions without games, by name.

    Reads the bots, their latest versions and their ratings' rows, never the games (but
    to fit them again after a change: ``current_fit``, unless ``fit`` is given).
    """
    fit = fit or current_fit(session)
    teams = team_ratings(session)
    shown = latest_rows(session, include_retired)
    groups = _number_groups(fit.groups, {row.version_id: row.name for row in shown})
    return [
        Standing(
            rank=rank,
            group=groups.get(row.version_id),
            bot=row.name,
            version=row.label,
            fit=fit.ratings.get(row.version_id),
            elo=INITIAL_RATING if row.elo is None else row.elo,
            games=row.games or 0,
            wins=row.wins or 0,
            losses=row.losses or 0,
            draws=row.draws or 0,
            team=teams.get(row.version_id),
        )
        for rank, row in _ranked(shown, groups, fit.ratings)
    ]


def _number_groups(groups: Sequence[list[int]], names: Mapping[int, str]) -> dict[int, int]:
    """Group numbers of the shown versions (``names``: version id to bot name).

    Only groups with a shown version are numbered: the most shown versions first, equal
    counts in the order of their first bot names.
    """
    shown = [sorted(names[key] for key in group if key in names) for group in groups]
    order = sorted(
        (i for i, group in enumerate(shown) if group), key=lambda i: (-len(shown[i]), shown[i])
    )
    number = {i: n for n, i in enumerate(order, start=1)}
    return {key: number[i] for i, group in enumerate(groups) for key in group if key in names}


def _ranked(
    rows: list[LatestRow], groups: Mapping[int, int], ratings: Mapping[int, Rating]
) -> list[tuple[int | None, LatestRow]]:
    """Rows by group, ranked within it by fitted rating; then the rows without games, by
    name (rank ``None``). Ranks come before the lines are made: one ``Standing`` a row."""
    rated = sorted(
        (row for row in rows if row.version_id in ratings and row.version_id in groups),
        key=lambda row: (groups[row.version_id], -ratings[row.version_id].rating),
    )
    ranked: list[tuple[int | None, LatestRow]] = []
    for _group, members in groupby(rated, key=lambda row: groups[row.version_id]):
        ties: list[list[LatestRow]] = []
        for row in members:
            rating = ratings[row.version_id].rating
            if ties and ratings[ties[-1][0].version_id].rating - rating <= RATING_TIE:
                ties[-1].append(row)
            else:
                ties.append([row])
        rank = 1
        for tie in ties:
            by_name = sorted(tie, key=lambda row: row.name) if len(tie) > 1 else tie
            ranked += [(rank, row) for row in by_name]
            rank += len(tie)
    unrated = [row for row in rows if row.version_id not in ratings or row.version_id not in groups]
    return ranked + [(None, row) for row in sorted(unrated, key=lambda row: row.name)]
