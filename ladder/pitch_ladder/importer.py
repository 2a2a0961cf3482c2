"""The importer: a run's finished games, from the match folders into the database.

Each poll (``Importer.store``) it looks in the folders of the matches that are running
for new records and stores each one with its result, in one transaction with the ratings
that depend on it (``rating_tables.rerate``) and the matches that finished. So a run
killed at any moment loses nothing that finished: the next run finds the records and
imports what is missing; ``(match, game id)`` is unique, so nothing is stored twice.

A record is stored only if ``verify.refusal`` finds nothing wrong with it: the folder is
a file system anyone may write, the database is the ladder's word. A refused record is
renamed ``<game>.rejected.json``, so the match plays that game again on the next run.
A record a cluster's owner vouched for (``vouched``: a worker verified it, the owner
checked it) is stored from the bytes the owner holds, without reading the file or
replaying the record again, if the file is still the one the owner wrote.

A poll's games go to the database in bulk (``bulk``): their rows by ``COPY`` on
PostgreSQL and multi-row inserts on SQLite, their records likewise
(gzip-compressed, ``models.PackedRecord``: a cluster's as its worker compressed them),
the version and pair totals and the Elo history updated once for all of them, and the
finished matches marked by one update, all in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col

from pitch_referee.match import GameOutcome, GameSpec, MatchFolder
from pitch_sdk.gamerecord import RecordError
from pitch_sdk.record import parse_record, record_result

from .bulk import insert_numbered, insert_rows
from .database import failed_mid_run
from .models import Game, GameRecord, Match, now, packed
from .pending import MatchResult, PendingMatch
from .rating_tables import rerate
from .verify import refusal
from .vouched import VouchedRecords

REJECTED = ".rejected.json"
"""The ending of a refused record's new name: the match no longer sees it as played."""


@dataclass(frozen=True)
class Found:
    """A finished game on disk, read once: what is checked is what is stored."""

    match: PendingMatch
    spec: GameSpec
    outcome: GameOutcome
    """Its result, as ``GameOutcome.from_record`` reads it (with its termination)."""
    packed: bytes
    """The record file's bytes, gzip-compressed (``models.packed``): stored as they are,
    without encoding the record again."""
    path: Path
    finished_at: datetime


@dataclass(frozen=True)
class Stored:
    """What one poll stored."""

    games: int
    finished: tuple[MatchResult, ...]
    problems: tuple[str, ...]


class Importer:
    """Stores the new records of running matches, a poll at a time."""

    def __init__(self, ladder: Path, engine: Engine, problem: Callable[[str], None]) -> None:
        self.ladder = ladder
        self.engine = engine
        self.problem = problem
        """Called with each refused record's problem as it is found."""
        self.vouched: VouchedRecords | None = None
        """The records the executor of the matches vouches for (``vouched_records``)."""

    def store(self, matches: list[PendingMatch], completed: list[PendingMatch]) -> Stored:
        """Store the new records of ``matches`` and mark ``completed`` finished, in one
        transaction.

        A completed match with fewer games stored than planned, or than it played, is a
        problem: it stays pending, so that the next run resumes it.

        Raises:
            LadderError: the database failed (nothing of this poll is stored).
        """
        found = [new for match in matches for new in self.new_records(match)]
        if not found and not completed:
            return Stored(0, (), ())
        try:
            problems, finished = self._commit(found, completed)
        except DBAPIError as error:
            raise failed_mid_run(error, "while storing games") from None
        for new in found:
            new.match.scores[new.spec.game_id] = new.outcome.a_score
        return Stored(len(found), tuple(match.result() for match in finished), tuple(problems))

    def _commit(
        self, found: list[Found], completed: list[PendingMatch]
    ) -> tuple[list[str], list[PendingMatch]]:
        """The transaction of ``store``: returns its problems and the matches it finished."""
        problems, finished = [], []
        with Session(self.engine) as session:
            if found:
                connection = session.connection()
                ids = insert_numbered(
                    connection, Game, [_game_row(self.ladder, new) for new in found]
                )
                records = [
                    {"game_id": game, "record": new.packed}
                    for game, new in zip(ids, found, strict=True)
                ]
                insert_rows(connection, GameRecord, records)
                rerate(session, ids)
            for match in completed:
                stored = {new.spec.game_id for new in found if new.match is match}
                stored |= set(match.scores)
                if len(stored) < match.planned or not stored.issuperset(match.played):
                    problems.append(
                        f"{match.folder}: {len(stored)} of {match.planned} games stored "
                        f"({len(match.played)} played)"
                    )
                    continue
                finished.append(match)
            if finished:
                session.exec(
                    update(Match)
                    .where(col(Match.id).in_([match.match_id for match in finished]))
                    .values(status="finished", finished_at=now())
                )
            session.commit()
        return problems, finished

    def new_records(self, match: PendingMatch) -> list[Found]:
        """Finished games of ``match`` on disk, not stored yet, vouched for or passing
        ``verify``.

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
            vouched = self.vouched.take(path) if self.vouched is not None else None
            if vouched is not None:  # the bytes verified, in memory: the file is not read
                new = Found(match, spec, vouched.outcome, vouched.packed, path, vouched.finished_at)
                found.append(new)
                continue
            try:
                data = path.read_bytes()
                finished_at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
            except FileNotFoundError:
                continue  # moved meanwhile
            except OSError as error:
                self._refuse(match, path, f"it does not read ({error.strerror})")
                continue
            try:
                record = parse_record(data, str(path))
                if record_result(record) is None:
                    continue  # a game still going on
            except RecordError as error:
                self._refuse(match, path, str(error).removeprefix(f"{path}: "))
                continue
            reason = refusal(record, spec, match.match_settings, match.seat_names())
            if reason is None:
                outcome = GameOutcome.from_record(spec, record)
                stored = packed(data)  # the file's JSON as it is, as a vouched one's
                found.append(Found(match, spec, outcome, stored, path, finished_at))
            else:
                self._refuse(match, path, reason)
        return found

    def _refuse(self, match: PendingMatch, path: Path, reason: str) -> None:
        aside = path.with_name(path.stem + REJECTED)
        try:
            path.replace(aside)
            moved = f"moved to {aside.name}, the match plays it again"
        except OSError as error:
            moved = f"could not be moved aside ({error.strerror})"
        self.problem(f"{match.folder}/games/{path.name} refused: {reason}; {moved}")


def _game_row(ladder: Path, found: Found) -> dict[str, Any]:
    """The ``game`` row of ``found``, by column, for a bulk insert."""
    outcome = found.outcome
    partners = [
        partner.version_id if partner else None
        for partner in (found.match.a_partner, found.match.b_partner)
    ]
    return {
        "match_id": found.match.match_id,
        "round": found.match.round,
        "a_version_id": found.match.a_version_id,
        "b_version_id": found.match.b_version_id,
        "a_partner_version_id": partners[0],
        "b_partner_version_id": partners[1],
        "game_id": found.spec.game_id,
        "a_team": found.spec.a_team,
        "a_score": outcome.a_score,
        "b_score": 1.0 - outcome.a_score,
        "a_points": outcome.a_points,
        "b_points": outcome.b_points,
        "faults": outcome.faults,
        "termination": outcome.termination,
        "record_path": found.path.relative_to(ladder).as_posix(),
        "finished_at": found.finished_at,
    }
