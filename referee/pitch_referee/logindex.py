"""Which decision each line of a bot's log came during: the index kept beside the log.

A bot process plays many games into one log file. While it plays, its seat
(``game_loop.RemotePlayer``) says where the game stands (``LogTag``): the decision it is
being asked for, or how many decisions its hand has had since. The referee's copy of the
bot's output writes an entry into ``<log>.index`` at the first line that starts under a
new tag: one JSON object a line, ``{"offset", "game", "hand", "decision", "asked"}``, the
offset in bytes into the log (docs/record-format.md). A line belongs to the last entry at
or before its first byte. A log without an index (written before the index existed, or
shipped from a cluster's worker) is cut by the marker the Python SDK's run loop logs at
each game start, with no decision.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Iterator
from dataclasses import dataclass
from pathlib import Path

from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.record import log_file

from .logtail import clip

INDEX_SUFFIX = ".index"
MAX_LINES = 2000
"""Lines read per log and game: a chatty bot's lines stay readable, a page small."""
LINE_BYTES = 2000
"""The widest line shown, in UTF-8 bytes (``logtail.clip`` marks what it cuts)."""
GAME_START = re.compile(r"\bgame (\S+): playing seat ([0-3])\b")
"""The line ``pitch_sdk.run`` logs when a game starts (what logs without an index have)."""


@dataclass(frozen=True)
class LogTag:
    """Where a game stood when a bot's line came."""

    game: str
    hand: int
    """The hand, from 1 (0: before the first deal)."""
    decision: int
    """How many decisions the hand had recorded: with ``asked``, the index of the one the
    bot was asked for (as a fault counts it); without, the lines came after that many."""
    asked: bool

    @property
    def under(self) -> int | None:
        """The index in its hand of the decision the line is shown under: the one asked
        for, or the last one recorded (``None``: none yet, the line is the deal's)."""
        if self.asked:
            return self.decision
        return self.decision - 1 if self.decision > 0 else None

    def entry(self, offset: int) -> bytes:
        """The index line saying that the log's lines from ``offset`` on came under this tag."""
        fields = {"offset": offset, **self.__dict__}
        return (json.dumps(fields, separators=(",", ":")) + "\n").encode()


@dataclass(frozen=True)
class LoggedLine:
    text: str
    tag: LogTag | None
    """``None``: a log without an index, whose lines name no decision."""


def index_path(log: Path) -> Path:
    """The index beside ``log``."""
    return log.with_name(log.name + INDEX_SUFFIX)


def record_lines(
    record: GameRecord, game_id: str, base: Path, seats: Container[int], root: Path | None
) -> Iterator[tuple[int, LoggedLine]]:
    """The lines that ``seats`` of ``record`` logged during game ``game_id``, with the seat:
    each log the record names, relative to ``base`` (its match folder); with ``root``,
    only files inside it are read, whatever path a record names."""
    root = root.resolve() if root is not None else None
    for player in record.players:
        seat, log = player.seat, player.log
        if log is None or seat not in range(4) or seat not in seats:
            continue
        path = log_file(base, log).resolve()  # an old absolute path stays as it is
        if (root is not None and not path.is_relative_to(root)) or not path.is_file():
            continue
        for line in game_lines(path, game_id, seat):
            yield seat, line


def game_lines(log: Path, game_id: str, seat: int) -> list[LoggedLine]:
    """The lines the bot logging into ``log`` wrote during game ``game_id`` (at ``seat``:
    what tells the game's part of a log without an index), at most ``MAX_LINES``."""
    entries = _entries(index_path(log))
    if entries is None:
        return [LoggedLine(text, None) for text in _marked_lines(log, game_id, seat)]
    mine = [i for i, (_, tag) in enumerate(entries) if tag.game == game_id]
    if not mine:
        return []
    stops = [offset for offset, _ in entries[mine[-1] + 1 :]]
    lines: list[LoggedLine] = []
    with log.open("rb") as file:
        file.seek(entries[mine[0]][0])
        offset, at = file.tell(), mine[0]
        while len(lines) < MAX_LINES and (not stops or offset < stops[0]):
            raw = file.readline()
            if not raw:
                break
            while at + 1 < len(entries) and entries[at + 1][0] <= offset:
                at += 1
            tag = entries[at][1]
            if tag.game == game_id:
                text = raw.decode(errors="replace").rstrip("\r\n")
                lines.append(LoggedLine(clip(text, LINE_BYTES), tag))
            offset += len(raw)
    return lines


def _entries(path: Path) -> list[tuple[int, LogTag]] | None:
    """The index's entries in order of offset (``None``: no index); unreadable lines
    (a write cut short) are skipped."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    entries = []
    for line in text.splitlines():
        try:
            fields = json.loads(line)
            offset = int(fields.pop("offset"))
            entries.append((offset, LogTag(**fields)))
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
    entries.sort(key=lambda entry: entry[0])
    return entries


def _marked_lines(path: Path, game_id: str, seat: int) -> list[str]:
    """A log without an index: the lines from the game's start marker to the next marker."""
    found: list[str] = []
    inside = False
    try:
        with path.open(encoding="utf-8", errors="replace") as log:
            for line in log:
                start = GAME_START.search(line)
                if start:
                    inside = start.group(1) == game_id and int(start.group(2)) == seat
                if inside:
                    found.append(clip(line.rstrip("\n"), LINE_BYTES))
                    if len(found) >= MAX_LINES:
                        break
    except OSError:
        return []
    return found
