"""The ladder's stored games: a page of them at a time, from a bot's side, and one game
with its record.

Pages are ranges of an index, newest first (by game number), so that each costs the same
however far back it is: ``before`` (the last game number seen) pages through everything,
``offset`` skips within a page. A bot's games are one ordered range per version and side,
merged here: an OR or an IN of versions would make the databases read and sort all of the
bot's games (``test_query_plans``). Plain functions over a session; ``Ladder.games`` and
``Ladder.game`` resolve the bot and version names and call them, ``Ladder.games`` with its
``GameQuery`` (``game_query``) whole.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import func
from sqlmodel import Session, col, select

from pitch_sdk.gamerecord import GameRecord as SdkGameRecord

from .browse import version_names
from .database import select_columns
from .game_query import RESULTS, GameQuery
from .models import Game, GameRecord


@dataclass(frozen=True)
class GameSide:
    """A game from one bot's side (``GameInfo.side``)."""

    bot: str
    opponent: str
    """The opposing team: a bot, or ``alpha+beta`` in a team match."""
    score: float
    """1 win, 0.5 draw, 0 loss, for ``bot``."""
    points: int
    """What ``bot``'s team scored."""
    opponent_points: int

    @property
    def result(self) -> str:
        """``won``, ``lost`` or ``drawn``, for ``bot``."""
        return {1.0: "won", 0.0: "lost"}.get(self.score, "drawn")


@dataclass(frozen=True)
class GameInfo:
    """A stored game between the match's bot A and bot B (which is which is arbitrary)."""

    id: int
    """The ladder's game number (``pitch ladder show ID``)."""
    round: int
    a: str
    b: str
    game_id: str
    a_score: float
    """1 win, 0.5 draw, 0 loss, from A's side."""
    a_points: int
    """What A's team scored."""
    b_points: int
    termination: str
    record_path: Path
    match_id: int
    """The match's row (games are rated in the order round, match id, game id)."""
    faults: int = 0
    """Faults in the game, of either bot."""
    a_version: str = ""
    """A's version (``version_label``)."""
    b_version: str = ""
    a_partner: str | None = None
    """Who partnered A in a team match (the mixed-partnership format); ``None``: A itself."""
    b_partner: str | None = None

    def team(self, side: str) -> str:
        """``alpha``, or ``alpha+beta`` for a team of two bots."""
        bot, partner = (self.a, self.a_partner) if side == "a" else (self.b, self.b_partner)
        return bot if partner is None else f"{bot}+{partner}"

    @property
    def winner(self) -> str | None:
        """The bot that won, ``None`` for a draw."""
        return {1.0: self.a, 0.0: self.b}.get(self.a_score)

    @property
    def winning_team(self) -> str | None:
        """The team that won (as ``team`` names it), ``None`` for a draw."""
        return {1.0: self.team("a"), 0.0: self.team("b")}.get(self.a_score)

    def side(self, bot: str) -> GameSide:
        """The game from ``bot``'s side (its team's, when it is a partner): its opponent,
        its score, its points first.

        Raises:
            ValueError: ``bot`` did not play this game.
        """
        if bot in (self.a, self.a_partner):
            return GameSide(bot, self.team("b"), self.a_score, self.a_points, self.b_points)
        if bot in (self.b, self.b_partner):
            return GameSide(bot, self.team("a"), 1.0 - self.a_score, self.b_points, self.a_points)
        raise ValueError(f"{bot!r} did not play game {self.id} ({self.a} against {self.b})")


class StoredGame(NamedTuple):
    """A stored game and its record (``Ladder.game``)."""

    info: GameInfo
    record: SdkGameRecord


class _GameRow(NamedTuple):
    """A row of ``_GAME_COLUMNS``: a game without its record, its versions by id."""

    number: int
    round: int
    a_version: int
    b_version: int
    game_id: str
    a_score: float
    a_points: int
    b_points: int
    termination: str
    record_path: str
    match_id: int
    faults: int
    a_partner: int | None
    b_partner: int | None


