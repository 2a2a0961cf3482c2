"""A match folder as a list of matches shows it: who played, how far, the result so far.

Read tolerantly, from ``summary.json`` (and ``match.json`` for the bots before there is a
summary): a missing or malformed value is ``None``, and an unreadable summary is a note
on its line, so one broken folder never hides the others. ``pitch matches`` and the web
pages of a folder of matches (``pitch serve matches/``) both list matches through here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .folder import MIXED_FILE, MatchFolder

RUNNING = "running"
"""The summary's status while the match plays (its game count is then the records')."""


@dataclass(frozen=True)
class MatchListing:
    """One match folder's line (missing values are ``None``)."""

    key: str
    """Its path relative to the folder listed ("" for the folder itself)."""
    a: str
    b: str
    a_version: str | None
    b_version: str | None
    status: str | None
    games_planned: int | None
    games_played: int | None
    wins: int | None
    """A's wins, losses and draws."""
    losses: int | None
    draws: int | None
    a_points: int | None
    b_points: int | None
    elo: float | None
    """A's Elo difference over B, from the match's own statistics."""
    elo_interval: tuple[float | None, float | None] | None
    """Its 95% interval; ``None`` at an end that is unbounded."""
    note: str | None = None
    """Why the summary could not be read, if it could not."""


def match_folders(root: Path) -> list[Path]:
    """The match folders in ``root``, by name, each mixed-partnership folder's team
    matches in its place: a listing of matches shows every match that holds games."""
    found = []
    for folder in sorted(path for path in root.iterdir() if path.is_dir()):
        if (folder / MIXED_FILE).is_file():
            found += sorted(path.parent for path in folder.glob("*/match.json"))
        elif MatchFolder(folder).exists() or MatchFolder(folder).summary_path.is_file():
            found.append(folder)
    return found


def _team(bots: object, side: str) -> str:
    """A side's bot, or its team (``alpha+beta``) when a partner is named."""
    name = str(at(bots, side, "name") or side.upper())
    partner = at(bots, f"{side}_partner", "name")
    return name if partner is None else f"{name}+{partner}"


def read_listing(root: Path, key: str = "") -> MatchListing:
    """The line of the match folder ``root`` (which must hold a match or a summary)."""
    summary, note = read_summary(root)
    folder = MatchFolder(root)
    header = read_object(folder.header_path) or {}
    bots = at(summary, "bots") or at(header, "bots") or {}
    played = number(at(summary, "games_played"), int)
    if at(summary, "status") == RUNNING or (played is None and folder.exists()):
        played = folder.finished_count()  # the records' names: none is read
    result = at(summary, "result") or {}
    stats = at(summary, "stats") or {}
    interval = at(stats, "elo_interval")
    return MatchListing(
        key=key,
        a=_team(bots, "a"),
        b=_team(bots, "b"),
        a_version=text(at(bots, "a", "version")),
        b_version=text(at(bots, "b", "version")),
        status=text(at(summary, "status")),
        games_planned=number(at(summary, "games_planned"), int),
        games_played=played,
        wins=number(at(result, "a", "wins"), int),
        losses=number(at(result, "a", "losses"), int),
        draws=number(at(result, "a", "draws"), int),
        a_points=number(at(result, "points", "a"), int),
        b_points=number(at(result, "points", "b"), int),
        elo=number(at(stats, "elo"), float),
        elo_interval=(
            (number(interval[0], float), number(interval[1], float))
            if isinstance(interval, list) and len(interval) == 2
            else None
        ),
        note=note,
    )


def read_summary(root: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The match's ``summary.json``, or ``None`` and why not (none yet is no problem)."""
    path = MatchFolder(root).summary_path
    if not path.exists():
        return None, None
    data = read_object(path)
    if data is None:
        return None, f"unreadable {path.name}"
    return data, None


def read_object(path: Path) -> dict[str, Any] | None:
    """A JSON object from ``path``, or ``None`` if there is none to read."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def at(data: object, *keys: str) -> Any:
    """``data[k1][k2]...``, or ``None`` where a level is missing or not an object."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def number(value: object, kind: type[int] | type[float]) -> Any:
    """``value`` as ``kind`` if it is a JSON number (not a boolean), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return kind(value)


def text(value: object) -> str | None:
    """``value`` as text, or ``None`` for nothing, an object or a list."""
    return None if value is None or isinstance(value, (dict, list)) else str(value)
