"""Game records: writing them as a game is played, reading and writing record files.

A record (schema: ``docs/record-format.md``; typed as ``pitch_sdk.gamerecord.GameRecord``)
holds the rule options, the seed, each hand's dealer and deck order, every decision in
order, trick winners, points, dead points, scores, faults and the result.
``GameRecorder`` builds one while it drives a ``GameState``; ``write_record`` and
``load_record`` are where a record meets its file (JSON, plain or gzip-compressed), and
``pitch_sdk.replay`` re-runs one through the engine.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from .actions import Action
from .cards import Card, Seat
from .deck import deck_for
from .gamerecord import (
    Decision,
    Fault,
    GameRecord,
    GameResult,
    HandRecord,
    Player,
    RecordError,
    record_deck,
)
from .options import RuleOptions
from .replay import scored_hand
from .rules import GameState


class GameRecorder:
    """Drives a ``GameState`` and writes down everything a record holds."""

    def __init__(
        self,
        options: RuleOptions | None = None,
        *,
        seed: int | str | None = None,
        first_dealer: Seat = 0,
        players: Sequence[Player] = (),
    ) -> None:
        self.state = GameState(options, first_dealer)
        """The game being recorded: apply actions through ``decide``, not to it."""
        self.first_dealer = first_dealer
        """The seat that deals hand 1."""
        self.seed = seed
        """The game's seed: each hand's deck comes from it unless ``deal`` is given one."""
        self.players = tuple(players)
        """Who sits where (``replace`` one to add what is learnt during the game)."""
        self._hands: list[HandRecord] = []
        self._decisions: list[Decision] = []
        self._faults: list[Fault] = []

    def deal(self, deck: Sequence[Card] | None = None) -> None:
        """Deal the next hand: ``deck`` or, by default, the seeded deck for its number."""
        if deck is None:
            if self.seed is None:
                raise ValueError("a game without a seed needs explicit deck orders")
            deck = deck_for(self.seed, self.state.hand_number + 1)
        self.state.deal(deck)
        self._decisions = []
        state = self.state
        self._hands.append(HandRecord(state.hand_number, state.dealer, record_deck(state.deck), ()))

    def decide(self, action: Action, *, ms: float | None = None) -> None:
        """Apply ``action`` for the current seat (checked) and record it.

        Raises:
            InvalidActionError, IllegalActionError: as ``GameState.apply``.
        """
        state = self.state
        seat, forced = state.current_seat(), len(state.legal_actions()) == 1
        state.apply(action, undoable=False)
        self._decisions.append(Decision(seat, action, forced, None if ms is None else round(ms, 3)))
        if state.current_seat() < 0 and state.hand_results:  # the hand is over
            decisions = tuple(self._decisions)
            self._hands[-1] = replace(
                self._hands[-1], decisions=decisions, score=scored_hand(state)
            )

    def fault(self, fault: Mapping[str, Any]) -> Fault:
        """Record a bot fault, given as a record's fault object without its ``hand`` and
        ``decision`` (which say where the game stands); the referee decides what follows.

        Raises:
            RecordError: a key of a fault missing or of the wrong type.
        """
        where = {"hand": len(self._hands), "decision": len(self._decisions)}
        entry = Fault.from_json({**where, **fault}, "fault")
        self._faults.append(entry)
        return entry

    def forfeit(self, seat: Seat) -> None:
        """End the game: ``seat``'s team loses (``GameState.forfeit``)."""
        self.state.forfeit(seat)

    def record(self) -> GameRecord:
        """The record so far; its ``result`` is set once the game is over."""
        state, outcome = self.state, self.state.outcome
        result = None
        if outcome is not None:
            result = GameResult(
                termination=outcome.termination.value,
                winner=outcome.winner,
                forfeited_by=outcome.forfeited_by,
                scores=(state.scores[0], state.scores[1]),
                hands=state.hand_number,
            )
        return GameRecord(
            rules=state.options,
            seed=self.seed,
            first_dealer=self.first_dealer,
            players=self.players,
            hands=self._hands_so_far(),
            faults=tuple(self._faults),
            result=result,
        )

    def _hands_so_far(self) -> tuple[HandRecord, ...]:
        """Every hand with its decisions: a hand's record takes them when it ends, and
        the hand in progress here, not at each decision (a new record of the hand at
        every decision was a part of the referee's work per decision)."""
        if not self._hands:
            return ()
        *done, last = self._hands
        return (*done, replace(last, decisions=tuple(self._decisions)))


GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip file: how ``load_record`` tells one, whatever its name."""

COMPRESSED_SUFFIX = ".gz"
"""A record file whose name ends so is written gzip-compressed (``write_record``)."""

COMPRESS_LEVEL = 6
"""gzip's level for records (``bench/match_memory.py`` compares levels)."""


def write_record(record: GameRecord, path: Path, *, compress: bool | None = None) -> None:
    """Write a record atomically, so a crash never leaves half a file.

    Compressed (gzip, compact JSON) when ``compress`` says so or, by default, when the
    name ends in ``.gz`` (``game.json.gz``); otherwise indented JSON. ``load_record``
    reads both.
    """
    path = Path(path)
    if compress is None:
        compress = path.name.endswith(COMPRESSED_SUFFIX)
    write_record_bytes(record_bytes(record, compress), path)


def record_bytes(record: GameRecord, compress: bool) -> bytes:
    """A record file's bytes, as ``write_record`` writes them: for a caller that also
    needs the bytes (their digest, say)."""
    if compress:  # mtime 0: the same record gives the same bytes
        import gzip  # here: the commands that write no compressed record never import it

        return gzip.compress(
            json.dumps(record.to_json(), separators=(",", ":")).encode(), COMPRESS_LEVEL, mtime=0
        )
    return (json.dumps(record.to_json(), indent=1) + "\n").encode()


def write_record_bytes(
    data: bytes, path: Path, written: Callable[[os.stat_result], None] | None = None
) -> None:
    """Write a record file's bytes (``record_bytes``) atomically. ``written``, if given,
    is told the file's status (its inode, size, modification time) before the file takes
    its name, so before anyone can find it there."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    if written is not None:
        written(temporary.stat())
    temporary.replace(path)


def load_record(path: Path) -> GameRecord:
    """Read a record file, plain JSON or gzip-compressed JSON (told by its first bytes,
    whatever the file is called).

    Raises:
        RecordError: the file is missing, not (gzip-compressed) JSON, not a game record of
            a known version, or a key of the format missing or of the wrong type (the
            message names the file and the place).
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except OSError as error:
        raise RecordError(f"{path}: not a readable JSON game record ({error})") from None
    return parse_record(data, str(path))


def parse_record(data: bytes, where: str = "record") -> GameRecord:
    """A record file's bytes (``record_bytes``) read as ``load_record`` reads the file;
    ``where`` names them in errors.

    Raises:
        RecordError: not (gzip-compressed) JSON, not a game record of a known version, or
            a key of the format missing or of the wrong type.
    """
    try:
        if data.startswith(GZIP_MAGIC):
            data = _decompressed(data)
        loaded = json.loads(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"{where}: not a readable JSON game record ({error})") from None
    try:
        return GameRecord.from_json(loaded)
    except RecordError as error:
        raise RecordError(f"{where}: {error}") from None


def _decompressed(data: bytes) -> bytes:
    """``data`` gunzipped.

    Raises:
        OSError: not gzip, or cut short (``gzip.BadGzipFile`` or the reason).
    """
    import gzip  # here: the commands that read no compressed record never import it
    import zlib

    try:
        return gzip.decompress(data)
    except (EOFError, zlib.error) as error:  # cut short, or damaged inside
        raise OSError(str(error)) from None


# --- the bots' log files a record names ------------------------------------------------


def log_file(folder: Path, log: str) -> Path:
    """The file a record's ``log`` names: relative to the record's match ``folder`` (as
    the referee writes them), or, in records written before, an absolute path.

    Examples:
        >>> log_file(Path("matches/m1"), "logs/worker-0/A1-greedy.log").as_posix()
        'matches/m1/logs/worker-0/A1-greedy.log'
    """
    return folder / PurePosixPath(log)


