"""The bots' own log lines for one game, as the timeline takes them.

A bot process plays many games and writes one log file (the record's ``players[seat].log``,
relative to the match folder), with an index beside it saying during which decision each
line came (``pitch_referee.logindex``). Only files inside the folder being served are read,
whatever path a record names.
"""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path
from typing import Any

from pitch_referee.logindex import record_lines
from pitch_sdk.gamerecord import GameRecord


def game_log_lines(
    record: GameRecord, game_id: str, base: Path, root: Path, seats: Container[int]
) -> list[dict[str, Any]]:
    """The log lines that ``seats`` wrote during game ``game_id``, as ``{"seat", "text"}``
    with ``hand``, ``decision`` and ``asked`` where the log's index says (``timeline``).

    ``base`` is the folder that relative log paths start from (the match folder), and
    ``root`` the folder served: a log file outside it is not read.
    """
    lines = []
    for seat, line in record_lines(record, game_id, base, seats, root):
        tag = line.tag
        where = (
            {} if tag is None else {"hand": tag.hand, "decision": tag.decision, "asked": tag.asked}
        )
        lines.append({"seat": seat, "text": line.text, **where})
    return lines
