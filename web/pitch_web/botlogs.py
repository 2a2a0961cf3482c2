"""The bots' own log lines for one game, cut out of the per-seat log files of a match.

A bot process plays many games and writes one log file (the record's ``players[seat].log``,
relative to the match folder);
a Python bot's ``run`` loop writes ``game <id>: playing seat <n>`` when each game starts,
so the lines from that marker to the next one are what the bot wrote during the game. Bots
that write no such marker give no lines. Lines carry no decision number, so the viewer
shows them beside the whole game rather than at a step (``timeline`` aligns lines that
name a hand and decision, should a source provide them).

Only files inside the folder being served are read, whatever path a record names.
"""

from __future__ import annotations

import re
from collections.abc import Container
from pathlib import Path
from typing import Any

from pitch_sdk.record import log_file

GAME_START = re.compile(r"\bgame (\S+): playing seat ([0-3])\b")
"""The line ``pitch_sdk.run`` logs when a game starts."""
MAX_LINES = 2000
"""Lines kept per seat and game: a chatty bot's log stays readable, the page small."""


def game_log_lines(
    record: dict[str, Any], game_id: str, base: Path, root: Path, seats: Container[int]
) -> list[dict[str, Any]]:
    """The log lines that ``seats`` wrote during game ``game_id``, as ``{"seat", "text"}``.

    ``base`` is the folder that relative log paths start from (the match folder), and
    ``root`` the folder served: a log file outside it is not read.
    """
    lines: list[dict[str, Any]] = []
    root = root.resolve()
    for player in record.get("players", []):
        if not isinstance(player, dict):
            continue
        seat, log = player.get("seat"), player.get("log")
        if not isinstance(log, str) or seat not in range(4) or seat not in seats:
            continue
        path = log_file(base, log).resolve()  # an old record's absolute path stays as it is
        if not path.is_relative_to(root) or not path.is_file():
            continue
        lines.extend({"seat": seat, "text": text} for text in _lines_of_game(path, game_id, seat))
    return lines


def _lines_of_game(path: Path, game_id: str, seat: int) -> list[str]:
    found: list[str] = []
    inside = False
    with path.open(encoding="utf-8", errors="replace") as log:
        for line in log:
            start = GAME_START.search(line)
            if start:
                inside = start.group(1) == game_id and int(start.group(2)) == seat
            if inside:
                found.append(line.rstrip("\n"))
                if len(found) >= MAX_LINES:
                    break
    return found
