"""``pitch matches``: list the matches played on this machine, from their summaries.

A match folder's ``summary.json`` is written by ``pitch match``; this listing reads it
tolerantly (``pitch_referee.match.listing``, as the web pages of a folder of matches do):
a missing value shows as ``-`` and an unreadable summary gets a one-line note, so one
broken folder never hides the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from pitch_referee.match.listing import MatchListing, match_folders, read_listing

from .render import output_console

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
    folders = match_folders(root) if root.is_dir() else []
    if not folders:
        console.print(f"no matches in {root} (a match folder holds a match.json)")
        return
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("folder", no_wrap=True)  # to paste into --resume or pitch replay
    table.add_column("A vs B")
    for heading in ("games", "A: W-L-D", "Elo (95%)", "status"):
        table.add_column(heading)
    notes = []
    for folder in folders:
        key = folder.relative_to(root).as_posix()
        line = read_listing(folder, key)
        if line.note:
            notes.append(f"{folder}: {line.note}")
            continue
        table.add_row(key, *_row(line))
    console.print(table)
    for note in notes:
        console.print(note, style="yellow", soft_wrap=True, highlight=False)


def _row(line: MatchListing) -> tuple[str, ...]:
    counts = (line.wins, line.losses, line.draws)
    played = _shown(line.games_played)
    return (
        f"{_bot(line.a, line.a_version)} vs {_bot(line.b, line.b_version)}",
        played + ("" if line.games_planned is None else f" of {line.games_planned}"),
        "-".join(map(str, counts)) if None not in counts else "-",
        _elo(line.elo, line.elo_interval),
        _shown(line.status),
    )


def _shown(value: object) -> str:
    return "-" if value is None else str(value)


def _bot(name: str, version: str | None) -> str:
    return name if version is None else f"{name} {version}"


def _elo(elo: float | None, interval: tuple[float | None, float | None] | None) -> str:
    """``+35.2 [-5.0, +75.4]``; an unbounded end of the interval is written as such."""
    if elo is None:
        return "-"
    shown = f"{elo:+.1f}"
    if interval is not None:
        shown += f" [{_end(interval[0], '-inf')}, {_end(interval[1], '+inf')}]"
    return shown


def _end(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:+.1f}"
