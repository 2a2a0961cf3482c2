"""Live games: each game being played publishes its events as they happen.

A ``Publisher`` gives each game a ``Feed``: a table ``Watcher`` that publishes every
event, closed once the game's record is written (or the game abandoned). The file
publisher, ``JournalPublisher``, writes a journal per game into its match folder::

    <match>/live/<game>.jsonl   one JSON object per line, one line per table event

The first line (``"event": "start"``) holds the record's heading (rules, seed, first
dealer, players) and who writes the journal (host, process id and start time); then
``deal`` (with the hand's deck), ``decide``, ``fault``, ``scored`` and, last, ``end``
with the result. Each line goes to the file in one ``write`` as soon as the table
applies the event, so a reader may only ever miss the end of the last line, which
``JournalReader`` leaves for its next read. The journal becomes a record in progress,
in the project's record format, by replaying its lines through ``GameRecorder``.

A journal whose writer died (a worker killed with -9) stays on disk until the match
stops or is run again (``sweep``), and is never listed as live: its writer's process is
gone (on this host) or, seen from another host, it has been silent for longer than any
decision may take (``writer_gone``). Another publisher (Redis, a cluster's message bus)
implements ``Publisher`` and ``Feed``; docs/live.md describes the seam.

This module imports no web code: the server reads journals through it.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pitch_sdk.actions import IllegalActionError, InvalidActionError, parse_action
from pitch_sdk.gamerecord import GameRecord, Player, deck_names, parse_deck
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import GameRecorder
from pitch_sdk.table import Dealt, Decided, Faulted, GameOver, HandScored, Started, TableEvent

JOURNAL_FORMAT = "pitch-live-journal"
JOURNAL_VERSION = 1
LIVE_DIR = "live"
"""A match folder's folder of journals."""
JOURNAL_SUFFIX = ".jsonl"
SEARCH_DEPTH = 2
"""How far below a served folder match folders are looked for: a match folder itself (0),
a folder of matches (1), a ladder folder's ``matches/`` (2)."""

HOST = socket.gethostname()


class JournalError(ValueError):
    """A journal that cannot be read: not a journal, or a line the game cannot follow."""


class Feed(Protocol):
    """One game's publication: a table watcher, closed when the game is over for good."""

    def __call__(self, event: TableEvent) -> None: ...

    def close(self) -> None:
        """The game's record is written, or the game was abandoned: it is live no more."""


class Publisher(Protocol):
    """Gives each game of a match its feed. Picklable: worker processes get a copy."""

    def feed(self, game_id: str) -> Feed: ...


@dataclass(frozen=True)
class JournalPublisher:
    """Journals in ``<match>/live/``, one per game being played."""

    live_dir: Path
    max_silence_s: float
    """The longest a game may go without an event (one decision's whole budget, and a
    margin): how long a journal seen from another host stays live without growing."""

    @classmethod
    def for_match(cls, match_root: Path, max_silence_s: float) -> JournalPublisher:
        return cls(match_root / LIVE_DIR, max_silence_s)

    def feed(self, game_id: str) -> JournalFeed:
        return JournalFeed(self.live_dir / f"{game_id}{JOURNAL_SUFFIX}", self.max_silence_s)


class JournalFeed:
    """Writes one game's journal, a line per event; ``close`` removes it.

    Watching must never stop a game: a journal that cannot be written (a full disk) is
    given up, and the game goes on unpublished.
    """

    def __init__(self, path: Path, max_silence_s: float) -> None:
        self.path = path
        self.max_silence_s = max_silence_s
        self._fd: int | None = None

    def __call__(self, event: TableEvent) -> None:
        try:
            if self._fd is None:
                if isinstance(event, Started):
                    self._fd = open_journal(self.path)
                    os.write(self._fd, journal_header(event, self.max_silence_s))
            else:
                os.write(self._fd, journal_line(event))
        except OSError:
            self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)


def open_journal(path: Path) -> int:
    """A new journal's file, empty, for appending lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)


def journal_header(event: Started, max_silence_s: float) -> bytes:
    """A journal's first line: the record's heading and who writes the journal."""
    pid = os.getpid()
    header = {
        "event": "start",
        "format": JOURNAL_FORMAT,
        "version": JOURNAL_VERSION,
        "game": event.game_id,
        "started": round(time.time(), 3),
        "host": HOST,
        "pid": pid,
        "pid_start": process_start(pid),
        "max_silence_s": max_silence_s,
        "record": dict(event.heading),
    }
    return _line(header)


def journal_line(event: TableEvent) -> bytes:
    """The journal line of any event after the start."""
    if type(event) is Decided:  # most lines: written without the JSON encoder
        return _decision_line(event)
    if type(event) is Dealt:
        return _deal_line(event)
    return _line(_entry(event))


def _entry(event: TableEvent) -> dict[str, Any]:
    """The journal line of a hand's score, a fault or the end."""
    if isinstance(event, HandScored):
        return {"event": "scored", "scores": list(event.result.scores)}
    if isinstance(event, Faulted):
        return {"event": "fault", "fault": dict(event.entry)}
    assert isinstance(event, GameOver)
    outcome = event.outcome
    return {
        "event": "end",
        "termination": outcome.termination.value,
        "winner": outcome.winner,
        "forfeited_by": outcome.forfeited_by,
        "scores": list(event.scores),
    }


