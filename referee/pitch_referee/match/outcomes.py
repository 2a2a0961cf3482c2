"""Each finished game as a few numbers (``GameOutcome``), and the folder's outcome log.

A match's summary, its progress and its resume need a few numbers per game, never the
game's record (30 KB of JSON, four times that in memory). So the match process appends
one line per finished game to ``outcomes.jsonl``, after the worker has written the
game's record, and reads those lines back instead of the records.

The records stay the source of truth. A line counts only while the record it was taken
from is still there, unchanged (its name, size and modification time are in the line);
a record without such a line (a match killed between the two writes, a folder from a
version without the log, a record replaced by hand) is read once and its line written.
So a crash between a record and its line loses no game, a game is never counted twice,
and a game whose record was removed (to play it again, or refused by the ladder) no
longer counts.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from array import array
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import IO, Any, NamedTuple

from pitch_sdk.faults import FaultKind
from pitch_sdk.gamerecord import Fault, GameRecord, RecordError
from pitch_sdk.record import load_record, record_result

from .folder import COMPRESSED, PLAIN, MatchFolder, RecordFile
from .schedule import GameSpec, position

UNPLAYABLE = frozenset(
    {FaultKind.START_FAILED, FaultKind.NO_HELLO, FaultKind.CRASHED, FaultKind.DISCONNECTED}
)
"""Faults that say a bot never got to play, or died playing."""


_SCORES = {0: 0.0, 0.5: 0.5, 1: 1.0}
"""A game's score for A, one float object each: a long match holds one per game."""


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One finished game from bot A's side."""

    spec: GameSpec
    a_score: float
    """1 win, 0.5 draw, 0 loss."""
    a_points: int
    b_points: int
    faults: int
    a_cpu_ms: float | None = None
    """CPU used by bot A's two processes in this game, where the sandbox measured it."""
    b_cpu_ms: float | None = None
    a_faults: tuple[Fault, ...] = ()
    b_faults: tuple[Fault, ...] = ()
    a_asked: bool = True
    """Whether bot A made a decision of its own in this game (one not forced)."""
    b_asked: bool = True
    termination: str = ""
    """How the game ended (the record's ``result.termination``)."""

    def faults_of(self, side: str) -> tuple[Fault, ...]:
        return self.a_faults if side == "a" else self.b_faults

    def failed(self, side: str) -> bool:
        """Whether ``side`` ended this game with a start or crash fault."""
        return any(fault.kind in UNPLAYABLE for fault in self.faults_of(side))

    def played(self, side: str) -> bool:
        """Whether ``side`` made decisions in this game and ended it without failing."""
        return (self.a_asked if side == "a" else self.b_asked) and not self.failed(side)

    @property
    def scores(self) -> tuple[int, int]:
        """The game's final scores, team 0 first (as the record's ``result.scores``)."""
        if self.spec.a_team == 0:
            return (self.a_points, self.b_points)
        return (self.b_points, self.a_points)

    @classmethod
    def from_record(cls, spec: GameSpec, record: GameRecord) -> GameOutcome:
        """The outcome of ``spec``'s finished record.

        Raises:
            RecordError: the record has no result, or one that does not read.
        """
        result = record_result(record)
        if result is None:
            raise RecordError(f"{spec.game_id}: the game is not finished")
        a, b = spec.a_team, 1 - spec.a_team
        return cls(
            spec,
            _SCORES[result.score_of(a)],
            result.scores[a],
            result.scores[b],
            len(result.faults),
            result.team_cpu_ms(a),
            result.team_cpu_ms(b),
            result.faults_of(a),
            result.faults_of(b),
            _asked(record, a),
            _asked(record, b),
            sys.intern(result.termination),
        )

    def to_json(self) -> dict[str, Any]:
        """One line of ``outcomes.jsonl`` (without the record it came from)."""
        return {
            "game": self.spec.game_id,
            "a_score": self.a_score,
            "a_points": self.a_points,
            "b_points": self.b_points,
            "faults": self.faults,
            "termination": self.termination,
            "a_cpu_ms": self.a_cpu_ms,
            "b_cpu_ms": self.b_cpu_ms,
            "a_faults": [asdict(fault) for fault in self.a_faults],
            "b_faults": [asdict(fault) for fault in self.b_faults],
            "a_asked": self.a_asked,
            "b_asked": self.b_asked,
        }

    @classmethod
    def from_json(cls, spec: GameSpec, data: dict[str, Any]) -> GameOutcome:
        """The outcome ``to_json`` wrote for ``spec``.

        Raises:
            ValueError: ``data`` is not such an outcome (KeyError and TypeError included).
        """
        if data["game"] != spec.game_id or data["a_score"] not in _SCORES:
            raise ValueError(f"not the outcome of {spec.game_id}")
        numbers = [data[key] for key in ("a_points", "b_points", "faults")]
        cpu = [data[key] for key in ("a_cpu_ms", "b_cpu_ms")]
        flags = [data[key] for key in ("a_asked", "b_asked")]
        if not all(type(n) is int for n in numbers) or not all(type(f) is bool for f in flags):
            raise ValueError("points, faults and asked flags are whole numbers and booleans")
        if not all(ms is None or type(ms) in (int, float) for ms in cpu):
            raise ValueError("CPU times are numbers")
        return cls(
            spec,
            _SCORES[data["a_score"]],
            numbers[0],
            numbers[1],
            numbers[2],
            cpu[0],
            cpu[1],
            _faults(data["a_faults"]),
            _faults(data["b_faults"]),
            flags[0],
            flags[1],
            sys.intern(str(data["termination"])),
        )