def match_folder(record_path: Path) -> Path:
    """The folder a record's logs are named from: its match folder (records are in
    ``games/``), or the record's own folder for a loose record."""
    return record_path.parent.parent if record_path.parent.name == "games" else record_path.parent


def public_logs(record: GameRecord, folder: Path | None = None) -> GameRecord:
    """``record`` with no absolute path of the disk it was played on: each ``log`` of its
    ``players`` and ``faults`` relative to its match ``folder`` (forward slashes), and the
    mentions of an absolute one in a fault's ``detail`` too. An absolute path outside
    ``folder`` (or any, without one) is dropped, and its mentions become its file name.
    A record whose logs are all relative (as the referee writes them) is returned as is.
    """
    logs = {p.log for p in record.players if p.log} | {f.log for f in record.faults if f.log}
    absolute = {log for log in logs if PurePosixPath(log).is_absolute() or Path(log).is_absolute()}
    if not absolute:
        return record
    shown = {log: _relative_log(log, folder) for log in absolute}
    players = tuple(replace(p, log=_shown_log(p.log, shown)) for p in record.players)
    faults = tuple(
        replace(f, log=_shown_log(f.log, shown), detail=_shown_detail(f.detail, shown))
        for f in record.faults
    )
    return replace(record, players=players, faults=faults)


def _relative_log(log: str, folder: Path | None) -> str | None:
    if folder is not None:
        for base in (folder.absolute(), folder.resolve()):
            if Path(log).is_relative_to(base):
                return Path(log).relative_to(base).as_posix()
    return None


def _shown_log(log: str | None, shown: dict[str, str | None]) -> str | None:
    return shown.get(log, log) if log is not None else None


def _shown_detail(detail: str, shown: dict[str, str | None]) -> str:
    for old, new in shown.items():
        detail = detail.replace(old, new or PurePosixPath(old).name)
    return detail


# --- reading a finished game's result -------------------------------------------------


@dataclass(frozen=True)
class RecordResult:
    """How a recorded game ended, with its faults and CPU: what match tallies, the
    ladder and the command line read from a record, read in one place."""

    termination: str
    """Why the game ended: a ``pitch_sdk.progress.Termination`` value."""
    winner: int | None
    """The winning team; ``None`` for a draw at the hand cap."""
    forfeited_by: Seat | None
    """The seat whose fault forfeited the game, for a forfeit."""
    scores: tuple[int, int]
    """The final score of each team."""
    hands: int
    """How many hands were dealt."""
    faults: tuple[Fault, ...]
    """Every fault, in order."""
    cpu_ms: tuple[float | None, ...]
    """Each seat's CPU in this game, where the sandbox measured it."""

    def score_of(self, team: int) -> float:
        """``team``'s game score: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner == team)

    def faults_of(self, team: int) -> tuple[Fault, ...]:
        """The faults of ``team``'s two seats."""
        return tuple(fault for fault in self.faults if fault.team == team)

    def team_cpu_ms(self, team: int) -> float | None:
        """The CPU of ``team``'s two seats (``None`` unless both were measured)."""
        spent = [ms for seat, ms in enumerate(self.cpu_ms) if seat % 2 == team]
        if len(spent) != 2 or None in spent:
            return None
        return sum(ms for ms in spent if ms is not None)


def record_result(record: GameRecord) -> RecordResult | None:
    """The result of a game record, or ``None`` while the game goes on (``result`` null).

    Reads only ``result``, ``faults`` and the players' ``cpu_ms``; it does not replay the
    game (``pitch_sdk.replay`` checks that the result is the one the rules give).
    """
    result = record.result
    if result is None:
        return None
    cpu: list[float | None] = [None] * 4
    for player in record.players:
        if player.seat in range(4):
            cpu[player.seat] = player.cpu_ms
    return RecordResult(
        termination=result.termination,
        winner=result.winner,
        forfeited_by=result.forfeited_by,
        scores=result.scores,
        hands=result.hands,
        faults=record.faults,
        cpu_ms=tuple(cpu),
    )
