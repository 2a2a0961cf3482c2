"""What a ladder's web pages read beyond the standings and the games list: pages of
matches, a bot's own page, and each version's rating over its games.

Every read here goes through an index (a version's games, a match's games, a version's
rating history, a range of the match key) and costs what it shows, never a whole table.
Plain functions over a session and version ids; ``Ladder`` resolves names to ids.
This module imports nothing from ``ladder``.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple

from sqlalchemy import case, func
from sqlmodel import Session, col, select

from pitch_referee.team_ratings import TeamRating

from .database import select_columns
from .models import Bot, BotVersion, Game, GameRecord, Match, RatingHistory, VersionRating
from .partnerships import team_ratings
from .rating_tables import Fit
from .ratings import INITIAL_RATING, Rating
from .standings import label_of

MATCH_STATUSES = ("pending", "finished", "cancelled")
FAULT_GAMES = 200
"""A bot's page counts the faults of its newest games with faults, at most this many:
each one means reading a record."""
HISTORY_POINTS = 200
"""A rating history is thinned to about this many points (a chart shows no more)."""


class VersionName(NamedTuple):
    bot: str
    label: str
    """``standings.version_label``."""


def version_names(session: Session, versions: Iterable[int]) -> dict[int | None, VersionName]:
    """The bot name and version label of each version id (read for these ids only)."""
    return {
        version: VersionName(name, label_of(manifest_version, digest))
        for version, name, manifest_version, digest in session.exec(
            select(BotVersion.id, Bot.name, BotVersion.manifest_version, BotVersion.content_hash)
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(col(BotVersion.id).in_(set(versions)))
        )
    }


@dataclass(frozen=True)
class MatchInfo:
    """A scheduled match and its games so far, from A's side."""

    id: int
    round: int
    a: str
    b: str
    a_version: str
    b_version: str
    status: str
    """``pending``, ``finished`` or ``cancelled``."""
    games_planned: int
    games_played: int
    wins: int
    """A's wins, losses and draws."""
    losses: int
    draws: int
    a_points: int
    b_points: int
    finished_at: datetime | None
    a_partner: str | None = None
    """Who partners A in a team match (the mixed-partnership format); ``None``: A itself."""
    b_partner: str | None = None


class _MatchRow(NamedTuple):
    id: int
    round: int
    a_version: int
    b_version: int
    status: str
    games_planned: int
    finished_at: datetime | None
    a_partner: int | None
    b_partner: int | None


_MATCH_COLUMNS = (
    Match.id,
    Match.round,
    Match.a_version_id,
    Match.b_version_id,
    Match.status,
    Match.games_planned,
    Match.finished_at,
    Match.a_partner_version_id,
    Match.b_partner_version_id,
)


def matches(
    session: Session,
    versions: list[int] | None,
    *,
    status: str | None,
    limit: int,
    offset: int,
    before: int | None,
) -> list[MatchInfo]:
    """A page of matches, newest (highest id) first: of ``versions`` if given.

    Like ``Ladder.games``: ``before`` a match id pages at a constant cost, ``offset``
    costs what it skips; a bot's matches are one ordered range per version and side,
    merged.
    """
    newest_match = select(func.max(Match.id)).scalar_subquery()
    bound = [col(Match.id) <= newest_match if before is None else col(Match.id) < before]
    if status is not None:
        bound.append(col(Match.status) == status)
    newest = col(Match.id).desc()
    if versions is None:
        query = (
            select_columns(*_MATCH_COLUMNS)
            .where(*bound)
            .order_by(newest)
            .offset(offset)
            .limit(limit)
        )
        rows = [_MatchRow(*row) for row in session.exec(query)]
    else:
        sides = [
            [
                _MatchRow(*row)
                for row in session.exec(
                    select_columns(*_MATCH_COLUMNS)
                    .where(column == version, *bound)
                    .order_by(newest)
                    .limit(offset + limit)
                )
            ]
            for version in versions
            for column in (col(Match.a_version_id), col(Match.b_version_id))
        ]
        merged = heapq.merge(*sides, key=lambda row: -row.id)
        rows = list(islice(merged, offset, offset + limit))
    return _match_infos(session, rows)


def match(session: Session, number: int) -> MatchInfo | None:
    """The match with id ``number``, if there is one."""
    row = session.exec(select_columns(*_MATCH_COLUMNS).where(Match.id == number)).first()
    return None if row is None else _match_infos(session, [_MatchRow(*row)])[0]


