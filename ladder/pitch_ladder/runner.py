"""``ladder run``: schedule rounds as match rows, play them on an executor, import the games.

The database holds the schedule (one ``match`` row per pair and round, created in one
transaction) and each match folder holds its games as they finish. While matches play,
the run looks for new records every ``POLL_S`` seconds and stores each one with its
result, in one transaction with the recomputed Elo history. So a run killed at any
moment loses nothing that finished: the next run finds the unfinished matches, resumes
their folders (games with a record are not replayed) and imports what is missing;
``(match, game id)`` is unique, so nothing is stored twice.

Runs under the caller's run lock (``lock.py``); does not know about the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from pitch_referee.match import GameOutcome, GameSpec, MatchSettings, schedule
from pitch_sdk.record import RecordError, load_record

from .errors import LadderError
from .executor import play_match
from .models import Bot, BotVersion, Game, Match, now
from .ownership import deal_secret
from .schedule import match_folder, match_settings, planned_games, round_robin
from .standings import latest_versions, rerate

POLL_S = 0.5
"""How often a run looks for finished games while matches play."""


@dataclass(frozen=True)
class MatchResult:
    """A finished match, from bot A's side."""

    round: int
    a: str
    b: str
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class RunProgress:
    games_done: int
    games_planned: int
    matches_done: int
    matches_planned: int
    resumed: int
    """Matches left unfinished by an earlier run, finished by this one."""
    finished: tuple[MatchResult, ...] = ()
    """Matches finished since the previous report."""


@dataclass(frozen=True)
class RunReport:
    matches: int
    games: int
    """Games stored by this run."""


ProgressCallback = Callable[[RunProgress], None]


def schedule_rounds(
    engine: Engine, rounds: int, games_per_match: int, rules: dict[str, Any]
) -> None:
    """Create the matches of ``rounds`` new rounds between the active bots' latest versions.

    Raises:
        LadderError: fewer than two active bots.
        ValueError: a bad rule or game count.
    """
    with Session(engine) as session:
        latest = {bot.name: version for bot, version in latest_versions(session)}
        if len(latest) < 2:
            raise LadderError(
                f"the ladder has {len(latest)} active bot(s): submit at least two "
                "with `pitch ladder submit DIR`"
            )
        first = (session.exec(select(func.max(Match.round))).one() or 0) + 1
        secret = deal_secret(session)
        for number in range(first, first + rounds):
            for a, b in round_robin(list(latest)):
                settings = match_settings(secret, number, a, b, games_per_match, rules)
                match = Match.model_validate(
                    {
                        "round": number,
                        "a_version_id": latest[a].id,
                        "b_version_id": latest[b].id,
                        "seed": settings["seed"],
                        "games_planned": planned_games(settings),
                        "settings": settings,
                        "folder": match_folder(number, a, b),
                    }
                )
                session.add(match)
                session.flush()  # ids follow the round-robin order, which Elo replays in
        session.commit()


def pending_rounds(engine: Engine) -> int:
    """How many rounds have unfinished matches (left by an interrupted run)."""
    with Session(engine) as session:
        query = select(func.count(func.distinct(Match.round))).where(Match.status == "pending")
        return session.exec(query).one()


@dataclass
class _Running:
    """A pending match while the run plays it."""

    match_id: int
    round: int
    a: str
    b: str
    a_folder: str
    b_folder: str
    settings: dict[str, Any]
    folder: str
    planned: int
    scores: dict[str, float] = field(default_factory=dict)
    """A's score per stored game id."""
    played: list[str] = field(default_factory=list)
    """The ids of the finished games, as the match job reports them when it ends."""

    @cached_property
    def specs(self) -> dict[str, GameSpec]:
        return {spec.game_id: spec for spec in schedule(MatchSettings(**self.settings))}

    def result(self) -> MatchResult:
        scores = list(self.scores.values())
        wins, losses = scores.count(1.0), scores.count(0.0)
        return MatchResult(self.round, self.a, self.b, wins, losses, len(scores) - wins - losses)


def play_pending(
    ladder: Path, engine: Engine, executor: Executor, progress: ProgressCallback | None = None
) -> RunReport:
    """Play every pending match on ``executor``, storing games as they finish.

    Raises:
        LadderError: some matches could not be played (the others are stored); running
            again retries them.
    """
    running = _pending(engine)
    resumed = sum(1 for match in running if match.scores or (ladder / match.folder).exists())
    report = _Reporter(progress, running, resumed)
    futures: dict[Future[list[str]], _Running] = {
        executor.submit(
            play_match,
            str(ladder / match.a_folder),
            str(ladder / match.b_folder),
            match.settings,
            str(ladder / match.folder),
        ): match
        for match in running
    }
    errors: list[str] = []
    stored = 0
    try:
        report.send(())
        while futures:
            done, _ = wait(futures, timeout=POLL_S, return_when=FIRST_COMPLETED)
            completed = []
            for future in done:
                match = futures.pop(future)
                error = future.exception()
                if error is None:
                    match.played = future.result()
                    completed.append(match)
                else:
                    errors.append(str(error))
            new, complaints = _import(ladder, engine, [*futures.values(), *completed], completed)
            stored += new
            errors += complaints
            if new or completed:
                report.send(tuple(match.result() for match in completed))
    except BaseException:
        for future in futures:  # the executor is the caller's: stop only our matches
            future.cancel()
        raise
    if errors:
        raise LadderError(
            f"{len(errors)} match(es) could not be played ({errors[0]}); their finished games "
            "are stored: run again to finish them"
        )
    return RunReport(len(running), stored)