_GAME_COLUMNS = (
    Game.id,
    Game.round,
    Game.a_version_id,
    Game.b_version_id,
    Game.game_id,
    Game.a_score,
    Game.a_points,
    Game.b_points,
    Game.termination,
    Game.record_path,
    Game.match_id,
    Game.faults,
    Game.a_partner_version_id,
    Game.b_partner_version_id,
)


def page_of_games(
    session: Session, folder: Path, versions: list[int] | None, query: GameQuery
) -> list[GameInfo]:
    """The page of games ``query`` asks for, newest first: every game, or (``versions``,
    ``query.bot``'s resolved) those of one bot, its ``result`` from that bot's side. A
    filter that few games pass reads the rows it skips."""
    before, offset, limit = query.before, query.offset, query.limit
    # Without ``before``, up to the newest game: a page is always a range of the key.
    newest_game = select(func.max(Game.id)).scalar_subquery()
    bound = col(Game.id) <= newest_game if before is None else col(Game.id) < before
    newest = col(Game.id).desc()
    common = [bound]
    if query.faults is not None:
        common.append(col(Game.faults) > 0 if query.faults else col(Game.faults) == 0)
    if query.match is not None:
        common.append(col(Game.match_id) == query.match)
    if versions is None:
        newest_first = select_columns(*_GAME_COLUMNS).where(*common).order_by(newest)
        rows = [_GameRow(*row) for row in session.exec(newest_first.offset(offset).limit(limit))]
        return _game_infos(session, folder, rows)
    sides = [
        [
            _GameRow(*row)
            for row in session.exec(
                select_columns(*_GAME_COLUMNS)
                .where(column == version, *common, *_result_of(query.result, side))
                .order_by(newest)
                .limit(offset + limit)
            )
        ]
        for version in versions
        for side, column in _SEATS
    ]
    merged = heapq.merge(*sides, key=lambda row: -row.number)
    return _game_infos(session, folder, list(islice(merged, offset, offset + limit)))


_SEATS = (
    ("a", col(Game.a_version_id)),
    ("b", col(Game.b_version_id)),
    ("a", col(Game.a_partner_version_id)),
    ("b", col(Game.b_partner_version_id)),
)
"""Where a version may have played a game, and for which side: bot A or B, or the
partner of either in a team match."""


def stored_game(session: Session, folder: Path, number: int) -> StoredGame | None:
    """Game ``number`` and its record (from the database: the file may be gone)."""
    row = session.exec(select_columns(*_GAME_COLUMNS).where(Game.id == number)).first()
    if row is None:
        return None
    record = session.exec(select(GameRecord.record).where(GameRecord.game_id == number)).one()
    return StoredGame(
        _game_infos(session, folder, [_GameRow(*row)])[0], SdkGameRecord.from_json(record)
    )


def _game_infos(session: Session, folder: Path, rows: list[_GameRow]) -> list[GameInfo]:
    """The rows with their bots' names (read for the versions of these rows only)."""
    names = version_names(
        session,
        (
            version
            for row in rows
            for version in (row.a_version, row.b_version, row.a_partner, row.b_partner)
            if version is not None
        ),
    )
    return [
        GameInfo(
            id=row.number,
            round=row.round,
            a=names[row.a_version].bot,
            b=names[row.b_version].bot,
            game_id=row.game_id,
            a_score=row.a_score,
            a_points=row.a_points,
            b_points=row.b_points,
            termination=row.termination,
            record_path=folder / row.record_path,
            match_id=row.match_id,
            faults=row.faults,
            a_version=names[row.a_version].label,
            b_version=names[row.b_version].label,
            a_partner=None if row.a_partner is None else names[row.a_partner].bot,
            b_partner=None if row.b_partner is None else names[row.b_partner].bot,
        )
        for row in rows
    ]


def _result_of(result: str | None, side: str) -> list[Any]:
    """The condition on ``a_score`` for ``result`` of the bot playing ``side`` (a or b)."""
    if result is None:
        return []
    score = RESULTS[result]
    return [col(Game.a_score) == (score if side == "a" else 1.0 - score)]