def _match_infos(session: Session, rows: list[_MatchRow]) -> list[MatchInfo]:
    names = version_names(
        session,
        (
            version
            for row in rows
            for version in (row.a_version, row.b_version, row.a_partner, row.b_partner)
            if version is not None
        ),
    )
    tallies = {
        match: (games, int(wins or 0), int(losses or 0), int(a_points or 0), int(b_points or 0))
        for match, games, wins, losses, a_points, b_points in session.exec(
            select_columns(
                Game.match_id,
                func.count(),
                func.sum(case((col(Game.a_score) == 1.0, 1), else_=0)),
                func.sum(case((col(Game.a_score) == 0.0, 1), else_=0)),
                func.sum(Game.a_points),
                func.sum(Game.b_points),
            )
            .where(col(Game.match_id).in_([row.id for row in rows]))
            .group_by(col(Game.match_id))
        )
    }
    infos = []
    for row in rows:
        games, wins, losses, a_points, b_points = tallies.get(row.id, (0, 0, 0, 0, 0))
        a, b = names[row.a_version], names[row.b_version]
        infos.append(
            MatchInfo(
                id=row.id,
                round=row.round,
                a=a.bot,
                b=b.bot,
                a_version=a.label,
                b_version=b.label,
                status=row.status,
                games_planned=row.games_planned,
                games_played=games,
                wins=wins,
                losses=losses,
                draws=games - wins - losses,
                a_points=a_points,
                b_points=b_points,
                finished_at=row.finished_at,
                a_partner=None if row.a_partner is None else names[row.a_partner].bot,
                b_partner=None if row.b_partner is None else names[row.b_partner].bot,
            )
        )
    return infos


@dataclass(frozen=True)
class VersionLine:
    """One version of a bot: its results and ratings."""

    id: int
    label: str
    hash: str
    """The start of its content hash, as in ``label``: names it in filters."""
    submitted_at: datetime
    elo: float
    games: int
    wins: int
    losses: int
    draws: int
    fit: Rating | None
    """Its Bradley-Terry rating (``None`` before any game)."""


@dataclass(frozen=True)
class OpponentLine:
    """A bot's results against one opponent, all versions of both summed."""

    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    points: int
    """What the bot's team scored in those games."""
    opponent_points: int


@dataclass(frozen=True)
class PartnerLine:
    """A bot's results in the team matches it played beside one partner (the
    mixed-partnership format), all versions of both summed."""

    partner: str
    games: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class BotPage:
    name: str
    active: bool
    versions: list[VersionLine]
    """Newest first."""
    opponents: list[OpponentLine]
    """Same-bot games (the bot in both seats of its team), most games first, then by name."""
    partners: list[PartnerLine]
    """Team matches, by partner: most games first, then by name."""
    team: TeamRating | None
    """The latest version's team-model rating (``None``: no team match yet)."""
    faults: dict[str, int]
    """The bot's faults by kind, in its newest ``FAULT_GAMES`` games with faults."""
    fault_games: int
    """Games with faults that were read for ``faults``."""


def bot_page(session: Session, bot: Bot, fit: Fit) -> BotPage:
    """Everything a bot's page shows but its games."""
    rows = session.exec(
        select(BotVersion).where(BotVersion.bot_id == bot.id).order_by(col(BotVersion.id).desc())
    ).all()
    ids = [row.id for row in rows if row.id is not None]
    stored = {
        row.version_id: row
        for row in session.exec(select(VersionRating).where(col(VersionRating.version_id).in_(ids)))
    }
    versions = []
    for row in rows:
        assert row.id is not None
        mine = stored.get(row.id)
        versions.append(
            VersionLine(
                id=row.id,
                label=label_of(row.manifest_version, row.content_hash),
                hash=row.content_hash[:8],
                submitted_at=row.submitted_at,
                elo=mine.elo if mine else INITIAL_RATING,
                games=mine.games if mine else 0,
                wins=mine.wins if mine else 0,
                losses=mine.losses if mine else 0,
                draws=mine.draws if mine else 0,
                fit=fit.ratings.get(row.id),
            )
        )
    faults, fault_games = _fault_counts(session, ids)
    opponents, partners = _opponents(session, ids), _partners(session, ids)
    team = team_ratings(session).get(ids[0]) if ids else None
    return BotPage(bot.name, bot.active, versions, opponents, partners, team, faults, fault_games)


def _opponents(session: Session, versions: list[int]) -> list[OpponentLine]:
    """Results by opponent bot in same-bot games: per version and side, the games grouped
    by the other side."""
    totals: dict[int, list[int]] = {}  # opponent version: games, wins, losses, points, theirs
    for version in versions:
        for mine, theirs, win, loss, my_points, their_points in (
            (Game.a_version_id, Game.b_version_id, 1.0, 0.0, Game.a_points, Game.b_points),
            (Game.b_version_id, Game.a_version_id, 0.0, 1.0, Game.b_points, Game.a_points),
        ):
            for opponent, *counts in session.exec(
                select_columns(
                    theirs,
                    func.count(),
                    func.sum(case((col(Game.a_score) == win, 1), else_=0)),
                    func.sum(case((col(Game.a_score) == loss, 1), else_=0)),
                    func.sum(my_points),
                    func.sum(their_points),
                )
                .where(col(mine) == version, col(Game.a_partner_version_id).is_(None))
                .group_by(col(theirs))
            ):
                total = totals.setdefault(opponent, [0, 0, 0, 0, 0])
                for i, count in enumerate(counts):
                    total[i] += int(count or 0)
    lines = [
        OpponentLine(name, games, wins, losses, games - wins - losses, points, theirs)
        for name, (games, wins, losses, points, theirs) in _by_bot(session, totals).items()
    ]
    return sorted(lines, key=lambda line: (-line.games, line.opponent))


