"""The standings: each bot's latest version, ranked by the ratings kept for it.

Reads only what ``rating_tables`` keeps current as games are stored (each version's Elo
and results, the kept fit), never the games.

The standings rank by the Bradley-Terry maximum-likelihood fit of all games, which
ignores their order, so two bots with the same results always get the same rating and
the same rank; the sequential Elo is shown beside it. Bots whose results do not connect
(groups that never met, directly or through other bots, ``ratings.connected_groups``)
have no common scale: each group is fitted and ranked on its own, and each line says
which group it is in.

Where each line stands is worked out when a fit is kept (``placements``, called by
``rating_tables``) and stored with it, so that the standings are read a page at a time
(``standings_page``) without ranking, or even reading, every bot: a page costs the same
at ten bots and at ten thousand. A page is as of the kept fit, which it says (Elo and the
counts are always current); the writer side and the web's background refit keep it
current.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any, NamedTuple

from sqlalchemy import func
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from pitch_referee.team_ratings import TeamRating

from .database import driver_rows, select_columns
from .models import Bot, BotVersion, FitRating, FitState, Game, VersionRating
from .partnerships import team_ratings
from .rating_tables import FIT_ROW, Fit, current_fit
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


_LATEST_COLUMNS = (
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
"""``LatestRow``'s columns, in its order."""


def latest_rows(session: Session, include_retired: bool = False) -> list[LatestRow]:
    """``latest_versions`` with each version's results, as columns in one query, read by
    the driver (``database.driver_rows``): ten thousand bots without an object a row."""
    latest = (
        select(BotVersion.bot_id, func.max(BotVersion.id).label("id"))
        .group_by(col(BotVersion.bot_id))
        .subquery()
    )
    query = (
        select_columns(*_LATEST_COLUMNS)
        .join(latest, col(Bot.id) == latest.c.bot_id)
        .join(BotVersion, col(BotVersion.id) == latest.c.id)
        .outerjoin(VersionRating, col(VersionRating.version_id) == col(BotVersion.id))
        .order_by(col(Bot.name))
    )
    if not include_retired:
        query = query.where(col(Bot.active))
    return [_latest_row(row) for row in driver_rows(session, query)]


def _latest_row(row: Sequence[Any]) -> LatestRow:
    bot, name, active, *rest = row
    return LatestRow(bot, name, bool(active), *rest)


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


class Placement(NamedTuple):
    """Where a shown version stands in the standings (``placements``)."""

    place: int
    """Its line, from 0."""
    rank: int
    group: int


def placements(session: Session, fit: Fit) -> dict[int, Placement]:
    """Where each rated line of the standings of the active bots stands by ``fit``, by
    version id: what ``standings`` ranks, kept with the fit (``rating_tables``) for
    ``standings_page``. Versions without games have no place: they follow, by name."""
    shown = latest_rows(session)
    groups = _number_groups(fit.groups, {row.version_id: row.name for row in shown})
    return {
        row.version_id: Placement(place, rank, groups[row.version_id])
        for place, (rank, row) in enumerate(_ranked(shown, groups, fit.ratings))
        if rank is not None
    }


@dataclass(frozen=True)
class StandingsPage:
    """A page of the standings of the active bots (``standings_page``)."""

    lines: list[Standing]
    total: int
    """Lines in the whole standings."""
    offset: int
    """Lines before this page."""
    fit_through_game: int | None
    """The newest game the ratings and ranks are the fit of (``None``: there was none)."""
    newest_game: int | None
    """The newest game stored now: Elo and the counts are of it."""

    @property
    def stale(self) -> bool:
        """Whether games were stored after the fit shown: a refit is due."""
        return self.fit_through_game != self.newest_game


def standings_page(session: Session, offset: int, limit: int) -> StandingsPage:
    """The lines ``offset`` to ``offset + limit`` of the active bots' standings, as of the
    kept fit.

    Never fits, but on a ladder with no fit kept yet (``current_fit``): the lines are the
    kept fit's, in its order (``placements``: an index range), then the versions without
    a place then, by name; Elo and the counts are current. Until the next fit is kept, a
    bot retired since leaves its line out (a page may be shorter) and a new version is
    among the unplaced lines.
    """
    kept, through, newest, last_place, total = session.exec(_page_header()).one()
    if not kept:
        current_fit(session)
        kept, through, newest, last_place, total = session.exec(_page_header()).one()
    placed = 0 if last_place is None else last_place + 1
    shown = col(Bot.active) & ~_newer_version_exists()
    rows = []
    if offset < placed:
        rows += driver_rows(
            session,
            select_columns(*_PAGE_COLUMNS)
            .select_from(FitRating)
            .join(BotVersion, col(BotVersion.id) == col(FitRating.version_id))
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .outerjoin(VersionRating, col(VersionRating.version_id) == col(BotVersion.id))
            .where(col(FitRating.place) >= offset, col(FitRating.place) < offset + limit, shown)
            .order_by(col(FitRating.place)),
        )
    if offset + limit > placed:
        rows += driver_rows(
            session,
            select_columns(*_PAGE_COLUMNS)
            .select_from(Bot)
            .join(BotVersion, col(BotVersion.bot_id) == col(Bot.id))
            .outerjoin(FitRating, col(FitRating.version_id) == col(BotVersion.id))
            .outerjoin(VersionRating, col(VersionRating.version_id) == col(BotVersion.id))
            .where(shown, col(FitRating.place).is_(None))
            .order_by(col(Bot.name))
            .offset(max(offset - placed, 0))
            .limit(offset + limit - max(offset, placed)),
        )
    teams = team_ratings(session) if rows else {}
    return StandingsPage([_line(row, teams) for row in rows], total, offset, through, newest)


def _page_header() -> Any:
    """What a page needs besides its lines, in one query (one round trip): whether a fit
    is kept, the newest game it is of, the newest game, its last place and the lines."""
    return select_columns(
        select(func.count()).select_from(FitState).scalar_subquery(),
        select(FitState.through_game_id).where(FitState.id == FIT_ROW).scalar_subquery(),
        select(func.max(Game.id)).scalar_subquery(),
        select(func.max(FitRating.place)).scalar_subquery(),
        select(func.count())
        .select_from(Bot)
        .where(col(Bot.active), select(BotVersion.id).where(BotVersion.bot_id == Bot.id).exists())
        .scalar_subquery(),
    )


def _newer_version_exists() -> Any:
    """Whether the bot of ``bot_version`` has a later version: one step of its index."""
    newer = aliased(BotVersion)
    return (
        select(newer.id)
        .where(newer.bot_id == BotVersion.bot_id, col(newer.id) > col(BotVersion.id))
        .exists()
    )


_PAGE_COLUMNS = (
    *_LATEST_COLUMNS,
    FitRating.rating,
    FitRating.lower,
    FitRating.upper,
    FitRating.games,
    FitRating.rank,
    FitRating.group_number,
)
"""The columns of a page's lines: ``LatestRow``'s, then the kept fit's."""


def _line(row: Sequence[Any], teams: Mapping[int, TeamRating]) -> Standing:
    """A page's line from a row of ``_PAGE_COLUMNS``."""
    *latest, rating, lower, upper, games, rank, group = row
    version = _latest_row(latest)
    return Standing(
        rank=rank,
        group=group,
        bot=version.name,
        version=version.label,
        fit=None if rating is None else Rating(rating, lower, upper, games),
        elo=INITIAL_RATING if version.elo is None else version.elo,
        games=version.games or 0,
        wins=version.wins or 0,
        losses=version.losses or 0,
        draws=version.draws or 0,
        team=teams.get(version.version_id),
    )


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