def _decision_line(event: Decided) -> bytes:
    """A decision's line, written directly (four times faster than the JSON encoder): an
    action's text is letters, digits, spaces and ``-``, which JSON writes as they are."""
    start = f'{{"event":"decide","seat":{event.seat},"action":"{event.action}"'
    end = "}\n" if event.ms is None else f',"ms":{round(event.ms, 3)!r}}}\n'
    return (start + end).encode()


def _deal_line(event: Dealt) -> bytes:
    """A deal's line, written directly as well: card names need no escaping either."""
    deck = '","'.join(deck_names(event.deck))
    return f'{{"event":"deal","hand":{event.hand},"deck":["{deck}"]}}\n'.encode()


def _line(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, separators=(",", ":")) + "\n").encode()


def process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), so that a
    process id reused by another process is not taken for the journal's writer; ``None``
    when there is no such process or no ``/proc``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return None if fields[0] in ("Z", "X") else fields[19]  # a zombie has finished


def _process_alive(pid: int, started: str | None) -> bool:
    if Path("/proc/self/stat").exists():
        return started is not None and process_start(pid) == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Journal:
    """A journal found on disk, read cheaply (no replay): enough to list it."""

    path: Path
    header: dict[str, Any]
    hand: int = 0
    """The hand being played (0 before the first deal)."""
    scores: list[int] = field(default_factory=lambda: [0, 0])
    finished: bool = False
    """The game is over (its ``end`` line is written); the record follows at once."""

    @property
    def game(self) -> str:
        return self.path.name.removesuffix(JOURNAL_SUFFIX)

    @property
    def match_root(self) -> Path:
        return self.path.parent.parent

    @property
    def players(self) -> list[dict[str, Any]]:
        return list(self.header["record"]["players"])

    @property
    def started(self) -> float:
        return float(self.header["started"])

    @classmethod
    def read(cls, path: Path) -> Journal:
        """Read ``path``'s header and the lines that say where the game is.

        Raises:
            FileNotFoundError: the journal is gone (its game finished meanwhile).
            JournalError: the file is not a journal this version can read.
        """
        with path.open("rb") as file:
            data = file.read()
        lines = data[: data.rfind(b"\n") + 1].splitlines()
        if not lines:
            raise JournalError(f"{path}: no header yet")
        journal = cls(path, _header(lines[0], path))
        for line in lines[1:]:  # only the few lines that move the game along are parsed
            if line.startswith(b'{"event":"deal"'):
                journal.hand += 1
            elif line.startswith(b'{"event":"scored"'):
                journal.scores = json.loads(line)["scores"]
            elif line.startswith(b'{"event":"end"'):
                journal.finished = True
                journal.scores = json.loads(line)["scores"]
        return journal

    def is_stale(self, now: float | None = None) -> bool:
        """Whether the writer is gone (``writer_gone``)."""
        return writer_gone(self.header, self.path, now)


def writer_gone(header: dict[str, Any], path: Path, now: float | None = None) -> bool:
    """Whether the writer of the journal at ``path`` is gone: its process died (on this
    host), or the journal has been silent longer than a game can be (from another host)."""
    if header.get("host") == HOST:
        return not _process_alive(int(header["pid"]), header.get("pid_start"))
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except FileNotFoundError:
        return True
    return age > float(header.get("max_silence_s", 0))


def _header(line: bytes, path: Path) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except json.JSONDecodeError:
        raise JournalError(f"{path}: the first line is not JSON") from None
    if (
        not isinstance(header, dict)
        or header.get("format") != JOURNAL_FORMAT
        or header.get("version") != JOURNAL_VERSION
        or not isinstance(header.get("record"), dict)
    ):
        raise JournalError(f"{path}: not a pitch live journal of a known version")
    return header


def journal_paths(folder: Path) -> Iterator[Path]:
    """The journals in the match folders at ``folder`` and below (``SEARCH_DEPTH``)."""
    pattern = f"{LIVE_DIR}/*{JOURNAL_SUFFIX}"
    for depth in range(SEARCH_DEPTH + 1):
        yield from sorted(folder.glob("*/" * depth + pattern))


