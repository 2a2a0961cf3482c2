"""``pitch matches``: list the matches played on this machine, from their summaries.

A match folder's ``summary.json`` is written by ``pitch match``; this listing reads it
tolerantly: a missing value shows as ``-`` and an unreadable summary gets a one-line
note, so one broken folder never hides the others.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from pitch_referee.match import MatchFolder, MatchStatus

from .render import output_console

SUMMARY = "summary.json"
TABLE_WIDTH = 160
"""Columns when piped: wide enough for one match per line with long folder names."""
DEFAULT_ROOT = Path("matches")


def matches(
    root: Annotated[
        Path, typer.Option("--root", help="The folder holding match folders.")
    ] = DEFAULT_ROOT,
) -> None:
    """List local matches: bots, games played, A's wins-losses-draws, Elo and status."""
    console = output_console(TABLE_WIDTH)
    folders = sorted(path.parent for path in root.glob(f"*/{SUMMARY}")) if root.is_dir() else []
    if not folders:
        console.print(f"no matches in {root} (a match folder holds a {SUMMARY})")
        return
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("folder", no_wrap=True)  # to paste into --resume or pitch replay
    table.add_column("A vs B")
    for heading in ("games", "A: W-L-D", "Elo (95%)", "status"):
        table.add_column(heading)
    notes = []
    for folder in folders:
        try:
            summary = json.loads((folder / SUMMARY).read_text())
            if not isinstance(summary, dict):
                raise ValueError("not a JSON object")
        except (OSError, UnicodeDecodeError, ValueError) as error:
            notes.append(f"{folder}: unreadable {SUMMARY} ({error})")
            continue
        table.add_row(folder.name, *_row(summary, folder))
    console.print(table)
    for note in notes:
        console.print(note, style="yellow", soft_wrap=True, highlight=False)


def _row(summary: dict[str, Any], folder: Path) -> tuple[str, ...]:
    planned = _at(summary, "games_planned")
    played = _at(summary, "games_played")
    if _at(summary, "status") == MatchStatus.RUNNING:  # written when the match (re)started
        played = MatchFolder(folder).finished_count()  # the records' names: none is read
    counts = [_at(summary, "result", "a", key) for key in ("wins", "losses", "draws")]
    return (
        f"{_bot(_at(summary, 'bots', 'a'))} vs {_bot(_at(summary, 'bots', 'b'))}",
        _shown(played) + ("" if planned is None else f" of {planned}"),
        "-".join(map(str, counts)) if all(isinstance(n, int) for n in counts) else "-",
        _elo(_at(summary, "stats")),
        _shown(_at(summary, "status")),
    )


def _at(data: object, *keys: str) -> Any:
    """``data[k1][k2]...``, or ``None`` where a level is missing or not an object."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _shown(value: object) -> str:
    return "-" if value is None or isinstance(value, (dict, list)) else str(value)


def _bot(bot: object) -> str:
    name, version = _at(bot, "name"), _at(bot, "version")
    return _shown(name) if version is None else f"{_shown(name)} {_shown(version)}"


def _elo(stats: object) -> str:
    """``+35.2 [-5.0, +75.4]``; an unbounded end of the interval is written as null."""
    elo, interval = _at(stats, "elo"), _at(stats, "elo_interval")
    if not isinstance(elo, (int, float)):
        return "-"
    shown = f"{elo:+.1f}"
    if isinstance(interval, list) and len(interval) == 2:
        shown += f" [{_end(interval[0], '-inf')}, {_end(interval[1], '+inf')}]"
    return shown


def _end(value: object, unbounded: str) -> str:
    return f"{value:+.1f}" if isinstance(value, (int, float)) else unbounded
