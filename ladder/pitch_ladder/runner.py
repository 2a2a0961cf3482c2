"""``ladder run``: schedule rounds as match rows, play them on an executor, import the games.

The database holds the schedule (one ``match`` row per pair and round, all written in one
transaction by bulk inserts) and each match folder holds its games as they finish. The
run reads the pending matches a chunk at a time, in play order, and hands the executor a
few more than it has workers (``window``); while they play, it looks every ``POLL_S``
seconds for new records in the folders of the matches that are running (never all of
them) and stores each one with its result, in one transaction with the ratings that
depend on it (``rating_tables.rerate``). So a run killed at any moment loses nothing that
finished: the next run finds the unfinished matches, resumes their folders (games with a
record are not replayed) and imports what is missing; ``(match, game id)`` is unique, so
nothing is stored twice.

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

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from itertools import chain
from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy import Connection, Engine, func, tuple_
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from pitch_referee.match import GameOutcome, GameSpec, MatchFolder, MatchSettings, schedule
from pitch_sdk.gamerecord import GameRecord as SdkGameRecord
from pitch_sdk.gamerecord import RecordError
from pitch_sdk.record import load_record, record_result

from .errors import LadderError
from .executor import play_match
from .models import Bot, BotVersion, Game, GameRecord, Match, now
from .ownership import deal_secret
from .rating_tables import rerate
from .schedule import (
    Lineup,
    lineup_folder,
    lineup_seed,
    match_seeds,
    match_settings,
    partnership_round,
    planned_games,
    round_robin,
)
from .standings import latest_versions
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
    engine: Engine,
    rounds: int,
    games_per_match: int,
    rules: dict[str, Any],
    partnerships: bool = False,
) -> None:
    """Create the matches of ``rounds`` new rounds between the active bots' latest versions.

    One transaction, the rows handed to the database driver in bulk (``COPY`` on
    PostgreSQL), in round-robin order: the ids follow it, and Elo replays in it. With
    ``partnerships``, each round also has the team matches of the mixed-partnership
    format (``schedule.partnership_round``), after its round robin.

    Raises:
        LadderError: fewer than two active bots, or fewer than four with ``partnerships``.
        ValueError: a bad rule or game count.
    """
    with Session(engine) as session:
        latest = _active_latest(session)
        names = list(latest)
        lineups: list[Lineup] = [*round_robin(names)]
        if partnerships:
            if len(names) < 4:
                raise LadderError(
                    f"the mixed-partnership format needs four active bots, the ladder has "
                    f"{len(names)}: submit more, or run without --partnerships"
                )
            lineups += partnership_round(names)
        _write_rounds(session, latest, [lineups] * rounds, games_per_match, rules)
        session.commit()


def schedule_round(
    engine: Engine,
    lineups: Sequence[Lineup],
    games_per_match: int,
    rules: dict[str, Any],
    *,
    timing_grid_ms: int = 0,
) -> int:
    """Create one new round of the matches ``lineups`` (pairs of bot names, A first, and
    team lineups; each at most once) between the bots' latest versions, as the service's
    scheduler chooses them; its number. ``timing_grid_ms``: ``MatchSettings``'.

    Raises:
        LadderError: fewer than two active bots.
        ValueError: a bad rule or game count, or a lineup twice (one folder per lineup and
            round).
    """
    if not lineups or len(set(lineups)) != len(lineups):
        raise ValueError("a round has at least one match, and each lineup at most once")
    with Session(engine) as session:
        latest = _active_latest(session)
        number = _write_rounds(
            session, latest, [list(lineups)], games_per_match, rules, timing_grid_ms
        )
        session.commit()
        return number


def _active_latest(session: Session) -> dict[str, int]:
    """The active bots' latest version ids, by name.

    Raises:
        LadderError: fewer than two active bots.
    """
    latest = {bot.name: version.id for bot, version in latest_versions(session)}
    if len(latest) < 2:
        raise LadderError(
            f"the ladder has {len(latest)} active bot(s): submit at least two "
            "with `pitch ladder submit DIR`"
        )
    return latest  # type: ignore[return-value]


def _write_rounds(
    session: Session,
    latest: dict[str, int],
    rounds: list[list[Lineup]],
    games_per_match: int,
    rules: dict[str, Any],
    timing_grid_ms: int = 0,
) -> int:
    """Write ``rounds`` (each a list of pairs and team lineups) as the next rounds; the
    first one's number.

    Every match has the same settings but for its seed, so they are made and checked once
    (``match_settings``) and written as JSON once, each match's seed put in the text.
    """
    first = (session.exec(select(func.max(Match.round))).one() or 0) + 1
    secret = deal_secret(session)
    template = match_settings(secret, first, "a", "b", games_per_match, rules, timing_grid_ms)
    planned, seed_of = planned_games(template), match_seeds(secret)
    text, mark = json.dumps({**template, "seed": _SEED}), json.dumps(_SEED)

    def rows() -> Iterator[tuple[Any, ...]]:
        for number, lineups in enumerate(rounds, start=first):
            for lineup in lineups:
                a, a_partner, b, b_partner = _seats(lineup)
                seed = lineup_seed(seed_of, number, lineup)
                yield (
                    number,
                    latest[a],
                    latest[b],
                    latest[a_partner] if a_partner else None,
                    latest[b_partner] if b_partner else None,
                    seed,
                    planned,
                    text.replace(mark, str(seed)),  # json.dumps of match_settings with this seed
                    lineup_folder(number, lineup),
                )

    _insert_matches(session.connection(), rows(), now())
    return first


def _seats(lineup: Lineup) -> tuple[str, str | None, str, str | None]:
    """Bot A, its partner, bot B, its partner (``None``: the bot partners itself)."""
    if len(lineup) == 2:
        return lineup[0], None, lineup[1], None
    return lineup  # type: ignore[return-value]


_SEED = "<seed>"
"""Where each match's seed goes in the settings' JSON text."""
_MATCH_COLUMNS = (
    "round",
    "a_version_id",
    "b_version_id",
    "a_partner_version_id",
    "b_partner_version_id",
    "seed",
    "games_planned",
    "settings",
    "folder",
    "status",
    "created_at",
)
_INSERT_ROWS = 5000


def _insert_matches(connection: Connection, rows: Iterable[tuple[Any, ...]], at: datetime) -> None:
    """Pending match rows (``_MATCH_COLUMNS`` but the last two; settings as JSON text),
    straight to the driver: SQLAlchemy's processing of each value would cost more than
    the database's work."""
    columns = ", ".join(_MATCH_COLUMNS)
    if connection.dialect.name == "postgresql":
        cursor = connection.connection.driver_connection.cursor()  # psycopg, this transaction
        with cursor.copy(f'COPY "match" ({columns}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row((*row, "pending", at))
        return
    dialect = connection.dialect
    stamp = Match.__table__.c.created_at.type.dialect_impl(dialect).bind_processor(dialect)
    created = stamp(at) if stamp else at  # SQLite keeps times as SQLAlchemy writes them
    marks = ", ".join("?" * len(_MATCH_COLUMNS))
    for chunk in _chunks(((*row, "pending", created) for row in rows), _INSERT_ROWS):
        connection.exec_driver_sql(f'INSERT INTO "match" ({columns}) VALUES ({marks})', chunk)


def _chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def pending_rounds(engine: Engine) -> int:
    """How many rounds have unfinished matches (left by an interrupted run)."""
    with Session(engine) as session:
        query = select(func.count(func.distinct(Match.round))).where(Match.status == "pending")
        return session.exec(query).one()


@dataclass(frozen=True)
class _Partner:
    """A bot version partnering bot A or B in a team match."""

    name: str
    folder: str
    version_id: int


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
    a_partner: _Partner | None = None
    """Who partners bot A (a team match); ``None``: bot A itself."""
    b_partner: _Partner | None = None
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


def play_pending(
    ladder: Path,
    engine: Engine,
    pools: Pools,
    workers: int,
    progress: ProgressCallback | None = None,
    check_database: Callable[[], None] = lambda: None,
) -> RunReport:
    """Play every pending match on pools of ``workers``, storing games as they finish.

    The executor is handed at most ``window(workers)`` matches at a time, the next ones
    as these end, so that the run reads the pending matches a chunk at a time and polls
    only the folders of matches that are running. After a pool breaks, the suspects are
    the first ``workers + 1`` unfinished matches handed to it: a process pool hands out
    its jobs in order, one more than it has workers, so the match that killed a worker is
    among them. ``check_database`` is called before each write (``database.watch``).

    Raises:
        LadderError: some matches could not be played, or some records were refused (the
            other games are stored); running again retries them. Or the database went
            away (``check_database``).
    """
    pending = _Pending(engine)
    totals = pending.totals(ladder)
    run = _Run(ladder, engine, _Reporter(progress, totals), check_database)
    run.reporter.send()
    todo: Iterator[_Running] = iter(pending)
    while True:
        with pools(workers) as executor:
            broken = run.play(todo, executor, window(workers))
        if not broken:
            break
        suspects, rest = broken[: workers + 1], broken[workers + 1 :]
        for match in suspects:
            with pools(1) as alone:
                if run.play(iter([match]), alone, 1):
                    run.problem(
                        f"{match.folder} ({match.team('a')} vs {match.team('b')}): its worker "
                        "process died even with the match playing alone, so one of its bots kills "
                        "processes (or uses all the memory); its finished games are stored"
                    )
        todo = chain(rest, todo)
    if run.problems:
        count = len(run.problems)
        more = f" (and {count - 1} more)" if count > 1 else ""
        raise LadderError(
            f"{count} problem(s) in this run: {run.problems[0]}{more}; the other games are "
            "stored: run again to finish the matches"
        )
    return RunReport(totals.matches, run.stored)


def window(workers: int) -> int:
    """How many matches the executor holds at once: each worker's, one queued for each
    worker (a process pool's own queue), and one more; the rest wait in the database."""
    return 2 * workers + 1


@dataclass(frozen=True)
class _Totals:
    """The pending matches when a run starts (``RunProgress`` has the meanings)."""

    matches: int
    games_planned: int
    games_stored: int
    resumed: int


class _Pending:
    """The pending matches in play order (round, id), read a chunk at a time."""

    CHUNK = 200

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def totals(self, ladder: Path) -> _Totals:
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
            started = {match_id for match_id, _ in stored}
            folders = _folders(ladder / MATCHES)
            if folders:
                for match_id, folder in session.exec(
                    select(Match.id, Match.folder).where(Match.status == "pending")
                ):
                    if PurePosixPath(folder).name in folders:
                        started.add(match_id)
        return _Totals(matches, planned or 0, sum(count for _, count in stored), len(started))

    def __iter__(self) -> Iterator[_Running]:
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
                    None if version is None else _Partner(*versions[version], version)
                    for version in (match.a_partner_version_id, match.b_partner_version_id)
                )
                yield _Running(
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


class _Reporter:
    def __init__(self, callback: ProgressCallback | None, totals: _Totals) -> None:
        self.callback = callback
        self.totals = totals
        self.games = totals.games_stored
        self.finished = 0

    def send(
        self,
        finished: tuple[MatchResult, ...] = (),
        problems: tuple[str, ...] = (),
        stored: int = 0,
    ) -> None:
        self.finished += len(finished)
        self.games += stored
        if self.callback:
            self.callback(
                RunProgress(
                    games_done=self.games,
                    games_planned=self.totals.games_planned,
                    matches_done=self.finished,
                    matches_planned=self.totals.matches,
                    resumed=self.totals.resumed,
                    finished=finished,
                    problems=problems,
                )
            )


@dataclass(frozen=True)
class _Found:
    """A finished game on disk, read once: what is checked is what is stored."""

    match: _Running
    spec: GameSpec
    record: SdkGameRecord
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

    def play(self, matches: Iterator[_Running], executor: Executor, at_once: int) -> list[_Running]:
        """Play ``matches`` on ``executor``, ``at_once`` at a time; return those cut off by
        a broken pool, in the order they were handed to it (the rest of ``matches`` is
        left in the iterator).

        Raises:
            LadderError: the executor refuses jobs (a caller's executor that broke).
        """
        futures: dict[Future[list[str]], _Running] = {}
        order: dict[int, int] = {}  # id(match): when it was handed over
        broken: list[_Running] = []

        def hand_over() -> None:
            while len(futures) < at_once and not broken:
                match = next(matches, None)
                if match is None:
                    return
                order[id(match)] = len(order)
                try:
                    futures[self._submit(executor, match)] = match
                except BrokenProcessPool:
                    broken.append(match)

        try:
            hand_over()
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
                running = [match for future, match in futures.items() if future.running()]
                self._store([*running, *ended], completed)
                hand_over()
        except BaseException:
            for future in futures:  # the executor may be the caller's: stop only our matches
                future.cancel()
            raise
        return sorted(broken, key=lambda match: order[id(match)])

    def _submit(self, executor: Executor, match: _Running) -> Future[list[str]]:
        try:
            partners = tuple(
                None if partner is None else str(self.ladder / partner.folder)
                for partner in (match.a_partner, match.b_partner)
            )
            return executor.submit(
                play_match,
                str(self.ladder / match.a_folder),
                str(self.ladder / match.b_folder),
                match.settings,
                str(self.ladder / match.folder),
                partners=partners,
            )
        except BrokenProcessPool:
            raise
        except RuntimeError as error:  # shut down, or a caller's executor broken before
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
        self.reporter.send(tuple(match.result() for match in finished), stored=len(found))
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
                    GameRecord.model_validate({"game_id": game.id, "record": new.record.to_json()})
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
            reason = refusal(record, spec, match.match_settings, match.seat_names())
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
    partners = [
        partner.version_id if partner else None
        for partner in (found.match.a_partner, found.match.b_partner)
    ]
    return Game.model_validate(
        {
            "match_id": found.match.match_id,
            "round": found.match.round,
            "a_version_id": found.match.a_version_id,
            "b_version_id": found.match.b_version_id,
            "a_partner_version_id": partners[0],
            "b_partner_version_id": partners[1],
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