def live_journals(folder: Path) -> list[Journal]:
    """The games being played now under ``folder``: journals whose game goes on and
    whose writer is alive, oldest first. Unreadable or vanishing journals are skipped."""
    found = []
    for path in journal_paths(folder):
        try:
            journal = Journal.read(path)
        except (FileNotFoundError, JournalError):
            continue
        if not journal.finished and not journal.is_stale():
            found.append(journal)
    return sorted(found, key=lambda journal: journal.started)


def sweep(match_root: Path) -> list[Path]:
    """Remove the match's journals whose writer is gone (a killed run, a dead worker);
    returns them. Run when no game of the match can be playing in a live process."""
    removed = []
    for path in sorted((match_root / LIVE_DIR).glob(f"*{JOURNAL_SUFFIX}")):
        try:
            journal = Journal.read(path)
        except FileNotFoundError:
            continue
        except JournalError:
            journal = None
        if journal is None or journal.finished or journal.is_stale():
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


class JournalReader:
    """Follows one journal as it grows, keeping the record in progress.

    ``read()`` takes the complete lines written since the last read and applies them to
    a ``GameRecorder``, so ``record`` is what the game's record would say now.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        self.finished = False
        self.lines = 0
        """How many lines are applied, the header included: how far the game has got."""
        self._recorder: GameRecorder | None = None
        self._offset = 0
        self._rest = b""
        self._inode: int | None = None

    @property
    def record(self) -> GameRecord:
        """The record so far (``result`` set once it has ended)."""
        if self._recorder is None:
            raise JournalError(f"{self.path}: no header yet")
        return self._recorder.record()

    def read(self) -> bool:
        """Apply the lines written since the last read; whether there were any.

        Raises:
            FileNotFoundError: the journal is gone.
            JournalError: not a journal, a line the game cannot follow, or the journal
                was started again (the game replayed after its writer died).
        """
        with self.path.open("rb") as file:
            inode = os.fstat(file.fileno()).st_ino
            if self._inode is not None and inode != self._inode:
                raise JournalError(f"{self.path}: the game was started again")
            self._inode = inode
            file.seek(self._offset)
            data = file.read()
        self._offset += len(data)
        data = self._rest + data
        end = data.rfind(b"\n") + 1
        self._rest = data[end:]
        lines = data[:end].splitlines()
        self.apply(lines)
        return bool(lines)

    def apply(self, lines: Iterable[bytes]) -> None:
        """Apply whole journal lines, whatever carried them (a file, another publisher).

        Raises:
            JournalError: not a journal, or a line the game cannot follow.
        """
        for line in lines:
            self._apply(line)

    def _apply(self, line: bytes) -> None:
        if self._recorder is None:
            self.header = _header(line, self.path)
            self._recorder = _recorder(self.header["record"], self.path)
            self.lines = 1
            return
        if self.finished:
            raise JournalError(f"{self.path}: a line after the game's end")
        try:
            entry = json.loads(line)
            _apply(self._recorder, entry)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise JournalError(f"{self.path}: unreadable line {line[:80]!r} ({error})") from None
        self.lines += 1
        self.finished = entry["event"] == "end"


def _recorder(heading: dict[str, Any], path: Path) -> GameRecorder:
    try:
        options = RuleOptions.from_dict(heading["rules"])
        return GameRecorder(
            options,
            seed=heading["seed"],
            first_dealer=heading["first_dealer"],
            players=[
                Player.from_json(player, f"players[{index}]")
                for index, player in enumerate(heading["players"])
            ],
        )
    except (KeyError, TypeError, ValueError) as error:
        raise JournalError(f"{path}: unreadable heading ({error})") from None


def _apply(recorder: GameRecorder, entry: dict[str, Any]) -> None:
    """One journal line into the record; an impossible one raises ``ValueError``."""
    kind = entry["event"]
    if kind == "deal":
        recorder.deal(parse_deck(entry["deck"]))
    elif kind == "decide":
        if entry["seat"] != recorder.state.current_seat():
            raise ValueError(f"seat {entry['seat']} decides out of turn")
        try:
            recorder.decide(parse_action(entry["action"]), ms=entry.get("ms"))
        except (IllegalActionError, InvalidActionError) as error:
            raise ValueError(str(error)) from None
    elif kind == "fault":
        recorder.fault(entry["fault"])
    elif kind == "end":
        if entry["termination"] == "forfeit" and not recorder.state.is_over():
            recorder.forfeit(entry["forfeited_by"])
        if not recorder.state.is_over():
            raise ValueError("the journal ends a game the engine says goes on")
    elif kind != "scored":  # a hand's score is the engine's to compute
        raise ValueError(f"unknown event {kind!r}")
