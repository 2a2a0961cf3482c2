"""``ladder run``: schedule rounds as match rows, play them on an executor, import the games.

The database holds the schedule (one ``match`` row per pair and round, created in one
transaction) and each match folder holds its games as they finish. While matches play,
the run looks for new records every ``POLL_S`` seconds and stores each one with its
result, in one transaction with the recomputed Elo history. So a run killed at any
moment loses nothing that finished: the next run finds the unfinished matches, resumes
their folders (games with a record are not replayed) and imports what is missing;
``(match, game id)`` is unique, so nothing is stored twice.

A record is stored only if ``verify.refusal`` finds nothing wrong with it: the folder is
a file system anyone may write, the database is the ladder's word. A refused record is
renamed ``<game>.rejected.json``, so the match plays that game again on the next run.

A match whose worker process dies (a bot that kills it, the out-of-memory killer)
breaks the whole process pool, and every match on it fails with ``BrokenProcessPool``.
The pool cannot say which match did it, so the run plays the suspects again one at a
time, each in a pool of its own, and the rest on a fresh pool: a match that kills its
worker even alone is a problem of this run, and the others finish.

Runs under the caller's run lock (``lock.py``); does not know about the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from pitch_referee.match import GameOutcome, GameSpec, MatchFolder, MatchSettings, schedule
from pitch_sdk.record import RecordError, load_record, record_result

from .errors import LadderError
from .executor import play_match
from .models import Bot, BotVersion, Game, GameRecord, Match, now
from .ownership import deal_secret
from .schedule import match_folder, match_settings, planned_games, round_robin
from .standings import latest_versions, rerate
from .verify import refusal

POLL_S = 0.5
"""How often a run looks for finished games while matches play."""
REJECTED = ".rejected.json"
"""The ending of a refused record's new name: the match no longer sees it as played."""


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
    problems: tuple[str, ...] = ()
    """Problems met since the previous report: refused records, matches not played."""


@dataclass(frozen=True)
class RunReport:
    matches: int
    games: int
    """Games stored by this run."""


ProgressCallback = Callable[[RunProgress], None]
Pools = Callable[[int], AbstractContextManager[Executor]]
"""A fresh executor with so many workers: a process pool that lost a worker is unusable."""


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
    a_version_id: int
    b_version_id: int
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
    def match_settings(self) -> MatchSettings:
        return MatchSettings.from_json(self.settings)

    @cached_property
    def specs(self) -> dict[str, GameSpec]:
        return {spec.game_id: spec for spec in schedule(self.match_settings)}

    def result(self) -> MatchResult:
        scores = list(self.scores.values())
        wins, losses = scores.count(1.0), scores.count(0.0)
        return MatchResult(self.round, self.a, self.b, wins, losses, len(scores) - wins - losses)


def play_pending(
    ladder: Path,
    engine: Engine,
    pools: Pools,
    workers: int,
    progress: ProgressCallback | None = None,
    check_database: Callable[[], None] = lambda: None,
) -> RunReport:
    """Play every pending match on pools of ``workers``, storing games as they finish.

    After a pool breaks, the suspects are the first ``workers + 1`` unfinished matches:
    a process pool hands out its jobs in order, one more than it has workers, so the
    match that killed a worker is among them. ``check_database`` is called before each
    write (``database.watch``).

    Raises:
        LadderError: some matches could not be played, or some records were refused (the
            other games are stored); running again retries them. Or the database went
            away (``check_database``).
    """
    matches = _pending(engine)
    resumed = sum(1 for match in matches if match.scores or (ladder / match.folder).exists())
    run = _Run(ladder, engine, _Reporter(progress, matches, resumed), check_database)
    run.reporter.send()
    todo = matches
    while todo:
        with pools(workers) as executor:
            broken = run.play(todo, executor)
        suspects, todo = broken[: workers + 1], broken[workers + 1 :]
        for match in suspects:
            with pools(1) as alone:
                if run.play([match], alone):
                    run.problem(
                        f"{match.folder} ({match.a} vs {match.b}): its worker process died "
                        "even with the match playing alone, so one of these two bots kills "
                        "processes (or uses all the memory); its finished games are stored"
                    )
    if run.problems:
        count = len(run.problems)
        more = f" (and {count - 1} more)" if count > 1 else ""
        raise LadderError(
            f"{count} problem(s) in this run: {run.problems[0]}{more}; the other games are "
            "stored: run again to finish the matches"
        )
    return RunReport(len(matches), run.stored)


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
                    a_version_id=match.a_version_id,
                    b_version_id=match.b_version_id,
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

    def send(self, finished: tuple[MatchResult, ...] = (), problems: tuple[str, ...] = ()) -> None:
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
                    problems=problems,
                )
            )


@dataclass(frozen=True)
class _Found:
    """A finished game on disk, read once: what is checked is what is stored."""

    match: _Running
    spec: GameSpec
    record: dict[str, Any]
    path: Path
    finished_at: datetime