def _pending(engine: Engine) -> list[_Running]:
    with Session(engine) as session:
        versions = {
            version.id: (bot.name, version.folder)
            for bot, version in session.exec(
                select(Bot, BotVersion).join(BotVersion, col(BotVersion.bot_id) == col(Bot.id))
            ).all()
        }
        matches = session.exec(
            select(Match).where(Match.status == "pending").order_by(col(Match.round), col(Match.id))
        ).all()
        running = []
        for match in matches:
            (a, a_folder), (b, b_folder) = (
                versions[match.a_version_id],
                versions[match.b_version_id],
            )
            stored = session.exec(
                select(Game.game_id, Game.a_score).where(Game.match_id == match.id)
            ).all()
            running.append(
                _Running(
                    match_id=match.id or 0,
                    round=match.round,
                    a=a,
                    b=b,
                    a_folder=a_folder,
                    b_folder=b_folder,
                    settings=match.settings,
                    folder=match.folder,
                    planned=match.games_planned,
                    scores=dict(stored),
                )
            )
        return running


class _Reporter:
    def __init__(
        self, callback: ProgressCallback | None, running: list[_Running], resumed: int
    ) -> None:
        self.callback = callback
        self.running = running
        self.resumed = resumed
        self.finished = 0

    def send(self, finished: tuple[MatchResult, ...]) -> None:
        self.finished += len(finished)
        if self.callback:
            self.callback(
                RunProgress(
                    games_done=sum(len(match.scores) for match in self.running),
                    games_planned=sum(match.planned for match in self.running),
                    matches_done=self.finished,
                    matches_planned=len(self.running),
                    resumed=self.resumed,
                    finished=finished,
                )
            )


def _import(
    ladder: Path, engine: Engine, matches: list[_Running], completed: list[_Running]
) -> tuple[int, list[str]]:
    """Store the new records of ``matches`` and mark ``completed`` finished, in one transaction.

    Returns how many games were stored, and a complaint for each completed match that
    has fewer games stored than planned or than it played (it stays pending, so that the
    next run resumes it).
    """
    found = [(match, *new) for match in matches for new in _new_records(ladder, match)]
    if not found and not completed:
        return 0, []
    complaints = []
    with Session(engine) as session:
        games = [_game_row(ladder, match.match_id, *new) for match, *new in found]
        session.add_all(games)
        if games:
            session.flush()
            rerate(session, {game.id for game in games if game.id is not None})
        for match in completed:
            stored = {spec.game_id for m, spec, *_ in found if m is match} | set(match.scores)
            if len(stored) < match.planned or not stored.issuperset(match.played):
                complaints.append(
                    f"{match.folder}: {len(stored)} of {match.planned} games stored "
                    f"({len(match.played)} played)"
                )
                continue
            row = session.get_one(Match, match.match_id)
            row.status, row.finished_at = "finished", now()
        session.commit()
    for match, spec, record, _path in found:
        match.scores[spec.game_id] = GameOutcome.from_record(spec, record).a_score
    return len(found), complaints


def _game_row(
    ladder: Path, match_id: int, spec: GameSpec, record: dict[str, Any], path: Path
) -> Game:
    outcome = GameOutcome.from_record(spec, record)
    return Game.model_validate(
        {
            "match_id": match_id,
            "game_id": spec.game_id,
            "a_team": spec.a_team,
            "a_score": outcome.a_score,
            "b_score": 1.0 - outcome.a_score,
            "a_points": outcome.a_points,
            "b_points": outcome.b_points,
            "faults": outcome.faults,
            "termination": record["result"]["termination"],
            "record_path": path.relative_to(ladder).as_posix(),
            "record": record,
            "finished_at": datetime.fromtimestamp(path.stat().st_mtime, UTC),
        }
    )


def _new_records(ladder: Path, match: _Running) -> list[tuple[GameSpec, dict[str, Any], Path]]:
    """Finished games of ``match`` on disk that are not stored yet."""
    games = ladder / match.folder / "games"
    if not games.is_dir():
        return []
    specs = match.specs
    new = []
    for path in sorted(games.glob("*.json")):
        spec = specs.get(path.stem)
        if spec is None or spec.game_id in match.scores:
            continue
        try:
            record = load_record(path)
        except RecordError:
            continue
        if record.get("result"):
            new.append((spec, record, path))
    return new
