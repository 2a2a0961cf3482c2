"""The pending pager: a run's unfinished matches, in play order, a chunk at a time.

A run never holds the whole schedule: it reads the pending matches ``PendingMatches.CHUNK``
at a time (by round and id, one range of an index), each with the games already stored
for it, and counts what is left when it starts (``PendingMatches.totals``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy import Engine, func, tuple_
from sqlmodel import Session, col, select

from pitch_referee.match import GameSpec, MatchSettings, schedule

from .models import Bot, BotVersion, Game, Match


@dataclass(frozen=True)
class MatchResult:
    """A finished match, from bot A's side."""

    round: int
    a: str
    b: str
    wins: int
    losses: int
    draws: int


def pending_rounds(engine: Engine) -> int:
    """How many rounds have unfinished matches (left by an interrupted run)."""
    with Session(engine) as session:
        query = select(func.count(func.distinct(Match.round))).where(Match.status == "pending")
        return session.exec(query).one()


@dataclass(frozen=True)
class Partner:
    """A bot version partnering bot A or B in a team match."""

    name: str
    folder: str
    version_id: int


@dataclass
class PendingMatch:
    """A pending match while the run plays it."""

    match_id: int
    round: int
    a: str
    b: str
    a_version_id: int
    b_version_id: int
    a_folder: str
    b_folder: str
    settings: dict[str, Any]
    folder: str
    planned: int
    a_partner: Partner | None = None
    """Who partners bot A (a team match); ``None``: bot A itself."""
    b_partner: Partner | None = None
    scores: dict[str, float] = field(default_factory=dict)
    """A's score per stored game id."""
    played: list[str] = field(default_factory=list)
    """The ids of the finished games, as the match job reports them when it ends."""

    @cached_property
    def match_settings(self) -> MatchSettings:
        return MatchSettings.from_json(self.settings)

    @cached_property
    def specs(self) -> dict[str, GameSpec]:
        return {spec.game_id: spec for spec in schedule(self.match_settings)}

    def seat_names(self) -> tuple[str, str, str, str]:
        """Bot A, its partner, bot B, its partner: as ``verify.refusal`` expects them."""
        a_partner = self.a_partner.name if self.a_partner else self.a
        b_partner = self.b_partner.name if self.b_partner else self.b
        return self.a, a_partner, self.b, b_partner

    def team(self, side: str) -> str:
        """``alpha``, or ``alpha+beta`` for a team of two bots."""
        bot, partner = (self.a, self.a_partner) if side == "a" else (self.b, self.b_partner)
        return bot if partner is None else f"{bot}+{partner.name}"

    def result(self) -> MatchResult:
        scores = list(self.scores.values())
        wins, losses = scores.count(1.0), scores.count(0.0)
        draws = len(scores) - wins - losses
        return MatchResult(self.round, self.team("a"), self.team("b"), wins, losses, draws)


@dataclass(frozen=True)
class Totals:
    """The pending matches when a run starts (``RunProgress`` has the meanings)."""

    matches: int
    games_planned: int
    games_stored: int
    resumed: int


class PendingMatches:
    """The pending matches in play order (round, id), read a chunk at a time."""

    CHUNK = 200

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def totals(self, ladder: Path) -> Totals:
        """Counted in the database, and ``resumed`` from one listing of the match folders.

        A resumed match is one with stored games or a folder: it was started by a run
        that did not finish it (or its games were played after the backup that was
        restored).
        """
        pending = select(Match.id).where(Match.status == "pending")
        with Session(self.engine) as session:
            matches, planned = session.exec(
                select(func.count(), func.sum(Match.games_planned)).where(Match.status == "pending")
            ).one()
            stored = session.exec(
                select(Game.match_id, func.count())
                .where(col(Game.match_id).in_(pending))
                .group_by(col(Game.match_id))
            ).all()
            started: set[int | None] = {match_id for match_id, _ in stored}
            folders = _folders(ladder / MATCHES)
            if folders:
                for match_id, folder in session.exec(
                    select(Match.id, Match.folder).where(Match.status == "pending")
                ):
                    if PurePosixPath(folder).name in folders:
                        started.add(match_id)
        return Totals(matches, planned or 0, sum(count for _, count in stored), len(started))

    def __iter__(self) -> Iterator[PendingMatch]:
        with Session(self.engine) as session:
            versions = {
                version.id: (bot.name, version.folder)
                for bot, version in session.exec(
                    select(Bot, BotVersion).join(BotVersion, col(BotVersion.bot_id) == col(Bot.id))
                ).all()
            }
        after = (0, 0)
        while True:
            with Session(self.engine) as session:
                matches = session.exec(
                    select(Match)
                    .where(Match.status == "pending", tuple_(Match.round, Match.id) > after)
                    .order_by(col(Match.status), col(Match.round), col(Match.id))
                    .limit(self.CHUNK)
                ).all()
                if not matches:
                    return
                scores: dict[int, dict[str, float]] = {match.id or 0: {} for match in matches}
                for match_id, game_id, a_score in session.exec(
                    select(Game.match_id, Game.game_id, Game.a_score).where(
                        col(Game.match_id).in_(scores)
                    )
                ):
                    scores[match_id][game_id] = a_score
            for match in matches:
                (a, a_folder), (b, b_folder) = (
                    versions[match.a_version_id],
                    versions[match.b_version_id],
                )
                a_partner, b_partner = (
                    None if version is None else Partner(*versions[version], version)
                    for version in (match.a_partner_version_id, match.b_partner_version_id)
                )
                yield PendingMatch(
                    match_id=match.id or 0,
                    round=match.round,
                    a=a,
                    b=b,
                    a_version_id=match.a_version_id,
                    b_version_id=match.b_version_id,
                    a_folder=a_folder,
                    b_folder=b_folder,
                    settings=match.settings,
                    folder=match.folder,
                    planned=match.games_planned,
                    a_partner=a_partner,
                    b_partner=b_partner,
                    scores=scores[match.id or 0],
                )
            after = (matches[-1].round, matches[-1].id or 0)


MATCHES = "matches"
"""The ladder folder's folder of match folders (``schedule.match_folder``)."""


def _folders(where: Path) -> set[str]:
    try:
        return {entry.name for entry in os.scandir(where)}
    except FileNotFoundError:
        return set()