def _asked(record: GameRecord, team: int) -> bool:
    """Whether a seat of ``team`` made an unforced decision in ``record``."""
    return any(
        not decision.forced and decision.seat % 2 == team
        for hand in record.hands
        for decision in hand.decisions
    )


def _faults(entries: list[dict[str, Any]]) -> tuple[Fault, ...]:
    return tuple(Fault(**entry) for entry in entries)


class RecordNames:
    """The record file of each game that has one: a byte a game, not a name."""

    _PLAIN, _COMPRESSED = 1, 2

    def __init__(self, games: int, duplicate: bool) -> None:
        self._kinds = bytearray(games)  # by schedule position: 0 for no record
        self._duplicate = duplicate

    def __getitem__(self, spec: GameSpec) -> str:
        return self.name(spec, self._kinds[self._at(spec)] == self._COMPRESSED)

    def has(self, at: int) -> bool:
        """Whether the game at schedule position ``at`` has a record."""
        return self._kinds[at] != 0

    def set(self, at: int, compressed: bool) -> None:
        self._kinds[at] = self._COMPRESSED if compressed else self._PLAIN

    @staticmethod
    def name(spec: GameSpec, compressed: bool) -> str:
        return f"{spec.game_id}{COMPRESSED if compressed else PLAIN}"

    def _at(self, spec: GameSpec) -> int:
        return 2 * spec.pair + (spec.side == "b") if self._duplicate else spec.pair


class Loaded(NamedTuple):
    """The finished games of a match folder."""

    outcomes: dict[GameSpec, GameOutcome]
    """In schedule order."""
    records: RecordNames


def load_outcomes(folder: MatchFolder, specs: list[GameSpec], duplicate: bool) -> Loaded:
    """The outcomes of the finished games of ``specs`` (the schedule of a match,
    ``duplicate`` or not): from the outcome log where it agrees with the records on
    disk, from the records where it does not. The log is rewritten when it did not
    agree, so that appending to it is right again.

    Reads the games folder's listing and the log, and only the records that have no
    line that agrees with them. What it holds besides the outcomes is a number and a
    byte per game.
    """
    stamps = array("q", bytes(8 * len(specs)))  # a hash of each record's name, size, time
    records = RecordNames(len(specs), duplicate)
    for file in folder.records():
        at = position(file.game, specs, duplicate)
        if at is None or (records.has(at) and not file.compressed):
            continue  # not a game of the match; a game with both has its compressed one
        stamps[at] = hash(file)
        records.set(at, file.compressed)
    found: list[GameOutcome | None] = [None] * len(specs)
    lines = 0
    try:
        with folder.outcomes_path.open("rb") as log:
            for line in log:
                lines += 1
                try:
                    data = json.loads(line)
                    at = position(data["game"], specs, duplicate)
                    file = RecordFile(data["record"], data["size"], data["mtime_ns"])
                    if at is not None and records.has(at) and stamps[at] == hash(file):
                        found[at] = GameOutcome.from_json(specs[at], data)  # the last wins
                except (ValueError, KeyError, TypeError):  # cut short by a crash, or by hand
                    continue
    except FileNotFoundError:
        pass
    logged = sum(outcome is not None for outcome in found)
    stale = lines != logged
    for at in range(len(specs)):
        if not records.has(at) or found[at] is not None:
            continue
        stale = True  # a record without its line: read it once
        spec = specs[at]
        try:
            record = load_record(folder.games_dir / records[spec])
            found[at] = GameOutcome.from_record(spec, record)
        except RecordError:  # unreadable or unfinished: the game is played again
            continue
    outcomes = {outcome.spec: outcome for outcome in found if outcome is not None}
    del found, stamps
    if stale:
        _rewrite_log(folder, outcomes, records)
    return Loaded(outcomes, records)


def _line(outcome: GameOutcome, file: RecordFile) -> str:
    data = outcome.to_json()
    data.update(record=file.name, size=file.size, mtime_ns=file.mtime_ns)
    return json.dumps(data, separators=(",", ":")) + "\n"


def _rewrite_log(
    folder: MatchFolder, outcomes: dict[GameSpec, GameOutcome], records: RecordNames
) -> None:
    """The log, written again atomically: one line per finished game, in schedule order."""
    path = folder.outcomes_path
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w") as log:
        for spec, outcome in outcomes.items():
            name = records[spec]
            try:
                stat = os.stat(folder.games_dir / name)
            except FileNotFoundError:  # gone since the listing: no line, read again next time
                continue
            log.write(_line(outcome, RecordFile(name, stat.st_size, stat.st_mtime_ns)))
    temporary.replace(path)


class OutcomeLog:
    """The match process's end of ``outcomes.jsonl``: a line per game as it finishes."""

    def __init__(self, folder: MatchFolder, compressed: bool) -> None:
        self.folder = folder
        self.compressed = compressed
        self._file: IO[str] | None = None

    @contextlib.contextmanager
    def opened(self) -> Iterator[OutcomeLog]:
        with self.folder.outcomes_path.open("a") as self._file:
            try:
                yield self
            finally:
                self._file = None

    def append(self, outcome: GameOutcome) -> None:
        """Log ``outcome``, whose record a worker has written. A record already gone (the
        ladder refused it) gets no line: the game is not finished after all."""
        assert self._file is not None, "append within opened()"
        path = self.folder.games_dir / RecordNames.name(outcome.spec, self.compressed)
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            return
        self._file.write(_line(outcome, RecordFile(path.name, stat.st_size, stat.st_mtime_ns)))
        self._file.flush()  # in the kernel's hands: a killed match keeps the line