class _Run:
    """One ``play_pending``: plays matches on executors, stores their games, keeps problems."""

    def __init__(
        self,
        ladder: Path,
        engine: Engine,
        reporter: _Reporter,
        check_database: Callable[[], None],
    ) -> None:
        self.ladder = ladder
        self.engine = engine
        self.reporter = reporter
        self.check_database = check_database
        self.stored = 0
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        self.problems.append(text)
        self.reporter.send(problems=(text,))

    def play(self, matches: list[_Running], executor: Executor) -> list[_Running]:
        """Play ``matches`` on ``executor``; return those cut off by a broken pool, in order.

        Raises:
            LadderError: the executor refuses jobs (a caller's executor that broke).
        """
        futures: dict[Future[list[str]], _Running] = {}
        broken: list[_Running] = []
        try:
            for match in matches:
                futures[self._submit(executor, match)] = match
            while futures:
                done, _ = wait(futures, timeout=POLL_S, return_when=FIRST_COMPLETED)
                ended, completed = [futures.pop(future) for future in done], []
                for future, match in zip(done, ended, strict=True):
                    error = future.exception()
                    if isinstance(error, BrokenProcessPool):
                        broken.append(match)
                    elif error is not None:
                        self.problem(str(error))
                    else:
                        match.played = future.result()
                        completed.append(match)
                self._store([*futures.values(), *ended], completed)
        except BaseException:
            for future in futures:  # the executor may be the caller's: stop only our matches
                future.cancel()
            raise
        return [match for match in matches if any(match is cut for cut in broken)]

    def _submit(self, executor: Executor, match: _Running) -> Future[list[str]]:
        try:
            return executor.submit(
                play_match,
                str(self.ladder / match.a_folder),
                str(self.ladder / match.b_folder),
                match.settings,
                str(self.ladder / match.folder),
            )
        except RuntimeError as error:  # shut down, or a process pool broken before
            raise LadderError(f"the executor refused the match {match.folder}: {error}") from None

    def _store(self, matches: list[_Running], completed: list[_Running]) -> None:
        """Store the new records of ``matches`` and mark ``completed`` finished, in one
        transaction.

        A completed match with fewer games stored than planned, or than it played, is a
        problem: it stays pending, so that the next run resumes it.
        """
        self.check_database()
        found = [new for match in matches for new in self._new_records(match)]
        if not found and not completed:
            return
        try:
            problems, finished = self._commit(found, completed)
        except DBAPIError as error:
            reason = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
            raise LadderError(
                f"the database failed while storing games ({reason}), so nothing more is "
                "stored (the records stay in the match folders): check it, then run again"
            ) from None
        for new in found:
            new.match.scores[new.spec.game_id] = GameOutcome.from_record(
                new.spec, new.record
            ).a_score
        self.stored += len(found)
        self.reporter.send(tuple(match.result() for match in finished))
        for text in problems:
            self.problem(text)

    def _commit(
        self, found: list[_Found], completed: list[_Running]
    ) -> tuple[list[str], list[_Running]]:
        """The transaction of ``_store``: returns its problems and the matches it finished."""
        problems, finished = [], []
        with Session(self.engine) as session:
            games = [_game_row(self.ladder, new) for new in found]
            session.add_all(games)
            if games:
                session.flush()
                session.add_all(
                    GameRecord.model_validate({"game_id": game.id, "record": new.record})
                    for game, new in zip(games, found, strict=True)
                )
                rerate(session, {game.id for game in games if game.id is not None})
            for match in completed:
                stored = {new.spec.game_id for new in found if new.match is match}
                stored |= set(match.scores)
                if len(stored) < match.planned or not stored.issuperset(match.played):
                    problems.append(
                        f"{match.folder}: {len(stored)} of {match.planned} games stored "
                        f"({len(match.played)} played)"
                    )
                    continue
                row = session.get_one(Match, match.match_id)
                row.status, row.finished_at = "finished", now()
                finished.append(match)
            session.commit()
        return problems, finished

    def _new_records(self, match: _Running) -> list[_Found]:
        """Finished games of ``match`` on disk, not stored yet, that pass ``verify``.

        Any other ``.json`` file in the games folder is refused: renamed aside, reported.
        """
        games = MatchFolder(self.ladder / match.folder).games_dir
        if not games.is_dir():
            return []
        found = []
        for path in sorted(games.glob("*.json")):
            if path.name.endswith(REJECTED) or path.stem in match.scores:
                continue
            spec = match.specs.get(path.stem)
            if spec is None:
                self._refuse(match, path, "not a game of the match's schedule")
                continue
            try:
                finished_at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
                record = load_record(path)
                if record_result(record) is None:
                    continue  # a game still going on
            except FileNotFoundError:
                continue  # moved meanwhile
            except RecordError as error:
                if path.exists():
                    self._refuse(match, path, str(error).removeprefix(f"{path}: "))
                continue
            reason = refusal(record, spec, match.match_settings, match.a, match.b)
            if reason is None:
                found.append(_Found(match, spec, record, path, finished_at))
            else:
                self._refuse(match, path, reason)
        return found

    def _refuse(self, match: _Running, path: Path, reason: str) -> None:
        aside = path.with_name(path.stem + REJECTED)
        try:
            path.replace(aside)
            moved = f"moved to {aside.name}, the match plays it again"
        except OSError as error:
            moved = f"could not be moved aside ({error.strerror})"
        self.problem(f"{match.folder}/games/{path.name} refused: {reason}; {moved}")


def _game_row(ladder: Path, found: _Found) -> Game:
    spec, record = found.spec, found.record
    outcome = GameOutcome.from_record(spec, record)
    result = record_result(record)
    assert result is not None  # a finished record: see _new_records
    return Game.model_validate(
        {
            "match_id": found.match.match_id,
            "round": found.match.round,
            "a_version_id": found.match.a_version_id,
            "b_version_id": found.match.b_version_id,
            "game_id": spec.game_id,
            "a_team": spec.a_team,
            "a_score": outcome.a_score,
            "b_score": 1.0 - outcome.a_score,
            "a_points": outcome.a_points,
            "b_points": outcome.b_points,
            "faults": outcome.faults,
            "termination": result.termination,
            "record_path": found.path.relative_to(ladder).as_posix(),
            "finished_at": found.finished_at,
        }
    )