def _partners(session: Session, versions: list[int]) -> list[PartnerLine]:
    """Results by partner bot in team matches: per version and seat of its team (first or
    second), the games grouped by who sat in the other."""
    seats = (  # the bot's seat, its partner's, the score that is the team's win
        (Game.a_version_id, Game.a_partner_version_id, 1.0),
        (Game.a_partner_version_id, Game.a_version_id, 1.0),
        (Game.b_version_id, Game.b_partner_version_id, 0.0),
        (Game.b_partner_version_id, Game.b_version_id, 0.0),
    )
    totals: dict[int, list[int]] = {}  # partner version: games, wins, losses
    for version in versions:
        for mine, partner, win in seats:
            for other, *counts in session.exec(
                select(
                    partner,
                    func.count(),
                    func.sum(case((col(Game.a_score) == win, 1), else_=0)),
                    func.sum(case((col(Game.a_score) == 1.0 - win, 1), else_=0)),
                )
                .where(col(mine) == version, col(Game.a_partner_version_id).is_not(None))
                .group_by(col(partner))
            ):
                assert other is not None  # team games only: a partner sits there
                total = totals.setdefault(other, [0, 0, 0])
                for i, count in enumerate(counts):
                    total[i] += int(count or 0)
    lines = [
        PartnerLine(name, games, wins, losses, games - wins - losses)
        for name, (games, wins, losses) in _by_bot(session, totals).items()
    ]
    return sorted(lines, key=lambda line: (-line.games, line.partner))


def _by_bot(session: Session, totals: dict[int, list[int]]) -> dict[str, list[int]]:
    """Counts by version summed by bot: all versions of a bot are one line."""
    names = version_names(session, totals)
    by_bot: dict[str, list[int]] = {}
    for version, counts in totals.items():
        total = by_bot.setdefault(names[version].bot, [0] * len(counts))
        for i, count in enumerate(counts):
            total[i] += count
    return by_bot


def _fault_counts(session: Session, versions: list[int]) -> tuple[dict[str, int], int]:
    """The faults of the bot playing ``versions``, by kind, in its newest games with faults."""
    sides = [
        [
            (game, a_team if side == "a" else 1 - a_team)
            for game, a_team in session.exec(
                select(Game.id, Game.a_team)
                .where(column == version, col(Game.faults) > 0)
                .order_by(col(Game.id).desc())
                .limit(FAULT_GAMES)
            )
        ]
        for version in versions
        for side, column in (("a", col(Game.a_version_id)), ("b", col(Game.b_version_id)))
    ]
    team_of = dict(islice(heapq.merge(*sides, key=itemgetter(0), reverse=True), FAULT_GAMES))
    kinds: Counter[str] = Counter()
    for game, record in session.exec(
        select(GameRecord.game_id, GameRecord.record).where(
            col(GameRecord.game_id).in_(list(team_of))
        )
    ):
        kinds.update(_kinds(record, team_of[game]))
    return dict(kinds.most_common()), len(team_of)


def _kinds(record: Mapping[str, Any], team: int) -> Iterable[str]:
    """The kinds of the record's faults by seats of ``team`` (seats 0 and 2 are team 0)."""
    for fault in record.get("faults") or ():
        if isinstance(fault, dict) and fault.get("seat", -1) % 2 == team:
            yield str(fault.get("kind"))


class RatingPoint(NamedTuple):
    games: int
    """Games the version had played: 0 is its start."""
    rating: float
    """Its sequential Elo after them."""


def rating_history(
    session: Session, version: int, points: int = HISTORY_POINTS
) -> list[RatingPoint]:
    """A version's Elo after each of its games (in the Elo order), thinned to about
    ``points`` points, its first and last always kept.

    The rows' ids are in the Elo order (``rating_tables._replay_tail`` writes a version's
    rows in that order, and rewrites every row after a game imported late), so the
    version's index gives them in order without reading the games.
    """
    rows = session.exec(
        select(RatingHistory.rating_before, RatingHistory.rating)
        .where(RatingHistory.version_id == version)
        .order_by(col(RatingHistory.id))
    ).all()
    if not rows:
        return []
    history = [RatingPoint(0, rows[0][0])]
    history += [RatingPoint(n, rating) for n, (_before, rating) in enumerate(rows, start=1)]
    if len(history) <= points:
        return history
    step = (len(history) - 1) / (points - 1)
    return [history[round(i * step)] for i in range(points)]
